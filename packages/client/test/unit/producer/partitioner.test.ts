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
});
