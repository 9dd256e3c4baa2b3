import { describe, expect, it } from 'vitest';
import { decodeRecordBatches, encodeRecordBatchSync } from '../../../src/index.js';

/** Zig-zag varint width of a non-negative int32. */
function width(n: number): number {
  let z = n * 2;
  let w = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 128);
    w++;
  }
  return w;
}

/** Reads the zig-zag varint at `pos`: [value, bytes]. */
function readSize(buf: Buffer, pos: number): [number, number] {
  let z = 0;
  let shift = 0;
  let i = pos;
  for (;;) {
    const b = buf[i++]!;
    z += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
    shift += 7;
  }
  return [z % 2 === 0 ? z / 2 : -(z + 1) / 2, i - pos];
}

/**
 * A record's size varint goes in front of it (Kafka's DefaultRecord.writeTo): 1 byte up to
 * 63 bytes, 2 up to 8191, 3 up to 2^20 - 1, then 4. Records are written before their size is
 * known, so each width, and each boundary, must come out exact, with the next record intact.
 */
describe('record size varint', () => {
  // Null key, timestamp delta 0, offset delta 0 or 1, no headers: the record takes
  // attributes, timestamp delta, offset delta, key length, value length + value, header count.
  const valueFor = (size: number) => {
    for (let v = size - 5; v >= 0; v--) if (5 + width(v) + v === size) return v;
    throw new Error(`no value length gives a ${size}-byte record`);
  };

  for (const size of [6, 63, 64, 65, 8191, 8192, 8193, 2 ** 20 - 1, 2 ** 20, 2 ** 20 + 1]) {
    it(`a ${size}-byte record gets a ${width(size)}-byte size, and the record after it is intact`, () => {
      const first = Buffer.alloc(valueFor(size), 0x61);
      const second = Buffer.from('after');
      const batch = encodeRecordBatchSync({
        records: [
          { key: null, value: first, timestamp: 1_700_000_000_000 },
          { key: null, value: second, timestamp: 1_700_000_000_000 },
        ],
      });
      const [got, bytes] = readSize(batch, 61);
      expect(got).toBe(size);
      expect(bytes).toBe(width(size));
      // The second record's size follows the first record's bytes exactly.
      expect(readSize(batch, 61 + bytes + size)[0]).toBe(5 + width(second.length) + second.length);
      const [decoded] = [...decodeRecordBatches(batch)];
      const records = [...decoded!.records()];
      expect(records.map((r) => r.value?.length)).toEqual([first.length, second.length]);
      expect(records[0]!.value!.equals(first)).toBe(true);
      expect(records[1]!.value!.equals(second)).toBe(true);
    });
  }
});
