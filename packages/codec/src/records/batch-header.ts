/**
 * The v2 record batch header as a producer writes it: every field at once (the encoder, the
 * builder), or the producer id, epoch and base sequence again on a finished batch, as Kafka's
 * producer numbers a batch when it drains it and renumbers it after an epoch bump.
 */
import { CodecError } from '../errors.js';
import { type CompressionCodec, CompressionId } from './compression.js';
import { crc32c } from './crc32c.js';
import {
  ATTR_CONTROL,
  ATTR_DELETE_HORIZON,
  ATTR_LOG_APPEND_TIME,
  ATTR_TRANSACTIONAL,
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
} from './layout.js';
import {
  fieldSize,
  headersSize,
  MAX_RECORD_OVERHEAD,
  type RecordHeadersInput,
} from './record-fields.js';

/** The header fields a producer chooses; each has the Java producer's default. */
export interface RecordBatchFields {
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
}

/** What the header says beyond the producer's fields: the records' own facts. */
export interface RecordBatchShape {
  readonly compression: CompressionCodec;
  readonly recordCount: number;
  readonly lastOffsetDelta: number;
  /** ms; a number when it is one already (no bigint made to write it). */
  readonly baseTimestamp: bigint | number;
  readonly maxTimestamp: bigint | number;
  readonly logAppendTime?: boolean;
  readonly control?: boolean;
  readonly deleteHorizon?: boolean;
}

function bad(detail: string): never {
  throw new CodecError('VALUE_INVALID', 'RecordBatch', detail);
}

function checkInt(v: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(v) || v < min || v > max) bad(`${what} ${v} is out of range`);
  return v;
}

function checkProducerId(v: bigint): bigint {
  if (v < -0x8000000000000000n || v > 0x7fffffffffffffffn) bad(`producerId ${v} is out of range`);
  return v;
}

const TWO_32 = 2 ** 32;
/**
 * The last bigint other than 0 and -1 written by {@link writeInt64} and its two halves (a
 * producer id repeats from batch to batch).
 */
let lastLong = 0n;
let lastHigh = 0;
let lastLow = 0;

/**
 * Writes a signed 64-bit integer big-endian as two 32-bit halves: Buffer's writeBigInt64BE
 * makes several bigints per call, and a batch header has four of these. A number must be a
 * safe integer (timestamps are).
 */
function writeInt64(out: Buffer, v: bigint | number, at: number): void {
  let high: number;
  let low: number;
  if (typeof v === 'number') {
    high = Math.floor(v / TWO_32);
    low = v - high * TWO_32;
  } else if (v === 0n || v === -1n) {
    // A producer's base offset, and the producer id of a batch not yet numbered: no bigint
    // made, and the cache below keeps the real producer id.
    high = v === 0n ? 0 : -1;
    low = v === 0n ? 0 : 0xffffffff;
  } else if (v === lastLong) {
    high = lastHigh;
    low = lastLow;
  } else {
    high = Number(BigInt.asIntN(32, v >> 32n));
    low = Number(BigInt.asUintN(32, v));
    lastLong = v;
    lastHigh = high;
    lastLow = low;
  }
  out.writeInt32BE(high, at);
  out.writeUInt32BE(low, at + 4);
}

/**
 * Writes the whole 61-byte header at the start of `out` (whose length is the batch's), the
 * CRC-32C last. With `crc` false the CRC is left for {@link restampRecordBatch}.
 * @throws CodecError `VALUE_INVALID` for a field out of range
 */
export function writeRecordBatchHeader(
  out: Buffer,
  shape: RecordBatchShape,
  fields: RecordBatchFields,
  crc = true,
): void {
  writeInt64(out, fields.baseOffset ?? 0n, 0);
  // batchLength counts from the partition leader epoch on.
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt32BE(
    checkInt(fields.partitionLeaderEpoch ?? -1, -0x80000000, 0x7fffffff, 'partitionLeaderEpoch'),
    PARTITION_LEADER_EPOCH_OFFSET,
  );
  out[MAGIC_OFFSET] = 2;
  let attributes: number = CompressionId[shape.compression];
  if (shape.logAppendTime === true) attributes |= ATTR_LOG_APPEND_TIME;
  if (fields.transactional === true) attributes |= ATTR_TRANSACTIONAL;
  if (shape.control === true) attributes |= ATTR_CONTROL;
  if (shape.deleteHorizon === true) attributes |= ATTR_DELETE_HORIZON;
  out.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  out.writeInt32BE(shape.lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET);
  writeInt64(out, shape.baseTimestamp, BASE_TIMESTAMP_OFFSET);
  writeInt64(out, shape.maxTimestamp, MAX_TIMESTAMP_OFFSET);
  writeInt64(out, checkProducerId(fields.producerId ?? -1n), PRODUCER_ID_OFFSET);
  out.writeInt16BE(
    checkInt(fields.producerEpoch ?? -1, -0x8000, 0x7fff, 'producerEpoch'),
    PRODUCER_EPOCH_OFFSET,
  );
  out.writeInt32BE(
    checkInt(fields.baseSequence ?? -1, -0x80000000, 0x7fffffff, 'baseSequence'),
    BASE_SEQUENCE_OFFSET,
  );
  out.writeInt32BE(shape.recordCount, RECORDS_COUNT_OFFSET);
  if (crc) out.writeUInt32BE(crc32c(out, ATTRIBUTES_OFFSET, out.length), CRC_OFFSET);
}

/**
 * Writes a producer id, epoch and base sequence into a finished v2 batch and refreshes its
 * CRC-32C (it covers them), in place: what Kafka's producer does when it numbers a batch as it
 * drains it, and when an epoch bump renumbers a batch already sent.
 *
 * @param batch exactly one v2 batch (its header and records)
 * @throws CodecError `VALUE_INVALID` for a field out of range or bytes that are not one v2 batch
 */
export function restampRecordBatch(
  batch: Buffer,
  producerId: bigint,
  producerEpoch: number,
  baseSequence: number,
): void {
  if (
    batch.length < RECORD_BATCH_OVERHEAD ||
    batch[MAGIC_OFFSET] !== 2 ||
    batch.readInt32BE(BATCH_LENGTH_OFFSET) !== batch.length - LOG_OVERHEAD
  ) {
    bad(`restamp needs exactly one v2 batch (${batch.length} bytes given)`);
  }
  writeInt64(batch, checkProducerId(producerId), PRODUCER_ID_OFFSET);
  batch.writeInt16BE(
    checkInt(producerEpoch, -0x8000, 0x7fff, 'producerEpoch'),
    PRODUCER_EPOCH_OFFSET,
  );
  batch.writeInt32BE(
    checkInt(baseSequence, -0x80000000, 0x7fffffff, 'baseSequence'),
    BASE_SEQUENCE_OFFSET,
  );
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES_OFFSET, batch.length), CRC_OFFSET);
}

/**
 * The most bytes a v2 batch holding just this record can take, uncompressed: the batch header
 * and the record with its deltas and size varint at their widest (Kafka's
 * `AbstractRecords.estimateSizeInBytesUpperBound`, which the Java producer checks a record
 * against `max.request.size` and `buffer.memory` with). Strings count as their UTF-8 bytes.
 */
export function recordBatchSizeUpperBound(
  key: Uint8Array | string | null,
  value: Uint8Array | string | null,
  headers: RecordHeadersInput | null = null,
): number {
  return (
    RECORD_BATCH_OVERHEAD +
    MAX_RECORD_OVERHEAD +
    fieldSize(key) +
    fieldSize(value) +
    headersSize(headers)
  );
}
