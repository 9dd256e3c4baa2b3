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

  it('re-authenticates on the same socket before the broker session expires (KIP-368)', async () => {
    const broker = cluster.brokers[0];
    const user = cluster.security?.users[1];
    const port = broker?.ports.SASL_PLAINTEXT;
    if (broker === undefined || user === undefined || port === undefined)
      throw new Error('no SASL listener');
    const proxy = await startFaultProxy({ target: { host: broker.host, port }, record: true });
    const c = new BrokerConnection({
      host: proxy.host,
      port: proxy.port,
      nodeId: broker.nodeId,
      sasl: { mechanism: 'SCRAM-SHA-512', username: user.username, password: user.password },
    });
    try {
      await c.connect();
      // Steady traffic for 8 s: well past two 3-second sessions.
      const until = Date.now() + 8000;
      let ok = 0;
      while (Date.now() < until) {
        await Promise.all([c.send(MetadataApi, request()), c.send(MetadataApi, request())]);
        ok += 2;
        await sleep(50);
      }
      const auths = proxy.recording().filter((e) => e.apiKey === SaslAuthenticateApi.apiKey);
      // SCRAM is two SaslAuthenticate rounds: the first login plus at least two re-logins.
      expect(auths.length).toBeGreaterThanOrEqual(6);
      expect(auths.every((e) => e.connection === 1 && e.response !== null)).toBe(true);
      expect(proxy.connectionsAccepted).toBe(1);
      expect(ok).toBeGreaterThan(20);
    } finally {
      await c.close();
      await proxy.close();
    }
  });
});
