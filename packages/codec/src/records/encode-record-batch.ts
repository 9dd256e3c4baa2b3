/**
 * v2 record batch encoder (magic 2, KIP-98). Writes the records in one pass into a shared
 * slab after room for the 61-byte header (each record's size varint once the record is
 * written), then the header, and back-patches the CRC-32C.
 */
import { constants } from 'node:buffer';
import { CodecError } from '../errors.js';
import {
  sizeOfVarint,
  writeVarintAt as writeVarint,
  writeVarlongAt as writeVarlong,
} from '../varint.js';
import {
  type CompressionBackend,
  type CompressionCodec,
  CompressionId,
  compress,
  compressSync,
} from './compression.js';
import { crc32c } from './crc32c.js';
import {
  ATTR_CONTROL,
  ATTR_DELETE_HORIZON,
  ATTR_LOG_APPEND_TIME,
  ATTR_TRANSACTIONAL,
  RECORD_BATCH_OVERHEAD,
} from './layout.js';

/** One record header: a UTF-8 key and a nullable value. */
export interface RecordHeaderInput {
  readonly key: string;
  readonly value: Buffer | null;
}

/** One record to encode. */
export interface RecordInput {
  /** Record key; `null` or absent for none. */
  readonly key?: Buffer | null;
  /** Record value; `null` is a tombstone. */
  readonly value: Buffer | null;
  readonly headers?: readonly RecordHeaderInput[];
  /** Milliseconds since the epoch; default the batch's `now`. */
  readonly timestamp?: bigint | number;
  /** Offset relative to the batch's base offset; default the record's index. */
  readonly offsetDelta?: number;
}

/** A v2 record batch to encode; every field but `records` has Kafka's producer default. */
export interface RecordBatchInput {
  /** Default `0n`: a producer's batches are renumbered by the broker. */
  readonly baseOffset?: bigint;
  /** Default `-1` (a producer does not know it). */
  readonly partitionLeaderEpoch?: number;
  /** Default `-1n` (not idempotent). */
  readonly producerId?: bigint;
  /** Default `-1`. */
  readonly producerEpoch?: number;
  /** Sequence of the first record; default `-1`. */
  readonly baseSequence?: number;
  /** Attributes bit 4. Default false. */
  readonly transactional?: boolean;
  /** Attributes bit 5: the records are control records. Default false. */
  readonly control?: boolean;
  /** Default `none`. */
  readonly compression?: CompressionCodec;
  /**
   * Codec level (KIP-390): gzip 1-9 (default 6), zstd -131072..22 (default 3). snappy and
   * lz4 take none; a level for them is `VALUE_INVALID`.
   */
  readonly compressionLevel?: number;
  /**
   * Which implementations may compress (`auto`, `native` or `js`; default `auto`): see
   * `CompressionBackend`.
   */
  readonly compressionBackend?: CompressionBackend;
  /** Attributes bit 3. Default `CreateTime`. */
  readonly timestampType?: TimestampType;
  /** With `LogAppendTime`: the batch's max timestamp (ms). Default the largest record's. */
  readonly logAppendTime?: bigint;
  /**
   * Attributes bit 6 (KIP-534): when set, the base timestamp field carries this delete
   * horizon (ms) and record timestamps are relative to it.
   */
  readonly deleteHorizonMs?: bigint;
  /** Timestamp (ms) for records that carry none. Default `Date.now()`. */
  readonly now?: number;
  readonly records: readonly RecordInput[];
}

/** Attributes bit 3: where a record's timestamp came from. */
export type TimestampType = 'CreateTime' | 'LogAppendTime';

const EMPTY_HEADERS: readonly RecordHeaderInput[] = [];

function bad(detail: string): never {
  throw new CodecError('VALUE_INVALID', 'RecordBatch', detail);
}

