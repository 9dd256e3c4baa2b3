/**
 * A v2 record batch written as its records arrive (Kafka's MemoryRecordsBuilder, for a
 * producer): each record goes once, as it is appended, into the batch's final bytes behind
 * room for the 61-byte header; its size is known once it is written, with no sizing pass and
 * no second copy of key or value. The header is written when the batch is built.
 */
import { CodecError } from '../errors.js';
import { writeVarintAt, writeVarlongAt, writeVarlongBigAt } from '../varint.js';
import { type RecordBatchFields, writeRecordBatchHeader } from './batch-header.js';
import {
  type CompressionBackend,
  type CompressionCodec,
  compress,
  compressSyncWithHeadroom,
} from './compression.js';
import { RECORD_BATCH_OVERHEAD } from './layout.js';
import {
  fieldMost,
  headersMost,
  MAX_RECORD_OVERHEAD,
  type RecordHeadersInput,
  recordSizeInBytes,
  writeField,
  writeHeaders,
} from './record-fields.js';

/** How {@link RecordBatchBuilder.compress} compresses the records. */
export interface BuilderCompressOptions {
  /** gzip 1-9 (default 6), zstd -131072..22 (default 3); none for snappy and lz4. */
  readonly level?: number;
  /** Which implementations may run (`auto`, `native`, `js`; default `auto`). */
  readonly backend?: CompressionBackend;
}

/** Where a record that only just fits is written first; kept while small, as it is reused. */
let scratchBuffer = Buffer.allocUnsafe(0);

