/**
 * v2 record batch decoding (magic 2): the header is read (and the CRC checked) when the batch
 * is reached; the first `records()` call decompresses a compressed batch and reads every
 * record into a `RecordTable` in one pass.
 */
import { CodecError } from '../errors.js';
import { int64At } from '../internal/int64.js';
import {
  COMPRESSION_CODECS,
  type CompressionBackend,
  type CompressionCodec,
  decompress,
} from './compression.js';
import { crc32c } from './crc32c.js';
import { Cursor } from './cursor.js';
import type { TimestampType } from './encode-record-batch.js';
import {
  ATTR_COMPRESSION_MASK,
  ATTR_CONTROL,
  ATTR_DELETE_HORIZON,
  ATTR_LOG_APPEND_TIME,
  ATTR_TRANSACTIONAL,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
} from './layout.js';
import {
  KafkaRecord,
  RECORD_SLOTS,
  type RecordBase,
  RecordTable,
  S_ATTRIBUTES,
  S_HEADER_COUNT,
  S_KEY_LEN,
  S_KEY_POS,
  S_OFFSET_DELTA,
  S_TIMESTAMP_DELTA,
  S_VALUE_LEN,
  S_VALUE_POS,
} from './record.js';
import { RecordBatchError } from './record-batch-error.js';
import { RecordColumns } from './record-columns.js';
import { viewSource } from './view.js';

/** Smallest encoded record: length varint, attributes, and five one-byte varints. */
const MIN_RECORD_BYTES = 7;

/** What every decoded batch exposes, whatever its magic. */
export interface RecordBatch {
  /** 2 for v2 batches, 0 or 1 for legacy messages. */
  readonly magic: 0 | 1 | 2;
  readonly baseOffset: bigint;
  /** Offset of the last record (`baseOffset + lastOffsetDelta`; kept by compaction). */
  readonly lastOffset: bigint;
  /**
   * `lastOffset - baseOffset`: the header's `lastOffsetDelta` for v2 batches (compaction keeps
   * it when it removes the last records); 0 for an uncompressed legacy message.
   */
  readonly lastOffsetDelta: number;
  /**
   * Producer sequence of the last offset: `baseSequence + lastOffsetDelta`, wrapping past
   * int32 max to 0 as Kafka's `DefaultRecordBatch.lastSequence` does; -1 when the batch has no
   * sequence (not idempotent, or a legacy message).
   */
  readonly lastSequence: number;
  /** Bytes the batch takes in the buffer, including its 12-byte offset/length prefix. */
  readonly sizeInBytes: number;
  /** -1 when not set (legacy messages, producer-side batches). */
  readonly partitionLeaderEpoch: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: CompressionCodec;
  readonly timestampType: TimestampType | 'NoTimestampType';
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  /** The delete horizon (ms, KIP-534) when attributes bit 6 is set, else null. */
  readonly deleteHorizonMs: bigint | null;
  /** First record's timestamp for v2 (or the delete horizon); -1 when unknown. */
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  /** -1n when the batch is not from an idempotent producer. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  /** Records the header declares (legacy: the inner message count). */
  readonly recordCount: number;
  /** The whole batch as a view into the decoded buffer. */
  readonly buffer: Buffer;
  /**
   * Iterates the records. Each call starts again from the first record. The first call
   * decompresses a compressed batch and reads every record's lengths and positions in one
   * pass; later calls reuse what it read.
   *
   * @throws RecordBatchError while iterating, once the records before it have been handed
   *   out, when a record is malformed or the count lies; on the first call when
   *   decompression fails or passes the size limit
   */
  records(): IterableIterator<KafkaRecord>;
  /**
   * The records as columns, read the same way as `records()` (the same one pass, shared with
   * it): fields by index, with no record object made until one is asked for. A malformed
   * record ends the columns before it, with `error` set.
   *
   * @throws RecordBatchError when decompression fails or passes the size limit
   */
  columns(): RecordColumns;
}

