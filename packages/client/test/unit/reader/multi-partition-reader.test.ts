// Many partitions into one bounded queue: every record once, per-partition order, the queue
// never above capacity while the caller is slow, a fatal error from one partition ending the
// whole iteration, partitions added and removed while reading.
import { ErrorCode, type FetchRequest } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import { MultiPartitionReader, type PartitionBatch } from '../../../src/index.js';
import { FakeKafka } from '../fetch/fake-kafka.js';

const clusters: Cluster[] = [];

afterEach(async () => {
  for (const c of clusters.splice(0)) await c.close();
});

async function connect(kafka: FakeKafka): Promise<Cluster> {
  const cluster = await Cluster.connect(kafka.bootstrap(), {
    connectionFactory: kafka.factory,
    refreshIntervalMs: 0,
  });
  clusters.push(cluster);
  return cluster;
}

const options = { maxWaitMs: 20, retryBackoffMs: 1, retryBackoffMaxMs: 2 } as const;

describe('MultiPartitionReader', () => {
  it('delivers every record of every partition once, in order, with the queue bounded', async () => {
    const kafka = new FakeKafka(3, 6);
    for (let p = 0; p < 6; p++) for (let b = 0; b < 5; b++) kafka.appendValues(p, 2);
    const cluster = await connect(kafka);
    const multi = new MultiPartitionReader(
      cluster,
      Array.from({ length: 6 }, (_, partition) => ({
        topic: 'events',
        partition,
        startOffset: 0n,
      })),
      { ...options, capacity: 3, partitionMaxBytes: 1 },
    );
    const seen = new Map<number, string[]>();
    let maxQueued = 0;
    let maxAhead = 0;
    let total = 0;
    let delivered = 0;
    for await (const batch of multi) {
      delivered++;
      maxQueued = Math.max(maxQueued, multi.queued);
      maxAhead = Math.max(maxAhead, kafka.dataAnswers - delivered);
      const list = seen.get(batch.partition) ?? [];
      list.push(...batch.records.map((r) => r.value?.toString() ?? ''));
      seen.set(batch.partition, list);
      total += batch.records.length;
      await new Promise((r) => setTimeout(r, 2)); // a slow caller
      if (total === 60) break;
    }
    expect(maxQueued).toBeLessThanOrEqual(3);
    for (let p = 0; p < 6; p++) {
      expect(seen.get(p)).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));
      expect(multi.position('events', p)).toBe(10n);
    }
    // Fetching waited for the caller: at most capacity + one per partition answered ahead.
    expect(maxAhead).toBeLessThanOrEqual(3 + 6);
    expect(maxAhead).toBeGreaterThan(0);
    await multi.close();
    expect(kafka.dedicated()).toEqual([]);
  });

  it('an answer cut by maxBatchRecords is yielded in parts, the rest kept for the next iteration', async () => {
    const kafka = new FakeKafka(3, 2);
    kafka.appendValues(0, 7);
    kafka.appendValues(1, 7);
    const cluster = await connect(kafka);
    const multi = new MultiPartitionReader(
      cluster,
      [0, 1].map((partition) => ({ topic: 'events', partition, startOffset: 0n })),
      { ...options, maxBatchRecords: 3 },
    );
    const seen = new Map<number, PartitionBatch[]>();
    const take = async (n: number) => {
      let taken = 0;
      for await (const batch of multi) {
        seen.set(batch.partition, [...(seen.get(batch.partition) ?? []), batch]);
        if (++taken === n) break;
      }
    };
    await take(1); // the rest of that answer waits in the reader
    expect(multi.queued).toBeGreaterThanOrEqual(2);
    await take(5);
    for (const p of [0, 1]) {
      const batches = seen.get(p) ?? [];
      expect(batches.map((b) => b.records.length)).toEqual([3, 3, 1]);
      expect(batches.flatMap((b) => b.records.map((r) => r.value?.toString()))).toEqual(
        Array.from({ length: 7 }, (_, i) => `v${i}`),
      );
      expect(batches.map((b) => b.fetchOffset)).toEqual([0n, 3n, 6n]);
      expect(multi.position('events', p)).toBe(7n);
    }
    await multi.close();
  });

  it('ends the iteration with the first error a partition cannot retry', async () => {
    const kafka = new FakeKafka(3, 2);
    kafka.appendValues(0, 1);
    kafka.intercept = (_node, apiKey, request) => {
      const r = request as FetchRequest;
      if (apiKey !== 1 || r.topics[0]?.partitions[0]?.partition !== 1) return undefined;
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        sessionId: 0,
        responses: [],
        nodeEndpoints: [],
      };
    };
    const multi = new MultiPartitionReader(
      await connect(kafka),
      [0, 1].map((partition) => ({ topic: 'events', partition, startOffset: 0n })),
      options,
    );
    const error = await (async () => {
      for await (const _ of multi) {
        // keep reading
      }
    })().catch((e: unknown) => e);
    expect((error as { errorName?: string }).errorName).toBe('TOPIC_AUTHORIZATION_FAILED');
    await multi.close();
  });

  it('adds and removes partitions while reading; an abort ends the iteration', async () => {
    const kafka = new FakeKafka(3, 3);
    for (let p = 0; p < 3; p++) kafka.appendValues(p, 2);
    const controller = new AbortController();
    const multi = new MultiPartitionReader(
      await connect(kafka),
      [{ topic: 'events', partition: 0, startOffset: 0n }],
      { ...options, signal: controller.signal },
    );
    const batches: PartitionBatch[] = [];
    for await (const batch of multi) {
      batches.push(batch);
      if (batch.partition === 0) {
        expect(await multi.remove('events', 0)).toBe(2n);
        multi.add({ topic: 'events', partition: 2, startOffset: 1n });
      } else {
        controller.abort();
      }
    }
    expect(batches.map((b) => [b.partition, b.records.map((r) => r.offset)])).toEqual([
      [0, [0n, 1n]],
      [2, [1n]],
    ]);
    expect(multi.assignments().map((a) => a.partition)).toEqual([2]);
    await multi.close();
  });

  it('refuses a partition named twice and a bad capacity', async () => {
    const cluster = await connect(new FakeKafka());
    const one = { topic: 'events', partition: 0, startOffset: 0n } as const;
    expect(() => new MultiPartitionReader(cluster, [one, one])).toThrow(/already read/);
    expect(() => new MultiPartitionReader(cluster, [one], { capacity: 0 })).toThrow(/capacity/);
  });
});
