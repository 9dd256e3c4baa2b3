import { CodecError } from './errors.js';
import { int64At } from './internal/int64.js';
import { readUvarint, readVarint, readVarlongBig } from './varint.js';

/**
 * A position over one Buffer, reading Kafka primitives big-endian.
 *
 * `bytes`, `records` and raw reads return `subarray` views into the input, not copies: they
 * stay valid as long as the input Buffer is not reused or modified (copy them to keep them
 * past a socket buffer's reuse). Strings are decoded as UTF-8 with invalid sequences replaced
 * by U+FFFD, as Java's `new String(bytes, UTF_8)` does.
 *
 * Every read checks the bytes left first and throws `CodecError` (`TRUNCATED`,
 * `LENGTH_INVALID`, `NULL_NOT_ALLOWED`) with an empty path; generated decoders add the path.
 */
export class Reader {
  readonly buf: Buffer;
  /** Next byte to read. */
  pos: number;
  /** One past the last readable byte. */
  readonly end: number;

  /**
   * @param buf the bytes to read (not copied)
   * @param start first byte (default 0)
   * @param end one past the last byte (default `buf.length`)
   */
  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  /** Bytes left to read. */
  remaining(): number {
    return this.end - this.pos;
  }

  /** Throws `TRUNCATED` unless `n` more bytes are available. */
  need(n: number): void {
    if (this.pos + n > this.end) throw truncated(n, this.end - this.pos);
  }

  /** Reads an int8. @throws CodecError TRUNCATED */
  readInt8(): number {
    const p = this.pos;
    if (p + 1 > this.end) throw truncated(1, this.end - p);
    this.pos = p + 1;
    return (this.buf[p]! << 24) >> 24;
  }

  /** Any non-zero byte is true, as in Java. */
  readBool(): boolean {
    const p = this.pos;
    if (p + 1 > this.end) throw truncated(1, this.end - p);
    this.pos = p + 1;
    return this.buf[p] !== 0;
  }

  /** Reads a big-endian int16. @throws CodecError TRUNCATED */
  readInt16(): number {
    const p = this.pos;
    if (p + 2 > this.end) throw truncated(2, this.end - p);
    this.pos = p + 2;
    const b = this.buf;
    return (((b[p]! << 8) | b[p + 1]!) << 16) >> 16;
  }

  /** Reads a big-endian uint16. @throws CodecError TRUNCATED */
  readUint16(): number {
    const p = this.pos;
    if (p + 2 > this.end) throw truncated(2, this.end - p);
    this.pos = p + 2;
    const b = this.buf;
    return (b[p]! << 8) | b[p + 1]!;
  }

