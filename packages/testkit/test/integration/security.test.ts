import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedCluster } from '../../src/index.js';

// The shared cluster carries every listener: PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL with
// SCRAM-SHA-256/512 and PLAIN users created at format time, a CA made at start-up, and
// OAUTHBEARER validated against a JWKS file written at start-up.
describe("secured listeners of the shared cluster, driven by Kafka's Java clients", () => {
  it('exposes what a client needs: bootstrap per listener, the CA, users and mechanisms', () => {
    const cluster = sharedCluster();
    for (const listener of ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const) {
      expect(cluster.listeners[listener]?.split(',')).toHaveLength(3);
    }
    const security = cluster.security;
    expect(security).not.toBeNull();
    expect(readFileSync(security?.caPemPath ?? '', 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(security?.users.map((u) => u.username)).toEqual(['admin', 'alice', 'bob']);
    expect(security?.mechanisms).toEqual([
      'SCRAM-SHA-256',
      'SCRAM-SHA-512',
      'PLAIN',
      'OAUTHBEARER',
    ]);
    expect(readFileSync(security?.oauth?.jwksPath ?? '', 'utf8')).toContain('"RS256"');
  });

  it.each(['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] as const)(
    'produces and consumes over SASL_SSL with %s',
    async (mechanism) => {
      const cluster = sharedCluster();
      const topic = `testkit-sasl-${mechanism.toLowerCase()}-${randomUUID().slice(0, 8)}`;
      await cluster.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
      const user = cluster.security?.users[1];
      const client = cluster.javaAdmin({
        listener: 'SASL_SSL',
        mechanism,
        ...(user === undefined ? {} : { user }),
      });
      try {
        await client.produce(topic, [{ key: 'k', value: mechanism }]);
        const records = await client.consume(topic, { maxRecords: 1, timeoutMs: 20_000 });
        expect(records.map((r) => r.value?.toString())).toEqual([mechanism]);
      } finally {
        await client.close();
      }
    },
  );

  it('speaks plain TLS on SSL and SCRAM without TLS on SASL_PLAINTEXT', async () => {
    const cluster = sharedCluster();
    for (const listener of ['SSL', 'SASL_PLAINTEXT'] as const) {
      const client = cluster.javaAdmin({ listener });
      try {
        const described = await client.describeCluster();
        expect(described.nodes.map((n) => n.port).join(',')).toBe(
          cluster.brokers.map((b) => b.ports[listener]).join(','),
        );
      } finally {
        await client.close();
      }
    }
  });

  it('refuses a wrong SCRAM password with an authentication error', async () => {
    const cluster = sharedCluster();
    const client = cluster.javaAdmin({
      listener: 'SASL_SSL',
      mechanism: 'SCRAM-SHA-256',
      user: { username: 'alice', password: 'not-her-password' },
    });
    try {
      await expect(client.describeCluster()).rejects.toMatchObject({
        javaType: 'SaslAuthenticationException',
      });
    } finally {
      await client.close();
    }
  });
});
