import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecordBatches, encodeRecordBatchSync } from '../../../src/index.js';

/**
 * A decoded batch's record table is carved from a shared slab: tables read one after
 * another, some filling a slab to its end and some too big for one, must each keep their
 * records.
 */
describe('decoded batches keep their records while later batches are read (fast-check)', () => {
  it('reading every batch first, then every record, gives each batch its own records', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 5, arbitrary: fc.integer({ min: 1, max: 1_200 }) },
            { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 4_000 }) },
          ),
          { minLength: 1, maxLength: 30 },
        ),
        (counts) => {
          const bufs = counts.map((count, b) =>
            encodeRecordBatchSync({
              baseOffset: BigInt(b * 10_000),
              records: Array.from({ length: count }, (_, i) => ({
                value: Buffer.from([b & 0xff, i & 0xff]),
                timestamp: i,
              })),
            }),
          );
          const batches = bufs.map((buf) => [...decodeRecordBatches(buf)][0]!);
          // Every table is built before any record is read.
          const iterators = batches.map((batch) => batch.records());
          iterators.forEach((records, b) => {
            let i = 0;
            for (const r of records) {
              expect(r.offset).toBe(BigInt(b * 10_000 + i));
              expect([...r.value!]).toEqual([b & 0xff, i & 0xff]);
              i++;
            }
            expect(i).toBe(counts[b]);
          });
        },
      ),
      { numRuns: 15 },
    );
  });
});
