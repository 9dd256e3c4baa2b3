import {
  createConsumerGroupHeartbeatResponse,
  createOffsetCommitResponse,
  createOffsetFetchResponse,
  decodeRecordBatches,
  ErrorCode,
  encodeRecordBatchSync,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
  ProtocolError,
} from '@kafkats/codec';
import { ConnectionError } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { Consumer } from '../../../src/consumer/consumer.js';
import {
  ConsumerClosedError,
  ConsumerConfigError,
  NoOffsetForPartitionError,
} from '../../../src/consumer/consumer-errors.js';
import type {
  Fetcher,
  FetchPartitionStats,
  FetchRequestStats,
  FetchStart,
} from '../../../src/fetch/fetcher.js';
import type { PartitionBatch } from '../../../src/fetch/partition-batch.js';
import type { TopicPartition } from '../../../src/topic-partition.js';
import {
  assignment,
  type PendingRequest,
  ScriptedCoordinator,
} from './consumer-fake-coordinator.js';

const ORDERS = { name: 'orders', topicId: 'T1T1T1T1T1T1T1T1T1T1Tw', partitions: 4 };
const key = (p: TopicPartition) => `${p.topic}-${p.partition}`;

/** A fetcher that hands out what the test queues, and records what it was told. */
class FakeFetcher implements Fetcher {
  readonly assigned: (TopicPartition & { start: FetchStart })[] = [];
  readonly unassigned: string[] = [];
  readonly #queue: PartitionBatch[] = [];
  /** What poll handed out: each partition's next offset and latest high-water mark. */
  readonly #positions = new Map<string, bigint>();
  readonly #highWatermarks = new Map<string, bigint>();
  #wake: (() => void) | undefined;
  closed = false;

