/**
 * The records of one batch read as columns. A batch's read keeps every record's offset delta,
 * timestamp delta, attributes, header count and the positions of its key and value in one
 * `Int32Array` (its {@link RecordTable}); these columns read a record's fields from there by
 * index, so code that turns records into objects of its own (a message shape, a row, a
 * counter) makes no {@link KafkaRecord} and no `bigint` per record on the way. A record object
 * is made only when asked for, with {@link RecordColumns.record}.
 */
import {
  decodeHeaders,
  KafkaRecord,
  NO_HEADERS,
  RECORD_SLOTS,
  type RecordHeader,
  type RecordTable,
  rareTimestamp,
  S_ATTRIBUTES,
  S_HEADER_COUNT,
  S_KEY_LEN,
  S_KEY_POS,
  S_OFFSET_DELTA,
  S_TIMESTAMP_DELTA,
  S_VALUE_LEN,
  S_VALUE_POS,
} from './record.js';
import type { RecordBatchError } from './record-batch-error.js';
import { viewOf } from './view.js';

/**
 * A run of records of one batch, in batch order, indexed from 0 to `length - 1`: the whole
 * batch as `RecordBatch.columns()` returns it, or part of it (`slice`). Keys, values and header
 * values are views into the batch's bytes (or its decompressed copy), as the records'.
 *
 * @throws RangeError from every accessor when the index is not an integer in `[0, length)`
 */
export class RecordColumns {
  /** Records in these columns. */
  readonly length: number;
  /**
   * The batch's base offset: record `i`'s offset is `baseOffset + offsetDelta(i)` (see
   * {@link offset}).
   */
  readonly baseOffset: bigint;
  /**
   * What stopped the batch's read when it holds a malformed record: the columns hold the
   * records before it (what the batch's `records()` hands out before throwing this). Set
   * only on columns that end at the last record read; null when every record the batch
   * declares was read.
   */
  readonly error: RecordBatchError | null;
  readonly #t: RecordTable;
  /** Table index of record 0. */
  readonly #from: number;
  /** Whether every timestamp is the base timestamp plus an int32 delta (no LogAppendTime, no wide delta). */
  readonly #plainTimestamps: boolean;
  /** The batch's base timestamp as a number (used when `#plainTimestamps`). */
  readonly #baseTimestampMs: number;

  /** @internal made by the batch decoders */
  constructor(table: RecordTable, from: number, length: number) {
    this.#t = table;
    this.#from = from;
    this.length = length;
    this.baseOffset = table.baseOffset;
    this.error = from + length === table.count ? table.error : null;
    this.#plainTimestamps = table.logAppendTime === null && table.wideTimestamps === null;
    this.#baseTimestampMs = Number(table.baseTimestamp);
  }

  /** The slots of record `i` in the table. */
  #slot(i: number): number {
    // `i >>> 0 === i` holds for the integers 0..2^32-1 only: no negative, fraction or NaN.
    if (i >>> 0 !== i || i >= this.length) outside(i, this.length);
    return (this.#from + i) * RECORD_SLOTS;
  }

  /** Record `i`'s offset relative to the batch's base offset (an int32 in a v2 batch). */
  offsetDelta(i: number): number {
    return this.#t.slots[this.#slot(i) + S_OFFSET_DELTA]!;
  }

  /** Record `i`'s absolute offset, as {@link KafkaRecord.offset}. */
  offset(i: number): bigint {
    return BigInt.asIntN(64, this.baseOffset + BigInt(this.offsetDelta(i)));
  }

  /** Record `i`'s timestamp in ms, as {@link KafkaRecord.timestamp}. */
  timestamp(i: number): bigint {
    const s = this.#slot(i);
    const t = this.#t;
    return this.#plainTimestamps
      ? BigInt.asIntN(64, t.baseTimestamp + BigInt(t.slots[s + S_TIMESTAMP_DELTA]!))
      : rareTimestamp(t, this.#from + i);
  }

  /**
   * Record `i`'s timestamp in ms as a number, with no `bigint` made: exact for every
   * timestamp within ±2^53 ms (any clock's; -1 for none), rounded beyond, where
   * {@link timestamp} stays exact.
   */
  timestampMs(i: number): number {
    const s = this.#slot(i);
    return this.#plainTimestamps
      ? this.#baseTimestampMs + this.#t.slots[s + S_TIMESTAMP_DELTA]!
      : Number(rareTimestamp(this.#t, this.#from + i));
  }

  /** Record `i`'s key (a view), or null. */
  key(i: number): Buffer | null {
    const s = this.#slot(i);
    const t = this.#t;
    const len = t.slots[s + S_KEY_LEN]!;
    return len < 0 ? null : viewOf(t.src.ab, t.src.off + t.slots[s + S_KEY_POS]!, len);
  }

  /** Record `i`'s value (a view), or null (a tombstone). */
  value(i: number): Buffer | null {
    const s = this.#slot(i);
    const t = this.#t;
    const len = t.slots[s + S_VALUE_LEN]!;
    return len < 0 ? null : viewOf(t.src.ab, t.src.off + t.slots[s + S_VALUE_POS]!, len);
  }

  /** Record `i`'s attributes, as {@link KafkaRecord.attributes}. */
  attributes(i: number): number {
    return this.#t.slots[this.#slot(i) + S_ATTRIBUTES]!;
  }

  /** How many headers record `i` has, without decoding them. */
  headerCount(i: number): number {
    return this.#t.slots[this.#slot(i) + S_HEADER_COUNT]!;
  }

  /**
   * Record `i`'s headers, decoded on first access and shared with its record object, as
   * {@link KafkaRecord.headers}.
   */
  headers(i: number): readonly RecordHeader[] {
    const s = this.#slot(i);
    const t = this.#t;
    const at = this.#from + i;
    return t.slots[s + S_HEADER_COUNT] === 0
      ? NO_HEADERS
      : (t.headers?.[at] ?? decodeHeaders(t, at));
  }

  /** Record `i` as an object: what the batch's `records()` hands out for it. */
  record(i: number): KafkaRecord {
    this.#slot(i);
    return new KafkaRecord(this.#t, this.#from + i);
  }

  /**
   * The records `[start, end)` of these columns, as columns (nothing copied). Like
   * `Array#slice`, with `end` defaulting to `length`; out-of-range bounds are clamped, and
   * negative ones count from the end.
   */
  slice(start = 0, end = this.length): RecordColumns {
    const n = this.length;
    const from = clamp(start, n);
    const to = Math.max(from, clamp(end, n));
    return new RecordColumns(this.#t, this.#from + from, to - from);
  }
}

function outside(i: number, length: number): never {
  throw new RangeError(`record index ${i} is outside the columns' 0..${length - 1}`);
}

function clamp(index: number, length: number): number {
  const i = Math.trunc(index) || 0;
  return i < 0 ? Math.max(0, length + i) : Math.min(i, length);
}