function toMs(t: bigint | number, what: string): number {
  const n = typeof t === 'number' ? t : Number(t);
  if (!Number.isSafeInteger(n)) bad(`${what} ${t} is not an integer within ±2^53 ms`);
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Java's `String.getBytes(UTF_8)` writes a lone UTF-16 surrogate as `?`, Node's encoder as
 * U+FFFD: header keys follow Java so a batch has the bytes the Java producer would write.
 */
function javaUtf8(s: string): string {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    ? s
    : s.replace(LONE_SURROGATE, '?');
}

/** The records section (after `room` header bytes) and what the header needs from it. */
interface Prepared {
  readonly body: Buffer;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly lastOffsetDelta: number;
}

/**
 * Batches are written straight into shared slabs of 1 MiB and handed out as views of them,
 * as Node's Buffer pool hands out buffers under 4 KiB: a buffer of its own per batch would
 * cost a fresh ArrayBuffer (a few microseconds at 10 KiB), and writing elsewhere first a copy.
 * A batch that outgrows what is left of a slab moves, with what it has written, to a new slab
 * (of its own size when it is bigger). Slabs are never reused: one is freed when no batch in
 * it is reachable, so a batch kept alive keeps at most its slab alive.
 */
const SLAB_BYTES = 1024 * 1024;
let slab: Buffer = Buffer.allocUnsafe(0);
let slabUsed = 0;

/**
 * Moves the batch being written in `slab[start, pos)` to the start of a new slab with room
 * for `need` more bytes; returns the new slab.
 */
function newSlab(start: number, pos: number, need: number): Buffer {
  const written = pos - start;
  // Doubling keeps the moves of a batch bigger than a slab to a copy per doubling.
  const size = Math.max(SLAB_BYTES, Math.min((written + need) * 2, constants.MAX_LENGTH));
  const next = Buffer.allocUnsafeSlow(size);
  // The bytes of the header's room may lie past the old slab's end: they are written later.
  if (start < slab.length) slab.copy(next, 0, start, Math.min(pos, slab.length));
  slab = next;
  slabUsed = 0;
  return next;
}

/**
 * The UTF-8 length of a header key when it is ASCII (every char below U+0080, as most keys
 * are), written byte for byte; -1 otherwise, for the Java-faithful UTF-8 path.
 */
function asciiLength(s: string): number {
  const n = s.length;
  if (n > 64) return -1;
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return -1;
  return n;
}

/**
 * Writes the records section in one pass into a slab, each record's size varint put in front
 * of it once it is written (no sizing pass over the fields), after `room` bytes left in front
 * for the batch header (61 when the section goes out uncompressed, 0 when it gets
 * compressed); returns it as a view of exactly its size.
 */
function encodeRecords(input: RecordBatchInput, room: number): Prepared {
  const records = input.records;
  const n = records.length;
  if (n === 0) bad('a record batch needs at least one record');
  const now = input.now ?? Date.now();
  // Record timestamps are deltas from the first record's timestamp, or from the delete
  // horizon when there is one (Kafka's MemoryRecordsBuilder does the same).
  const first = records[0]!.timestamp;
  const base =
    input.deleteHorizonMs !== undefined
      ? toMs(input.deleteHorizonMs, 'deleteHorizonMs')
      : first === undefined
        ? now
        : toMs(first, 'timestamp');
  let max = -1;
  let lastOffsetDelta = 0;
  let buf = slab;
  let start = slabUsed;
  let pos = start + room;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const t = r.timestamp;
    const ts =
      t === undefined
        ? now
        : typeof t === 'number' && Number.isSafeInteger(t)
          ? t
          : toMs(t, 'timestamp');
    if (ts > max) max = ts;
    const tsDelta = ts - base;
    if (!Number.isSafeInteger(tsDelta)) bad(`timestamp delta of record ${i} is out of range`);
    let od = r.offsetDelta;
    if (od === undefined) od = i;
    else if (!Number.isInteger(od) || od < 0 || od > 0x7fffffff)
      bad(`offsetDelta ${od} of record ${i}`);
    if (od > lastOffsetDelta) lastOffsetDelta = od;
    const key = r.key ?? null;
    const value = r.value;
    const headers = r.headers ?? EMPTY_HEADERS;
    const kl = key === null ? -1 : key.length;
    const vl = value === null ? -1 : value.length;
    // The most the record can take, every varint at its widest, for the room check: its
    // exact size is known once it is written.
    let most = 1 + 10 + 5 + (kl < 0 ? 1 : 5 + kl) + (vl < 0 ? 1 : 5 + vl) + 5;
    if (headers.length > 0) most += headersMost(headers);
    // Room for the size varint (at most 5 bytes) and the record.
    if (pos + 5 + most > buf.length) {
      if (pos - start + 5 + most > 0x7fffffff - RECORD_BATCH_OVERHEAD) {
        bad(`records take more than ${0x7fffffff - RECORD_BATCH_OVERHEAD} bytes`);
      }
      buf = newSlab(start, pos, 5 + most);
      pos -= start;
      start = 0;
    }
    // The record is written 2 bytes on, room for its size as a two-byte varint (a record of
    // 64 to 8191 bytes, the usual); one of another size is moved to fit its size varint.
    const at = pos + 2;
    let q = at;
    buf[q++] = 0; // record attributes: unused, always 0
    q =
      tsDelta >= -0x40000000 && tsDelta < 0x40000000
        ? writeVarint(buf, q, tsDelta)
        : writeVarlong(buf, q, tsDelta);
    q = writeVarint(buf, q, od);
    if (key === null) {
      buf[q++] = 1; // zig-zag -1: null
    } else {
      q = writeVarint(buf, q, kl);
      q = put(buf, q, key);
    }
    if (value === null) {
      buf[q++] = 1;
    } else {
      q = writeVarint(buf, q, vl);
      q = put(buf, q, value);
    }
    q = writeVarint(buf, q, headers.length);
    if (headers.length > 0) q = writeHeaders(buf, q, headers);
    const size = q - at;
    // Outside 64-8191 the size varint is not two bytes wide: move the record to fit it.
    if (size < 64 || size >= 8192) buf.copyWithin(pos + sizeOfVarint(size), at, q);
    pos = writeVarint(buf, pos, size) + size;
  }
  const body = buf.subarray(start, pos);
  // The next batch starts 8-byte aligned, as in Node's pool.
  slabUsed = Math.min((pos + 7) & ~7, buf.length);
  return {
    body,
    baseTimestamp: BigInt(base),
    maxTimestamp: BigInt(max),
    lastOffsetDelta,
  };
}

