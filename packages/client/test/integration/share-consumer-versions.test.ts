// The share consumer against every release of the version matrix: Kafka 4.1+ offers share
// groups (KIP-932) and a member joins; 3.9 and 4.0 do not, and start() says so with a typed
// error before any share-group request is sent.
import { ApiKey } from '@kafkats/codec';
import { kafkaVersionAtLeast, sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import {
  Cluster,
  ShareConsumer,
  ShareGroupsUnsupportedError,
  UnsupportedVersionError,
} from '../../src/index.js';
import { spyFactory, unique } from './support.js';

const shared = sharedCluster();
const SHARE_GROUPS = kafkaVersionAtLeast(shared.description.kafkaVersion, '4.1');
const SHARE_APIS = new Set<number>([
  ApiKey.ShareGroupHeartbeat,
  ApiKey.ShareFetch,
  ApiKey.ShareAcknowledge,
]);

describe('ShareConsumer and the broker version', () => {
  it(`${SHARE_GROUPS ? 'joins' : 'refuses to start'} on Kafka ${shared.description.kafkaVersion}`, async () => {
    const topic = unique('share-versions');
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    const spy = spyFactory();
    const cluster = await Cluster.connect(shared.bootstrap, { connectionFactory: spy.factory });
    const consumer = new ShareConsumer(cluster, { groupId: unique('share-g'), topics: [topic] });
    try {
      if (!SHARE_GROUPS) {
        const error = await consumer.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ShareGroupsUnsupportedError);
        expect(error).toBeInstanceOf(UnsupportedVersionError);
        expect((error as ShareGroupsUnsupportedError).code).toBe('ERR_KAFKA_VERSION_UNSUPPORTED');
        expect((error as ShareGroupsUnsupportedError).api).toBe('ShareFetch');
        expect((error as Error).message).toContain('KIP-932');
        expect(spy.sent.filter((s) => SHARE_APIS.has(s.apiKey))).toEqual([]);
        return;
      }
      await consumer.start();
      expect(consumer.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(spy.sent.some((s) => s.apiKey === ApiKey.ShareGroupHeartbeat)).toBe(true);
    } finally {
      await consumer.close();
      await cluster.close();
    }
  });
});