/** Options for {@link decodeRecordBatches}. */
export interface DecodeRecordBatchesOptions {
  /**
   * Most bytes one batch may inflate to; more is `ERR_KAFKA_CODEC_LENGTH_INVALID`.
   * Default 64 MiB (above Kafka's default `message.max.bytes` of about 1 MiB).
   */
  readonly maxUncompressedBytes?: number;
  /** Check each batch's CRC before handing it out. Default true (Kafka's `check.crcs`). */
  readonly verifyCrc?: boolean;
  /**
   * Which implementations may decompress (`auto`, `native` or `js`; default `auto`): see
   * `CompressionBackend`. A batch whose codec cannot run here throws `RecordBatchError`
   * `ERR_KAFKA_CODEC_UNAVAILABLE` (cause: `CompressionUnavailableError`, naming the package
   * to add) when its records are read; the batches before it read normally.
   */
  readonly compressionBackend?: CompressionBackend;
}

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;

/** @internal */
export class DefaultRecordBatch implements RecordBatch, RecordBase {
  readonly magic = 2 as const;
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly lastOffsetDelta: number;
  readonly sizeInBytes: number;
  readonly partitionLeaderEpoch: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: CompressionCodec;
  readonly timestampType: TimestampType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly deleteHorizonMs: bigint | null;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly recordCount: number;
  readonly buffer: Buffer;
  readonly logAppendTime: bigint | null;
  private readonly maxUncompressedBytes: number;
  private readonly backend: CompressionBackend;
  private body: Buffer | null = null;
  private table: RecordTable | null = null;

  get lastSequence(): number {
    const s = this.baseSequence;
    // DefaultRecordBatch.incrementSequence: past Integer.MAX_VALUE the sequence starts at 0.
    return s < 0 ? -1 : (s + this.lastOffsetDelta) % 0x80000000;
  }

  /** Reads and checks the header of the batch in `buf[start, start + size)`. */
  constructor(
    buf: Buffer,
    start: number,
    size: number,
    verifyCrc: boolean,
    maxBytes: number,
    backend: CompressionBackend,
  ) {
    const baseOffset = int64At(buf, start);
    this.baseOffset = baseOffset;
    if (size < RECORD_BATCH_OVERHEAD) {
      throw new RecordBatchError(
        'LENGTH_INVALID',
        baseOffset,
        `batch length ${size - LOG_OVERHEAD} is below the v2 minimum ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}`,
      );
    }
    const end = start + size;
    this.buffer = buf.subarray(start, end);
    this.sizeInBytes = size;
    this.crc = buf.readUInt32BE(start + 17);
    if (verifyCrc) {
      const actual = crc32c(buf, start + 21, end);
      if (actual !== this.crc) {
        throw new RecordBatchError(
          'CORRUPT',
          baseOffset,
          `CRC-32C mismatch: batch says ${hex(this.crc)}, bytes give ${hex(actual)}`,
          { expectedCrc: this.crc, actualCrc: actual },
        );
      }
    }
    this.partitionLeaderEpoch = buf.readInt32BE(start + 12);
    const attributes = buf.readInt16BE(start + 21);
    this.attributes = attributes;
    const codec = COMPRESSION_CODECS[attributes & ATTR_COMPRESSION_MASK];
    if (codec === undefined) {
      throw new RecordBatchError(
        'UNSUPPORTED',
        baseOffset,
        `unknown compression id ${attributes & ATTR_COMPRESSION_MASK}`,
      );
    }
    this.compression = codec;
    this.timestampType = attributes & ATTR_LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime';
    this.isTransactional = (attributes & ATTR_TRANSACTIONAL) !== 0;
    this.isControl = (attributes & ATTR_CONTROL) !== 0;
    this.lastOffsetDelta = buf.readInt32BE(start + 23);
    this.lastOffset = baseOffset + BigInt(this.lastOffsetDelta);
    this.baseTimestamp = int64At(buf, start + 27);
    this.deleteHorizonMs = attributes & ATTR_DELETE_HORIZON ? this.baseTimestamp : null;
    this.maxTimestamp = int64At(buf, start + 35);
    this.logAppendTime = attributes & ATTR_LOG_APPEND_TIME ? this.maxTimestamp : null;
    this.producerId = int64At(buf, start + 43);
    this.producerEpoch = buf.readInt16BE(start + 51);
    this.baseSequence = buf.readInt32BE(start + 53);
    const count = buf.readInt32BE(start + 57);
    if (count < 0) {
      throw new RecordBatchError('LENGTH_INVALID', baseOffset, `negative record count ${count}`);
    }
    if (codec === 'none' && count > (size - RECORD_BATCH_OVERHEAD) / MIN_RECORD_BYTES) {
      throw new RecordBatchError(
        'LENGTH_INVALID',
        baseOffset,
        `record count ${count} cannot fit in ${size - RECORD_BATCH_OVERHEAD} bytes`,
      );
    }
    this.recordCount = count;
    this.maxUncompressedBytes = maxBytes;
    this.backend = backend;
  }

