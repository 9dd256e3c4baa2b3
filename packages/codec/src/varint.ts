/**
 * The codec's one implementation of Kafka's variable-length integers (protobuf base-128,
 * least significant group first; signed ones zig-zag encoded), as Kafka's `ByteUtils` reads
 * and writes them. The message `Reader` / `Writer`, the record batch codec and the snappy
 * length header all use these functions.
 *
 * Limits, one behaviour everywhere:
 * - an unsigned varint or a varint takes at most 5 bytes, a varlong at most 10: a longer one
 *   (the continuation bit still set on the 5th / 10th byte) is refused, as `ByteUtils` refuses
 *   it (`Varint is too long`);
 * - the value must fit its width: bits above bit 31 in the 5th byte of a varint, or above
 *   bit 63 in the 10th byte of a varlong, are refused too (Java's shifts would drop them
 *   silently; no writer sets them).
 *
 * Readers take a {@link VarintSource} (the `Reader` and the record `Cursor` are ones), read
 * at `pos` without passing `end`, advance `pos` and throw `CodecError` (`TRUNCATED`,
 * `LENGTH_INVALID`) with an empty path; callers add the path or wrap the error.
 */
import { CodecError } from './errors.js';

/** Bytes and a position in them; `pos` is advanced past what is read. */
export interface VarintSource {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;
}

/** A source that can also hold a varlong that does not fit a safe integer. */
export interface VarlongSource extends VarintSource {
  big: bigint | null;
}

function truncated(what: string, at: number): CodecError {
  return new CodecError('TRUNCATED', '', `${what} runs past the end at byte ${at}`);
}

/**
 * Reads an unsigned varint (at most 5 bytes, value 0..2^32-1).
 * @throws CodecError TRUNCATED; LENGTH_INVALID longer than 5 bytes or above 32 bits
 */
export function readUvarint(src: VarintSource): number {
  const buf = src.buf;
  let p = src.pos;
  const end = src.end;
  if (p < end) {
    const b0 = buf[p]!;
    if (b0 < 0x80) {
      src.pos = p + 1;
      return b0;
    }
  }
  let result = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (p >= end) throw truncated('varint', p);
    const b = buf[p++]!;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) {
      src.pos = p;
      return result >>> 0;
    }
  }
  if (p >= end) throw truncated('varint', p);
  const b = buf[p++]!;
  if (b > 0x0f) {
    throw new CodecError(
      'LENGTH_INVALID',
      '',
      b >= 0x80
        ? `varint longer than 5 bytes at byte ${p - 5}`
        : `varint above 32 bits at byte ${p - 5}`,
    );
  }
  src.pos = p;
  return (result >>> 0) + b * 0x10000000;
}

/**
 * Reads a zig-zag varint (int32, at most 5 bytes).
 * @throws CodecError as {@link readUvarint}
 */
export function readVarint(src: VarintSource): number {
  const z = readUvarint(src);
  return (z >>> 1) ^ -(z & 1);
}

/**
 * Reads a zig-zag varlong (int64, at most 10 bytes) as a bigint.
 * @throws CodecError TRUNCATED; LENGTH_INVALID longer than 10 bytes or above 64 bits
 */
export function readVarlongBig(src: VarintSource): bigint {
  const buf = src.buf;
  const p = src.pos;
  if (p < src.end) {
    const b0 = buf[p]!;
    if (b0 < 0x80) {
      src.pos = p + 1;
      return BigInt((b0 >>> 1) ^ -(b0 & 1));
    }
  }
  const z = readUnsignedLong(src);
  return typeof z === 'number' ? BigInt(unzigzagNumber(z)) : BigInt.asIntN(64, unzigzagBig(z));
}

/**
 * Reads a zig-zag varlong (int64, at most 10 bytes) as a number when it is a safe integer;
 * otherwise returns NaN and leaves the exact value in `src.big` (null after a safe one).
 * @throws CodecError as {@link readVarlongBig}
 */
export function readVarlong(src: VarlongSource): number {
  const buf = src.buf;
  const p = src.pos;
  if (p < src.end) {
    const b0 = buf[p]!;
    if (b0 < 0x80) {
      src.pos = p + 1;
      src.big = null;
      return (b0 >>> 1) ^ -(b0 & 1);
    }
  }
  const z = readUnsignedLong(src);
  if (typeof z === 'number') {
    src.big = null;
    return unzigzagNumber(z);
  }
  const v = BigInt.asIntN(64, unzigzagBig(z));
  if (v >= -9007199254740991n && v <= 9007199254740991n) {
    src.big = null;
    return Number(v);
  }
  src.big = v;
  return Number.NaN;
}

