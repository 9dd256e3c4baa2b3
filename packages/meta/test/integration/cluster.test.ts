// Acceptance tests for @kafkats/meta against real Apache Kafka. The second,
// independent client is Kafka's own Java admin from the testkit; connections are the wire's.
// This file: routing, snapshots and pooling on the shared cluster (cluster-private.test.ts
// has the ones that stop brokers on a private cluster).
import { randomUUID } from 'node:crypto';
import {
  createListOffsetsRequest,
  ErrorCode,
  ListOffsetsApi,
  type ListOffsetsResponse,
  MetadataApi,
} from '@kafkats/codec';
import { sharedCluster, startFaultProxy } from '@kafkats/testkit';
import { ConnectionError } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BrokerPool,
  buildMetadataRequest,
  Cluster,
  classify,
  type MetaConnection,
  type MetadataSnapshot,
  wireConnectionFactory,
} from '../../src/index.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * A targeted refresh that asks again (bounded) until every topic shows `partitions` partitions,
 * each with a leader. Brokers learn a new topic at slightly different times (the testkit's
 * createTopic says so), and `any` broker may be one that does not know it yet and answers
 * UNKNOWN_TOPIC_OR_PARTITION: propagation, not what these tests are about.
 */
async function refreshUntilKnown(
  cluster: Cluster,
  topics: readonly string[],
  partitions: number,
): Promise<MetadataSnapshot> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const snapshot = await cluster.refreshTopics(topics);
    const known = topics.every((t) => {
      const info = snapshot.topic(t);
      return (
        info?.partitions.length === partitions &&
        info.partitions.every((p) => p.leader !== undefined)
      );
    });
    if (known || Date.now() > deadline) return snapshot;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const listOffsets = (topic: string, partition: number) =>
  createListOffsetsRequest({
    replicaId: -1,
    topics: [
      {
        name: topic,
        partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }],
      },
    ],
  } as never);

function partitionError(response: ListOffsetsResponse): number {
  return response.topics[0]?.partitions[0]?.errorCode ?? -999;
}

