import {
  createConsumerGroupHeartbeatResponse,
  createOffsetCommitResponse,
  createOffsetFetchResponse,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
} from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { Consumer } from '../../src/consumer.js';
import { ConsumerConfigError, NoOffsetForPartitionError } from '../../src/consumer-errors.js';
import type {
  Fetcher,
  FetchStart,
  GroupTopicPartition,
} from '../../src/internal/consumer/contracts.js';
import type { PartitionBatch } from '../../src/partition-batch.js';
import { assignment, ScriptedCoordinator } from './consumer-fake-coordinator.js';

const ORDERS = { name: 'orders', topicId: 'T1T1T1T1T1T1T1T1T1T1Tw', partitions: 4 };
const key = (p: GroupTopicPartition) => `${p.topic}-${p.partition}`;

/** A fetcher that hands out what the test queues, and records what it was told. */
class FakeFetcher implements Fetcher {
  readonly assigned: (GroupTopicPartition & { start: FetchStart })[] = [];
  readonly unassigned: string[] = [];
  readonly #queue: PartitionBatch[] = [];
  #wake: (() => void) | undefined;
  closed = false;

  push(topic: string, partition: number, from: bigint, count: number): void {
    const records = Array.from({ length: count }, (_, i) => ({
      offset: from + BigInt(i),
      timestamp: 0n,
      key: null,
      value: Buffer.from(`${partition}:${from + BigInt(i)}`),
      headers: [],
    }));
    this.#queue.push({
      topic,
      partition,
      fetchOffset: from,
      records: records as unknown as PartitionBatch['records'],
      nextOffset: from + BigInt(count),
      highWatermark: from + BigInt(count),
      lastStableOffset: -1n,
      logStartOffset: 0n,
      leaderId: 1,
      leaderEpoch: 7,
    });
    this.#wake?.();
  }

  assign(partitions: ReadonlyArray<GroupTopicPartition & { readonly start: FetchStart }>): void {
    this.assigned.push(...partitions);
  }
  unassign(partitions: readonly GroupTopicPartition[]): void {
    this.unassigned.push(...partitions.map(key));
  }
  seek(): void {}
  pause(): void {}
  resume(): void {}
  position(): { offset: bigint; leaderEpoch: number } | undefined {
    return undefined;
  }
  async poll(signal?: AbortSignal): Promise<PartitionBatch[]> {
    while (this.#queue.length === 0) {
      if (signal?.aborted) return [];
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      this.#wake = undefined;
    }
    return this.#queue.splice(0);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

interface Setup {
  coordinator: ScriptedCoordinator;
  fetcher: FakeFetcher;
  commits: OffsetCommitRequest[];
  fetches: OffsetFetchRequest[];
  /** The next heartbeat's answer; heartbeats are answered at once with it. */
  target: { epoch: number; partitions: number[] | null; interval: number };
  heartbeats: { memberEpoch: number; topicPartitions: unknown }[];
}

/** A consumer on a scripted coordinator that answers everything at once. */
function setup(committed: Record<number, bigint> = {}) {
  const coordinator = new ScriptedCoordinator([ORDERS]);
  const fetcher = new FakeFetcher();
  const s: Setup = {
    coordinator,
    fetcher,
    commits: [],
    fetches: [],
    target: { epoch: 1, partitions: [0, 1], interval: 5 },
    heartbeats: [],
  };
  coordinator.auto = (api, request) => {
    if (api === 'ConsumerGroupHeartbeat') {
      const r = request as { memberEpoch: number; topicPartitions: unknown };
      s.heartbeats.push({ memberEpoch: r.memberEpoch, topicPartitions: r.topicPartitions });
      const { epoch, partitions, interval } = s.target;
      return createConsumerGroupHeartbeatResponse({
        memberId: null,
        memberEpoch: r.memberEpoch < 0 ? r.memberEpoch : epoch,
        heartbeatIntervalMs: interval,
        assignment: partitions === null ? null : assignment({ [ORDERS.topicId]: partitions }),
      });
    }
    if (api === 'OffsetFetch') {
      const r = request as OffsetFetchRequest;
      s.fetches.push(r);
      const group = r.groups[0]!;
      return createOffsetFetchResponse({
        groups: [
          {
            groupId: group.groupId,
            errorCode: 0,
            topics: (group.topics ?? []).map((t) => ({
              name: t.name,
              topicId: t.topicId,
              partitions: t.partitionIndexes.map((p) => ({
                partitionIndex: p,
                committedOffset: committed[p] ?? -1n,
                committedLeaderEpoch: committed[p] === undefined ? -1 : 5,
                metadata: '',
                errorCode: 0,
              })),
            })),
          },
        ],
      });
    }
    if (api === 'OffsetCommit') {
      const r = request as OffsetCommitRequest;
      s.commits.push(r);
      return createOffsetCommitResponse({
        topics: r.topics.map((t) => ({
          name: t.name,
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
        })),
      });
    }
    return undefined;
  };
  return s;
}

const committedIn = (requests: OffsetCommitRequest[]) =>
  requests.flatMap((r) =>
    r.topics.flatMap((t) =>
      t.partitions.map((p) => `${t.name}-${p.partitionIndex}@${p.committedOffset}`),
    ),
  );

const until = async (check: () => boolean) => {
  for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
};

describe('Consumer: starting positions', () => {
  it('fetches committed offsets with requireStable (KIP-447) and starts there with their leader epoch, else at autoOffsetReset', async () => {
    const s = setup({ 0: 42n });
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'earliest', enableAutoCommit: false },
      { fetcher: () => s.fetcher },
    );
    await consumer.start();
    expect(s.fetches[0]?.requireStable).toBe(true);
    expect(s.fetcher.assigned).toEqual([
      { topic: 'orders', partition: 0, start: { offset: 42n, leaderEpoch: 5 } },
      { topic: 'orders', partition: 1, start: 'earliest' },
    ]);
    expect(consumer.assignment().map(key).sort()).toEqual(['orders-0', 'orders-1']);
    await consumer.close();
  });

  it("autoOffsetReset 'none' without a committed offset: the iteration throws NoOffsetForPartitionError", async () => {
    const s = setup({ 0: 3n });
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'none', enableAutoCommit: false },
      { fetcher: () => s.fetcher },
    );
    const error = await (async () => {
      for await (const _ of consumer) return undefined;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoOffsetForPartitionError);
    expect(error).toMatchObject({
      topic: 'orders',
      partition: 1,
      code: 'ERR_KAFKA_CONSUMER_NO_OFFSET',
    });
    await consumer.close();
  });

  it('refuses bad options with ConsumerConfigError', () => {
    const s = setup();
    expect(() => new Consumer(s.coordinator.cluster, { groupId: '' })).toThrow(ConsumerConfigError);
    expect(
      () => new Consumer(s.coordinator.cluster, { groupId: 'g', autoCommitIntervalMs: 0 }),
    ).toThrow(ConsumerConfigError);
    expect(
      () =>
        new Consumer(s.coordinator.cluster, {
          groupId: 'g',
          groupProtocol: 'classic',
          serverAssignor: 'uniform',
        }),
    ).toThrow(ConsumerConfigError);
  });
});

