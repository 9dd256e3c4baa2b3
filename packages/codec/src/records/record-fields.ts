/**
 * Writing and sizing the fields of a v2 record (Kafka's DefaultRecord), shared by the batch
 * encoder and the batch builder: keys, values and headers as bytes or strings, header keys
 * in the UTF-8 Java writes, sizes as Kafka's `DefaultRecord.sizeInBytes` counts them.
 */
import { sizeOfVarint, sizeOfVarlong, writeVarintAt } from '../varint.js';

/** A header value: bytes, a string (written as UTF-8), or null. */
export type RecordHeaderValue = Uint8Array | string | null;

/**
 * A record's headers: a list (in order; a key may repeat, as Kafka allows), or an object
 * (one value per key, in the object's key order).
 */
export type RecordHeadersInput =
  | readonly { readonly key: string; readonly value: RecordHeaderValue }[]
  | { readonly [key: string]: RecordHeaderValue };

/**
 * The most bytes a record takes besides its key, value and headers: attributes (1), the
 * timestamp delta (a varlong, 10), the offset delta (5) and the record's own size varint (5):
 * Kafka's `DefaultRecord.MAX_RECORD_OVERHEAD`.
 */
export const MAX_RECORD_OVERHEAD = 1 + 10 + 5 + 5;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Java's `String.getBytes(UTF_8)` writes a lone UTF-16 surrogate as `?`, Node's encoder as
 * U+FFFD: header keys follow Java so a batch has the bytes the Java producer would write.
 */
export function javaUtf8(s: string): string {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    ? s
    : s.replace(LONE_SURROGATE, '?');
}

/** `TypedArray.prototype.set`, called directly: cheaper than a lookup through Buffer's prototype chain. */
const typedArraySet = Object.getPrototypeOf(Uint8Array.prototype).set as (
  this: Uint8Array,
  src: Uint8Array,
  offset: number,
) => void;

/**
 * Copies `src` into `dst` at `pos`. Fields of up to 8 bytes are copied by a loop: below that
 * a typed-array `set` costs more in call overhead than the bytes it moves.
 */
export function put(dst: Uint8Array, pos: number, src: Uint8Array): number {
  const n = src.length;
  if (n <= 8) {
    for (let i = 0; i < n; i++) dst[pos + i] = src[i]!;
  } else {
    typedArraySet.call(dst, src, pos);
  }
  return pos + n;
}

/**
 * Writes `s` as UTF-8 preceded by its byte length as a varint; returns the position after it.
 * The caller made room for `3 * s.length` bytes and the varint. Short ASCII strings (most keys)
 * are written byte for byte; others by Node's encoder behind the widest length varint they
 * can need, moved back when the length turns out narrower.
 */
export function writeLengthPrefixedString(
  buf: Buffer,
  pos: number,
  s: string,
  javaSurrogates: boolean,
): number {
  const n = s.length;
  if (n < 64) {
    // One length byte (zig-zag of a length below 64), then the chars while they are ASCII.
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos + 1 + i] = c;
    }
    if (i === n) {
      buf[pos] = n << 1;
      return pos + 1 + n;
    }
  }
  const text = javaSurrogates ? javaUtf8(s) : s;
  const widest = sizeOfVarint(3 * text.length);
  const written = buf.write(text, pos + widest, 'utf8');
  const width = sizeOfVarint(written);
  if (width !== widest) buf.copyWithin(pos + width, pos + widest, pos + widest + written);
  writeVarintAt(buf, pos, written);
  return pos + width + written;
}

/** Writes a key or value: its length (-1 for null) and its bytes. */
export function writeField(buf: Buffer, pos: number, v: Uint8Array | string | null): number {
  // undefined is written as null, as a header value left out of an object is meant.
  if (v == null) {
    buf[pos] = 1; // zig-zag -1: null
    return pos + 1;
  }
  if (typeof v === 'string') return writeLengthPrefixedString(buf, pos, v, false);
  return put(buf, writeVarintAt(buf, pos, v.length), v);
}