function tightScratch(size: number): Buffer {
  if (size > 65_536) return Buffer.allocUnsafe(size);
  if (scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafeSlow(Math.max(size, 1024));
  return scratchBuffer;
}

function bad(detail: string): never {
  throw new CodecError('VALUE_INVALID', 'RecordBatch', detail);
}

/**
 * An open v2 batch over a buffer the caller provides (its length is the batch's capacity,
 * header included). Records are appended with their timestamp, key, value and headers (bytes,
 * strings written as UTF-8, or null); {@link build} writes the header and hands out the batch.
 *
 * ```ts
 * const b = new RecordBatchBuilder(Buffer.allocUnsafe(16_384));
 * b.append(Date.now(), 'k', 'v');
 * const batch = b.build({ producerId: 7n, producerEpoch: 0, baseSequence: 0 });
 * ```
 *
 * A record that would not fit in what is left of the buffer is refused (`append` returns -1,
 * nothing written): the caller closes the batch, or, for a record bigger than any batch,
 * starts one over a buffer of {@link recordBatchSizeUpperBound} bytes. Offsets count from 0;
 * the base timestamp is the first record's, as Kafka's producer writes it.
 */
export class RecordBatchBuilder {
  #buf: Buffer;
  #pos = RECORD_BATCH_OVERHEAD;
  #count = 0;
  #base = 0;
  #max = -1;
  #codec: CompressionCodec = 'none';
  /** The compressed records, once compressed. */
  #compressed: Buffer | null = null;
  /** `#compressed` starts with RECORD_BATCH_OVERHEAD bytes left for the header. */
  #headroom = false;
  #built = false;

  /**
   * @param buffer where the batch is written, from its start; its length is the capacity
   * @throws CodecError `VALUE_INVALID` for a buffer shorter than the 61-byte header
   */
  constructor(buffer: Buffer) {
    if (buffer.length < RECORD_BATCH_OVERHEAD)
      bad(
        `a batch needs at least ${RECORD_BATCH_OVERHEAD} bytes, got a buffer of ${buffer.length}`,
      );
    this.#buf = buffer;
  }

  /** Records appended so far. */
  get recordCount(): number {
    return this.#count;
  }

  /** Bytes the batch takes so far, header included, uncompressed. */
  get sizeInBytes(): number {
    return this.#pos;
  }

  /** The buffer's length: the most bytes the uncompressed batch can take. */
  get capacity(): number {
    return this.#buf.length;
  }

  /** The first record's timestamp, ms (0 before the first append). */
  get baseTimestamp(): number {
    return this.#base;
  }

  /** The largest record timestamp, ms (-1 before the first append). */
  get maxTimestamp(): number {
    return this.#max;
  }

  /**
   * Appends a record at `timestamp` (ms since the epoch, CreateTime); the offset delta is the
   * record's index.
   *
   * @returns the bytes the record took (its size varint included), or -1 when it does not fit
   *   in what is left of the buffer (nothing is written)
   * @throws CodecError `VALUE_INVALID` for a timestamp that is not a safe integer, or after
   *   the batch was compressed or built
   */
  append(
    timestamp: number,
    key: Uint8Array | string | null,
    value: Uint8Array | string | null,
    headers: RecordHeadersInput | null = null,
  ): number {
    if (this.#compressed !== null || this.#built) bad('records cannot be added to a built batch');
    if (!Number.isSafeInteger(timestamp)) bad(`timestamp ${timestamp} is not an integer ms`);
    const count = this.#count;
    // No local holds the base timestamp: a double held across a call is boxed on the heap, once
    // per record (about 16 bytes), where the field keeps it unboxed.
    const tsDelta = count === 0 ? 0 : timestamp - this.#base;
    const buf = this.#buf;
    const start = this.#pos;
    // The most the record can take, for the room check: its exact size is known once it is
    // written. Only near the end of the buffer is the exact size worked out first.
    const most = MAX_RECORD_OVERHEAD + fieldMost(key) + fieldMost(value) + headersMost(headers);
    if (start + most > buf.length) {
      if (start + recordSizeInBytes(count, tsDelta, key, value, headers) > buf.length) return -1;
      return this.#appendTight(timestamp, key, value, headers, most);
    }
    // The record is written 2 bytes on, room for its size as a two-byte varint (a record of
    // 64 to 8191 bytes, the usual); one of another size is moved to fit its size varint.
    const at = start + 2;
    let q = at;
    buf[q++] = 0; // record attributes: unused, always 0
    q =
      tsDelta >= -0x40000000 && tsDelta < 0x40000000
        ? writeVarintAt(buf, q, tsDelta)
        : writeTimestampDelta(buf, q, timestamp, this.#base);
    q = writeVarintAt(buf, q, count);
    q = writeField(buf, q, key);
    q = writeField(buf, q, value);
    q = writeHeaders(buf, q, headers);
    const size = q - at;
    let end = q;
    if (size < 64 || size >= 8192) {
      const width = size < 64 ? 1 : size < 0x100000 ? 3 : size < 0x8000000 ? 4 : 5;
      buf.copyWithin(start + width, at, q);
      end = start + width + size;
    }
    writeVarintAt(buf, start, size);
    this.#commit(count, timestamp, end);
    return end - start;
  }

  /**
   * Appends a record whose exact size fits in what is left but whose widest estimate does not:
   * written into a scratch buffer of that estimate, then copied in behind its size varint.
   */
  #appendTight(
    timestamp: number,
    key: Uint8Array | string | null,
    value: Uint8Array | string | null,
    headers: RecordHeadersInput | null,
    most: number,
  ): number {
    const count = this.#count;
    const scratch = tightScratch(most);
    let q = 0;
    scratch[q++] = 0;
    q = writeTimestampDelta(scratch, q, timestamp, count === 0 ? timestamp : this.#base);
    q = writeVarintAt(scratch, q, count);
    q = writeField(scratch, q, key);
    q = writeField(scratch, q, value);
    q = writeHeaders(scratch, q, headers);
    const start = this.#pos;
    const p = writeVarintAt(this.#buf, start, q);
    scratch.copy(this.#buf, p, 0, q);
    this.#commit(count, timestamp, p + q);
    return p + q - start;
  }

  #commit(count: number, timestamp: number, end: number): void {
    if (count === 0) this.#base = timestamp;
    if (timestamp > this.#max) this.#max = timestamp;
    this.#count = count + 1;
    this.#pos = end;
  }

  /**
   * Compresses the records now (gzip, snappy or lz4; zstd only with {@link compressAsync}).
   * After it no record is appended; {@link build} puts the header in front.
   *
   * @throws CompressionUnavailableError when no implementation of the codec can load;
   *   CodecError `VALUE_INVALID` for an empty batch, `UNSUPPORTED` for zstd
   */
  compress(codec: CompressionCodec, options: BuilderCompressOptions = {}): void {
    if (this.#prepareCompression(codec, options)) return;
    this.#compressed = compressSyncWithHeadroom(
      codec,
      this.#records(),
      options,
      RECORD_BATCH_OVERHEAD,
    );
    this.#headroom = true;
  }

  /** As {@link compress}, for every codec; gzip and zstd compress off the main thread. */
  async compressAsync(
    codec: CompressionCodec,
    options: BuilderCompressOptions = {},
  ): Promise<void> {
    if (this.#prepareCompression(codec, options)) return;
    const records = this.#records();
    const out = await compress(codec, records, options);
    this.#compressed = out;
  }

  /** Checks a compression call; true when there is nothing to compress (`none`). */
  #prepareCompression(codec: CompressionCodec, options: BuilderCompressOptions): boolean {
    if (this.#count === 0) bad('a record batch needs at least one record');
    if (this.#compressed !== null || this.#built) bad('the batch is already compressed or built');
    this.#codec = codec;
    if (codec !== 'none') return false;
    if (options.level !== undefined) bad('an uncompressed batch takes no compression level');
    return true;
  }

  /** The records section, uncompressed. */
  #records(): Buffer {
    return this.#buf.subarray(RECORD_BATCH_OVERHEAD, this.#pos);
  }

  /**
   * Writes the header and returns the batch: uncompressed, a view of the buffer; compressed, a
   * new buffer. Building again rewrites the header with the new fields (same bytes otherwise).
   *
   * @param crc false leaves the CRC-32C for `restampRecordBatch` (the producer numbers a batch
   *   when it drains it, and computes the CRC once then)
   * @throws CodecError `VALUE_INVALID` for an empty batch or a field out of range
   */
  build(fields: RecordBatchFields = {}, crc = true): Buffer {
    const count = this.#count;
    if (count === 0) bad('a record batch needs at least one record');
    let out: Buffer;
    const compressed = this.#compressed;
    if (compressed === null) {
      out = this.#buf.subarray(0, this.#pos);
    } else if (this.#built) {
      out = this.#buf;
    } else if (this.#headroom) {
      // Compressed behind room for the header: the batch as it goes out.
      out = compressed;
      this.#buf = out;
    } else {
      out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + compressed.length);
      compressed.copy(out, RECORD_BATCH_OVERHEAD);
      // The uncompressed records are not needed again.
      this.#buf = out;
      this.#compressed = out;
    }
    this.#built = true;
    writeRecordBatchHeader(
      out,
      {
        compression: this.#codec,
        recordCount: count,
        lastOffsetDelta: count - 1,
        baseTimestamp: this.#base,
        maxTimestamp: this.#max,
      },
      fields,
      crc,
    );
    return out;
  }
}

/**
 * Writes `timestamp - base` as a varlong. Within ±2^53 each, two timestamps are at most 2^54
 * apart: an int64 delta, as Kafka's `DefaultRecord` writes it, but past 2^53 only a bigint
 * holds it exactly.
 */
function writeTimestampDelta(
  buf: Uint8Array,
  pos: number,
  timestamp: number,
  base: number,
): number {
  const d = timestamp - base;
  return Number.isSafeInteger(d)
    ? writeVarlongAt(buf, pos, d)
    : writeVarlongBigAt(buf, pos, BigInt(timestamp) - BigInt(base));
}
