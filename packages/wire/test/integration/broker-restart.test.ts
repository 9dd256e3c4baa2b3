import { MetadataApi } from '@kafkats/codec';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerConnection, type ConnectionState, type DisconnectEvent } from '../../src/index.js';

describe('BrokerConnection across a broker stop and start (private 1-node cluster)', () => {
  let cluster: KafkaCluster;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 1 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('fails in-flight requests retriably, backs off while the broker is down, and recovers', async () => {
    const broker = cluster.brokers[0];
    if (broker === undefined) throw new Error('no broker');
    const c = new BrokerConnection({
      host: broker.host,
      port: broker.port,
      nodeId: broker.nodeId,
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
      const request = () =>
        MetadataApi.createRequest({ topics: null, allowAutoTopicCreation: false });
      // Traffic in the background while the broker goes away.
      let ok = 0;
      const failures: unknown[] = [];
      let stop = false;
      const traffic = (async () => {
        while (!stop) {
          try {
            await c.send(MetadataApi, request(), { timeoutMs: 120_000 });
            ok++;
          } catch (err) {
            failures.push(err);
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      })();
      while (ok < 20) await new Promise((r) => setTimeout(r, 10));
      await cluster.stopNode(broker.nodeId, { signal: 'SIGKILL' });
      while (states.filter((s) => s === 'backing-off').length < 2)
        await new Promise((r) => setTimeout(r, 50));
      const okWhileDown = ok;
      await cluster.startNode(broker.nodeId);
      while (ok < okWhileDown + 20) await new Promise((r) => setTimeout(r, 50));
      stop = true;
      await traffic;

      expect(disconnects.length).toBeGreaterThanOrEqual(1);
      expect(disconnects[0]?.broker).toBe(c.name);
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
