// The `partitioner` option (Kafka's Partitioner, partitioner.class): it chooses the partition of
// each record that names none, once per record, with the topic's partition count and the
// partitions that have a leader; undefined leaves the record to the default partitioning; a
// negative or fractional answer, or a throw, fails that record; a partition the topic lacks
// waits for metadata up to maxBlockMs, as a record naming it does. The default partitioner's
// KIP-794 options: adaptive picks weighed against queued batches, partitioner.ignore.keys, and
// partitioner.availability.timeout.ms.
import { describe, expect, it, vi } from 'vitest';
import {
  type PartitionerContext,
  Producer,
  ProducerBlockedError,
  ProducerConfigError,
  type ProducerRecord,
  partitionForKey,
} from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

describe('Producer partitioner option', () => {
  it('places each record where the partitioner says, and is asked once per record that names no partition', async () => {
    // Partition 2 has no leader in this snapshot.
    const fake = new FakeProduceCluster({ t: 4 }, (p) => (p === 2 ? -1 : (p % 3) + 1));
    const calls: [string, PartitionerContext][] = [];
    const producer = new Producer(fake, {
      partitioner: (record, context) => {
        calls.push([String(record.value), context]);
        return Number(String(record.value).slice(1)) % 2 === 0 ? 3 : 1;
      },
    });
    const sent = await Promise.all(
      ['v0', 'v1', 'v2', 'v3'].map((value) => producer.send({ topic: 't', value })),
    );
    const pinned = await producer.send({ topic: 't', partition: 0, value: 'pinned' });
    await producer.close();
    expect(sent.map((m) => m.partition)).toEqual([3, 1, 3, 1]);
    expect(pinned.partition).toBe(0);
    expect(calls.map(([v]) => v)).toEqual(['v0', 'v1', 'v2', 'v3']);
    expect(calls[0]?.[1]).toEqual({
      topic: 't',
      partitionCount: 4,
      availablePartitions: [0, 1, 3],
    });
    expect(fake.log('t', 3).values).toEqual(['v0', 'v2']);
    expect(fake.log('t', 1).values).toEqual(['v1', 'v3']);
  });

  it('leaves a record to the default partitioning when it answers undefined', async () => {
    const fake = new FakeProduceCluster({ t: 5 });
    const producer = new Producer(fake, {
      partitioner: (record) => (record.key === 'vip' ? 0 : undefined),
    });
    const vip = await producer.send({ topic: 't', key: 'vip', value: 'a' });
    const other = await producer.send({ topic: 't', key: 'order-42', value: 'b' });
    await producer.close();
    expect(vip.partition).toBe(0);
    expect(other.partition).toBe(partitionForKey(Buffer.from('order-42'), 5));
  });

  it('fails the record, typed, for a negative or fractional answer, and with the exception it throws', async () => {
    const fake = new FakeProduceCluster({ t: 3 });
    const answers: unknown[] = [-1, 1.5, Number.NaN];
    const producer = new Producer(fake, {
      partitioner: (record) => {
        if (record.value === 'boom') throw new RangeError('no partition for boom');
        return answers.shift() as number;
      },
    });
    for (const answer of ['-1', '1.5', 'NaN']) {
      const error = await producer.send({ topic: 't', value: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_PARTITION_INVALID' });
      expect((error as Error).message).toContain(`the partitioner returned ${answer}`);
    }
    const thrown = await producer.send({ topic: 't', value: 'boom' }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RangeError);
    expect(await producer.send({ topic: 't', partition: 2, value: 'fine' })).toMatchObject({
      partition: 2,
    });
    await producer.close();
    expect(fake.log('t', 2).values).toEqual(['fine']);
  });

  it('waits for a partition the topic lacks, asking once, then says the partitioner chose it', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    let calls = 0;
    const producer = new Producer(fake, {
      maxBlockMs: 60,
      retryBackoffMs: 5,
      partitioner: () => {
        calls++;
        return 7;
      },
    });
    const error = await producer.send({ topic: 't', value: 'x' }).catch((e: unknown) => e);
    await producer.close();
    expect(error).toBeInstanceOf(ProducerBlockedError);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT', topic: 't' });
    expect((error as Error).message).toContain(
      'partition 7 (from the partitioner) of topic "t" does not exist',
    );
    expect(calls).toBe(1);
  });

  it('asks once for a record that waits for room in bufferMemory', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    fake.gate = new Promise(() => {});
    const seen: ProducerRecord[] = [];
    const producer = new Producer(fake, {
      bufferMemory: 300,
      maxBlockMs: 50,
      lingerMs: 0,
      partitioner: (record) => {
        seen.push(record);
        return 1;
      },
    });
    void producer.send({ topic: 't', value: Buffer.alloc(200) }).catch(() => {});
    const error = await producer
      .send({ topic: 't', value: Buffer.alloc(200) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED' });
    expect(seen).toHaveLength(2);
    await producer.close({ timeoutMs: 10 });
  });

  it('refuses a partitioner that is not a function', () => {
    expect(
      () => new Producer(new FakeProduceCluster({ t: 1 }), { partitioner: 3 as never }),
    ).toThrow(ProducerConfigError);
  });

  it.each([
    [true, 2],
    [false, 1],
  ])(
    'weighs the sticky pick against queued batches when partitionerAdaptive is %s (KIP-794)',
    async (adaptive, expected) => {
      const fake = new FakeProduceCluster({ t: 3 });
      let open: () => void = () => {};
      fake.gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const producer = new Producer(fake, {
        batchSize: 100,
        lingerMs: 0,
        maxInFlight: 1,
        random: () => 0.65,
        partitionerAdaptive: adaptive,
      });
      const value = 'v'.repeat(80);
      // One batch per record; the first of each partition goes out and waits for the gate, the
      // rest queue: partition 0 queues none, 1 queues four, 2 queues one.
      const pinned = [0, 1, 1, 1, 1, 1, 2, 2].map((partition) =>
        producer.send({ topic: 't', partition, value }),
      );
      // Adaptive weights 5, 1, 4 (draw 0.65 x 10 = 6: partition 2); uniform 0.65 x 3: partition 1.
      const unkeyed = producer.send({ topic: 't', value: 'u' });
      open();
      await Promise.all(pinned);
      expect((await unkeyed).partition).toBe(expected);
      await producer.close();
    },
  );

  it('places keyed records as unkeyed ones with partitionerIgnoreKeys', async () => {
    const fake = new FakeProduceCluster({ t: 6 });
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    const byKey = new Producer(fake);
    const spread = await Promise.all(
      keys.map((key) => byKey.send({ topic: 't', key, value: 'x' })),
    );
    await byKey.close();
    expect(new Set(spread.map((m) => m.partition)).size).toBeGreaterThan(1);
    const ignoring = new Producer(fake, { partitionerIgnoreKeys: true });
    const sticky = await Promise.all(
      keys.map((key) => ignoring.send({ topic: 't', key, value: 'x' })),
    );
    await ignoring.close();
    expect(new Set(sticky.map((m) => m.partition)).size).toBe(1);
  });

  it.each([
    [50, 2],
    [0, 1],
  ])(
    'with partitionerAvailabilityTimeoutMs %s, leaves out a partition whose broker has had batches waiting longer',
    async (timeoutMs, expected) => {
      // Only Date is faked: the producer's timers and promises run as usual.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const start = Date.now();
        const fake = new FakeProduceCluster({ t: 3 });
        const producer = new Producer(fake, {
          batchSize: 100,
          lingerMs: 0,
          maxInFlight: 1,
          random: () => 0.55,
          partitionerAvailabilityTimeoutMs: timeoutMs,
        });
        // With its producer id in hand, the producer hands each batch to its broker from the
        // send call itself.
        await producer.send({ topic: 't', partition: 0, value: 'first' });
        // ...once the answer's request slot is released too (a macrotask turn).
        await new Promise((resolve) => setImmediate(resolve));
        let open: () => void = () => {};
        fake.gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        const value = 'v'.repeat(80);
        // Each partition's first batch goes out (its broker takes it); partition 1 queues two
        // more, which its broker (at maxInFlight) cannot take.
        const pinned = [0, 1, 1, 2].map((partition) =>
          producer.send({ topic: 't', partition, value }),
        );
        vi.setSystemTime(start + 100);
        // Offered again 100 ms later, still refused: partition 1's broker has waited 100 ms.
        pinned.push(producer.send({ topic: 't', partition: 1, value }));
        // Queues 0, 3, 0: weights 4, 1, 4. Without partition 1, the draw 0.55 x 8 = 4 picks
        // partition 2; with it, 0.55 x 9 = 4 picks partition 1.
        const unkeyed = producer.send({ topic: 't', value: 'u' });
        open();
        await Promise.all(pinned);
        expect((await unkeyed).partition).toBe(expected);
        await producer.close();
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