  /** Reads a big-endian int32. @throws CodecError TRUNCATED */
  readInt32(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw truncated(4, this.end - p);
    this.pos = p + 4;
    const b = this.buf;
    return (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
  }

  /** Reads a big-endian uint32. @throws CodecError TRUNCATED */
  readUint32(): number {
    const p = this.pos;
    if (p + 4 > this.end) throw truncated(4, this.end - p);
    this.pos = p + 4;
    const b = this.buf;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  /** Reads a big-endian int64 as a bigint. @throws CodecError TRUNCATED */
  readInt64(): bigint {
    const p = this.pos;
    if (p + 8 > this.end) throw truncated(8, this.end - p);
    this.pos = p + 8;
    return int64At(this.buf, p);
  }

  /** Reads a big-endian IEEE-754 double. @throws CodecError TRUNCATED */
  readFloat64(): number {
    const p = this.pos;
    if (p + 8 > this.end) throw truncated(8, this.end - p);
    this.pos = p + 8;
    return this.buf.readDoubleBE(p);
  }

  /** 16 bytes as Kafka's uuid text (22 URL-safe base64 characters). */
  readUuid(): string {
    const p = this.pos;
    if (p + 16 > this.end) throw truncated(16, this.end - p);
    this.pos = p + 16;
    return this.buf.toString('base64url', p, p + 16);
  }

  /**
   * Unsigned varint of at most 5 bytes and at most 2^32-1; longer or larger is rejected
   * (see `varint.ts`).
   */
  readUvarint(): number {
    const p = this.pos;
    if (p < this.end) {
      const b0 = this.buf[p]!;
      if (b0 < 0x80) {
        this.pos = p + 1;
        return b0;
      }
    }
    return readUvarint(this);
  }

  /** Zig-zag signed varint (int32), at most 5 bytes. */
  readVarint(): number {
    return readVarint(this);
  }

  /** Zig-zag signed varlong (int64), at most 10 bytes. */
  readVarlong(): bigint {
    return readVarlongBig(this);
  }

  /** `n` raw bytes as a view into the input. */
  readRaw(n: number): Buffer {
    const p = this.pos;
    if (p + n > this.end) throw truncated(n, this.end - p);
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  /** int16-length string, null allowed (-1). */
  readNullableString(): string | null {
    const n = this.readInt16();
    if (n < 0) {
      if (n === -1) return null;
      throw new CodecError('LENGTH_INVALID', '', `string length ${n}`);
    }
    return this.utf8(n);
  }

  /** int16-length string; null is rejected. */
  readString(): string {
    const s = this.readNullableString();
    if (s === null) throw nullNotAllowed('string');
    return s;
  }

  /** Compact string (unsigned varint length + 1), null allowed (0). */
  readNullableCompactString(): string | null {
    const n = this.readUvarint();
    if (n === 0) return null;
    // Java caps strings at int16 even in compact form.
    if (n - 1 > 0x7fff) throw new CodecError('LENGTH_INVALID', '', `string length ${n - 1}`);
    return this.utf8(n - 1);
  }

  /** Compact string; null is rejected. */
  readCompactString(): string {
    const s = this.readNullableCompactString();
    if (s === null) throw nullNotAllowed('string');
    return s;
  }

  /** int32-length bytes as a view, null allowed (-1). */
  readNullableBytes(): Buffer | null {
    const n = this.readInt32();
    if (n < 0) {
      if (n === -1) return null;
      throw new CodecError('LENGTH_INVALID', '', `bytes length ${n}`);
    }
    return this.readRaw(n);
  }

  /** int32-length bytes as a view; null is rejected. */
  readBytes(): Buffer {
    const b = this.readNullableBytes();
    if (b === null) throw nullNotAllowed('bytes');
    return b;
  }

  /** Compact bytes as a view, null allowed (0). */
  readNullableCompactBytes(): Buffer | null {
    const n = this.readUvarint();
    if (n === 0) return null;
    return this.readRaw(n - 1);
  }

  /** Compact bytes as a view; null is rejected. */
  readCompactBytes(): Buffer {
    const b = this.readNullableCompactBytes();
    if (b === null) throw nullNotAllowed('bytes');
    return b;
  }

  /**
   * int32 array count, -1 for null. A count larger than the bytes left is rejected before
   * anything is allocated (every element takes at least one byte).
   */
  readNullableArrayLength(): number {
    const n = this.readInt32();
    if (n < 0) {
      if (n === -1) return -1;
      throw new CodecError('LENGTH_INVALID', '', `array count ${n}`);
    }
    if (n > this.end - this.pos) {
      throw new CodecError(
        'LENGTH_INVALID',
        '',
        `array count ${n} exceeds ${this.end - this.pos} bytes left`,
      );
    }
    return n;
  }

  /** int32 array count; null is rejected. */
  readArrayLength(): number {
    const n = this.readNullableArrayLength();
    if (n === -1) throw nullNotAllowed('array');
    return n;
  }

  /** Compact array count (unsigned varint count + 1), -1 for null. Checked like above. */
  readNullableCompactArrayLength(): number {
    const n = this.readUvarint() - 1;
    if (n > this.end - this.pos) {
      throw new CodecError(
        'LENGTH_INVALID',
        '',
        `array count ${n} exceeds ${this.end - this.pos} bytes left`,
      );
    }
    return n;
  }

  /** Compact array count; null is rejected. */
  readCompactArrayLength(): number {
    const n = this.readNullableCompactArrayLength();
    if (n === -1) throw nullNotAllowed('array');
    return n;
  }

  /** Reads the size of a tagged field and returns the position where it must end. */
  readTaggedSize(): number {
    const n = this.readUvarint();
    if (n > this.end - this.pos) {
      throw new CodecError(
        'LENGTH_INVALID',
        '',
        `tagged field of ${n} bytes exceeds ${this.end - this.pos} bytes left`,
      );
    }
    return this.pos + n;
  }

  /** Throws unless a tagged field's value ended exactly where its size said. */
  expectAt(end: number): void {
    if (this.pos !== end) {
      throw new CodecError(
        'LENGTH_INVALID',
        '',
        `tagged field size mismatch (${this.pos - end} bytes)`,
      );
    }
  }

  private utf8(n: number): string {
    const p = this.pos;
    if (p + n > this.end) throw truncated(n, this.end - p);
    this.pos = p + n;
    return this.buf.toString('utf8', p, p + n);
  }
}

function truncated(n: number, left: number, what = ''): CodecError {
  const thing = what === '' ? `${n} byte${n === 1 ? '' : 's'}` : `a ${what} byte`;
  return new CodecError('TRUNCATED', '', `need ${thing}, ${left} left`);
}

function nullNotAllowed(type: string): CodecError {
  return new CodecError('NULL_NOT_ALLOWED', '', `non-nullable ${type} was encoded as null`);
}
