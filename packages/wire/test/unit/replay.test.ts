import { join } from 'node:path';
import { MetadataApi } from '@kafkats/codec';
import { loadRecording, startReplayBroker } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { BrokerConnection } from '../../src/index.js';

const fixture = join(
  import.meta.dirname,
  '../../../../fixtures/recordings/api-versions-metadata.msgpack',
);

describe('replaying a recorded Kafka session (no cluster)', () => {
  it('negotiates from the real ApiVersions answer and decodes the real Metadata bytes', async () => {
    const recording = await loadRecording(fixture);
    expect(recording.kafkaVersion).toBe('4.4.0');
    const broker = await startReplayBroker(recording);
    const c = new BrokerConnection({ host: broker.host, port: broker.port, nodeId: 1 });
    try {
      const caps = await c.connect();
      const recordedMetadata = recording.exchanges.find((e) => e.apiKey === MetadataApi.apiKey);
      // The recording was made at the version we negotiate today; a codec upgrade shows here.
      expect(c.negotiatedVersion(MetadataApi)).toBe(recordedMetadata?.apiVersion);
      expect(caps.apiKeys().length).toBeGreaterThan(40);
      // Replayed in order: Metadata for no topics, for the 3-partition topic, for a missing one.
      const none = await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      expect(none.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
      expect(none.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(none.topics).toEqual([]);
      const one = await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      const topic = one.topics[0];
      expect(topic?.errorCode).toBe(0);
      expect(topic?.partitions.map((p) => p.replicaNodes.length)).toEqual([3, 3, 3]);
      for (const p of topic?.partitions ?? []) expect(p.replicaNodes).toContain(p.leaderId);
      const missing = await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      expect(missing.topics[0]?.errorCode).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION
      expect(broker.requests.map((r) => r.apiKey)).toEqual([18, 3, 3, 3]);
    } finally {
      await c.close();
      await broker.close();
    }
  });
});
