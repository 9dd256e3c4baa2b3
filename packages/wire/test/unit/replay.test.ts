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
      const all = await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false }),
      );
      expect(all.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
      expect(all.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const again = await c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      expect(again.brokers).toHaveLength(3);
      expect(again.topics).toEqual([]);
      expect(broker.requests.map((r) => r.apiKey)).toEqual([18, 3, 3]);
    } finally {
      await c.close();
      await broker.close();
    }
  });
});