describe('against the shared 3-node cluster', () => {
  const shared = sharedCluster();
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.connect(shared.bootstrap, { refreshIntervalMs: 0 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('resolves every partition of a 6-partition RF=3 topic to a leader inside its replica set, spread over the brokers', async () => {
    const topic = unique('meta-spread');
    const java = await shared.admin.createTopic(topic, { partitions: 6, replicationFactor: 3 });
    const snapshot = await refreshUntilKnown(cluster, [topic], 6);
    const info = snapshot.topic(topic);
    expect(info?.errorCode).toBe(0);
    expect(info?.topicId).toBe(java.topicId);
    expect(info?.partitions.length).toBe(6);
    const leaders = new Set<number>();
    for (const p of info?.partitions ?? []) {
      expect(p.leader).toBeDefined();
      expect(p.replicas).toContain(p.leader);
      expect(p.replicas.length).toBe(3);
      leaders.add(p.leader as number);
      // The Java admin, asked independently, agrees on the replica set.
      expect([...p.replicas].sort()).toEqual(
        [...(java.partitions[p.partition]?.replicas ?? [])].sort(),
      );
    }
    expect(leaders.size).toBeGreaterThan(1);
    // And a leader-routed request for every partition is answered without error by its leader
    // (a broker that has not yet heard it leads a brand-new partition says NOT_LEADER_OR_FOLLOWER
    // inside the answer; ListOffsets is a read, so the dispatcher may re-ask).
    for (let partition = 0; partition < 6; partition++) {
      const response = await cluster.sendToLeader(
        topic,
        partition,
        ListOffsetsApi,
        listOffsets(topic, partition),
        {
          retryInnerMetadataErrors: true,
        },
      );
      expect(partitionError(response)).toBe(ErrorCode.NONE);
    }
  });

  it('sees a held snapshot unchanged, and every snapshot consistent, while refreshes land', async () => {
    const topics = [unique('meta-reader-a'), unique('meta-reader-b')];
    let stop = false;
    let checked = 0;
    const reader = (async () => {
      while (!stop) {
        const held = cluster.snapshot();
        const before = JSON.stringify(held);
        const nodes = new Set(held.brokers.map((b) => b.nodeId));
        for (const t of held.topics) {
          for (const p of t.partitions)
            if (p.leader !== undefined) expect(nodes.has(p.leader)).toBe(true);
        }
        await new Promise((r) => setTimeout(r, 1));
        // A refresh may have landed meanwhile; the snapshot we hold did not move.
        expect(JSON.stringify(held)).toBe(before);
        expect(Object.isFrozen(held.topics)).toBe(true);
        checked++;
      }
    })();
    const refreshes = (async () => {
      for (let i = 0; i < 10; i++) await cluster.refresh();
    })();
    for (const t of topics)
      await shared.admin.createTopic(t, { partitions: 3, replicationFactor: 2 });
    await refreshes;
    await refreshUntilKnown(cluster, topics, 3);
    stop = true;
    await reader;
    expect(checked).toBeGreaterThan(5);
    for (const t of topics) expect(cluster.snapshot().topic(t)?.partitions.length).toBe(3);
  });

  it('routes Metadata anywhere and refuses to route a leader API without its partition', async () => {
    const version = (await cluster.negotiatedFor(MetadataApi.apiKey)) ?? 0;
    expect(version).toBeGreaterThanOrEqual(12);
    const response = await cluster.sendRouted(MetadataApi, buildMetadataRequest(null, version));
    expect(response.brokers.length).toBe(3);
    await expect(cluster.sendRouted(ListOffsetsApi, listOffsets('x', 0))).rejects.toMatchObject({
      code: 'ERR_KAFKA_ROUTING_NEEDS_TARGET',
    });
  });

  it('a request in flight when the pool leaves a broker that moved fails retriable, and the new connection answers', async () => {
    const broker = shared.brokers[0];
    if (broker === undefined) throw new Error('no broker');
    // The broker is first known at a proxy's address, then "moves" to its own.
    const proxy = await startFaultProxy({ target: { host: broker.host, port: broker.port } });
    const pool = new BrokerPool([`${broker.host}:${broker.port}`], wireConnectionFactory());
    const at = (host: string, port: number) => [{ nodeId: broker.nodeId, host, port, rack: null }];
    const metadata = (c: MetaConnection) => {
      const version = c.negotiatedVersion(MetadataApi.apiKey) ?? 0;
      return c.send(MetadataApi, buildMetadataRequest(null, version), { version });
    };
    try {
      pool.learnAddresses(at(proxy.host, proxy.port));
      const viaProxy = await pool.get({ nodeId: broker.nodeId });
      proxy.delayMs = 10_000; // the request reaches the broker late: it stays in flight
      const held = metadata(viaProxy).catch((e: unknown) => e);
      await vi.waitFor(() => expect(viaProxy.inFlight).toBe(1));
      pool.learnAddresses(at(broker.host, broker.port));
      const error = await held;
      // As Kafka's NetworkClient completes it with a DisconnectException: send it again.
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true });
      expect(classify(error, 'node').retry).toBe(true);
      const direct = await pool.get({ nodeId: broker.nodeId });
      expect(direct).not.toBe(viaProxy);
      expect((await metadata(direct)).brokers).toHaveLength(3);
    } finally {
      await pool.close();
      await proxy.close();
    }
  });

  it('opens one socket for twenty concurrent callers (counted at a TCP proxy)', async () => {
    const first = shared.brokers[0];
    if (first === undefined) throw new Error('no broker');
    const proxy = await startFaultProxy({ target: { host: first.host, port: first.port } });
    const pool = new BrokerPool([proxy.address], wireConnectionFactory());
    try {
      const connections = await Promise.all(
        Array.from({ length: 20 }, () => pool.get({ bootstrap: proxy.address })),
      );
      expect(new Set(connections).size).toBe(1);
      const answers = await Promise.all(
        connections.map((c) => {
          const version = c.negotiatedVersion(MetadataApi.apiKey) ?? 0;
          return c.send(MetadataApi, buildMetadataRequest(null, version), { version });
        }),
      );
      expect(answers.every((a) => a.brokers.length === 3)).toBe(true);
      expect(proxy.connectionsAccepted).toBe(1);
    } finally {
      await pool.close();
      await proxy.close();
    }
  });
});
