import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  crc32c,
  decodeRecordBatches,
  encodeRecordBatchSync,
  type RecordInput,
} from '../../../src/index.js';

/**
 * Uncompressed batches are written into shared slabs and handed out as views of them. Every
 * batch must stay intact whatever is encoded after it: batches that fill a slab to its end,
 * batches that outgrow what is left and move to a new slab, batches bigger than a slab, and
 * encodes that fail half-way through their records.
 */
describe('encodeRecordBatchSync batches share memory safely (fast-check)', () => {
  // Values up to 300 KiB: a few of them fill a 1 MiB slab, one record at the end crosses it.
  const valueSize = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 20_000, max: 300_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1_100_000, max: 1_400_000 }) },
  );
  const step = fc.record({
    sizes: fc.array(valueSize, { minLength: 1, maxLength: 6 }),
    failAt: fc.option(fc.nat({ max: 5 }), { nil: null, freq: 4 }),
  });

  it('each batch keeps its bytes and CRC after later encodes, failed ones included', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const kept: { buf: Buffer; copy: Buffer; records: RecordInput[] }[] = [];
        let fill = 0;
        for (const { sizes, failAt } of steps) {
          const records: RecordInput[] = sizes.map((n) => ({
            key: Buffer.from(`k${fill}`),
            value: Buffer.alloc(n, fill++ & 0xff),
            timestamp: 1_700_000_000_000 + fill,
          }));
          if (failAt !== null && failAt < records.length) {
            // An offsetDelta out of range stops the encode at that record, after the records
            // before it were written.
            const bad = [...records];
            bad[failAt] = { ...bad[failAt]!, offsetDelta: -1 };
            expect(() => encodeRecordBatchSync({ records: bad })).toThrow(CodecError);
            continue;
          }
          const buf = encodeRecordBatchSync({ records });
          kept.push({ buf, copy: Buffer.from(buf), records });
        }
        for (const { buf, copy, records } of kept) {
          expect(buf.equals(copy)).toBe(true);
          expect(buf.readUInt32BE(17)).toBe(crc32c(buf, 21));
          const [batch] = [...decodeRecordBatches(buf)];
          const got = [...batch!.records()];
          expect(got.length).toBe(records.length);
          got.forEach((r, i) => {
            expect(r.key!.equals(records[i]!.key!)).toBe(true);
            expect(r.value!.equals(records[i]!.value!)).toBe(true);
          });
        }
      }),
      { numRuns: 40 },
    );
  });
});
