// Reading as replicas change, on a private 3-node cluster with a rack per broker and Kafka's
// RackAwareReplicaSelector.
//
// Follower fetching (KIP-392): a reader in a follower's rack gets its records from that
// follower (the leader answers its Fetch naming the replica, and the replica serves what
// follows); a reader in the leader's rack reads from the leader; a group Consumer with a rack id
// fetches from its rack's replica too. When the preferred replica is stopped, reads go back to
// the leader with nothing lost or read twice.
//
// Log truncation (KIP-320): an unclean election makes a lagging replica leader, and its log
// parts from what the readers read. After the leader change they check their positions
// (OffsetsForLeaderEpoch): a reader with a reset policy goes back to the first offset known to
// diverge and reads the new leader's records there, the ones Kafka's Java consumer finds, and
// so does a group Consumer; a reader with `offsetOutOfRange: 'error'` stops with
// LogTruncationError naming that offset.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Admin,
  Cluster,
  Consumer,
  FETCH_CHANNEL,
  type FetchTraceContext,
  LogTruncationError,
  type PartitionBatch,
  PartitionReader,
  Producer,
} from '../../src/index.js';
import { unique } from './admin-support.js';
import { readWhile, recordsOf } from './support.js';

let kafka: KafkaCluster;
let cluster: Cluster;

beforeAll(async () => {
  kafka = await startCluster({
    nodes: 3,
    brokerConfig: {
      'replica.selector.class': 'org.apache.kafka.common.replica.RackAwareReplicaSelector',
    },
    nodeConfig: {
      1: { 'broker.rack': 'rack-1' },
      2: { 'broker.rack': 'rack-2' },
      3: { 'broker.rack': 'rack-3' },
    },
  });
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
  await kafka?.stop();
});

/** The nodes that answered Fetches with records of `topic`, from the `kafkats:fetch` channel. */
function fetchedFrom(topic: string): { nodes: Set<number>; stop: () => void } {
  const nodes = new Set<number>();
  const onEnd = (message: unknown) => {
    const c = message as FetchTraceContext;
    if (c.topic === topic && c.records > 0) nodes.add(c.nodeId);
  };
  subscribe(`tracing:${FETCH_CHANNEL}:asyncEnd`, onEnd);
  return { nodes, stop: () => unsubscribe(`tracing:${FETCH_CHANNEL}:asyncEnd`, onEnd) };
}

async function produce(producer: Producer, topic: string, from: number, n: number, prefix = 'v') {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      producer.send({ topic, partition: 0, value: `${prefix}${from + i}` }),
    ),
  );
}

const series = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);

const values = (batches: readonly PartitionBatch[]) =>
  recordsOf(batches).map((r) => r.value?.toString());
const expected = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `v${from + i}`);

describe('follower fetching (KIP-392)', () => {
  it('reads from the replica in its rack, the leader’s rack from the leader, and a group Consumer too', async () => {
    const topic = unique('kip392');
    const created = await kafka.admin.createTopic(topic, { assignments: [[1, 2, 3]] });
    expect(created.partitions[0]?.leader).toBe(1);
    const producer = new Producer(cluster);
    const traced = fetchedFrom(topic);
    try {
      await produce(producer, topic, 0, 100);
      const read = async (rackId: string) => {
        const guard = new AbortController();
        const reader = new PartitionReader(cluster, {
          topic,
          partition: 0,
          startOffset: 0n,
          rackId,
          maxWaitMs: 200,
          signal: guard.signal,
        });
        try {
          const batches = await readWhile(reader, (all) => recordsOf(all).length >= 100, {
            guard,
          });
          return { batches, leader: reader.leaderId, replica: reader.readReplicaId };
        } finally {
          await reader.close();
        }
      };
      const inRack2 = await read('rack-2');
      expect(values(inRack2.batches)).toEqual(expected(0, 100));
      expect(inRack2.batches.map((b) => b.leaderId)).toEqual(inRack2.batches.map(() => 2));
      expect(inRack2).toMatchObject({ leader: 1, replica: 2 });

      const inRack1 = await read('rack-1');
      expect(values(inRack1.batches)).toEqual(expected(0, 100));
      expect(new Set(inRack1.batches.map((b) => b.leaderId))).toEqual(new Set([1]));
      expect(inRack1.replica).toBeUndefined();

      // A group member in rack 3 fetches from broker 3.
      traced.nodes.clear();
      const consumer = new Consumer(cluster, {
        groupId: unique('kip392-group'),
        autoOffsetReset: 'earliest',
        rackId: 'rack-3',
      });
      let seen = 0;
      const done = new AbortController();
      const running = consumer.run({
        signal: done.signal,
        eachBatch: async (batch) => {
          seen += batch.records.length;
          if (seen >= 100) done.abort();
        },
      });
      consumer.subscribe([topic]);
      await running;
      await consumer.close();
      expect(seen).toBe(100);
      expect([...traced.nodes]).toEqual([3]);
    } finally {
      traced.stop();
      await producer.close();
    }
  });

  it('goes back to the leader when the preferred replica stops, nothing lost or read twice', async () => {
    const topic = unique('kip392-stop');
    await kafka.admin.createTopic(topic, { assignments: [[1, 2, 3]] });
    const producer = new Producer(cluster);
    const guard = new AbortController();
    const reader = new PartitionReader(cluster, {
      topic,
      partition: 0,
      startOffset: 0n,
      rackId: 'rack-2',
      maxWaitMs: 200,
      signal: guard.signal,
    });
    try {
      await produce(producer, topic, 0, 50);
      const reading = readWhile(reader, (all) => recordsOf(all).length >= 100, {
        guard,
        guardMs: 120_000,
      });
      while ((reader.position ?? 0n) < 50n) await new Promise((r) => setTimeout(r, 20));
      expect(reader.readReplicaId).toBe(2);
      await kafka.stopNode(2);
      await produce(producer, topic, 50, 50);
      const batches = await reading;
      expect(values(batches)).toEqual(expected(0, 100));
      expect(batches.slice(0, 1).map((b) => b.leaderId)).toEqual([2]);
      // What was produced after the stop came from the leader.
      const after = batches.filter((b) => b.fetchOffset >= 50n);
      expect(new Set(after.map((b) => b.leaderId))).toEqual(new Set([1]));
      expect(reader.readReplicaId).toBeUndefined();
    } finally {
      guard.abort();
      await reader.close();
      await producer.close();
      await kafka.startNode(2);
    }
  });
});