/** Writes the headers' count and the headers; returns the position after them. */
export function writeHeaders(buf: Buffer, pos: number, headers: RecordHeadersInput | null): number {
  if (headers === null) {
    buf[pos] = 0;
    return pos + 1;
  }
  if (Array.isArray(headers)) {
    const list = headers as readonly { readonly key: string; readonly value: RecordHeaderValue }[];
    pos = writeVarintAt(buf, pos, list.length);
    for (let h = 0; h < list.length; h++) {
      const hd = list[h]!;
      pos = writeLengthPrefixedString(buf, pos, hd.key, true);
      pos = writeField(buf, pos, hd.value);
    }
    return pos;
  }
  const object = headers as { readonly [key: string]: RecordHeaderValue };
  let count = 0;
  for (const _ in object) count++;
  pos = writeVarintAt(buf, pos, count);
  for (const key in object) {
    pos = writeLengthPrefixedString(buf, pos, key, true);
    pos = writeField(buf, pos, object[key]!);
  }
  return pos;
}

/**
 * The most bytes a key or value takes with its length: 3 bytes per UTF-16 unit of a short
 * string, the UTF-8 length of a long one (worked out once it is worth a pass over the string).
 */
export function fieldMost(v: Uint8Array | string | null): number {
  if (v == null) return 1;
  if (typeof v !== 'string') return 5 + v.length;
  return 5 + (v.length > 256 ? Buffer.byteLength(v, 'utf8') : 3 * v.length);
}

/** The most bytes the headers take with their count. */
export function headersMost(headers: RecordHeadersInput | null): number {
  if (headers === null) return 1;
  let most = 5;
  if (Array.isArray(headers)) {
    const list = headers as readonly { readonly key: string; readonly value: RecordHeaderValue }[];
    for (let h = 0; h < list.length; h++) {
      const hd = list[h]!;
      most += 5 + 3 * hd.key.length + fieldMost(hd.value);
    }
    return most;
  }
  const object = headers as { readonly [key: string]: RecordHeaderValue };
  for (const key in object) most += 5 + 3 * key.length + fieldMost(object[key]!);
  return most;
}

/** Bytes of a key, value or header value as written: length varint and bytes. */
export function fieldSize(v: Uint8Array | string | null): number {
  if (v == null) return 1;
  const n = typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length;
  return sizeOfVarint(n) + n;
}

function headerKeySize(key: string): number {
  const n = Buffer.byteLength(javaUtf8(key), 'utf8');
  return sizeOfVarint(n) + n;
}

/** Bytes of the headers as written, with their count. */
export function headersSize(headers: RecordHeadersInput | null): number {
  if (headers === null) return 1;
  if (Array.isArray(headers)) {
    const list = headers as readonly { readonly key: string; readonly value: RecordHeaderValue }[];
    let size = sizeOfVarint(list.length);
    for (const hd of list) size += headerKeySize(hd.key) + fieldSize(hd.value);
    return size;
  }
  const object = headers as { readonly [key: string]: RecordHeaderValue };
  let count = 0;
  let size = 0;
  for (const key in object) {
    count++;
    size += headerKeySize(key) + fieldSize(object[key]!);
  }
  return sizeOfVarint(count) + size;
}

/**
 * A record's exact size in a v2 batch, its size varint included (Kafka's
 * `DefaultRecord.sizeInBytes`).
 *
 * @param offsetDelta the record's offset relative to the batch's base offset
 * @param timestampDelta its timestamp relative to the batch's base timestamp, ms
 */
export function recordSizeInBytes(
  offsetDelta: number,
  timestampDelta: number,
  key: Uint8Array | string | null,
  value: Uint8Array | string | null,
  headers: RecordHeadersInput | null = null,
): number {
  const body =
    1 +
    sizeOfVarlong(timestampDelta) +
    sizeOfVarint(offsetDelta) +
    fieldSize(key) +
    fieldSize(value) +
    headersSize(headers);
  return sizeOfVarint(body) + body;
}
