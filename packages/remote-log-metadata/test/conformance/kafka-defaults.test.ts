// The metadata topic's defaults, as Kafka's own TopicBasedRemoteLogMetadataManagerConfig and
// ConsumerConfig in the pinned jars have them: the constants this package documents as Kafka's
// are read back from those classes, so a release that changes one fails here.
import { runRlmmOracle } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONSUME_WAIT_MS,
  DEFAULT_METADATA_FETCH_MAX_BYTES,
  DEFAULT_METADATA_FETCH_MAX_WAIT,
  DEFAULT_METADATA_FETCH_RETRY_BACKOFF,
  DEFAULT_MIN_ISR,
  DEFAULT_NUM_PARTITIONS,
  DEFAULT_REPLICATION,
  DEFAULT_RETENTION_MS,
  METADATA_TOPIC,
} from '../../src/index.js';

describe("defaults against Kafka's own config classes", () => {
  it('the metadata topic and its clients default as the pinned release does', async () => {
    const [kafka] = (await runRlmmOracle([{ op: 'defaults' }])) as Record<string, unknown>[];
    expect(kafka).toEqual({
      topic: METADATA_TOPIC,
      numPartitions: DEFAULT_NUM_PARTITIONS,
      replicationFactor: DEFAULT_REPLICATION,
      minIsr: DEFAULT_MIN_ISR,
      retentionMs: String(DEFAULT_RETENTION_MS),
      consumeWaitMs: String(DEFAULT_CONSUME_WAIT_MS),
      fetchMaxWaitMs: DEFAULT_METADATA_FETCH_MAX_WAIT,
      maxPartitionFetchBytes: DEFAULT_METADATA_FETCH_MAX_BYTES,
      retryBackoffMs: String(DEFAULT_METADATA_FETCH_RETRY_BACKOFF),
    });
  });
});
