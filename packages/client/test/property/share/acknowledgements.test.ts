// Acknowledgement batches of a share partition (KIP-932) as Kafka's `Acknowledgements` builds
// them: every acknowledged offset once, with its type; batches of consecutive offsets only;
// one type for a uniform batch, one per offset otherwise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AckSet,
  AckType,
  type AckTypeId,
  AcquiredCursor,
  ackBatches,
  ackOffsets,
} from '../../../src/share/internal/acknowledgements.js';

const type = fc.constantFrom<AckTypeId>(
  AckType.Gap,
  AckType.Accept,
  AckType.Release,
  AckType.Reject,
);
const acks = fc
  .array(fc.tuple(fc.bigInt({ min: 0n, max: 400n }), type), { maxLength: 120 })
  .map((entries) => new Map(entries));

describe('ackBatches', () => {
  it('round-trips every offset with its type', () => {
    fc.assert(
      fc.property(acks, (m) => {
        expect(ackOffsets(ackBatches(m))).toEqual(
          new Map([...m].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
        );
      }),
    );
  });

  it('makes batches of consecutive offsets, ascending and apart, typed once when uniform', () => {
    fc.assert(
      fc.property(acks, (m) => {
        const batches = ackBatches(m);
        for (let i = 0; i < batches.length; i++) {
          const b = batches[i]!;
          const n = Number(b.lastOffset - b.firstOffset) + 1;
          const types = [...Array(n).keys()].map((k) => m.get(b.firstOffset + BigInt(k)));
          expect(types.every((t) => t !== undefined)).toBe(true);
          const uniform = types.every((t) => t === types[0]);
          expect(b.acknowledgeTypes).toEqual(uniform ? [types[0]] : types);
          // The next batch starts past a hole: otherwise the two would be one batch.
          if (i > 0) expect(b.firstOffset > batches[i - 1]!.lastOffset + 1n).toBe(true);
        }
      }),
    );
  });

  it('sends a mixed run offset by offset and a uniform run as one type', () => {
    const m = new Map<bigint, AckTypeId>([
      [5n, AckType.Accept],
      [6n, AckType.Accept],
      [7n, AckType.Accept],
      [9n, AckType.Accept],
      [10n, AckType.Release],
      [11n, AckType.Gap],
    ]);
    expect(ackBatches(m)).toEqual([
      { firstOffset: 5n, lastOffset: 7n, acknowledgeTypes: [1] },
      { firstOffset: 9n, lastOffset: 11n, acknowledgeTypes: [1, 2, 0] },
    ]);
  });
});

describe('AckSet', () => {
  it('keeps the last type of an offset added twice, in any order, and sends offsets ascending', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 60n }), type), { maxLength: 80 }),
        (adds) => {
          const set = new AckSet();
          const last = new Map<bigint, AckTypeId>();
          for (const [offset, t] of adds) {
            set.add(offset, t);
            last.set(offset, t);
          }
          const sorted = [...last].sort((a, b) => (a[0] < b[0] ? -1 : 1));
          expect([...set.entries()]).toEqual(sorted);
          expect(ackOffsets(set.batches())).toEqual(new Map(sorted));
          expect(set.acknowledged()).toEqual(
            sorted.filter(([, t]) => t !== AckType.Gap).map(([o]) => o),
          );
        },
      ),
    );
  });
});

describe('AcquiredCursor', () => {
  it('gives the delivery count of an acquired offset and 0 outside every range', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 20 }),
            fc.integer({ min: 0, max: 20 }),
            fc.integer({ min: 1, max: 5 }),
          ),
          {
            maxLength: 10,
          },
        ),
        (parts) => {
          // Ascending, disjoint ranges: each starts `gap` past the last one's end, `len` long.
          const ranges: { firstOffset: bigint; lastOffset: bigint; deliveryCount: number }[] = [];
          let at = 0n;
          for (const [gap, len, count] of parts) {
            const first = at + BigInt(gap) + (ranges.length > 0 ? 1n : 0n);
            ranges.push({
              firstOffset: first,
              lastOffset: first + BigInt(len),
              deliveryCount: count,
            });
            at = first + BigInt(len);
          }
          const cursor = new AcquiredCursor(ranges);
          for (let o = 0n; o <= at + 2n; o++) {
            const r = ranges.find((x) => o >= x.firstOffset && o <= x.lastOffset);
            expect(cursor.countAt(o)).toBe(r?.deliveryCount ?? 0);
          }
        },
      ),
    );
  });
});
