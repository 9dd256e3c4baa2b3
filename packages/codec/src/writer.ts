import { CodecError } from './errors.js';
import { writeUvarintAt, writeVarintAt, writeVarlongBigAt } from './varint.js';

const EMPTY = Buffer.alloc(0);
// uuid text is 22 URL-safe base64 characters; the last one carries only 2 of its 6 bits, so
// only A, Q, g and w are canonical there (anything else would not survive a round trip).
const UUID_TEXT = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/**
 * Grows one Buffer and writes the Kafka primitives into it, big-endian.
 *
 * Lengths whose size is unknown up front (tagged-field sizes) are back-patched: a one-byte
 * slot is reserved and, in the rare case the value needs more, the bytes written since are
 * moved once. `finish()` returns a view of the written bytes, valid until the writer is used
 * again.
 *
 * Every method throws `CodecError` (`VALUE_INVALID`) for a value its type cannot hold, so a
 * caller never sees a `RangeError` from inside Buffer.
 */
export class Writer {
  /** The backing buffer; replaced when it grows, so do not keep a reference across writes. */
  buf: Buffer;
  /** Bytes written so far into `buf` (see {@link Writer.size} once bytes go zero-copy). */
  pos: number;
  /**
   * Zero-copy mode (off until {@link Writer.zeroCopy}): the pieces already closed, in order;
   * `buf` from `chunkFrom` to `pos` is the open piece.
   */
  private chunks: Buffer[] | null = null;
  private chunkFrom = 0;
  /** Raw byte fields at least this long go out by reference in zero-copy mode; 0: off. */
  private zeroCopyFrom = 0;
  /** Bytes in `chunks` that are not in `buf` (the fields passed by reference). */
  private external = 0;
  /** Size slots open (`beginSized` without its `endSized`): nothing goes zero-copy inside one. */
  private sizedOpen = 0;

