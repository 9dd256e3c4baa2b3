import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  decodeRecordBatches,
  encodeRecordBatchSync,
  Reader,
  RecordBatchError,
  Writer,
} from '../../../src/index.js';
import {
  readUvarint,
  readVarint,
  readVarlong,
  readVarlongBig,
  sizeOfUvarint,
  sizeOfVarint,
  sizeOfVarlong,
  writeUvarintAt,
  writeVarintAt,
  writeVarlongAt,
  writeVarlongBigAt,
} from '../../../src/varint.js';

/**
 * The reference: the base-128 format spelt out bit by bit with bigints, and the limits as
 * Kafka's ByteUtils has them (at most 5 / 10 bytes), plus the value-width check.
 */
function referenceRead(
  bytes: Uint8Array,
  maxBytes: 5 | 10,
): { value: bigint; length: number } | 'TRUNCATED' | 'LENGTH_INVALID' {
  let z = 0n;
  for (let i = 0; ; i++) {
    if (i >= bytes.length) return 'TRUNCATED';
    const b = bytes[i]!;
    if (i === maxBytes - 1 && b >= 0x80) return 'LENGTH_INVALID';
    z |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) {
      if (z >= 1n << BigInt(maxBytes === 5 ? 32 : 64)) return 'LENGTH_INVALID';
      return { value: z, length: i + 1 };
    }
  }
}

function referenceWrite(z: bigint): number[] {
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

const zig32 = (n: number) => BigInt(((n << 1) ^ (n >> 31)) >>> 0);
const zig64 = (v: bigint) => BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
const unzig = (z: bigint) => (z >> 1n) ^ -(z & 1n);

function failure(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return (e as CodecError).reason;
  }
}

/** Bytes shaped like varints: mostly continuation bytes, sometimes too long or too wide. */
const varintish = fc.array(
  fc.oneof(
    fc.integer({ min: 0x80, max: 0xff }),
    fc.integer({ min: 0, max: 0x7f }),
    fc.constant(0xff),
  ),
  { maxLength: 12 },
);

