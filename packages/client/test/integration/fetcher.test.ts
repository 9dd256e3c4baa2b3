import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchEngine, type FetchObservation } from '../../src/fetch/fetch-engine.js';
import type { FetcherConfig } from '../../src/fetch/fetcher.js';
import { type PartitionBatch, Producer } from '../../src/index.js';
import { moveLeader, unique } from './support.js';

const shared = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(shared.bootstrap, { refreshIntervalMs: 0 });
});

afterAll(async () => {
  await cluster?.close();
});

function fetcherConfig(overrides: Partial<FetcherConfig> = {}): FetcherConfig {
  return {
    cluster,
    isolationLevel: 'read_uncommitted',
    autoOffsetReset: 'earliest',
    maxWaitMs: 200,
    minBytes: 1,
    maxBytes: 50 * 1024 * 1024,
    partitionMaxBytes: 1024 * 1024,
    maxBufferedBytes: 64 * 1024 * 1024,
    requestTimeoutMs: 30_000,
    retryBackoffMs: 100,
    retryBackoffMaxMs: 1000,
    verifyCrc: true,
    maxUncompressedBytes: 64 * 1024 * 1024,
    rackId: null,
    random: Math.random,
    ...overrides,
  };
}

interface Tp {
  topic: string;
  partition: number;
}
const key = (tp: Tp) => `${tp.topic}-${tp.partition}`;

/** Topics with `partitions` partitions each, leaders spread over the 3 brokers. */
async function topics(prefix: string, count: number, partitions: number): Promise<Tp[]> {
  const out: Tp[] = [];
  for (let t = 0; t < count; t++) {
    const name = unique(`${prefix}${t}`);
    const assignments = Array.from({ length: partitions }, (_, p) => {
      const first = ((p + t) % 3) + 1;
      return [first, (first % 3) + 1, ((first + 1) % 3) + 1];
    });
    await shared.admin.createTopic(name, { assignments });
    for (let p = 0; p < partitions; p++) out.push({ topic: name, partition: p });
  }
  return out;
}

/** Produces `n` values `<tp>:<i>` (i from `from`) to every partition, in order. */
async function produce(producer: Producer, tps: readonly Tp[], from: number, n: number) {
  await Promise.all(
    tps.map(async (tp) => {
      for (let i = from; i < from + n; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, from + n - i) }, (_, j) =>
            producer.send({ ...tp, value: `${key(tp)}:${i + j}` }),
          ),
        );
      }
    }),
  );
}

/**
 * Polls until `done` says so; gives up (and fails the caller's assertions) when `guard` aborts,
 * by default after `guardMs`.
 */
async function pollUntil(
  fetcher: FetchEngine,
  done: (all: PartitionBatch[]) => boolean,
  options: {
    guard?: AbortSignal;
    guardMs?: number;
    onPoll?: (batches: PartitionBatch[]) => void;
  } = {},
): Promise<PartitionBatch[]> {
  const all: PartitionBatch[] = [];
  const guard = options.guard ?? AbortSignal.timeout(options.guardMs ?? 90_000);
  while (!done(all) && !guard.aborted) {
    const batches = await fetcher.poll(guard);
    options.onPoll?.(batches);
    all.push(...batches);
  }
  return all;
}

/**
 * A FetchEngine observer that keeps every Fetch, and signals that abort once a condition holds
 * (checked now and after each Fetch): a poll can wait on what the Fetches show (every broker
 * asked idly, a position moved past control batches) instead of waking on a timer.
 *
 * A poll's signal must be held by the test: Node holds the sources of `AbortSignal.any`
 * weakly, so an `AbortSignal.timeout` nothing else refers to can be garbage collected with its
 * timer, and a poll waiting on it alone never wakes.
 */
function fetchWatch() {
  const observed: FetchObservation[] = [];
  let waits: { holds: () => boolean; controller: AbortController }[] = [];
  return {
    observed,
    onFetch(o: FetchObservation) {
      observed.push(o);
      waits = waits.filter((w) => {
        if (!w.holds()) return true;
        w.controller.abort();
        return false;
      });
    },
    once(holds: () => boolean): AbortSignal {
      const controller = new AbortController();
      if (holds()) controller.abort();
      else waits.push({ holds, controller });
      return controller.signal;
    },
  };
}

/**
 * `work`, or a failure naming `what` if `guard` aborts first: a step that stalls fails the test
 * by name before its timeout, instead of hanging it silently. A guard, not a timing check.
 */
function within<T>(guard: AbortSignal, what: string, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const give = () => reject(new Error(`${what}: not done when the test's guard ran out`));
    if (guard.aborted) give();
    guard.addEventListener('abort', give, { once: true });
    work.then(resolve, reject).finally(() => guard.removeEventListener('abort', give));
  });
}