describe('Consumer: what a commit counts', () => {
  it('with the iterator, a batch is finished when the next one is asked for; commit() sends finished offsets with the member epoch', async () => {
    const s = setup();
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'earliest', enableAutoCommit: false },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 0, 0n, 3);
    s.fetcher.push('orders', 1, 0n, 2);
    const iterator = consumer[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ partition: 0, nextOffset: 3n });
    await consumer.commit(); // the batch in hand is not finished: nothing to commit
    expect(s.commits).toEqual([]);
    const second = await iterator.next();
    expect(second.value).toMatchObject({ partition: 1, nextOffset: 2n });
    await consumer.commit();
    expect(committedIn(s.commits)).toEqual(['orders-0@3']);
    expect(s.commits[0]).toMatchObject({ generationIdOrMemberEpoch: 1 });
    expect(s.commits[0]?.memberId).toBe(consumer.groupMetadata().memberId);
    expect(s.commits[0]?.topics[0]?.partitions[0]?.committedLeaderEpoch).toBe(7);
    await iterator.return?.(); // leaving the loop finishes the batch in hand (as Java's poll)
    await consumer.commit();
    expect(committedIn(s.commits)).toEqual(['orders-0@3', 'orders-1@2']);
    await consumer.close();
  });

  it('run(): a batch is finished when eachBatch resolves; a rejected one is not, and run rejects', async () => {
    const s = setup();
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'earliest', enableAutoCommit: false },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 0, 0n, 3);
    s.fetcher.push('orders', 0, 3n, 3);
    let seen = 0;
    const failure = new Error('processing failed');
    const result = await consumer
      .run({
        eachBatch: async () => {
          if (++seen === 2) throw failure;
        },
      })
      .catch((e: unknown) => e);
    expect(result).toBe(failure);
    await consumer.commit();
    expect(committedIn(s.commits)).toEqual(['orders-0@3']);
    await consumer.close();
  });
});

