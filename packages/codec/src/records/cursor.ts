/**
 * Zig-zag varints as record batches use them (protobuf style, little-endian base-128).
 * Internal to src/records/: the generated message codec has its own Writer/Reader.
 */
import type { CodecErrorReason } from '../errors.js';
import { RecordBatchError } from './record-batch-error.js';

/** Bytes a zig-zag varint of the int32 `n` takes. */
export function sizeOfVarint(n: number): number {
  const z = ((n << 1) ^ (n >> 31)) >>> 0;
  if (z < 0x80) return 1;
  if (z < 0x4000) return 2;
  if (z < 0x200000) return 3;
  if (z < 0x10000000) return 4;
  return 5;
}

/** Writes the int32 `n` as a zig-zag varint at `pos`; returns the position after it. */
export function writeVarint(buf: Buffer, pos: number, n: number): number {
  let z = ((n << 1) ^ (n >> 31)) >>> 0;
  while (z >= 0x80) {
    buf[pos++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[pos++] = z;
  return pos;
}

/** Zig-zag of a safe integer as a non-negative number (exact below 2^53). */
function zigzag64(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

/** Bytes a zig-zag varlong of the safe integer `n` takes. */
export function sizeOfVarlong(n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return sizeOfVarint(n);
  let z = zigzag64(n);
  let size = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 128);
    size++;
  }
  return size;
}

/** Writes the safe integer `n` as a zig-zag varlong at `pos`; returns the position after it. */
export function writeVarlong(buf: Buffer, pos: number, n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return writeVarint(buf, pos, n);
  let z = zigzag64(n);
  while (z >= 0x80) {
    buf[pos++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  buf[pos++] = z;
  return pos;
}

/**
 * A position over `buf[pos, end)` for the record decoders; errors name the batch by
 * `baseOffset`.
 */
export class Cursor {
  buf: Buffer;
  pos: number;
  end: number;
  /** Set by `readVarlong` when the value does not fit a safe integer. */
  big: bigint | null = null;
  readonly baseOffset: bigint | null;

  constructor(buf: Buffer, pos: number, end: number, baseOffset: bigint | null) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.baseOffset = baseOffset;
  }

  fail(reason: CodecErrorReason, detail: string): never {
    throw new RecordBatchError(reason, this.baseOffset, detail);
  }

  /** Reads a zig-zag varint (at most 5 bytes) as an int32. */
  readVarint(): number {
    const buf = this.buf;
    const end = this.end;
    let pos = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= end) this.fail('TRUNCATED', `varint runs past the end at byte ${pos}`);
      const b = buf[pos++]!;
      if (shift === 28) {
        if (b > 0x0f) this.fail('INVALID_LENGTH', `varint longer than 5 bytes at byte ${pos - 1}`);
        result |= b << 28;
        break;
      }
      result |= (b & 0x7f) << shift;
      if (b < 0x80) break;
      shift += 7;
    }
    this.pos = pos;
    return (result >>> 1) ^ -(result & 1);
  }

  /**
   * Reads a zig-zag varlong (at most 10 bytes). Returns it as a number when it is a safe
   * integer; otherwise returns NaN and leaves the exact value in `big`.
   */
  readVarlong(): number {
    const buf = this.buf;
    const end = this.end;
    const start = this.pos;
    let pos = start;
    let lo = 0;
    let shift = 0;
    // Fast path: up to 4 bytes (28 bits) fit in int32 arithmetic.
    for (;;) {
      if (pos >= end) this.fail('TRUNCATED', `varlong runs past the end at byte ${pos}`);
      const b = buf[pos++]!;
      if (shift < 28) {
        lo |= (b & 0x7f) << shift;
        if (b < 0x80) {
          this.pos = pos;
          return lo & 1 ? -((lo >>> 1) + 1) : lo >>> 1;
        }
        shift += 7;
        continue;
      }
      break;
    }
    // Slow path: redo with bigint, at most 10 bytes.
    pos = start;
    let z = 0n;
    let s = 0n;
    for (let i = 0; ; i++) {
      if (pos >= end) this.fail('TRUNCATED', `varlong runs past the end at byte ${pos}`);
      if (i === 10) this.fail('INVALID_LENGTH', `varlong longer than 10 bytes at byte ${start}`);
      const b = buf[pos++]!;
      z |= BigInt(b & 0x7f) << s;
      if (b < 0x80) break;
      s += 7n;
    }
    this.pos = pos;
    z &= 0xffffffffffffffffn;
    const v = z & 1n ? -((z >> 1n) + 1n) : z >> 1n;
    if (v >= -9007199254740991n && v <= 9007199254740991n) {
      this.big = null;
      return Number(v);
    }
    this.big = v;
    return Number.NaN;
  }
}
