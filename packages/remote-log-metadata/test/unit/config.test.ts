// The event log's configuration: the defaults of its own (Kafka has no such setting; Kafka's
// defaults are checked against its classes in test/conformance/kafka-defaults.test.ts), and
// what a config that cannot work is refused with.
import { describe, expect, it } from 'vitest';
import { resolveLogConfig } from '../../src/config.js';
import {
  DEFAULT_METADATA_EVENT_QUEUE_CAPACITY,
  DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT,
  DEFAULT_MIN_ISR,
  DEFAULT_REPLICATION,
} from '../../src/index.js';

describe('KafkaMetadataLogConfig', () => {
  it('keeps the documented defaults of its own: a 64-batch queue, 30 s to create the topic', () => {
    expect(DEFAULT_METADATA_EVENT_QUEUE_CAPACITY).toBe(64);
    expect(DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT).toBe(30_000);
    const resolved = resolveLogConfig({ bootstrap: 'x:1' });
    expect(resolved).toMatchObject({
      queueCapacity: 64,
      topicCreateTimeoutMs: 30_000,
      replicationFactor: DEFAULT_REPLICATION,
      minInsyncReplicas: DEFAULT_MIN_ISR,
    });
  });

  it('lowers the default min ISR to a smaller replication factor, and refuses an explicit one above it', () => {
    expect(resolveLogConfig({ bootstrap: 'x:1', replicationFactor: 1 }).minInsyncReplicas).toBe(1);
    expect(() =>
      resolveLogConfig({ bootstrap: 'x:1', replicationFactor: 1, minInsyncReplicas: 2 }),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_KAFKA_RLMM_CONFIG_INVALID',
        message: expect.stringContaining('minInsyncReplicas 2 exceeds replicationFactor 1'),
      }),
    );
  });
});
