import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey, StickyPartitioner, toPositive } from '../../../src/index.js';

// Recorded from Kafka's own `Utils.murmur2` and `BuiltInPartitioner.partitionForKey` (the
// pinned kafka-clients jar) by test/support/Murmur2Vectors.java with 7 partitions; the
// integration test partitioner-java.test.ts recomputes them and random keys through Java.
const JAVA_VECTORS: readonly [hex: string, murmur2: number, partitionOf7: number][] = [
  ['', 275646681, 2],
  ['00', 375494588, 0],
  ['ff', -311467685, 5],
  ['6b6579', -1079937367, 4],
  ['6f726465722d3432', 501153024, 1],
  ['000102030405060708', 1671170726, 1],
  ['ffffffffffffffffffffffff', -183805200, 4],
  ['4b61666b61', 824573139, 5],
  ['746f706963', -1916143146, 1],
  ['8081828384858687', -1608452407, 0],
  ['e282ac', -1352192002, 2],
];

describe('murmur2 and the key partitioner', () => {
  it.each(JAVA_VECTORS)('key %s hashes as in Kafka', (hex, hash, partition) => {
    const key = Buffer.from(hex, 'hex');
    expect(murmur2(key)).toBe(hash);
    expect(partitionForKey(key, 7)).toBe(partition);
  });

  it('toPositive clears the sign bit, also for -2^31', () => {
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(-1)).toBe(2147483647);
    expect(toPositive(5)).toBe(5);
  });
});

describe('StickyPartitioner', () => {
  it('stays on one partition until batchSize bytes went to it, then moves to another', () => {
    let r = 0;
    const sticky = new StickyPartitioner(100, () => [0.1, 0.6, 0.9][r++ % 3]!);
    const first = sticky.partition('t', [0, 1, 2, 3], 4);
    sticky.onAppend('t', first, 60);
    expect(sticky.partition('t', [0, 1, 2, 3], 4)).toBe(first);
    sticky.onAppend('t', first, 60);
    const second = sticky.partition('t', [0, 1, 2, 3], 4);
    expect(second).not.toBe(first);
  });

  it('leaves a partition that lost its leader and picks among those that have one', () => {
    const sticky = new StickyPartitioner(1000, () => 0);
    expect(sticky.partition('t', [0, 1], 3)).toBe(0);
    expect(sticky.partition('t', [2], 3)).toBe(2);
  });

  it('holds a switch while the partition has an open batch, makes it once none is, and at twice batchSize regardless (KIP-794)', () => {
    const all = [0, 1, 2, 3];
    let open = true;
    const sticky = new StickyPartitioner(100, () => 0.6);
    const first = sticky.partition('t', all, 4, () => !open);
    sticky.onAppend('t', first, 120, false);
    // Past batchSize, but a batch is still open there: stay.
    expect(sticky.partition('t', all, 4, () => !open)).toBe(first);
    open = false;
    const second = sticky.partition('t', all, 4, () => !open);
    expect(second).not.toBe(first);
    open = true;
    sticky.onAppend('t', second, 150, false);
    expect(sticky.partition('t', all, 4, () => !open)).toBe(second);
    sticky.onAppend('t', second, 50, false);
    // 200 bytes = twice batchSize: switch with the batch still open.
    expect(sticky.partition('t', all, 4, () => !open)).not.toBe(second);
  });

  it("weighs the next partition against queued batches as Kafka's cumulative frequency table does", () => {
    // Queue sizes 0, 3, 1: weights 4, 1, 3 (max + 1 - size), running sums 4, 5, 8. A draw in
    // [0, 4) picks partition 0, 4 picks 1, [5, 8) picks 2.
    const queues: Record<number, number> = { 0: 0, 1: 3, 2: 1 };
    const picks = [0, 3, 4, 5, 7].map((draw) => {
      const sticky = new StickyPartitioner(
        100,
        () => draw / 8,
        (_, p) => queues[p],
      );
      return sticky.partition('t', [0, 1, 2], 3);
    });
    expect(picks).toEqual([0, 0, 1, 2, 2]);
  });

  it('picks uniformly until every partition has had a queue, and leaves out leaderless ones', () => {
    const queues: Record<number, number | undefined> = { 0: 0, 1: 5, 2: undefined };
    const uniform = new StickyPartitioner(
      100,
      () => 0.5,
      (_, p) => queues[p],
    );
    // Uniform over [0, 1, 2]: 0.5 * 3 = 1.5, index 1, although partition 1 has 5 batches queued.
    expect(uniform.partition('t', [0, 1, 2], 3)).toBe(1);
    queues[2] = 5;
    // Partition 2 has no leader: only 0 (weight 6) and 1 (weight 1) are weighed; 0.99 * 7 = 6.
    const weighted = new StickyPartitioner(
      100,
      () => 0.99,
      (_, p) => queues[p],
    );
    expect(weighted.partition('t', [0, 1], 3)).toBe(1);
    const low = new StickyPartitioner(
      100,
      () => 0.5,
      (_, p) => queues[p],
    );
    expect(low.partition('t', [0, 1], 3)).toBe(0);
  });

  it('leaves partitions of a broker that has not taken data out of adaptive picks, and picks uniformly when all are', () => {
    const queues: Record<number, number> = { 0: 0, 1: 0, 2: 0 };
    let out = new Set([0]);
    const sticky = () =>
      new StickyPartitioner(
        100,
        () => 0,
        (_, p) => queues[p],
        (_, p) => out.has(p),
      );
    // Weights 1, 1, 1 without partition 0: the lowest draw picks partition 1.
    expect(sticky().partition('t', [0, 1, 2], 3)).toBe(1);
    out = new Set([0, 1, 2]);
    // None left to weigh: the uniform pick, whose lowest draw is partition 0.
    expect(sticky().partition('t', [0, 1, 2], 3)).toBe(0);
  });
});