  /** The uncompressed records section (a view for uncompressed batches). */
  private recordsSection(): Buffer {
    if (this.body !== null) return this.body;
    const raw = this.buffer.subarray(RECORD_BATCH_OVERHEAD);
    let body: Buffer;
    if (this.compression === 'none') {
      body = raw;
    } else {
      try {
        body = decompress(this.compression, raw, this.maxUncompressedBytes, {
          backend: this.backend,
        });
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        const reason = e instanceof CodecError ? e.reason : 'CORRUPT';
        throw new RecordBatchError(reason, this.baseOffset, why, { cause: e });
      }
      if (this.recordCount > body.length / MIN_RECORD_BYTES) {
        throw new RecordBatchError(
          'LENGTH_INVALID',
          this.baseOffset,
          `record count ${this.recordCount} cannot fit in ${body.length} decompressed bytes`,
        );
      }
    }
    this.body = body;
    return body;
  }

  private readTable(): RecordTable {
    let table = this.table;
    if (table === null) {
      table = readRecordTable(this, this.recordsSection());
      this.table = table;
    }
    return table;
  }

  records(): IterableIterator<KafkaRecord> {
    return new RecordIterator(this.readTable());
  }

  columns(): RecordColumns {
    const table = this.readTable();
    return new RecordColumns(table, 0, table.count);
  }
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

/**
 * Reads every record of a v2 batch's records section into a {@link RecordTable}, checking
 * each record's lengths as Kafka's `DefaultRecord.readFrom` does. One- and two-byte varints
 * (every length, count and delta of a typical record) are read inline, with no call and no
 * NaN in the loop; longer or cut-short ones go through the cursor's checked reader. A
 * malformed record ends the read: the table keeps the records before it and the error,
 * which the iterator throws when it gets there.
 */
function readRecordTable(batch: DefaultRecordBatch, body: Buffer): RecordTable {
  const count = batch.recordCount;
  const table = new RecordTable(batch, viewSource(body), count);
  const slots = table.slots;
  const buf = body;
  const size = body.length;
  const c = new Cursor(body, 0, size, batch.baseOffset);
  let p = 0;
  let i = 0;
  let v: number;
  let b0: number;
  let b1: number;
  let problem = '';
  try {
    for (; i < count; i++) {
      if (p >= size) {
        problem = `record count says ${count}, the bytes hold ${i}`;
        break;
      }
      // length
      if ((b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < size && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, size, false);
        p = c.pos;
      }
      if (v < MIN_RECORD_BYTES - 1 || v > size - p) {
        problem = `record ${i} claims ${v} bytes, ${size - p} left`;
        break;
      }
      const len = v;
      const end = p + len;
      const s = i * RECORD_SLOTS;
      slots[s + S_ATTRIBUTES] = buf[p++]!;
      // timestamp delta, a varlong; one beyond int32 goes to the table's wide timestamps
      if ((b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < end && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, end, true);
        p = c.pos;
        if (v !== (v | 0)) {
          table.wideTimestamps ??= new Map();
          table.wideTimestamps.set(i, Number.isNaN(v) ? c.big! : BigInt(v));
          v = 0;
        }
      }
      slots[s + S_TIMESTAMP_DELTA] = v;
      // offset delta
      if (p < end && (b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < end && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, end, false);
        p = c.pos;
      }
      slots[s + S_OFFSET_DELTA] = v;
      // key
      if (p < end && (b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < end && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, end, false);
        p = c.pos;
      }
      if (v < -1 || v > end - p) {
        problem = `record ${i} key length ${v}, ${end - p} bytes left`;
        break;
      }
      slots[s + S_KEY_POS] = p;
      slots[s + S_KEY_LEN] = v;
      if (v > 0) p += v;
      // value
      if (p < end && (b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < end && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, end, false);
        p = c.pos;
      }
      if (v < -1 || v > end - p) {
        problem = `record ${i} value length ${v}, ${end - p} bytes left`;
        break;
      }
      slots[s + S_VALUE_POS] = p;
      slots[s + S_VALUE_LEN] = v;
      if (v > 0) p += v;
      // headers: counted and their lengths checked here, decoded when asked for
      if (p < end && (b0 = buf[p]!) < 0x80) {
        v = (b0 >>> 1) ^ -(b0 & 1);
        p += 1;
      } else if (p + 1 < end && (b1 = buf[p + 1]!) < 0x80) {
        b1 = (b0 & 0x7f) | (b1 << 7);
        v = (b1 >>> 1) ^ -(b1 & 1);
        p += 2;
      } else {
        v = slowVarint(c, p, end, false);
        p = c.pos;
      }
      if (v < 0 || v > (end - p) / 2) {
        problem = `record ${i} claims ${v} headers`;
        break;
      }
      slots[s + S_HEADER_COUNT] = v;
      if (v > 0) {
        p = skipHeaders(table, c, i, p, end, v);
        if (p < 0) break;
      }
      if (p !== end) {
        problem = `record ${i} is ${len} bytes but its fields take ${p - end + len}`;
        break;
      }
    }
    if (i === count && p !== size) problem = `${size - p} bytes left after the declared records`;
    if (problem !== '') {
      table.error = new RecordBatchError('LENGTH_INVALID', batch.baseOffset, problem);
    }
  } catch (e) {
    // A varint the checked reader refused (over-long, cut short): already a RecordBatchError.
    if (!(e instanceof RecordBatchError)) throw e;
    table.error = e;
  }
  table.count = i;
  return table;
}

/**
 * Checks the `n` headers of record `i` at `p` (their key and value lengths against the
 * record's end); the position after them, or -1 with `table.error` set.
 */
function skipHeaders(
  table: RecordTable,
  c: Cursor,
  i: number,
  p: number,
  end: number,
  n: number,
): number {
  const buf = c.buf;
  for (let h = 0; h < n; h++) {
    let len: number;
    let b0: number;
    if (p < end && (b0 = buf[p]!) < 0x80) {
      len = (b0 >>> 1) ^ -(b0 & 1);
      p += 1;
    } else {
      len = slowVarint(c, p, end, false);
      p = c.pos;
    }
    if (len < 0 || len > end - p) {
      table.error = new RecordBatchError(
        'LENGTH_INVALID',
        table.baseOffset,
        len < 0
          ? `record ${i} header ${h} key length ${len}`
          : `record ${i} header key length ${len}, ${end - p} bytes left`,
      );
      return -1;
    }
    p += len;
    if (p < end && (b0 = buf[p]!) < 0x80) {
      len = (b0 >>> 1) ^ -(b0 & 1);
      p += 1;
    } else {
      len = slowVarint(c, p, end, false);
      p = c.pos;
    }
    if (len < -1 || len > end - p) {
      table.error = new RecordBatchError(
        'LENGTH_INVALID',
        table.baseOffset,
        `record ${i} header value length ${len}, ${end - p} bytes left`,
      );
      return -1;
    }
    if (len > 0) p += len;
  }
  return p;
}

/**
 * A zig-zag varint (`long`: varlong) at `p`, read by the cursor's checked reader up to
 * `end`; the position after it is left in `c.pos`.
 */
function slowVarint(c: Cursor, p: number, end: number, long: boolean): number {
  c.pos = p;
  c.end = end;
  return long ? c.readVarlong() : c.readVarint();
}

/**
 * @internal Hands out the records of a {@link RecordTable}, then throws its error if it has
 * one.
 */
export class RecordIterator implements IterableIterator<KafkaRecord> {
  private readonly table: RecordTable;
  private index = 0;

  constructor(table: RecordTable) {
    this.table = table;
  }

  [Symbol.iterator](): IterableIterator<KafkaRecord> {
    return this;
  }

  next(): IteratorResult<KafkaRecord> {
    const t = this.table;
    const i = this.index;
    const done = i >= t.count;
    if (done) {
      if (t.error !== null) throw t.error;
    } else {
      this.index = i + 1;
    }
    // One result object made in one place: once a for-of loop inlines this, V8's escape
    // analysis removes it (two literals, one per branch, meet in a phi it cannot remove, and
    // every record then costs a 40-byte result object too).
    return { done, value: done ? undefined : new KafkaRecord(t, i) } as IteratorResult<KafkaRecord>;
  }
}
