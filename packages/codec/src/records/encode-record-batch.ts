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
  writeVarlongBigAt,
} from '../varint.js';
import { type RecordBatchFields, writeRecordBatchHeader } from './batch-header.js';
import {
  type CompressionBackend,
  type CompressionCodec,
  compress,
  compressSync,
} from './compression.js';
import { RECORD_BATCH_OVERHEAD } from './layout.js';
import {
  fieldMost,
  headersMost,
  MAX_RECORD_OVERHEAD,
  writeField,
  writeHeaders,
} from './record-fields.js';

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
export interface RecordBatchInput extends RecordBatchFields {
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

function bad(detail: string): never {
  throw new CodecError('VALUE_INVALID', 'RecordBatch', detail);
}

function toMs(t: bigint | number, what: string): number {
  const n = typeof t === 'number' ? t : Number(t);
  if (!Number.isSafeInteger(n)) bad(`${what} ${t} is not an integer within ±2^53 ms`);
  return n;
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
    // Within ±2^53 each, two timestamps are at most 2^54 apart: an int64 delta, as Kafka's
    // `DefaultRecord` writes it, but past 2^53 only a bigint holds it exactly.
    const tsDelta = ts - base;
    let od = r.offsetDelta;
    if (od === undefined) od = i;
    else if (!Number.isInteger(od) || od < 0 || od > 0x7fffffff)
      bad(`offsetDelta ${od} of record ${i}`);
    if (od > lastOffsetDelta) lastOffsetDelta = od;
    const key = r.key ?? null;
    const value = r.value;
    const headers = r.headers ?? null;
    // The most the record can take, every varint at its widest, for the room check: its
    // exact size is known once it is written.
    const most = MAX_RECORD_OVERHEAD + fieldMost(key) + fieldMost(value) + headersMost(headers);
    if (pos + most > buf.length) {
      if (pos - start + most > 0x7fffffff - RECORD_BATCH_OVERHEAD) {
        bad(`records take more than ${0x7fffffff - RECORD_BATCH_OVERHEAD} bytes`);
      }
      buf = newSlab(start, pos, most);
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
        : Number.isSafeInteger(tsDelta)
          ? writeVarlong(buf, q, tsDelta)
          : writeVarlongBigAt(buf, q, BigInt(ts) - BigInt(base));
    q = writeVarint(buf, q, od);
    q = writeField(buf, q, key);
    q = writeField(buf, q, value);
    q = writeHeaders(buf, q, headers);
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

function writeHeader(
  out: Buffer,
  input: RecordBatchInput,
  p: Prepared,
  codec: CompressionCodec,
): void {
  const maxTimestamp =
    input.timestampType === 'LogAppendTime' && input.logAppendTime !== undefined
      ? input.logAppendTime
      : p.maxTimestamp;
  writeRecordBatchHeader(
    out,
    {
      compression: codec,
      recordCount: input.records.length,
      lastOffsetDelta: p.lastOffsetDelta,
      baseTimestamp: p.baseTimestamp,
      maxTimestamp,
      logAppendTime: input.timestampType === 'LogAppendTime',
      control: input.control === true,
      deleteHorizon: input.deleteHorizonMs !== undefined,
    },
    input,
  );
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