/**
 * The most the headers of one record can take after their count: a UTF-8 key is at most 3
 * bytes per UTF-16 code unit, a varint at most 5 bytes.
 */
function headersMost(headers: readonly RecordHeaderInput[]): number {
  let most = 0;
  for (let h = 0; h < headers.length; h++) {
    const hd = headers[h]!;
    most += 10 + 3 * hd.key.length + (hd.value === null ? 0 : hd.value.length);
  }
  return most;
}

/** Writes the headers of one record after their count; returns the position after them. */
function writeHeaders(buf: Buffer, pos: number, headers: readonly RecordHeaderInput[]): number {
  for (let h = 0; h < headers.length; h++) {
    const hd = headers[h]!;
    const key = hd.key;
    const kl = asciiLength(key);
    if (kl >= 0) {
      pos = writeVarint(buf, pos, kl);
      for (let i = 0; i < kl; i++) buf[pos + i] = key.charCodeAt(i);
      pos += kl;
    } else {
      const fixed = javaUtf8(key);
      pos = writeVarint(buf, pos, Buffer.byteLength(fixed, 'utf8'));
      pos += buf.write(fixed, pos, 'utf8');
    }
    const value = hd.value;
    if (value === null) {
      buf[pos++] = 1;
    } else {
      pos = writeVarint(buf, pos, value.length);
      pos = put(buf, pos, value);
    }
  }
  return pos;
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
function put(dst: Buffer, pos: number, src: Buffer): number {
  const n = src.length;
  if (n <= 8) {
    for (let i = 0; i < n; i++) dst[pos + i] = src[i]!;
  } else {
    typedArraySet.call(dst, src, pos);
  }
  return pos + n;
}

function checkInt(v: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(v) || v < min || v > max) bad(`${what} ${v} is out of range`);
  return v;
}

