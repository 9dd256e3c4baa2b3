// Where each record of a sendBatch() call went, read back per record: kept as runs of records
// placed one after another into one batch, or per record once runs stop paying.
import { describe, expect, it } from 'vitest';
import { BatchOutcome, SendGroup } from '../../../src/producer/internal/delivery.js';

/** A batch of `partition` acknowledged at `baseOffset`. */
const batch = (partition: number, baseOffset: bigint) => ({
  outcome: new BatchOutcome('t', partition, baseOffset, -1n, 0n, [0, 1_700_000_000_000]),
});

const where = (group: SendGroup) =>
  Array.from({ length: group.count }, (_, i) => {
    try {
      const m = group.metadata(i);
      return `${m.partition}@${m.offset}`;
    } catch {
      return 'none';
    }
  });

describe('SendGroup', () => {
  it('reads each record from its run: two batches, a refused record between them', () => {
    const group = new SendGroup(7, () => {});
    const a = batch(0, 100n);
    const b = batch(1, 200n);
    for (let i = 0; i < 3; i++) group.placed(i, a, 4 + i);
    // Record 3 was refused: never placed.
    for (let i = 4; i < 7; i++) group.placed(i, b, i - 4);
    expect(where(group)).toEqual(['0@104', '0@105', '0@106', 'none', '1@200', '1@201', '1@202']);
  });

  it('gives the same answers past eight runs, with records of three partitions interleaved', () => {
    const group = new SendGroup(30, () => {});
    const batches = [batch(0, 0n), batch(1, 10n), batch(2, 20n)];
    for (let i = 0; i < 30; i++) group.placed(i, batches[i % 3]!, Math.floor(i / 3));
    expect(where(group)).toEqual(
      Array.from({ length: 30 }, (_, i) => `${i % 3}@${(i % 3) * 10 + Math.floor(i / 3)}`),
    );
  });

  it('follows records a split moved to another batch, from runs', () => {
    const group = new SendGroup(6, () => {});
    const whole = batch(0, 0n);
    const tail = batch(0, 50n);
    for (let i = 0; i < 6; i++) group.placed(i, whole, i);
    // The split batch's records 3..5 now travel in `tail`, which starts at index 3 of it.
    group.moved(whole, tail, 3, 6, 3);
    expect(where(group)).toEqual(['0@0', '0@1', '0@2', '0@50', '0@51', '0@52']);
  });
});