describe('Consumer: rebalances', () => {
  it('on revocation: stops fetching the partition, waits for the batch the application holds, commits it, then acknowledges', async () => {
    const s = setup();
    const revoked: string[] = [];
    const consumer = new Consumer(
      s.coordinator.cluster,
      {
        groupId: 'g',
        topics: ['orders'],
        autoOffsetReset: 'earliest',
        listeners: { onRevoked: (ps) => void revoked.push(...ps.map(key)) },
      },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 1, 10n, 5);
    const iterator = consumer[Symbol.asyncIterator]();
    const held = await iterator.next();
    expect(held.value).toMatchObject({ partition: 1, nextOffset: 15n });
    // The broker moves partition 1 away.
    s.target = { epoch: 2, partitions: [0], interval: 5 };
    await until(() => s.fetcher.unassigned.includes('orders-1'));
    await new Promise((r) => setTimeout(r, 30));
    // Still holding the batch: nothing committed, the coordinator not told.
    expect(s.commits).toEqual([]);
    expect(revoked).toEqual([]);
    const acksBefore = s.heartbeats.filter(
      (h) => h.memberEpoch === 2 && h.topicPartitions !== null,
    );
    expect(acksBefore).toEqual([]);
    // Asking for the next batch finishes the held one: commit, listener, then the ack.
    const next = iterator.next();
    await until(() => revoked.length === 1);
    expect(committedIn(s.commits)).toEqual(['orders-1@15']);
    await until(() =>
      s.heartbeats.some(
        (h) =>
          h.memberEpoch === 2 &&
          JSON.stringify(h.topicPartitions) ===
            JSON.stringify([{ topicId: ORDERS.topicId, partitions: [0] }]),
      ),
    );
    expect(consumer.assignment().map(key)).toEqual(['orders-0']);
    await consumer.close();
    await next;
  });

  it('close() commits what was finished, leaves with epoch -1 and closes the fetcher', async () => {
    const s = setup();
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'earliest' },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 0, 0n, 4);
    for await (const batch of consumer) {
      expect(batch.records).toHaveLength(4);
      break;
    }
    await consumer.close();
    expect(committedIn(s.commits)).toEqual(['orders-0@4']);
    expect(s.heartbeats.at(-1)?.memberEpoch).toBe(-1);
    expect(s.fetcher.closed).toBe(true);
    expect(() => consumer.subscribe(['x'])).toThrow('closed');
  });

  it('groupMetadata() carries the member id and the member epoch for sendOffsetsToTransaction', async () => {
    const s = setup();
    s.target = { epoch: 9, partitions: [], interval: 5 };
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', groupInstanceId: 'i-1', topics: ['orders'] },
      { fetcher: () => s.fetcher },
    );
    expect(consumer.groupMetadata()).toEqual({
      groupId: 'g',
      generationId: -1,
      memberId: '',
      groupInstanceId: 'i-1',
    });
    await consumer.start();
    const m = consumer.groupMetadata();
    expect(m).toMatchObject({ groupId: 'g', generationId: 9, groupInstanceId: 'i-1' });
    expect(m.memberId).toHaveLength(22);
    await consumer.close();
    expect(s.heartbeats.at(-1)?.memberEpoch).toBe(-2);
  });

  it('close() during the join ends the iteration quietly and still says goodbye', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const fetcher = new FakeFetcher();
    const consumer = new Consumer(
      coordinator.cluster,
      { groupId: 'g', topics: ['orders'] },
      { fetcher: () => fetcher },
    );
    const reading = (async () => {
      const seen: PartitionBatch[] = [];
      for await (const b of consumer) seen.push(b);
      return seen;
    })();
    const join = await coordinator.nextHeartbeat();
    expect(join.request.memberEpoch).toBe(0);
    const closing = consumer.close();
    const leave = await coordinator.nextHeartbeat();
    expect(leave.request).toMatchObject({ memberId: join.request.memberId, memberEpoch: -1 });
    leave.respond({ memberEpoch: -1 });
    await closing;
    expect(await reading).toEqual([]);
    expect(fetcher.closed).toBe(true);
  });
});
