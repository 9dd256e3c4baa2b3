// Acceptance tests for who owns timeouts and reconnects, against real Apache Kafka on a private
// 3-node cluster (its brokers are paused, killed and restarted). Requests and connections are
// counted where they happen (a spy around the wire's connection factory, a TCP proxy), never
// timed: the claims are "on a new connection", "in one attempt", "before the other settles".
import { createOffsetCommitRequest, MetadataApi, OffsetCommitApi } from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy } from '@kafkats/testkit';
import { BackpressureError, RequestTimeoutError } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetadataRequest, Cluster } from '../../src/index.js';
import { connectsTo, spyFactory } from './spy-factory.js';

const metadata = (v: number) => buildMetadataRequest(null, v);

describe('stalls, floods and restarts on a private 3-node cluster', () => {
  let kafka: KafkaCluster;

  beforeAll(async () => {
    kafka = await startCluster({
      nodes: 3,
      brokerConfig: { 'auto.leader.rebalance.enable': 'false' },
    });
  });
  afterAll(async () => {
    await kafka?.stop();
  });

  it('a broker that stops answering times out after requestTimeoutMs, delays no other broker, and serves again after one connect', async () => {
    const { factory, connects, sent } = spyFactory({});
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      requestTimeoutMs: 1_500,
      refreshIntervalMs: 0,
    });
    const [a, b] = kafka.brokers;
    if (a === undefined || b === undefined) throw new Error('brokers');
    try {
      // Warm both connections.
      await cluster.sendToNode(a.nodeId, MetadataApi, metadata);
      await cluster.sendToNode(b.nodeId, MetadataApi, metadata);
      const connectsBefore = connectsTo(connects, a.nodeId);
      kafka.pauseNode(a.nodeId);
      const order: string[] = [];
      let stalled: unknown;
      try {
        const toPaused = cluster
          .sendToNode(a.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
          .then(
            () => order.push('paused broker answered'),
            (e: unknown) => {
              stalled = e;
              order.push('paused broker timed out');
            },
          );
        const toOther = cluster
          .sendToNode(b.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
          .then(() => order.push('other broker answered'));
        await Promise.all([toPaused, toOther]);
      } finally {
        kafka.resumeNode(a.nodeId);
      }
      // The other broker's answer came while the paused one was still waiting.
      expect(order).toEqual(['other broker answered', 'paused broker timed out']);
      expect(stalled).toBeInstanceOf(RequestTimeoutError);
      expect(stalled).toMatchObject({ code: 'ERR_KAFKA_REQUEST_TIMEOUT', retriable: true });
      expect((stalled as Error).message).toMatch(/got no response in 1500 ms/);

      // After SIGCONT: one new connection, one request, success.
      const sentBefore = sent.length;
      await cluster.sendToNode(a.nodeId, MetadataApi, metadata, { maxAttempts: 1 });
      expect(connectsTo(connects, a.nodeId)).toBe(connectsBefore + 1);
      const after = sent.slice(sentBefore).map(({ nodeId, apiKey, outcome }) => ({
        node: nodeId,
        apiKey,
        outcome,
      }));
      expect(after.filter((s) => s.node === a.nodeId)).toEqual([
        { node: a.nodeId, apiKey: MetadataApi.apiKey, outcome: 'ok' },
      ]);
    } finally {
      await cluster.close();
    }
  });

  it('a response held past its timeout costs the next call nothing: it goes out at once on a new connection', async () => {
    const target = kafka.brokers[1];
    if (target === undefined) throw new Error('broker');
    const proxy = await startFaultProxy({ target: { host: target.host, port: target.port } });
    // Node `target` is reached through the proxy; the others directly.
    const { factory, sent } = spyFactory({}, (t) =>
      t.nodeId === target.nodeId ? { host: proxy.host, port: proxy.port } : t,
    );
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      requestTimeoutMs: 1_000,
      refreshIntervalMs: 0,
    });
    try {
      await cluster.sendToNode(target.nodeId, MetadataApi, metadata);
      const acceptedBefore = proxy.connectionsAccepted;
      proxy.delayMs = 5_000; // the answer to the next request arrives long after its timeout
      const held = await cluster
        .sendToNode(target.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
        .catch((e: unknown) => e);
      expect(held).toBeInstanceOf(RequestTimeoutError);
      proxy.delayMs = 0;
      const sentBefore = sent.length;
      const next = await cluster.sendToNode(target.nodeId, MetadataApi, metadata, {
        maxAttempts: 1,
      });
      expect(next.brokers.length).toBe(3);
      // One attempt, on a connection opened after the timeout: it never queued behind the
      // held answer, which would have arrived only after another 4 s.
      expect(
        sent
          .slice(sentBefore)
          .map(({ nodeId, apiKey, outcome }) => ({ node: nodeId, apiKey, outcome })),
      ).toEqual([{ node: target.nodeId, apiKey: MetadataApi.apiKey, outcome: 'ok' }]);
      expect(proxy.connectionsAccepted).toBe(acceptedBefore + 1);
    } finally {
      await cluster.close();
      await proxy.close();
    }
  });

  it('flooding one connection to a full queue refreshes no metadata and looks up no coordinator', async () => {
    const { factory, sent } = spyFactory({
      maxInFlight: 1,
      maxQueuedRequests: 2,
      queuePolicy: 'reject',
    });
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
      retry: { maxAttempts: 3, backoffMs: 1, maxBackoffMs: 5 },
    });
    const group = `flood-${Date.now()}`;
    try {
      // Know the coordinator first; then every OffsetCommit goes to it.
      await cluster.coordinator('group', group);
      const metadataBefore = sent.filter((s) => s.apiKey === MetadataApi.apiKey).length;
      const lookupsBefore = sent.filter((s) => s.apiKey === 10).length;
      const commit = () =>
        createOffsetCommitRequest({ groupId: group, generationIdOrMemberEpoch: -1, topics: [] });
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, () =>
          cluster
            .sendToCoordinator('group', group, OffsetCommitApi, commit, { maxAttempts: 1 })
            .then(
              () => 'ok',
              (e: unknown) => (e instanceof BackpressureError ? 'backpressure' : String(e)),
            ),
        ),
      );
      expect(outcomes.filter((o) => o === 'backpressure').length).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o !== 'backpressure' && o !== 'ok')).toEqual([]);
      // With retries on, refused sends come back later and still refresh nothing.
      await Promise.all(
        Array.from({ length: 50 }, () =>
          cluster
            .sendToCoordinator('group', group, OffsetCommitApi, commit)
            .catch((e: unknown) => e),
        ),
      );
      expect(sent.filter((s) => s.apiKey === MetadataApi.apiKey).length).toBe(metadataBefore);
      expect(sent.filter((s) => s.apiKey === 10).length).toBe(lookupsBefore);
    } finally {
      await cluster.close();
    }
  });

  it('fails requests retriably while a broker is killed mid-traffic, and the pool dials it again once it is back', async () => {
    const { factory, connects } = spyFactory({ maxInFlight: 8 });
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
      pool: { reconnectBackoffMs: 50, reconnectBackoffMaxMs: 1000 },
    });
    const victim = kafka.brokers[2];
    if (victim === undefined) throw new Error('broker');
    try {
      let ok = 0;
      let stop = false;
      const failures: unknown[] = [];
      const worker = async () => {
        while (!stop) {
          try {
            await cluster.sendToNode(victim.nodeId, MetadataApi, metadata, { maxAttempts: 1 });
            ok++;
          } catch (error) {
            failures.push(error);
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      while (ok < 200) await new Promise((r) => setTimeout(r, 10));
      const connectsBefore = connectsTo(connects, victim.nodeId);
      await kafka.stopNode(victim.nodeId, { signal: 'SIGKILL' });
      while (failures.length < 10) await new Promise((r) => setTimeout(r, 20));
      const okWhileDown = ok;
      await kafka.startNode(victim.nodeId);
      while (ok < okWhileDown + 200) await new Promise((r) => setTimeout(r, 20));
      stop = true;
      await Promise.all(workers);
      for (const f of failures) {
        expect(f).toMatchObject({ retriable: true });
        expect((f as { code: string }).code).toMatch(/^ERR_KAFKA_CONNECTION_(LOST|FAILED)$/);
      }
      // The pool dialled again (after its backoff) and the connection it got serves requests.
      expect(connectsTo(connects, victim.nodeId)).toBeGreaterThan(connectsBefore);
    } finally {
      await cluster.close();
    }
  });
});