function writeHeader(
  out: Buffer,
  input: RecordBatchInput,
  p: Prepared,
  codec: CompressionCodec,
): void {
  const n = input.records.length;
  out.writeBigInt64BE(input.baseOffset ?? 0n, 0);
  out.writeInt32BE(out.length - 12, 8); // batchLength counts from partitionLeaderEpoch on
  out.writeInt32BE(
    checkInt(input.partitionLeaderEpoch ?? -1, -0x80000000, 0x7fffffff, 'partitionLeaderEpoch'),
    12,
  );
  out[16] = 2; // magic
  let attributes = CompressionId[codec];
  if (input.timestampType === 'LogAppendTime') attributes |= ATTR_LOG_APPEND_TIME;
  if (input.transactional === true) attributes |= ATTR_TRANSACTIONAL;
  if (input.control === true) attributes |= ATTR_CONTROL;
  if (input.deleteHorizonMs !== undefined) attributes |= ATTR_DELETE_HORIZON;
  out.writeInt16BE(attributes, 21);
  out.writeInt32BE(p.lastOffsetDelta, 23);
  out.writeBigInt64BE(p.baseTimestamp, 27);
  const maxTs =
    input.timestampType === 'LogAppendTime' && input.logAppendTime !== undefined
      ? input.logAppendTime
      : p.maxTimestamp;
  out.writeBigInt64BE(maxTs, 35);
  out.writeBigInt64BE(input.producerId ?? -1n, 43);
  out.writeInt16BE(checkInt(input.producerEpoch ?? -1, -0x8000, 0x7fff, 'producerEpoch'), 51);
  out.writeInt32BE(checkInt(input.baseSequence ?? -1, -0x80000000, 0x7fffffff, 'baseSequence'), 53);
  out.writeInt32BE(n, 57);
  out.writeUInt32BE(crc32c(out, 21, out.length), 17); // CRC-32C over attributes..end
}

/**
 * Encodes a v2 record batch synchronously.
 *
 * Uncompressed batches are written into one buffer with no intermediate copy; compressed
 * ones (gzip, snappy, lz4) build the records section, compress it and copy it once behind
 * the header.
 *
 * @returns a new buffer holding exactly one batch
 * @throws CodecError `VALUE_INVALID` for an empty batch or an out-of-range field,
 *   `UNSUPPORTED` for zstd (async only: use {@link encodeRecordBatch})
 */
export function encodeRecordBatchSync(input: RecordBatchInput): Buffer {
  const codec = input.compression ?? 'none';
  if (codec === 'none') {
    if (input.compressionLevel !== undefined)
      bad('an uncompressed batch takes no compression level');
    const p = encodeRecords(input, RECORD_BATCH_OVERHEAD);
    writeHeader(p.body, input, p, codec);
    return p.body;
  }
  const p = encodeRecords(input, 0);
  return assemble(input, p, codec, compressSync(codec, p.body, compressOptions(input)));
}

/**
 * Encodes a v2 record batch with any codec; zstd and gzip compress off the main thread.
 *
 * @returns a new buffer holding exactly one batch
 * @throws CompressionUnavailableError `ERR_KAFKA_CODEC_UNAVAILABLE` when no implementation of
 *   the codec can load (it names the package to add)
 * @throws CodecError `VALUE_INVALID` for an empty batch or an out-of-range field
 */
export async function encodeRecordBatch(input: RecordBatchInput): Promise<Buffer> {
  const codec = input.compression ?? 'none';
  if (codec === 'none') return encodeRecordBatchSync(input);
  const p = encodeRecords(input, 0);
  return assemble(input, p, codec, await compress(codec, p.body, compressOptions(input)));
}

function compressOptions(input: RecordBatchInput): {
  level?: number;
  backend?: CompressionBackend;
} {
  const o: { level?: number; backend?: CompressionBackend } = {};
  if (input.compressionLevel !== undefined) o.level = input.compressionLevel;
  if (input.compressionBackend !== undefined) o.backend = input.compressionBackend;
  return o;
}

function assemble(
  input: RecordBatchInput,
  p: Prepared,
  codec: CompressionCodec,
  compressed: Buffer,
): Buffer {
  const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + compressed.length);
  compressed.copy(out, RECORD_BATCH_OVERHEAD);
  writeHeader(out, input, p, codec);
  return out;
}
