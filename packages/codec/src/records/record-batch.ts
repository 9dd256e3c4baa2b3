/**
 * v2 record batch decoding (magic 2): the header is read when the batch is reached, records
 * only when iterated, and a compressed batch is decompressed on the first `records()` call.
 */
import { CodecError } from '../errors.js';
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
import { KafkaRecord, type RecordBase } from './record.js';
import { RecordBatchError } from './record-batch-error.js';
import { type ViewSource, viewSource } from './view.js';

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
   * Iterates the records. Each call starts again from the first record; a compressed batch
   * is decompressed once, on the first call.
   *
   * @throws RecordBatchError while iterating when a record is malformed or the count lies;
   *   on the first call when decompression fails or passes the size limit
   */
  records(): IterableIterator<KafkaRecord>;
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
    const baseOffset = buf.readBigInt64BE(start);
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
    this.baseTimestamp = buf.readBigInt64BE(start + 27);
    this.deleteHorizonMs = attributes & ATTR_DELETE_HORIZON ? this.baseTimestamp : null;
    this.maxTimestamp = buf.readBigInt64BE(start + 35);
    this.logAppendTime = attributes & ATTR_LOG_APPEND_TIME ? this.maxTimestamp : null;
    this.producerId = buf.readBigInt64BE(start + 43);
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

  records(): IterableIterator<KafkaRecord> {
    const body = this.recordsSection();
    return new RecordIterator(this, body, this.recordCount);
  }
}

/**
 * A one- or two-byte zig-zag varint or varlong at the cursor (every length, count and delta
 * of a typical record), advancing past it; NaN, the cursor unmoved, for anything longer or
 * cut short, which the callers hand to the cursor's checked reader.
 */
function shortZigzag(c: Cursor): number {
  const p = c.pos;
  const end = c.end;
  if (p < end) {
    const buf = c.buf;
    const b0 = buf[p]!;
    if (b0 < 0x80) {
      c.pos = p + 1;
      return (b0 >>> 1) ^ -(b0 & 1);
    }
    if (p + 1 < end) {
      const b1 = buf[p + 1]!;
      if (b1 < 0x80) {
        c.pos = p + 2;
        const z = (b0 & 0x7f) | (b1 << 7);
        return (z >>> 1) ^ -(z & 1);
      }
    }
  }
  return Number.NaN;
}

/** A zig-zag varint (int32) at the cursor. */
function varint(c: Cursor): number {
  const v = shortZigzag(c);
  return Number.isNaN(v) ? c.readVarint() : v;
}

/** A zig-zag varlong at the cursor; a value past a safe integer is NaN with `c.big` set. */
function varlong(c: Cursor): number {
  const v = shortZigzag(c);
  return Number.isNaN(v) ? c.readVarlong() : v;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

/** Walks the records of one v2 batch; validates each record's lengths as it goes. */
class RecordIterator implements IterableIterator<KafkaRecord> {
  private readonly batch: DefaultRecordBatch;
  private readonly c: Cursor;
  private readonly src: ViewSource;
  private left: number;
  private index = 0;

  constructor(batch: DefaultRecordBatch, body: Buffer, count: number) {
    this.batch = batch;
    this.c = new Cursor(body, 0, body.length, batch.baseOffset);
    this.src = viewSource(body);
    this.left = count;
  }

  [Symbol.iterator](): IterableIterator<KafkaRecord> {
    return this;
  }

  next(): IteratorResult<KafkaRecord> {
    const c = this.c;
    if (this.left === 0) {
      if (c.pos !== c.buf.length) {
        this.fail(
          'LENGTH_INVALID',
          `${c.buf.length - c.pos} bytes left after the declared records`,
        );
      }
      return { done: true, value: undefined };
    }
    const i = this.index;
    if (c.pos >= c.buf.length) {
      this.fail('LENGTH_INVALID', `record count says ${i + this.left}, the bytes hold ${i}`);
    }
    const len = varint(c);
    if (len < MIN_RECORD_BYTES - 1 || len > c.buf.length - c.pos) {
      this.fail('LENGTH_INVALID', `record ${i} claims ${len} bytes, ${c.buf.length - c.pos} left`);
    }
    const outerEnd = c.end;
    const recEnd = c.pos + len;
    c.end = recEnd;
    const attributes = c.buf[c.pos++]!;
    const tsDelta = varlong(c);
    const tsBig = Number.isNaN(tsDelta) ? c.big : null;
    const offsetDelta = varint(c);
    const keyLen = varint(c);
    const keyPos = c.pos;
    this.skipField(keyLen, i, 'key');
    const valueLen = varint(c);
    const valuePos = c.pos;
    this.skipField(valueLen, i, 'value');
    const headerCount = varint(c);
    if (headerCount < 0 || headerCount > (recEnd - c.pos) / 2) {
      this.fail('LENGTH_INVALID', `record ${i} claims ${headerCount} headers`);
    }
    const headersPos = c.pos;
    for (let h = 0; h < headerCount; h++) {
      const kl = varint(c);
      if (kl < 0) this.fail('LENGTH_INVALID', `record ${i} header ${h} key length ${kl}`);
      this.skipField(kl, i, 'header key');
      this.skipField(varint(c), i, 'header value');
    }
    if (c.pos !== recEnd) {
      this.fail(
        'LENGTH_INVALID',
        `record ${i} is ${len} bytes but its fields take ${c.pos - recEnd + len}`,
      );
    }
    c.end = outerEnd;
    this.left--;
    this.index++;
    const rec = new KafkaRecord(
      this.batch,
      offsetDelta,
      tsDelta,
      tsBig,
      attributes,
      this.src,
      keyPos,
      keyLen,
      valuePos,
      valueLen,
      headersPos,
      headerCount,
    );
    return { done: false, value: rec };
  }

  private skipField(len: number, i: number, what: string): void {
    const c = this.c;
    if (len < -1 || len > c.end - c.pos) {
      this.fail('LENGTH_INVALID', `record ${i} ${what} length ${len}, ${c.end - c.pos} bytes left`);
    }
    if (len > 0) c.pos += len;
  }

  private fail(reason: 'LENGTH_INVALID' | 'TRUNCATED', detail: string): never {
    throw new RecordBatchError(reason, this.batch.baseOffset, detail);
  }
}