describe('varint module against a reference', () => {
  it('reads unsigned varints and varints as the reference does, refusing the same inputs', () => {
    fc.assert(
      fc.property(varintish, fc.nat(3), (raw, offset) => {
        const bytes = Uint8Array.from([...Array(offset).fill(0x55), ...raw]);
        const want = referenceRead(bytes.subarray(offset), 5);
        const u = { buf: bytes, pos: offset, end: bytes.length };
        const got = failure(() => readUvarint(u));
        if (typeof want === 'string') {
          expect(got).toBe(want);
        } else {
          expect(got).toBeUndefined();
          expect(u.pos).toBe(offset + want.length);
          const v = { buf: bytes, pos: offset, end: bytes.length };
          expect(BigInt(readUvarint({ buf: bytes, pos: offset, end: bytes.length }))).toBe(
            want.value,
          );
          expect(BigInt(readVarint(v))).toBe(BigInt.asIntN(32, unzig(want.value)));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads varlongs (number and bigint forms) as the reference does, refusing the same inputs', () => {
    fc.assert(
      fc.property(varintish, (raw) => {
        const bytes = Uint8Array.from(raw);
        const want = referenceRead(bytes, 10);
        const asNumber = { buf: bytes, pos: 0, end: bytes.length, big: null as bigint | null };
        let n = 0;
        const gotNumber = failure(() => {
          n = readVarlong(asNumber);
        });
        const asBig = { buf: bytes, pos: 0, end: bytes.length };
        let b = 0n;
        const gotBig = failure(() => {
          b = readVarlongBig(asBig);
        });
        if (typeof want === 'string') {
          expect(gotNumber).toBe(want);
          expect(gotBig).toBe(want);
          return;
        }
        const value = BigInt.asIntN(64, unzig(want.value));
        expect(b).toBe(value);
        expect(asBig.pos).toBe(want.length);
        expect(asNumber.pos).toBe(want.length);
        if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) {
          expect(n).toBe(Number(value));
          expect(asNumber.big).toBeNull();
        } else {
          expect(n).toBeNaN();
          expect(asNumber.big).toBe(value);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('writes what the reference writes, sizes included, and reads it back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.nat({ max: 0xffffffff }),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.maxSafeInteger(),
        (i32, u32, i64, safe) => {
          const buf = new Uint8Array(12);
          const check = (end: number, want: number[], size?: number) => {
            expect([...buf.subarray(0, end)]).toEqual(want);
            if (size !== undefined) expect(size).toBe(want.length);
          };
          check(writeVarintAt(buf, 0, i32), referenceWrite(zig32(i32)), sizeOfVarint(i32));
          expect(readVarint({ buf, pos: 0, end: 12 })).toBe(i32);
          check(writeUvarintAt(buf, 0, u32), referenceWrite(BigInt(u32)), sizeOfUvarint(u32));
          expect(readUvarint({ buf, pos: 0, end: 12 })).toBe(u32);
          check(writeVarlongBigAt(buf, 0, i64), referenceWrite(zig64(i64)));
          expect(readVarlongBig({ buf, pos: 0, end: 12 })).toBe(i64);
          check(
            writeVarlongAt(buf, 0, safe),
            referenceWrite(zig64(BigInt(safe))),
            sizeOfVarlong(safe),
          );
          expect(readVarlong({ buf, pos: 0, end: 12, big: null })).toBe(safe);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses the longest forms as Kafka ByteUtils does: a 6th varint byte, an 11th varlong byte', () => {
    const six = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    expect(failure(() => readUvarint({ buf: six, pos: 0, end: 6 }))).toBe('LENGTH_INVALID');
    const eleven = Uint8Array.from([...Array(10).fill(0x80), 0x00]);
    expect(failure(() => readVarlongBig({ buf: eleven, pos: 0, end: 11 }))).toBe('LENGTH_INVALID');
    expect(failure(() => readVarlong({ buf: eleven, pos: 0, end: 11, big: null }))).toBe(
      'LENGTH_INVALID',
    );
  });

  it('the Reader, the Writer and the record batch codec share it', () => {
    const w = new Writer(4);
    w.writeVarlong(-(2n ** 63n));
    w.writeVarint(-5);
    w.writeUvarint(300);
    const r = new Reader(Buffer.from(w.finish()));
    expect(r.readVarlong()).toBe(-(2n ** 63n));
    expect(r.readVarint()).toBe(-5);
    expect(r.readUvarint()).toBe(300);
    // A record whose timestamp delta is a varlong above 64 bits: refused by the record
    // decoder as by the Reader (it used to be masked to 64 bits).
    const batch = Buffer.from(
      encodeRecordBatchSync({ records: [{ value: Buffer.from('v'), timestamp: 1 }] }),
    );
    const tooWide = [...Array(9).fill(0xff), 0x7f];
    const recordAt = 61; // batch header (61 bytes), then the record's length varint
    const body = batch.subarray(recordAt);
    // length, attributes, then the timestamp delta: rebuild the record with a wide one.
    const rest = body.subarray(3); // after length (1), attributes (1), timestamp delta (1)
    const record = Buffer.from([0, ...tooWide, ...rest]);
    const rebuilt = Buffer.concat([
      batch.subarray(0, recordAt),
      Buffer.from([record.length * 2]),
      record,
    ]);
    rebuilt.writeInt32BE(rebuilt.length - 12, 8);
    const crc = crc32c(rebuilt.subarray(21));
    rebuilt.writeUInt32BE(crc, 17);
    let caught: unknown;
    try {
      for (const b of decodeRecordBatches(rebuilt)) for (const _ of b.records());
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RecordBatchError);
    expect((caught as RecordBatchError).reason).toBe('LENGTH_INVALID');
    expect((caught as RecordBatchError).message).toMatch(/varlong above 64 bits/);
  });
});

function crc32c(b: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of b) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
