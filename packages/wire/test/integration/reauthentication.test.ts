import { MetadataApi, SaslAuthenticateApi } from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerConnection } from '../../src/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = () => MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false });

// A private 1-node cluster: SASL_PLAINTEXT with a 3 s session lifetime, for re-authentication
// (KIP-368). Recovery from a killed broker is the pool's: see meta's broker-restart test.
describe('BrokerConnection on a private 1-node cluster', () => {
  let cluster: KafkaCluster;
  beforeAll(async () => {
    cluster = await startCluster({
      nodes: 1,
      listeners: ['SASL_PLAINTEXT'],
      brokerConfig: { 'connections.max.reauth.ms': 3000 },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('re-authenticates PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 on the same sockets before the sessions expire (KIP-368)', async () => {
    const broker = cluster.brokers[0];
    const user = cluster.security?.users[1];
    const port = broker?.ports.SASL_PLAINTEXT;
    if (broker === undefined || user === undefined || port === undefined)
      throw new Error('no SASL listener');
    const proxy = await startFaultProxy({ target: { host: broker.host, port }, record: true });
    const mechanisms = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
    const connections = mechanisms.map(
      (mechanism) =>
        new BrokerConnection({
          host: proxy.host,
          port: proxy.port,
          nodeId: broker.nodeId,
          sasl: { mechanism, username: user.username, password: user.password },
        }),
    );
    try {
      // One at a time, so the proxy numbers the connections in this order.
      for (const c of connections) await c.connect();
      // Steady traffic for 8 s on all three: well past two 3-second sessions each.
      const until = Date.now() + 8000;
      let ok = 0;
      while (Date.now() < until) {
        await Promise.all(
          connections.flatMap((c) => [
            c.send(MetadataApi, request()),
            c.send(MetadataApi, request()),
          ]),
        );
        ok += 2;
        await sleep(50);
      }
      const auths = proxy.recording().filter((e) => e.apiKey === SaslAuthenticateApi.apiKey);
      expect(auths.every((e) => e.response !== null)).toBe(true);
      const rounds = (connection: number) =>
        auths.filter((e) => e.connection === connection).length;
      // The first login plus at least two re-logins each: PLAIN is one SaslAuthenticate
      // round, SCRAM two.
      expect(rounds(1)).toBeGreaterThanOrEqual(3);
      expect(rounds(2)).toBeGreaterThanOrEqual(6);
      expect(rounds(3)).toBeGreaterThanOrEqual(6);
      expect(proxy.connectionsAccepted).toBe(3);
      expect(ok).toBeGreaterThan(20);
    } finally {
      for (const c of connections) await c.close();
      await proxy.close();
    }
  });
});
