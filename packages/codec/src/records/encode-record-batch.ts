/**
 * v2 record batch encoder (magic 2, KIP-98). Sizes every record first, writes the records
 * into one buffer, then the 61-byte header, and back-patches the CRC-32C.
 */
import { CodecError } from '../errors.js';
import {
  sizeOfVarint,
  sizeOfVarlong,
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
 * Sizes and writes the records section into a new buffer that leaves `room` bytes in front
 * for the batch header (61 when the section goes out uncompressed, 0 when it gets
 * compressed).
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
  // Sizes of each record and of each header key, kept for the writing pass.
  const sizes = new Array<number>(n);
  const timestamps = new Array<number>(n);
  const keyLens: number[] = [];
  const fixedKeys = new Map<RecordHeaderInput, string>();
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const ts = r.timestamp === undefined ? now : toMs(r.timestamp, 'timestamp');
    timestamps[i] = ts;
    if (ts > max) max = ts;
    const tsDelta = ts - base;
    if (!Number.isSafeInteger(tsDelta)) bad(`timestamp delta of record ${i} is out of range`);
    const od = r.offsetDelta ?? i;
    if (!Number.isInteger(od) || od < 0 || od > 0x7fffffff) bad(`offsetDelta ${od} of record ${i}`);
    if (od > lastOffsetDelta) lastOffsetDelta = od;
    const key = r.key ?? null;
    const value = r.value;
    let size = 1 + sizeOfVarlong(tsDelta) + sizeOfVarint(od);
    size += key === null ? 1 : sizeOfVarint(key.length) + key.length;
    size += value === null ? 1 : sizeOfVarint(value.length) + value.length;
    const headers = r.headers ?? EMPTY_HEADERS;
    size += sizeOfVarint(headers.length);
    for (let h = 0; h < headers.length; h++) {
      const hd = headers[h]!;
      const key = javaUtf8(hd.key);
      const kl = Buffer.byteLength(key, 'utf8');
      keyLens.push(kl);
      if (key !== hd.key) fixedKeys.set(hd, key);
      size += sizeOfVarint(kl) + kl;
      size += hd.value === null ? 1 : sizeOfVarint(hd.value.length) + hd.value.length;
    }
    sizes[i] = size;
    total += sizeOfVarint(size) + size;
  }
  if (total > 0x7fffffff - RECORD_BATCH_OVERHEAD) bad(`records take ${total} bytes`);
  const body = Buffer.allocUnsafe(room + total);
  let pos = room;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    pos = writeVarint(body, pos, sizes[i]!);
    body[pos++] = 0; // record attributes: unused, always 0
    pos = writeVarlong(body, pos, timestamps[i]! - base);
    pos = writeVarint(body, pos, r.offsetDelta ?? i);
    const key = r.key ?? null;
    if (key === null) {
      body[pos++] = 1; // zig-zag -1: null
    } else {
      pos = writeVarint(body, pos, key.length);
      pos = put(body, pos, key);
    }
    const value = r.value;
    if (value === null) {
      body[pos++] = 1;
    } else {
      pos = writeVarint(body, pos, value.length);
      pos = put(body, pos, value);
    }
    const headers = r.headers ?? EMPTY_HEADERS;
    pos = writeVarint(body, pos, headers.length);
    for (let h = 0; h < headers.length; h++) {
      const hd = headers[h]!;
      pos = writeVarint(body, pos, keyLens[k++]!);
      pos += body.write(fixedKeys.get(hd) ?? hd.key, pos, 'utf8');
      if (hd.value === null) {
        body[pos++] = 1;
      } else {
        pos = writeVarint(body, pos, hd.value.length);
        pos = put(body, pos, hd.value);
      }
    }
  }
  return {
    body,
    baseTimestamp: BigInt(base),
    maxTimestamp: BigInt(max),
    lastOffsetDelta,
  };
}

/**
 * Copies `src` into `dst` at `pos`. Short fields are copied by a loop: below ~32 bytes a
 * typed-array `set` costs more in call overhead than the bytes it moves.
 */
function put(dst: Buffer, pos: number, src: Buffer): number {
  const n = src.length;
  if (n < 32) {
    for (let i = 0; i < n; i++) dst[pos + i] = src[i]!;
  } else {
    dst.set(src, pos);
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