/** Values read per partition, in delivery order. */
function valuesByPartition(batches: readonly PartitionBatch[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const b of batches) {
    const list = out.get(key(b)) ?? [];
    for (const r of b.records) list.push(r.value?.toString() ?? '');
    out.set(key(b), list);
  }
  return out;
}

const expected = (tp: Tp, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${key(tp)}:${from + i}`);

describe('FetchEngine on a real cluster', () => {
  it('reads 3 topics × 4 partitions on all 3 brokers completely and in order, with incremental sessions', async () => {
    const tps = await topics('fetch-basic', 3, 4);
    const producer = new Producer(cluster, { lingerMs: 2 });
    const fetches = fetchWatch();
    const observed = fetches.observed;
    const fetcher = new FetchEngine(fetcherConfig(), fetches);
    try {
      await produce(producer, tps, 0, 30);
      fetcher.assign(tps.map((tp) => ({ ...tp, start: 'earliest' as const })));
      const count = (all: PartitionBatch[]) => all.reduce((n, b) => n + b.records.length, 0);
      const first = await pollUntil(fetcher, (all) => count(all) >= tps.length * 30);
      // More data while the sessions are established: it comes through incremental requests.
      await produce(producer, tps, 30, 30);
      const second = await pollUntil(fetcher, (all) => count(all) >= tps.length * 30);
      // Then nothing new: each broker gets incremental requests that carry nothing at all.
      const idle = (node: number) =>
        observed.some(
          (o) => o.nodeId === node && !o.full && o.sent.length === 0 && o.forgotten.length === 0,
        );
      const quiet = AbortSignal.timeout(30_000);
      const allIdle = fetches.once(() => [1, 2, 3].every(idle));
      while (!allIdle.aborted && !quiet.aborted) {
        expect(await fetcher.poll(AbortSignal.any([quiet, allIdle]))).toEqual([]);
      }
      const read = valuesByPartition([...first, ...second]);
      for (const tp of tps) {
        expect(read.get(key(tp))).toEqual(expected(tp, 0, 60));
        expect(fetcher.position(tp)?.offset).toBe(60n);
      }

      const nodes = [...new Set(observed.map((o) => o.nodeId))].sort();
      expect(nodes).toEqual([1, 2, 3]);
      for (const node of nodes) {
        const mine = observed.filter((o) => o.nodeId === node);
        // The first request is full and opens a session the broker keeps: every later one is
        // incremental, under the same non-zero session id, with the epoch counting up.
        expect(mine[0]?.full).toBe(true);
        expect(mine[0]?.sessionId).toBe(0);
        const sessionId = mine[0]?.responseSessionId;
        expect(sessionId).toBeGreaterThan(0);
        const later = mine.slice(1);
        expect(later.length).toBeGreaterThan(2);
        expect(later.filter((o) => o.full)).toEqual([]);
        expect(new Set(later.map((o) => o.sessionId))).toEqual(new Set([sessionId]));
        expect(new Set(later.map((o) => o.responseSessionId))).toEqual(new Set([sessionId]));
        expect(later.map((o) => o.epoch)).toEqual(later.map((_, i) => i + 1));
        expect(idle(node)).toBe(true);
      }
      const stats = fetcher.sessionStats();
      console.log(
        `fetch sessions: ${stats.map((s) => `broker ${s.nodeId}: ${s.fullRequests} full, ${s.incrementalRequests} incremental`).join('; ')}`,
      );
    } finally {
      await fetcher.close();
      await producer.close();
    }
  });

  it('reads committed data only under read_committed (an aborted transaction in the middle), everything under read_uncommitted', async () => {
    const tps = await topics('fetch-txn', 2, 3);
    const producer = new Producer(cluster, { transactionalId: unique('fetch-tx'), lingerMs: 2 });
    try {
      await producer.initTransactions();
      const txn = async (tag: string, commit: boolean) => {
        producer.beginTransaction();
        await Promise.all(
          tps.flatMap((tp) =>
            [0, 1, 2].map((i) => producer.send({ ...tp, value: `${key(tp)}:${tag}${i}` })),
          ),
        );
        if (commit) await producer.commitTransaction();
        else await producer.abortTransaction();
      };
      await txn('a', true);
      await txn('x', false);
      await txn('b', true);
    } finally {
      await producer.close();
    }
    // 3 transactions of 3 records, each closed by its marker: every partition ends at 12. The
    // end is not asked of the broker: right after commitTransaction returns, the leader may not
    // yet have the last marker replicated, and ListOffsets(latest) answers the high watermark, 11.
    const logEnd = 12n;
    for (const isolationLevel of ['read_committed', 'read_uncommitted'] as const) {
      const fetches = fetchWatch();
      const fetcher = new FetchEngine(fetcherConfig({ isolationLevel }), fetches);
      try {
        fetcher.assign(tps.map((tp) => ({ ...tp, start: { offset: 0n } })));
        // Done once every position reached the log end: markers and aborted batches are
        // stepped over even where they deliver nothing (so no poll hears of it: the Fetch
        // that stepped over them wakes it).
        const atEnd = () => tps.every((tp) => fetcher.position(tp)?.offset === logEnd);
        const reached = fetches.once(atEnd);
        const guard = AbortSignal.timeout(60_000);
        const all: PartitionBatch[] = [];
        while (!atEnd()) {
          if (guard.aborted) {
            const at = tps.map((tp) => `${key(tp)}@${fetcher.position(tp)?.offset}`).join(', ');
            throw new Error(
              `${isolationLevel}: not every position reached ${logEnd} in 60 s: ${at}`,
            );
          }
          all.push(...(await fetcher.poll(AbortSignal.any([guard, reached]))));
        }
        const read = valuesByPartition(all);
        for (const tp of tps) {
          const want =
            isolationLevel === 'read_committed'
              ? ['a0', 'a1', 'a2', 'b0', 'b1', 'b2']
              : ['a0', 'a1', 'a2', 'x0', 'x1', 'x2', 'b0', 'b1', 'b2'];
          expect(read.get(key(tp)), `${isolationLevel} ${key(tp)}`).toEqual(
            want.map((v) => `${key(tp)}:${v}`),
          );
          expect(fetcher.position(tp)?.offset).toBe(logEnd);
        }
      } finally {
        await fetcher.close();
      }
    }
  });

  it('pause keeps a partition undelivered and unfetched, resume delivers it, seek rewinds one partition', async () => {
    const tps = await topics('fetch-pause', 1, 3);
    const producer = new Producer(cluster, { lingerMs: 2 });
    const fetcher = new FetchEngine(fetcherConfig());
    try {
      await produce(producer, tps, 0, 10);
      fetcher.assign(tps.map((tp) => ({ ...tp, start: { offset: 0n } })));
      const [p0, p1, p2] = tps as [Tp, Tp, Tp];
      fetcher.pause([p0]);
      const count = (all: PartitionBatch[], tp?: Tp) =>
        all.reduce(
          (n, b) => n + (tp === undefined || key(b) === key(tp) ? b.records.length : 0),
          0,
        );
      const first = await pollUntil(fetcher, (all) => count(all, p1) >= 10 && count(all, p2) >= 10);
      await produce(producer, tps, 10, 10);
      const second = await pollUntil(
        fetcher,
        (all) => count(all, p1) >= 10 && count(all, p2) >= 10,
      );
      // Paused all along: nothing delivered, the position where it was.
      expect(count([...first, ...second], p0)).toBe(0);
      expect(fetcher.position(p0)?.offset).toBe(0n);
      expect(await fetcher.poll(AbortSignal.timeout(500))).toEqual([]);

      fetcher.resume([p0]);
      fetcher.seek(p1, 5n);
      const third = await pollUntil(fetcher, (all) => count(all, p0) >= 20 && count(all, p1) >= 15);
      const read = valuesByPartition(third);
      expect(read.get(key(p0))).toEqual(expected(p0, 0, 20));
      expect(read.get(key(p1))).toEqual(expected(p1, 5, 15));
      expect(read.get(key(p2)) ?? []).toEqual([]);
      for (const tp of tps) expect(fetcher.position(tp)?.offset).toBe(20n);
    } finally {
      await fetcher.close();
      await producer.close();
    }
  });

  it('keeps the prefetch buffer bounded while the application polls slowly', async () => {
    // 12 partitions × 16 KiB per answer could buffer 192 KiB; the bound is 64 KiB.
    const tps = await topics('fetch-bound', 1, 12);
    // Record batches of at most 8 KiB (8 records of 1 KB each).
    const producer = new Producer(cluster, { lingerMs: 5, batchSize: 8192 });
    const bound = 64 * 1024;
    const maxBytes = 32 * 1024;
    const observed: FetchObservation[] = [];
    const fetcher = new FetchEngine(
      fetcherConfig({ maxBufferedBytes: bound, maxBytes, partitionMaxBytes: 16 * 1024 }),
      { onFetch: (o) => observed.push(o) },
    );
    const value = 'x'.repeat(1000);
    const perPartition = 40;
    try {
      await Promise.all(
        tps.map(async (tp) => {
          for (let i = 0; i < perPartition; i += 20) {
            await Promise.all(
              Array.from({ length: 20 }, (_, j) =>
                producer.send({ ...tp, value: `${key(tp)}:${i + j}:${value}` }),
              ),
            );
          }
        }),
      );
      fetcher.assign(tps.map((tp) => ({ ...tp, start: 'earliest' as const })));
      const all: PartitionBatch[] = [];
      const guard = AbortSignal.timeout(150_000);
      let records = 0;
      while (records < tps.length * perPartition && !guard.aborted) {
        const batches = await fetcher.poll(guard);
        records += batches.reduce((n, b) => n + b.records.length, 0);
        all.push(...batches);
        // A slow application: the fetcher has every chance to overfill between polls.
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const tp of tps) {
        const got = all
          .filter((b) => key(b) === key(tp))
          .flatMap((b) => b.records.map((r) => r.value?.toString().split(':')[1]));
        expect(got).toEqual(Array.from({ length: perPartition }, (_, i) => String(i)));
      }
      const peak = fetcher.peakBufferedBytes;
      console.log(`prefetch: bound ${bound} B, peak ${peak} B, ${observed.length} Fetches`);
      // The buffer did fill up to the bound, and no Fetch went out above it ...
      expect(peak).toBeGreaterThanOrEqual(bound / 2);
      expect(observed.filter((o) => o.bufferedBytesAtSend > bound)).toEqual([]);
      // ... each asking only for the room left (so near the bound, small requests) ...
      expect(observed.some((o) => o.maxBytes < maxBytes)).toBe(true);
      // ... so at most one answer per broker (at most maxBytes: record batches here are far
      // smaller) lands on top of it.
      expect(peak).toBeLessThanOrEqual(bound + 3 * maxBytes);
    } finally {
      await fetcher.close();
      await producer.close();
    }
  }, 180_000);

  it('reads on across a leadership move (reassign + elect) with nothing lost or repeated', async () => {
    const topic = unique('fetch-move');
    await shared.admin.createTopic(topic, {
      assignments: [
        [1, 2, 3],
        [2, 3, 1],
      ],
    });
    const tps: Tp[] = [0, 1].map((partition) => ({ topic, partition }));
    const producer = new Producer(cluster, { lingerMs: 2 });
    const observed: FetchObservation[] = [];
    const fetcher = new FetchEngine(fetcherConfig(), { onFetch: (o) => observed.push(o) });
    // Every wait below ends by this (short of the test's timeout), failing with what stalled.
    const guard = AbortSignal.timeout(100_000);
    try {
      await within(guard, 'the first records', produce(producer, tps, 0, 20));
      fetcher.assign(tps.map((tp) => ({ ...tp, start: { offset: 0n } })));
      const count = (all: PartitionBatch[]) => all.reduce((n, b) => n + b.records.length, 0);
      const before = await pollUntil(fetcher, (all) => count(all) >= 40, { guard });
      // Keep producing and reading while leadership of partition 0 moves from broker 1 to 2,
      // until the move is done. Each round of the producer is acknowledged before the next.
      const moved = new AbortController();
      let produced = 20;
      const producing = (async () => {
        while (!moved.signal.aborted) {
          await produce(producer, tps, produced, 5);
          produced += 5;
        }
      })();
      const during: PartitionBatch[] = [];
      const reading = (async () => {
        // A poll waits for records or for the end of the move.
        while (!moved.signal.aborted) during.push(...(await fetcher.poll(moved.signal)));
      })();
      // Awaited below; should the move fail first, a failure of theirs is not left unhandled.
      producing.catch(() => {});
      reading.catch(() => {});
      try {
        await within(guard, 'the leadership move', moveLeader(shared, topic, [2, 3, 1]));
      } finally {
        moved.abort();
      }
      await within(guard, "the producer's last round during the move", producing);
      await within(guard, 'the reader during the move', reading);
      // The loop may have produced its last round before the election took effect; one more
      // round, written once every broker names broker 2, can only be read from broker 2.
      await within(guard, 'the round after the move', produce(producer, tps, produced, 5));
      produced += 5;
      const total = produced;
      const after = await pollUntil(
        fetcher,
        () => tps.every((tp) => fetcher.position(tp)?.offset === BigInt(total)),
        { guard },
      );
      const read = valuesByPartition([...before, ...during, ...after]);
      for (const tp of tps) expect(read.get(key(tp))).toEqual(expected(tp, 0, total));
      // Partition 0 left broker 1's session and joined broker 2's.
      const p0 = key(tps[0] as Tp);
      const lastTo1 = observed.findLastIndex((o) => o.nodeId === 1 && o.sent.includes(p0));
      const firstTo2 = observed.findIndex((o) => o.nodeId === 2 && o.sent.includes(p0));
      expect(lastTo1).toBeGreaterThanOrEqual(0);
      expect(firstTo2).toBeGreaterThan(lastTo1);
      expect([...during, ...after].filter((b) => b.partition === 0).at(-1)?.leaderId).toBe(2);
    } finally {
      await fetcher.close();
      await producer.close();
    }
  });
});
