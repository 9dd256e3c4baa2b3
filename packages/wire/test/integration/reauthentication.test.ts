import { MetadataApi, SaslAuthenticateApi } from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BrokerConnection,
  type ConnectionState,
  type DisconnectEvent,
  parseBrokerAddress,
} from '../../src/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = () => MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false });

// One private 1-node cluster (the shared one must not be stopped): PLAINTEXT for the restart
// test, SASL_PLAINTEXT with a 3 s session lifetime for re-authentication (KIP-368).
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
      expect(c.stats.connects).toBe(1);
      expect(ok).toBeGreaterThan(20);
    } finally {
      await c.close();
      await proxy.close();
    }
  });

  it('fails in-flight requests retriably when the broker dies mid-traffic, backs off, and recovers', async () => {
    const broker = cluster.brokers[0];
    if (broker === undefined) throw new Error('no broker');
    const { host, port } = parseBrokerAddress(`${broker.host}:${broker.port}`);
    const c = new BrokerConnection({
      host,
      port,
      nodeId: broker.nodeId,
      maxInFlight: 8,
      requestTimeoutMs: 120_000,
      reconnectBackoffMs: 50,
      reconnectBackoffMaxMs: 1000,
    });
    const states: ConnectionState[] = [];
    const disconnects: DisconnectEvent[] = [];
    c.on('state', (s) => states.push(s));
    c.on('disconnect', (e) => disconnects.push(e));
    try {
      await c.connect();
      // Eight workers keep the pipeline full while the broker is killed.
      let ok = 0;
      const failures: unknown[] = [];
      let stop = false;
      const worker = async () => {
        while (!stop) {
          try {
            await c.send(MetadataApi, request());
            ok++;
          } catch (err) {
            failures.push(err);
            await sleep(20);
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      while (ok < 200) await sleep(10);
      await cluster.stopNode(broker.nodeId, { signal: 'SIGKILL' });
      while (states.filter((s) => s === 'backing-off').length < 2) await sleep(50);
      const okWhileDown = ok;
      await cluster.startNode(broker.nodeId);
      while (ok < okWhileDown + 200) await sleep(50);
      stop = true;
      await Promise.all(workers);

      expect(disconnects.length).toBeGreaterThanOrEqual(1);
      expect(disconnects[0]?.broker).toBe(c.name);
      expect(failures.length).toBeGreaterThanOrEqual(1);
      for (const f of failures) {
        expect(f).toMatchObject({ retriable: true });
        expect((f as { code: string }).code).toMatch(/^ERR_KAFKA_CONNECTION_(LOST|FAILED)$/);
      }
      expect(states).toContain('backing-off');
      expect(states.at(-1)).toBe('ready');
      expect(c.stats.connects).toBeGreaterThanOrEqual(2);
    } finally {
      await c.close();
    }
  });
});
