import { readFileSync } from 'node:fs';
import { ApiVersionsApi, MetadataApi, type MetadataResponse } from '@kafkats/codec';
import { sharedCluster, startFaultProxy } from '@kafkats/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BrokerConnection,
  type BrokerConnectionOptions,
  parseBrokerAddress,
} from '../../src/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const metadataRequest = () =>
  MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false });

function open(address: string, options: Partial<BrokerConnectionOptions> = {}): BrokerConnection {
  const { host, port } = parseBrokerAddress(address);
  const c = new BrokerConnection({ host, port, ...options });
  cleanups.push(() => c.close());
  return c;
}

function firstOf(list: string | undefined): string {
  const first = list?.split(',')[0];
  if (first === undefined || first === '')
    throw new Error('listener missing from the shared cluster');
  return first;
}

function expectThreeBrokers(res: MetadataResponse, clusterId: string) {
  expect(res.clusterId).toBe(clusterId);
  expect(res.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
}

describe('BrokerConnection against Kafka (shared 3-node cluster)', () => {
  it('PLAINTEXT: negotiates every API the broker offers and pipelines 200 requests', async () => {
    const cluster = sharedCluster();
    const c = open(firstOf(cluster.listeners.PLAINTEXT), { maxInFlight: 16 });
    const caps = await c.connect();
    expect(caps.apiVersionsVersion).toBeGreaterThanOrEqual(3);
    expect(caps.range(ApiVersionsApi.apiKey)?.maxVersion).toBeGreaterThanOrEqual(3);
    expect(c.negotiatedVersion(MetadataApi)).toBe(
      Math.min(MetadataApi.maxVersion, caps.range(MetadataApi.apiKey)?.maxVersion ?? -1),
    );
    const before = c.stats.writes;
    const all = await Promise.all(
      Array.from({ length: 200 }, () => c.send(MetadataApi, metadataRequest())),
    );
    for (const res of all) expectThreeBrokers(res, cluster.clusterId);
    // 200 requests through 16 slots: far fewer writes than requests.
    expect(c.stats.writes - before).toBeLessThan(200);
    expect(c.state).toBe('ready');
  });

  it.each(['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] as const)(
    'SASL_SSL with %s: TLS verified against the cluster CA, then authenticated',
    async (mechanism) => {
      const cluster = sharedCluster();
      const security = cluster.security;
      const user = security?.users[1];
      if (security === null || user === undefined)
        throw new Error('the shared cluster has no SASL users');
      const c = open(firstOf(cluster.listeners.SASL_SSL), {
        tls: { ca: readFileSync(security.caPemPath) },
        sasl: { mechanism, username: user.username, password: user.password },
      });
      expectThreeBrokers(await c.send(MetadataApi, metadataRequest()), cluster.clusterId);
    },
  );

  it('a wrong SCRAM password fails fast with the broker reason, once, without the password', async () => {
    const cluster = sharedCluster();
    const security = cluster.security;
    if (security === null) throw new Error('no security');
    const target = parseBrokerAddress(firstOf(cluster.listeners.SASL_SSL));
    const proxy = await startFaultProxy({ target });
    cleanups.push(() => proxy.close());
    const password = 'definitely-not-alices-password';
    const c = open(proxy.address, {
      tls: { ca: readFileSync(security.caPemPath) },
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password },
    });
    const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
    // Kafka's own words (SaslAuthenticate errorMessage).
    expect((err as Error).message).toMatch(
      /Authentication failed.*invalid credentials.*SCRAM-SHA-256/i,
    );
    expect((err as Error).message).not.toContain(password);
    expect(c.state).toBe('closed');
    await new Promise((r) => setTimeout(r, 500));
    expect(proxy.connectionsAccepted).toBe(1); // no retry loop
  });

  it('an untrusted server certificate is a fatal TLS authentication error', async () => {
    const cluster = sharedCluster();
    const c = open(firstOf(cluster.listeners.SSL), { tls: true });
    const err = await c.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_TLS', retriable: false });
    expect(c.state).toBe('closed');
  });

  it('DNS: a name resolving to ::1 first reaches a broker listening on 127.0.0.1 only', async () => {
    const cluster = sharedCluster();
    const plain = parseBrokerAddress(firstOf(cluster.listeners.PLAINTEXT));
    const asked: string[] = [];
    const c = open(`kafka-broker-1.kafkats.test:${plain.port}`, {
      resolver: async (host) => {
        asked.push(host);
        return [
          { address: '::1', family: 6 },
          { address: '127.0.0.1', family: 4 },
        ];
      },
    });
    expectThreeBrokers(await c.send(MetadataApi, metadataRequest()), cluster.clusterId);
    expect(asked).toEqual(['kafka-broker-1.kafkats.test']);
  });
});
