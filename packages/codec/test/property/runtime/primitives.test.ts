// Every primitive reads back what was written, across the whole value range of its type.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../../src/index.js';
import { int64At } from '../../../src/internal/int64.js';

function roundTrip<T>(
  arb: fc.Arbitrary<T>,
  write: (w: Writer, v: T) => void,
  read: (r: Reader) => T,
): void {
  fc.assert(
    fc.property(fc.array(arb, { maxLength: 20 }), (values) => {
      const w = new Writer(1);
      for (const v of values) write(w, v);
      const r = new Reader(Buffer.from(w.finish()));
      for (const v of values) expect(read(r)).toEqual(v);
      expect(r.remaining()).toBe(0);
    }),
    { numRuns: 200 },
  );
}

describe('primitive round trips', () => {
  it('int8, int16, uint16, int32, uint32', () => {
    roundTrip(
      fc.integer({ min: -128, max: 127 }),
      (w, v) => w.writeInt8(v),
      (r) => r.readInt8(),
    );
    roundTrip(
      fc.integer({ min: -32768, max: 32767 }),
      (w, v) => w.writeInt16(v),
      (r) => r.readInt16(),
    );
    roundTrip(
      fc.integer({ min: 0, max: 0xffff }),
      (w, v) => w.writeUint16(v),
      (r) => r.readUint16(),
    );
    roundTrip(
      fc.integer(),
      (w, v) => w.writeInt32(v),
      (r) => r.readInt32(),
    );
    roundTrip(
      fc.integer({ min: 0, max: 0xffffffff }),
      (w, v) => w.writeUint32(v),
      (r) => r.readUint32(),
    );
  });

  it('int64, float64, uuid', () => {
    // Both ways of making the bigint (one double within ±2^53, two halves beyond) and the
    // edges between them.
    const edges = [0n, -1n, 1n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n)];
    for (const e of [2n ** 53n, 2n ** 63n]) edges.push(e - 1n, e, -e, -e - 1n, -e + 1n);
    roundTrip(
      fc.oneof(
        fc.constantFrom(...edges.filter((e) => e >= -(2n ** 63n) && e < 2n ** 63n)),
        fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      ),
      (w, v) => w.writeInt64(v),
      (r) => r.readInt64(),
    );
    roundTrip(
      fc.double(),
      (w, v) => w.writeFloat64(v),
      (r) => r.readFloat64(),
    );
    roundTrip(
      fc
        .uint8Array({ minLength: 16, maxLength: 16 })
        .map((a) => Buffer.from(a).toString('base64url')),
      (w, v) => w.writeUuid(v),
      (r) => r.readUuid(),
    );
  });

  it('unsigned varint, varint, varlong', () => {
    roundTrip(
      fc.integer({ min: 0, max: 0xffffffff }),
      (w, v) => w.writeUvarint(v),
      (r) => r.readUvarint(),
    );
    roundTrip(
      fc.integer(),
      (w, v) => w.writeVarint(v),
      (r) => r.readVarint(),
    );
    roundTrip(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (w, v) => w.writeVarlong(v),
      (r) => r.readVarlong(),
    );
  });

  it('strings and bytes, classic and compact, with null', () => {
    const s = fc.option(fc.string({ unit: 'grapheme', maxLength: 30 }), { nil: null });
    roundTrip(
      s,
      (w, v) => w.writeString(v),
      (r) => r.readNullableString(),
    );
    roundTrip(
      s,
      (w, v) => w.writeCompactString(v),
      (r) => r.readNullableCompactString(),
    );
    const b = fc.option(
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      { nil: null },
    );
    roundTrip<Buffer | null>(
      b,
      (w, v) => w.writeBytes(v),
      (r) => r.readNullableBytes(),
    );
    roundTrip<Buffer | null>(
      b,
      (w, v) => w.writeCompactBytes(v),
      (r) => r.readNullableCompactBytes(),
    );
  });
});

describe('int64 bytes to bigint', () => {
  it("gives Node's readBigInt64BE value for any eight bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 8, maxLength: 16 }), fc.nat(8), (bytes, at) => {
        const buf = Buffer.from(bytes);
        const p = Math.min(at, buf.length - 8);
        expect(int64At(buf, p)).toBe(buf.readBigInt64BE(p));
      }),
      { numRuns: 2000 },
    );
  });
});