/** Zig-zag decode of a non-negative integer below 2^53. */
function unzigzagNumber(z: number): number {
  return z % 2 === 1 ? -(z - 1) / 2 - 1 : z / 2;
}

function unzigzagBig(z: bigint): bigint {
  return (z >> 1n) ^ -(z & 1n);
}

/**
 * The unsigned 64-bit value of the varlong at `src.pos`: a number when it ends within 7
 * bytes (49 bits, exact), else a bigint. Advances `src.pos`.
 */
function readUnsignedLong(src: VarintSource): number | bigint {
  const buf = src.buf;
  const end = src.end;
  const start = src.pos;
  let p = start;
  let n = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    if (p >= end) throw truncated('varlong', p);
    const b = buf[p++]!;
    n += (b & 0x7f) * mul;
    if (b < 0x80) {
      src.pos = p;
      return n;
    }
    mul *= 128;
  }
  let z = BigInt(n);
  for (let i = 7; i < 10; i++) {
    if (p >= end) throw truncated('varlong', p);
    const b = buf[p++]!;
    if (i === 9 && b > 0x01) {
      throw new CodecError(
        'LENGTH_INVALID',
        '',
        b >= 0x80
          ? `varlong longer than 10 bytes at byte ${start}`
          : `varlong above 64 bits at byte ${start}`,
      );
    }
    z |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) {
      src.pos = p;
      return z;
    }
  }
  /* c8 ignore next: the 10th byte's check above ends the loop */
  throw new CodecError('LENGTH_INVALID', '', `varlong longer than 10 bytes at byte ${start}`);
}

/** Bytes an unsigned varint of `v` (0..2^32-1) takes. */
export function sizeOfUvarint(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

/** Bytes a zig-zag varint of the int32 `n` takes. */
export function sizeOfVarint(n: number): number {
  return sizeOfUvarint(((n << 1) ^ (n >> 31)) >>> 0);
}

/** Beyond this magnitude the zig-zag of a number (2|n| or 2|n|-1) is no longer exact. */
const EXACT_ZIGZAG = 2 ** 52;

/** Zig-zag of an integer of magnitude below 2^52 as a non-negative number (exact). */
function zigzag64(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

/** Bytes a zig-zag varlong of the safe integer `n` takes. */
export function sizeOfVarlong(n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return sizeOfVarint(n);
  if (!(n > -EXACT_ZIGZAG && n < EXACT_ZIGZAG)) {
    let z = BigInt.asUintN(64, (BigInt(n) << 1n) ^ (BigInt(n) >> 63n));
    let size = 1;
    while (z >= 0x80n) {
      z >>= 7n;
      size++;
    }
    return size;
  }
  let z = zigzag64(n);
  let size = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 128);
    size++;
  }
  return size;
}

/**
 * Writes the unsigned varint `v` (0..2^32-1, not checked) at `pos`; returns the position
 * after it. The caller made room (5 bytes at most).
 */
export function writeUvarintAt(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Writes the int32 `n` (not checked) as a zig-zag varint at `pos`; returns the position after. */
export function writeVarintAt(buf: Uint8Array, pos: number, n: number): number {
  let z = ((n << 1) ^ (n >> 31)) >>> 0;
  // One and two bytes (every length and delta of a typical record) without the loop.
  if (z < 0x80) {
    buf[pos] = z;
    return pos + 1;
  }
  if (z < 0x4000) {
    buf[pos] = (z & 0x7f) | 0x80;
    buf[pos + 1] = z >>> 7;
    return pos + 2;
  }
  while (z >= 0x80) {
    buf[pos++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[pos++] = z;
  return pos;
}

/** Writes the safe integer `n` as a zig-zag varlong at `pos`; returns the position after it. */
export function writeVarlongAt(buf: Uint8Array, pos: number, n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return writeVarintAt(buf, pos, n);
  if (!(n > -EXACT_ZIGZAG && n < EXACT_ZIGZAG)) return writeVarlongBigAt(buf, pos, BigInt(n));
  let z = zigzag64(n);
  while (z >= 0x80) {
    buf[pos++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  buf[pos++] = z;
  return pos;
}

/** Writes the int64 `v` (not checked) as a zig-zag varlong at `pos`; returns the position after. */
export function writeVarlongBigAt(buf: Uint8Array, pos: number, v: bigint): number {
  if (v >= -0x40000000n && v < 0x40000000n) return writeVarintAt(buf, pos, Number(v));
  let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  while (z >= 0x80n) {
    buf[pos++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[pos++] = Number(z);
  return pos;
}
