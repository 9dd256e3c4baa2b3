/**
 * Walks the record batches in a `records` field (a Fetch response partition, a log segment
 * slice): v2 batches and legacy v0/v1 messages, mixed as a log may hold them.
 */

import type { CompressionBackend } from './compression.js';
import { LOG_OVERHEAD, MAGIC_OFFSET } from './layout.js';
import { LEGACY_OVERHEAD_V0, LegacyRecordBatch } from './legacy-message-set.js';
import {
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
  type DecodeRecordBatchesOptions,
  DefaultRecordBatch,
  type RecordBatch,
} from './record-batch.js';
import { RecordBatchError } from './record-batch-error.js';

/**
 * An iterator over the batches of one buffer. When it ends, `partialBatchBytes` says how
 * many trailing bytes were a batch cut short: Kafka ends a Fetch response at its byte limit
 * even inside a batch, so a partial last batch is normal, not an error.
 */
export class RecordBatchIterator implements IterableIterator<RecordBatch> {
  private readonly buf: Buffer;
  private pos: number;
  private readonly verifyCrc: boolean;
  private readonly maxBytes: number;
  private readonly backend: CompressionBackend;
  /** Bytes of an incomplete batch at the end; 0 until the iterator reaches it. */
  partialBatchBytes = 0;

  /** @internal use {@link decodeRecordBatches} */
  constructor(buf: Buffer, options: DecodeRecordBatchesOptions) {
    this.buf = buf;
    this.pos = 0;
    this.verifyCrc = options.verifyCrc ?? true;
    this.maxBytes = options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES;
    this.backend = options.compressionBackend ?? 'auto';
  }

  [Symbol.iterator](): IterableIterator<RecordBatch> {
    return this;
  }

  /** Offset into the buffer of the next batch (the buffer's length once done). */
  get position(): number {
    return this.pos;
  }

  next(): IteratorResult<RecordBatch> {
    const buf = this.buf;
    const start = this.pos;
    const left = buf.length - start;
    if (left === 0) return { done: true, value: undefined };
    if (left < LOG_OVERHEAD + 5) return this.partial(left);
    const size = buf.readInt32BE(start + 8);
    if (size < LEGACY_OVERHEAD_V0) {
      throw new RecordBatchError(
        'LENGTH_INVALID',
        buf.readBigInt64BE(start),
        `batch length ${size} is below the minimum ${LEGACY_OVERHEAD_V0}`,
      );
    }
    if (size > left - LOG_OVERHEAD) return this.partial(left);
    const magic = buf[start + MAGIC_OFFSET]!;
    let batch: RecordBatch;
    if (magic === 2) {
      batch = new DefaultRecordBatch(
        buf,
        start,
        LOG_OVERHEAD + size,
        this.verifyCrc,
        this.maxBytes,
        this.backend,
      );
    } else if (magic === 0 || magic === 1) {
      batch = new LegacyRecordBatch(buf, start, size, this.verifyCrc, this.maxBytes, this.backend);
    } else {
      throw new RecordBatchError(
        'UNSUPPORTED',
        buf.readBigInt64BE(start),
        `unknown magic ${magic}`,
      );
    }
    this.pos = start + LOG_OVERHEAD + size;
    return { done: false, value: batch };
  }

  private partial(left: number): IteratorResult<RecordBatch> {
    this.partialBatchBytes = left;
    this.pos = this.buf.length;
    return { done: true, value: undefined };
  }
}

/**
 * Iterates the record batches in `buf` lazily: each batch's header is read (and its CRC
 * checked) when the iterator reaches it, its records only when `records()` is iterated.
 * Returned batches, records, keys, values and header values are views into `buf` (or into
 * a decompressed copy): valid as long as `buf` is not reused.
 *
 * @param buf the `records` bytes of a Fetch partition or a log slice (not copied)
 * @throws RecordBatchError while iterating: `CORRUPT` (CRC mismatch, naming the batch's base
 *   offset and both CRCs), `LENGTH_INVALID` (a length or count that lies, or a batch that
 *   inflates past `maxUncompressedBytes`), `UNSUPPORTED` (unknown magic or compression)
 */
export function decodeRecordBatches(
  buf: Buffer,
  options: DecodeRecordBatchesOptions = {},
): RecordBatchIterator {
  return new RecordBatchIterator(buf, options);
}