  push(
    topic: string,
    partition: number,
    from: bigint,
    count: number,
    highWatermark?: bigint,
  ): void {
    const columns =
      count === 0
        ? []
        : [
            ...decodeRecordBatches(
              encodeRecordBatchSync({
                baseOffset: from,
                records: Array.from({ length: count }, (_, i) => ({
                  timestamp: 0,
                  value: Buffer.from(`${partition}:${from + BigInt(i)}`),
                })),
              }),
            ),
          ].map((b) => b.columns());
    const records = columns.flatMap((c) => Array.from({ length: c.length }, (_, i) => c.record(i)));
    this.#queue.push({
      topic,
      partition,
      fetchOffset: from,
      records,
      columns,
      nextOffset: from + BigInt(count),
      highWatermark: highWatermark ?? from + BigInt(count),
      lastStableOffset: -1n,
      logStartOffset: 0n,
      leaderId: 1,
      leaderEpoch: 7,
      lastLeaderEpoch: 6,
      sizeInBytes: 100 * count,
    });
    this.#wake?.();
  }

  assign(partitions: ReadonlyArray<TopicPartition & { readonly start: FetchStart }>): void {
    this.assigned.push(...partitions);
  }
  unassign(partitions: readonly TopicPartition[]): void {
    this.unassigned.push(...partitions.map(key));
  }
  seek(): void {}
  pause(): void {}
  resume(): void {}
  position(p: TopicPartition): { offset: bigint; leaderEpoch: number } | undefined {
    const offset = this.#positions.get(key(p));
    return offset === undefined ? undefined : { offset, leaderEpoch: 7 };
  }
  partitionStats(p: TopicPartition): FetchPartitionStats | undefined {
    const highWatermark = this.#highWatermarks.get(key(p));
    if (highWatermark === undefined) return undefined;
    return {
      highWatermark,
      lastStableOffset: highWatermark,
      logStartOffset: 0n,
      leaderId: 1,
      leaderEpoch: 7,
      readReplicaId: undefined,
      fetches: 1,
      records: 0,
      bytes: 0,
      retries: 0,
      lastError: undefined,
    };
  }
  fetchStats(): FetchRequestStats {
    return { requests: 0, failed: 0, latencyTotalMs: 0, latencyMaxMs: 0 };
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
    const out = this.#queue.splice(0);
    for (const b of out) {
      this.#positions.set(key(b), b.nextOffset);
      this.#highWatermarks.set(key(b), b.highWatermark);
    }
    return out;
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

  it("autoOffsetReset 'none' without a committed offset: the iteration throws NoOffsetForPartitionError; seek() starts the partition", async () => {
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
    // Still owned, without a position, until the application seeks it.
    expect(consumer.assignment().map(key).sort()).toEqual(['orders-0', 'orders-1']);
    expect(s.fetcher.assigned.map(key)).toEqual(['orders-0']);
    consumer.seek({ topic: 'orders', partition: 1 }, 0n);
    expect(s.fetcher.assigned.at(-1)).toEqual({
      topic: 'orders',
      partition: 1,
      start: { offset: 0n },
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

describe('Consumer: subscribed topics that do not exist', () => {
  it('start() resolves with the first assignment, empty here, and the logger hears which topics are missing, once', async () => {
    const s = setup();
    s.target = { epoch: 1, partitions: [], interval: 5 };
    s.coordinator.missingTopics = ['ordres'];
    const warnings: { fields: unknown; message: string }[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (fields: unknown, message: string) => warnings.push({ fields, message }),
      error: () => {},
    };
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders', 'ordres'], logger },
      { fetcher: () => s.fetcher },
    );
    await consumer.start();
    expect(consumer.assignment()).toEqual([]);
    expect(warnings).toEqual([
      {
        fields: { groupId: 'g', topics: ['ordres'] },
        message: expect.stringContaining('subscribed topic "ordres" does not exist'),
      },
    ]);
    // Warned names are not looked up again.
    const lookups = s.coordinator.refreshed.length;
    consumer.subscribe(['orders', 'ordres']);
    expect(s.coordinator.refreshed).toHaveLength(lookups);
    expect(warnings).toHaveLength(1);
    await consumer.close();
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
    expect(s.commits[0]?.topics[0]?.partitions[0]?.committedLeaderEpoch).toBe(6); // the last record's epoch, not the one fetched with
    await iterator.return?.(); // leaving the loop finishes the batch in hand (as Java's poll)
    await consumer.commit();
    expect(committedIn(s.commits)).toEqual(['orders-0@3', 'orders-1@2']);
    await consumer.close();
  });

  it('metrics(): records and bytes handed out, lag per partition from the high-water mark, commits and assignment changes', async () => {
    const s = setup();
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'], autoOffsetReset: 'earliest', enableAutoCommit: false },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 0, 0n, 3, 10n);
    s.fetcher.push('orders', 1, 0n, 2, 2n);
    const iterator = consumer[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();
    await consumer.commit();
    const m = consumer.metrics();
    expect(m).toMatchObject({
      recordsConsumed: 5,
      bytesConsumed: 500,
      rebalances: 1, // the first assignment
      commits: 1,
      commitsFailed: 0,
      lag: 7n,
    });
    expect(m.commitLatencyMaxMs).toBeGreaterThanOrEqual(m.commitLatencyAvgMs);
    expect(
      m.partitions.map((p) => [p.partition, p.position, p.committed, p.lag, p.records]),
    ).toEqual([
      [0, 3n, 3n, 7n, 3],
      [1, 2n, 2n, 0n, 2],
    ]);
    // Partition 1 is taken away: it leaves the metrics, and the change is counted.
    s.target = { epoch: 2, partitions: [0], interval: 5 };
    await until(() => consumer.assignment().length === 1);
    await until(() => consumer.metrics().rebalances === 2);
    expect(consumer.metrics().partitions.map((p) => p.partition)).toEqual([0]);
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

describe('Consumer: deserializers', () => {
  it('hands out deserialized batches from the iterator and run(), and commits their offsets as usual', async () => {
    const s = setup();
    const consumer = new Consumer<Buffer, { partition: number; offset: number }>(
      s.coordinator.cluster,
      {
        groupId: 'g',
        topics: ['orders'],
        autoOffsetReset: 'earliest',
        enableAutoCommit: false,
        deserializers: {
          // The fake's values read `partition:offset`; odd offsets settle a turn later.
          value: (data, context) => {
            const [partition, offset] = data.toString().split(':').map(Number) as [number, number];
            const out = { partition, offset };
            if (context.partition !== partition) throw new Error('wrong partition in context');
            return offset % 2 === 1 ? new Promise((r) => setImmediate(() => r(out))) : out;
          },
        },
      },
      { fetcher: () => s.fetcher },
    );
    s.fetcher.push('orders', 0, 0n, 3);
    const iterator = consumer[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.records.map((r) => r.value)).toEqual([
      { partition: 0, offset: 0 },
      { partition: 0, offset: 1 },
      { partition: 0, offset: 2 },
    ]);
    await iterator.return?.();
    s.fetcher.push('orders', 1, 0n, 2);
    const controller = new AbortController();
    const seen: unknown[] = [];
    await consumer.run({
      signal: controller.signal,
      eachBatch: (batch) => {
        seen.push(...batch.records.map((r) => r.value));
        controller.abort();
      },
    });
    expect(seen).toEqual([
      { partition: 1, offset: 0 },
      { partition: 1, offset: 1 },
    ]);
    await consumer.commit();
    expect(committedIn(s.commits).sort()).toEqual(['orders-0@3', 'orders-1@2']);
    await consumer.close();
  });

  it('refuses deserializers that are not functions', () => {
    const s = setup();
    expect(
      () =>
        new Consumer(s.coordinator.cluster, {
          groupId: 'g',
          deserializers: { key: 42 as unknown as () => string },
        }),
    ).toThrow(ConsumerConfigError);
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

  it('a read begun after close() throws ConsumerClosedError (iterator and run)', async () => {
    const s = setup();
    const consumer = new Consumer(
      s.coordinator.cluster,
      { groupId: 'g', topics: ['orders'] },
      { fetcher: () => s.fetcher },
    );
    await consumer.start();
    await consumer.close();
    const iterated = await (async () => {
      for await (const _ of consumer) return 'a batch';
      return 'ended quietly';
    })().catch((e: unknown) => e);
    expect(iterated).toBeInstanceOf(ConsumerClosedError);
    await expect(consumer.run({ eachBatch: () => {} })).rejects.toBeInstanceOf(ConsumerClosedError);
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

/**
 * OffsetFetch answered as `mode()` says: `'fail'` with `code` (group level, or for every partition
 * when `partitionLevel`), `'hold'` left for the test to answer (collected in `held`), `'answer'`
 * with the committed offsets `setup` was given.
 */
function scriptOffsetFetch(
  s: Setup,
  mode: () => 'fail' | 'hold' | 'answer',
  code: number = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  partitionLevel = false,
) {
  const answer = s.coordinator.auto!;
  const seen = { failed: 0, held: 0 };
  s.coordinator.auto = (api, request) => {
    if (api !== 'OffsetFetch' || mode() === 'answer') return answer(api, request);
    if (mode() === 'hold') {
      seen.held++;
      return undefined;
    }
    seen.failed++;
    const group = (request as OffsetFetchRequest).groups[0]!;
    return createOffsetFetchResponse({
      groups: [
        {
          groupId: group.groupId,
          errorCode: partitionLevel ? 0 : code,
          topics: partitionLevel
            ? (group.topics ?? []).map((t) => ({
                name: t.name,
                topicId: t.topicId,
                partitions: t.partitionIndexes.map((p) => ({
                  partitionIndex: p,
                  committedOffset: -1n,
                  committedLeaderEpoch: -1,
                  metadata: null,
                  errorCode: code,
                })),
              }))
            : [],
        },
      ],
    });
  };
  return { seen, answer: (p: PendingRequest) => p.respond(answer('OffsetFetch', p.request)) };
}

// Java's ConsumerCoordinator keeps assigned partitions whose committed offsets it could not fetch
// (INITIALIZING, no position) and fetches them again on every poll until it can, retrying what is
// retriable and throwing the rest from poll. A failed OffsetFetch used to drop the partitions for
// good: still owned in the group, never read.
describe('Consumer: committed offsets that could not be fetched', () => {
  const options = {
    groupId: 'g',
    topics: ['orders'],
    autoOffsetReset: 'earliest',
    enableAutoCommit: false,
    // fetchCommitted's own retries give up after this; the consumer's retries take over.
    defaultApiTimeoutMs: 20,
    retryBackoffMs: 5,
    retryBackoffMaxMs: 20,
  } as const;

  it('a retriable OffsetFetch failure keeps the partitions assigned and retries with backoff until they start', async () => {
    const s = setup({ 0: 42n });
    let failing = true;
    const offsetFetch = scriptOffsetFetch(s, () => (failing ? 'fail' : 'answer'));
    const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
    await consumer.start();
    expect(consumer.assignment().map(key).sort()).toEqual(['orders-0', 'orders-1']);
    expect(s.fetcher.assigned).toEqual([]);
    expect(consumer.position({ topic: 'orders', partition: 0 })).toBeUndefined();
    const before = offsetFetch.seen.failed;
    await until(() => offsetFetch.seen.failed > before + 2);
    failing = false;
    await until(() => s.fetcher.assigned.length === 2);
    expect(s.fetcher.assigned).toEqual([
      { topic: 'orders', partition: 0, start: { offset: 42n, leaderEpoch: 5 } },
      { topic: 'orders', partition: 1, start: 'earliest' },
    ]);
    // Retriable failures are not the application's business: it reads on.
    s.fetcher.push('orders', 0, 42n, 2);
    const iterator = consumer[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ partition: 0, fetchOffset: 42n });
    await iterator.return?.();
    await consumer.close();
  });

  it('a partition revoked while the retried OffsetFetch waits for its answer is not started by it', async () => {
    const s = setup({ 0: 42n, 1: 7n });
    let mode: 'fail' | 'hold' | 'answer' = 'fail';
    const offsetFetch = scriptOffsetFetch(s, () => mode);
    const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
    await consumer.start();
    mode = 'hold';
    await until(() => offsetFetch.seen.held === 1);
    const held = await s.coordinator.next();
    expect(held.apiName).toBe('OffsetFetch');
    // The broker moves partition 1 away before the coordinator answers.
    s.target = { epoch: 2, partitions: [0], interval: 5 };
    await until(() => consumer.assignment().length === 1);
    mode = 'answer';
    offsetFetch.answer(held);
    await until(() => s.fetcher.assigned.length > 0);
    expect(s.fetcher.assigned).toEqual([
      { topic: 'orders', partition: 0, start: { offset: 42n, leaderEpoch: 5 } },
    ]);
    expect(consumer.assignment().map(key)).toEqual(['orders-0']);
    await consumer.close();
    expect(s.fetcher.assigned.map(key)).toEqual(['orders-0']);
  });

  it('an OffsetFetch whose connection the pool closed under it is retried (a disconnect, as Java has it)', async () => {
    const s = setup({ 1: 9n });
    let mode: 'hold' | 'answer' = 'hold';
    const offsetFetch = scriptOffsetFetch(s, () => mode);
    const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
    const starting = consumer.start();
    await until(() => offsetFetch.seen.held === 1);
    const held = await s.coordinator.next();
    mode = 'answer';
    // What the pool's own close of the coordinator's connection fails it with (its broker moved).
    held.fail(
      new ConnectionError(
        'ERR_KAFKA_CONNECTION_LOST',
        'broker 1',
        'closed by its owner: broker 1 moved to 127.0.0.1:9102',
      ),
    );
    await starting;
    await until(() => s.fetcher.assigned.length === 2);
    expect(s.fetcher.assigned).toEqual([
      { topic: 'orders', partition: 0, start: 'earliest' },
      { topic: 'orders', partition: 1, start: { offset: 9n, leaderEpoch: 5 } },
    ]);
    await consumer.close();
  });

  it('seek() gives a partition waiting for its committed offset its position; the late answer does not move it', async () => {
    const s = setup({ 0: 42n });
    let failing = true;
    const offsetFetch = scriptOffsetFetch(s, () => (failing ? 'fail' : 'answer'));
    const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
    await consumer.start();
    consumer.seek({ topic: 'orders', partition: 0 }, 5n);
    expect(s.fetcher.assigned).toEqual([{ topic: 'orders', partition: 0, start: { offset: 5n } }]);
    const before = offsetFetch.seen.failed;
    await until(() => offsetFetch.seen.failed > before);
    failing = false;
    await until(() => s.fetcher.assigned.length === 2);
    expect(s.fetcher.assigned[1]).toEqual({ topic: 'orders', partition: 1, start: 'earliest' });
    await consumer.close();
    expect(s.fetcher.assigned).toHaveLength(2);
  });

  it('close() ends the retries, the OffsetFetch in flight included', async () => {
    const s = setup();
    let mode: 'fail' | 'hold' = 'fail';
    const offsetFetch = scriptOffsetFetch(s, () => mode);
    const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
    await consumer.start();
    mode = 'hold';
    await until(() => offsetFetch.seen.held === 1);
    await s.coordinator.next();
    // Resolves although the held OffsetFetch never gets an answer: its wait is aborted.
    await consumer.close();
    expect(offsetFetch.seen.held).toBe(1);
    expect(s.heartbeats.at(-1)?.memberEpoch).toBe(-1);
    expect(s.fetcher.assigned).toEqual([]);
  });

  it.each([
    ['GROUP_AUTHORIZATION_FAILED', ErrorCode.GROUP_AUTHORIZATION_FAILED, false],
    ['TOPIC_AUTHORIZATION_FAILED', ErrorCode.TOPIC_AUTHORIZATION_FAILED, true],
  ] as const)(
    '%s from OffsetFetch is fatal: the read throws it, the member leaves, nothing is retried',
    async (_, code, partitionLevel) => {
      const s = setup();
      const offsetFetch = scriptOffsetFetch(s, () => 'fail', code, partitionLevel);
      const consumer = new Consumer(s.coordinator.cluster, options, { fetcher: () => s.fetcher });
      const error = await (async () => {
        for await (const _ of consumer) return undefined;
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).errorCode).toBe(code);
      // As the membership's fatal errors: the consumer stopped, and the member left the group.
      expect(() => consumer.subscribe(['orders'])).toThrow(ConsumerClosedError);
      await until(() => s.heartbeats.at(-1)?.memberEpoch === -1);
      expect(consumer.assignment()).toEqual([]);
      await consumer.close();
      expect(offsetFetch.seen.failed).toBe(1);
      expect(s.fetcher.assigned).toEqual([]);
    },
  );
});