describe('log truncation detection (KIP-320)', () => {
  it('an unclean election truncates what readers and a group member read: they go back to where the logs part, or stop typed', async () => {
    const topic = unique('kip320');
    await kafka.admin.createTopic(topic, {
      assignments: [[1, 2]],
      configs: { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' },
    });
    const admin = new Admin(cluster);
    const guard = new AbortController();
    const reader = (offsetOutOfRange: 'earliest' | 'error') =>
      new PartitionReader(cluster, {
        topic,
        partition: 0,
        startOffset: 0n,
        offsetOutOfRange,
        maxWaitMs: 200,
        signal: guard.signal,
      });
    const resetting = reader('earliest');
    const strict = reader('error');
    const firstProducer = new Producer(cluster);
    try {
      // 0..49 on both replicas; then broker 2 stops and 50..79 go to broker 1 alone.
      await produce(firstProducer, topic, 0, 50, 'a');
      await kafka.stopNode(2);
      await produce(firstProducer, topic, 50, 30, 'b');
      await firstProducer.close();
      const seen: PartitionBatch[] = [];
      const reading = readWhile(
        resetting,
        (all) => recordsOf(all).some((r) => r.value?.toString() === 'c89'),
        { guard, guardMs: 180_000, onBatch: (b) => seen.push(b) },
      );
      const failing = (async () => {
        try {
          for await (const _ of strict) {
            // reads on until the truncation stops it
          }
          return undefined;
        } catch (error) {
          return error;
        }
      })();
      // A group member reads the same partition, committing as it goes.
      const member = new Consumer(cluster, {
        groupId: unique('kip320-group'),
        topics: [topic],
        autoOffsetReset: 'earliest',
        autoCommitIntervalMs: 200,
      });
      const memberSeen: string[] = [];
      const memberDone = new AbortController();
      const membering = member.run({
        signal: memberDone.signal,
        eachBatch: async (batch) => {
          for (const r of batch.records) memberSeen.push(`${r.offset}:${r.value?.toString()}`);
          if (memberSeen.at(-1) === '89:c89') memberDone.abort();
        },
      });
      while (
        (resetting.position ?? 0n) < 80n ||
        (strict.position ?? 0n) < 80n ||
        memberSeen.length < 80
      )
        await new Promise((r) => setTimeout(r, 20));

      // Broker 1 stops too (the partition has no leader); broker 2 comes back without 50..79
      // and is elected though out of sync. It writes its own 50..89.
      await kafka.stopNode(1);
      await kafka.startNode(2);
      const elected = await admin.electLeaders([{ topic, partition: 0 }], { type: 'UNCLEAN' });
      expect(
        elected.partitions[0]?.error === undefined ||
          elected.partitions[0]?.error.errorName === 'ELECTION_NOT_NEEDED',
      ).toBe(true);
      const secondProducer = new Producer(cluster);
      try {
        await produce(secondProducer, topic, 50, 40, 'c');
      } finally {
        await secondProducer.close();
      }

      await reading;
      await membering;
      await member.close();
      // The member too: the old log up to 79, then the new leader's from 50 on.
      expect(memberSeen).toEqual([
        ...series('a', 0, 50).map((v, i) => `${i}:${v}`),
        ...series('b', 50, 80).map((v, i) => `${50 + i}:${v}`),
        ...series('c', 50, 90).map((v, i) => `${50 + i}:${v}`),
      ]);
      const delivered = recordsOf(seen).map((r) => r.value?.toString());
      // Everything before the truncation, then the new leader's log from where it parts.
      expect(delivered).toEqual([
        ...series('a', 0, 50),
        ...series('b', 50, 80),
        ...series('c', 50, 90),
      ]);
      const thrown = await failing;
      expect(thrown).toBeInstanceOf(LogTruncationError);
      expect(thrown).toMatchObject({ topic, partition: 0, fetchOffset: 80n, divergentOffset: 50n });

      // Kafka's Java consumer reads the same log from 50 on.
      const java = await kafka.admin.consume(topic, { fromOffset: 50, maxRecords: 40 });
      expect(java.map((r) => r.value?.toString())).toEqual(series('c', 50, 90));
    } finally {
      guard.abort();
      await resetting.close();
      await strict.close();
      await admin.close();
      await kafka.startNode(1);
    }
  });
});
