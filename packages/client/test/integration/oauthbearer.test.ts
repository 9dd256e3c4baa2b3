// The client over SASL/OAUTHBEARER (KIP-255) with tokens from an OIDC token endpoint (client
// credentials, KIP-768): the brokers validate them with Kafka's own
// OAuthBearerValidatorCallbackHandler. Admin, an idempotent Producer and a group Consumer each
// connect as the token's subject; Kafka's Java admin checks what they did. A static token (a
// JWT the application holds) produces and consumes too.
import { Cluster } from '@kafkats/meta';
import { mintToken, type OAuthServer, sharedCluster, startOAuthServer } from '@kafkats/testkit';
import { oauthClientCredentials } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { unique } from './admin-support.js';

const kafka = sharedCluster();
let server: OAuthServer;
let bootstrap: string;

beforeAll(async () => {
  const oauth = kafka.security?.oauth;
  const sasl = kafka.listeners.SASL_PLAINTEXT;
  if (oauth == null || sasl === undefined) throw new Error('no OAUTHBEARER listener');
  bootstrap = sasl;
  server = await startOAuthServer(oauth, [
    { clientId: 'billing', clientSecret: 'billing-secret-1' },
  ]);
});
afterAll(async () => {
  await server?.close();
});

const connection = () => ({
  sasl: {
    mechanism: 'OAUTHBEARER' as const,
    tokenProvider: oauthClientCredentials({
      tokenEndpointUrl: server.tokenEndpointUrl,
      clientId: 'billing',
      clientSecret: 'billing-secret-1',
    }),
  },
});

describe('Admin, Producer and Consumer over SASL/OAUTHBEARER', () => {
  it('creates a topic, produces idempotently, and a group reads every record and commits', async () => {
    const topic = unique('oauth');
    const groupId = unique('oauth-g');
    const admin = await Admin.connect(bootstrap, { connection: connection() });
    const cluster = await Cluster.connect(bootstrap, { connection: connection() });
    try {
      await admin.createTopics([{ name: topic, numPartitions: 3, replicationFactor: 3 }], {
        waitForLeaders: true,
      });
      expect(await kafka.admin.listTopics()).toContain(topic);

      const producer = new Producer(cluster, { compression: 'lz4' });
      const total = 3000;
      await producer.sendBatch(
        Array.from({ length: total }, (_, i) => ({ topic, key: `k${i % 50}`, value: `v${i}` })),
      );
      await producer.close();

      const consumer = new Consumer(cluster, {
        groupId,
        topics: [topic],
        autoOffsetReset: 'earliest',
        enableAutoCommit: false,
      });
      const seen = new Set<string>();
      for await (const batch of consumer) {
        for (const r of batch.records) seen.add(String(r.value));
        await consumer.commit();
        if (seen.size >= total) break;
      }
      // Leaving the loop finished the last batch: commit it too.
      await consumer.commit();
      await consumer.close();
      expect(seen.size).toBe(total);

      // The group's commits account for every record, and Kafka's Java consumer reads them all.
      const offsets = await admin.listConsumerGroupOffsets(groupId);
      const committed = offsets.partitions.reduce((n, p) => n + Number(p.offset), 0);
      expect(committed).toBe(total);
      const java = await kafka.admin.consume(topic, { maxRecords: total, timeoutMs: 30_000 });
      expect(new Set(java.map((r) => String(r.value))).size).toBe(total);
    } finally {
      await cluster.close();
      await admin.close();
    }
  });

  it('a static token (a JWT the application holds) produces and a group reads it back', async () => {
    const oauth = kafka.security?.oauth;
    if (oauth == null) throw new Error('no OAUTHBEARER settings');
    const topic = unique('oauth-static');
    await kafka.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    const token = mintToken(oauth, { subject: 'reporting' });
    const cluster = await Cluster.connect(bootstrap, {
      connection: { sasl: { mechanism: 'OAUTHBEARER', tokenProvider: async () => token } },
    });
    try {
      const producer = new Producer(cluster);
      await producer.sendBatch(Array.from({ length: 100 }, (_, i) => ({ topic, value: `s${i}` })));
      await producer.close();
      const consumer = new Consumer(cluster, {
        groupId: unique('oauth-static-g'),
        topics: [topic],
        autoOffsetReset: 'earliest',
      });
      const seen = new Set<string>();
      for await (const batch of consumer) {
        for (const r of batch.records) seen.add(String(r.value));
        if (seen.size >= 100) break;
      }
      await consumer.close();
      expect(seen.size).toBe(100);
      expect(await kafka.admin.consume(topic, { maxRecords: 100, timeoutMs: 30_000 })).toHaveLength(
        100,
      );
    } finally {
      await cluster.close();
    }
  });
});