  /** @param initialSize first buffer size in bytes (grows by doubling). */
  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(initialSize, 16));
    this.pos = 0;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    // Bytes before `chunkFrom` are closed pieces (views of the old buffer): only the open one moves.
    this.buf.copy(next, this.chunkFrom, this.chunkFrom, this.pos);
    this.buf = next;
  }

  /**
   * Zero-copy mode, for a frame about to go to a socket as a list of buffers (a writev), as
   * Kafka's `SendBuilder` adds a request's records by reference: from now on a raw byte field
   * of at least `minBytes` (a Produce request's record batches) is not copied; the writer
   * closes the piece written so far and keeps the caller's buffer as the next piece. Read the
   * result with {@link Writer.finishChunks}; the caller must not change such a buffer until
   * the pieces have been written. Fields inside a size slot (tagged fields) are always copied.
   */
  zeroCopy(minBytes: number): void {
    if (!(Number.isInteger(minBytes) && minBytes > 0))
      throw badValue('zero-copy threshold', minBytes);
    this.chunks ??= [];
    this.zeroCopyFrom = minBytes;
  }

  /** Bytes written so far, the zero-copy fields included. */
  get size(): number {
    return this.pos + this.external;
  }

  /**
   * The bytes written so far as the pieces to write in order: views of the writer's buffer
   * and, in zero-copy mode, the fields passed by reference. One piece when nothing went
   * zero-copy; valid until the writer is used again.
   */
  finishChunks(): Buffer[] {
    const chunks = this.chunks;
    // Most frames have no field by reference: one piece, no copy of the (empty) list.
    if (chunks === null || chunks.length === 0)
      return [this.buf.subarray(this.chunkFrom, this.pos)];
    if (this.pos === this.chunkFrom) return chunks.slice();
    const open = this.buf.subarray(this.chunkFrom, this.pos);
    // A Produce frame of one batch: its header, the batch, the rest, as a literal (a push onto
    // a copy would make room for 16 more).
    if (chunks.length === 2) return [chunks[0] as Buffer, chunks[1] as Buffer, open];
    const out = chunks.slice();
    out.push(open);
    return out;
  }

  /** A view of the bytes written so far (shares memory with the writer until it is reused). */
  finish(): Buffer {
    // Once a field went zero-copy, the closed pieces are not all in `buf`: join them.
    if (this.chunks !== null && this.chunks.length > 0) {
      return Buffer.concat(this.finishChunks(), this.size);
    }
    return this.buf.subarray(0, this.pos);
  }

  /** True once {@link Writer.zeroCopy} was called. */
  get zeroCopying(): boolean {
    return this.chunks !== null;
  }

  /** Forgets what was written; the buffer is kept for reuse. */
  reset(): void {
    this.pos = 0;
    this.chunkFrom = 0;
    this.external = 0;
    this.sizedOpen = 0;
    if (this.chunks !== null) this.chunks = [];
  }

  /** Writes int8 (-128..127). @throws CodecError VALUE_INVALID when out of range */
  writeInt8(v: number): void {
    if (!(v >= -128 && v <= 127 && Number.isInteger(v))) throw badValue('int8', v);
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
  }

  /** Writes bool as one byte, 1 or 0. @throws CodecError VALUE_INVALID when out of range */
  writeBool(v: boolean): void {
    if (typeof v !== 'boolean') throw badValue('bool', v);
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  /** Writes int16, big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeInt16(v: number): void {
    if (!(v >= -32768 && v <= 32767 && Number.isInteger(v))) throw badValue('int16', v);
    this.ensure(2);
    const b = this.buf;
    const p = this.pos;
    b[p] = (v >> 8) & 0xff;
    b[p + 1] = v & 0xff;
    this.pos = p + 2;
  }

  /** Writes uint16 (0..65535), big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeUint16(v: number): void {
    if (!(v >= 0 && v <= 0xffff && Number.isInteger(v))) throw badValue('uint16', v);
    this.ensure(2);
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v & 0xff;
    this.pos = p + 2;
  }

  /** Writes int32, big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeInt32(v: number): void {
    if (!(v >= -2147483648 && v <= 2147483647 && Number.isInteger(v))) throw badValue('int32', v);
    this.ensure(4);
    const b = this.buf;
    const p = this.pos;
    b[p] = (v >> 24) & 0xff;
    b[p + 1] = (v >> 16) & 0xff;
    b[p + 2] = (v >> 8) & 0xff;
    b[p + 3] = v & 0xff;
    this.pos = p + 4;
  }

  /** Writes uint32 (0..2^32-1), big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeUint32(v: number): void {
    if (!(v >= 0 && v <= 0xffffffff && Number.isInteger(v))) throw badValue('uint32', v);
    this.ensure(4);
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = (v >>> 16) & 0xff;
    b[p + 2] = (v >>> 8) & 0xff;
    b[p + 3] = v & 0xff;
    this.pos = p + 4;
  }

  /** Writes int64 from a bigint, big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeInt64(v: bigint): void {
    if (typeof v !== 'bigint' || v < -0x8000000000000000n || v > 0x7fffffffffffffffn) {
      throw badValue('int64', v);
    }
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
  }

  /** Writes IEEE-754 double, big-endian. @throws CodecError VALUE_INVALID when out of range */
  writeFloat64(v: number): void {
    if (typeof v !== 'number') throw badValue('float64', v);
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }

  /** A uuid in Kafka's text form (22 URL-safe base64 characters, no padding). */
  writeUuid(v: string): void {
    if (typeof v !== 'string' || !UUID_TEXT.test(v)) throw badValue('uuid', v);
    this.ensure(16);
    this.buf.write(v, this.pos, 16, 'base64url');
    this.pos += 16;
  }

  /** Unsigned varint, 1 to 5 bytes, for values 0..2^32-1. */
  writeUvarint(v: number): void {
    if (v >= 0 && v < 0x80 && (v | 0) === v) {
      if (this.pos >= this.buf.length) this.ensure(1);
      this.buf[this.pos++] = v;
      return;
    }
    if (!(v >= 0 && v <= 0xffffffff && Number.isInteger(v))) throw badValue('unsigned varint', v);
    this.ensure(5);
    this.pos = writeUvarintAt(this.buf, this.pos, v);
  }

  /** Zig-zag signed varint for int32 values (record fields). */
  writeVarint(v: number): void {
    if (!(v >= -2147483648 && v <= 2147483647 && Number.isInteger(v))) throw badValue('varint', v);
    this.ensure(5);
    this.pos = writeVarintAt(this.buf, this.pos, v);
  }

  /** Zig-zag signed varlong for int64 values (record fields), 1 to 10 bytes. */
  writeVarlong(v: bigint): void {
    if (typeof v !== 'bigint' || v < -0x8000000000000000n || v > 0x7fffffffffffffffn) {
      throw badValue('varlong', v);
    }
    this.ensure(10);
    this.pos = writeVarlongBigAt(this.buf, this.pos, v);
  }

  /** Raw bytes, no length prefix. */
  writeRaw(v: Buffer): void {
    if (this.zeroCopyFrom > 0 && v.length >= this.zeroCopyFrom && this.sizedOpen === 0) {
      const chunks = this.chunks as Buffer[];
      const head = this.pos > this.chunkFrom ? this.buf.subarray(this.chunkFrom, this.pos) : null;
      // The first pieces as a literal: a push onto [] makes room for 16.
      if (chunks.length === 0) this.chunks = head === null ? [v] : [head, v];
      else {
        if (head !== null) chunks.push(head);
        chunks.push(v);
      }
      this.chunkFrom = this.pos;
      this.external += v.length;
      return;
    }
    this.ensure(v.length);
    v.copy(this.buf, this.pos);
    this.pos += v.length;
  }

  /** int16-length string; null is length -1. */
  writeString(v: string | null): void {
    if (v === null) {
      this.writeInt16(-1);
      return;
    }
    if (typeof v !== 'string') throw badValue('string', v);
    if (!v.isWellFormed()) v = javaUtf8(v);
    const n = Buffer.byteLength(v, 'utf8');
    if (n > 0x7fff) throw tooLong('string', n, 0x7fff);
    this.writeInt16(n);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos, n, 'utf8');
  }

  /** Compact string: unsigned varint length + 1 (0 = null). */
  writeCompactString(v: string | null): void {
    if (v === null) {
      this.writeUvarint(0);
      return;
    }
    if (typeof v !== 'string') throw badValue('string', v);
    if (!v.isWellFormed()) v = javaUtf8(v);
    const n = Buffer.byteLength(v, 'utf8');
    if (n > 0x7fff) throw tooLong('string', n, 0x7fff);
    this.writeUvarint(n + 1);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos, n, 'utf8');
  }

  /** int32-length bytes; null is length -1. */
  writeBytes(v: Buffer | null): void {
    if (v === null) {
      this.writeInt32(-1);
      return;
    }
    if (!Buffer.isBuffer(v)) throw badValue('bytes', v);
    this.writeInt32(v.length);
    this.writeRaw(v);
  }

  /** Compact bytes: unsigned varint length + 1 (0 = null). */
  writeCompactBytes(v: Buffer | null): void {
    if (v === null) {
      this.writeUvarint(0);
      return;
    }
    if (!Buffer.isBuffer(v)) throw badValue('bytes', v);
    this.writeUvarint(v.length + 1);
    this.writeRaw(v);
  }

  /** int32 array count; null is -1. */
  writeArrayLength(n: number | null): void {
    this.writeInt32(n === null ? -1 : n);
  }

  /** Compact array count: unsigned varint count + 1 (0 = null). */
  writeCompactArrayLength(n: number | null): void {
    this.writeUvarint(n === null ? 0 : n + 1);
  }

  /**
   * Reserves a one-byte unsigned-varint size slot; pair with `endSized`.
   * @returns the slot's position
   */
  beginSized(): number {
    this.ensure(1);
    this.sizedOpen++;
    return this.pos++;
  }

  /** Writes the size of everything after `slot` into it, moving the bytes if it needs more. */
  endSized(slot: number): void {
    if (this.sizedOpen > 0) this.sizedOpen--;
    const size = this.pos - slot - 1;
    if (size < 0x80) {
      this.buf[slot] = size;
      return;
    }
    let extra = 1;
    for (let s = size >>> 14; s > 0; s >>>= 7) extra++;
    this.ensure(extra);
    this.buf.copyWithin(slot + 1 + extra, slot + 1, this.pos);
    const end = this.pos + extra;
    this.pos = slot;
    this.writeUvarint(size);
    this.pos = end;
  }
}

function badValue(type: string, v: unknown): CodecError {
  const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);
  return new CodecError('VALUE_INVALID', '', `${shown} is not a valid ${type}`);
}

function tooLong(type: string, n: number, max: number): CodecError {
  return new CodecError('LENGTH_INVALID', '', `${type} of ${n} bytes exceeds ${max}`);
}

/** A shared empty Buffer (never written to). */
export const EMPTY_BUFFER: Buffer = EMPTY;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A string with unpaired surrogates as Java's `String.getBytes(UTF_8)` sees it: each lone
 * surrogate becomes `?`. Node would write U+FFFD (3 bytes) instead, and the bytes would differ
 * from Kafka's own clients for the same string.
 */
function javaUtf8(v: string): string {
  return v.replace(LONE_SURROGATE, '?');
}
