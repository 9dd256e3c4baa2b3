/**
 * A decoded record. A batch's records are read in one pass into its {@link RecordTable}
 * (every length checked, positions kept in one `Int32Array`); a record object, made as the
 * iterator hands it out, carries what every consumer reads (offset, timestamp, and the key
 * and value as Buffer views into the batch's, possibly decompressed, bytes: valid while those
 * bytes are; copy to keep them longer) and reads the rest (deltas, attributes, headers) from
 * the table on access.
 */
import type { RecordBatchError } from './record-batch-error.js';
import { type ViewSource, view, viewOf } from './view.js';

/** One record header: UTF-8 key, nullable value (a view). */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/** What a record needs from its batch to resolve absolute offset and timestamp. */
export interface RecordBase {
  readonly baseOffset: bigint;
  readonly baseTimestamp: bigint;
  /** Set for LogAppendTime batches: every record's timestamp is this. */
  readonly logAppendTime: bigint | null;
  readonly baseSequence: number;
}

/** @internal the headers of every record that has none */
export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** Int32 slots per record in {@link RecordTable.slots}. */
export const RECORD_SLOTS = 8;
/** Slot offsets within a record's slots. */
export const S_OFFSET_DELTA = 0;
/** The timestamp delta when it fits an int32; else 0, the delta being in `wideTimestamps`. */
export const S_TIMESTAMP_DELTA = 1;
export const S_KEY_POS = 2;
/** -1 for a null key. */
export const S_KEY_LEN = 3;
export const S_VALUE_POS = 4;
/** -1 for a null value. */
export const S_VALUE_LEN = 5;
export const S_ATTRIBUTES = 6;
/** The header count; the headers follow the value and the count's varint. */
export const S_HEADER_COUNT = 7;

/**
 * @internal The records of one batch, read: each record's offset delta, timestamp delta,
 * attributes, header count, and where its key and value are, `RECORD_SLOTS` int32 slots per
 * record. Built by the batch decoders; a record reads its rarer fields here, so a batch of n
 * records costs one table and n objects of six fields, not n objects of a dozen.
 */
export class RecordTable {
  readonly baseOffset: bigint;
  readonly baseTimestamp: bigint;
  readonly logAppendTime: bigint | null;
  readonly baseSequence: number;
  readonly src: ViewSource;
  readonly slots: Int32Array;
  /** Timestamp deltas outside int32, by record index (rare: a batch spanning weeks). */
  wideTimestamps: Map<number, bigint> | null = null;
  /** Records read and checked; those before a malformed one when `error` is set. */
  count = 0;
  /** What stopped the read: thrown by the iterator once it has handed out `count` records. */
  error: RecordBatchError | null = null;
  /** Headers decoded so far, by record index: a record object holds no cache of its own. */
  headers: (readonly RecordHeader[] | undefined)[] | null = null;
  /** The last header key decoded, and where its bytes are: the next equal key reuses it. */
  lastKey = '';
  lastKeyPos = 0;
  lastKeyLen = -1;

  constructor(base: RecordBase, src: ViewSource, capacity: number) {
    this.baseOffset = base.baseOffset;
    this.baseTimestamp = base.baseTimestamp;
    this.logAppendTime = base.logAppendTime;
    this.baseSequence = base.baseSequence;
    this.src = src;
    this.slots = slotsFor(capacity);
  }
}

/**
 * Tables of up to `SLAB_TABLE_BYTES` are carved from shared 256 KiB slabs, as Node's Buffer
 * pool carves small buffers: allocating a typed array of its own costs about 5 µs for a
 * 1,000-record batch, a view into a slab about 0.1 µs. A slab is never reused: it is freed
 * once no table in it is reachable, so a record kept alive keeps at most one slab with it
 * (besides the fetched bytes its views share). Bigger tables get their own memory.
 */
const SLAB_BYTES = 256 * 1024;
const SLAB_TABLE_BYTES = 64 * 1024;
let slab = new ArrayBuffer(0);
let slabUsed = 0;

function slotsFor(records: number): Int32Array {
  const bytes = records * RECORD_SLOTS * 4;
  if (bytes > SLAB_TABLE_BYTES) return new Int32Array(records * RECORD_SLOTS);
  if (slabUsed + bytes > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const slots = new Int32Array(slab, slabUsed, records * RECORD_SLOTS);
  slabUsed += bytes;
  return slots;
}

/**
 * A record read from a batch. Its offset, timestamp, key and value are set when the record is
 * handed out (what every consumer reads, as Kafka's `DefaultRecord.readFrom` reads them
 * eagerly); the deltas, attributes and headers are read from the batch's table on access.
 */
export class KafkaRecord {
  /** Absolute offset: `baseOffset + offsetDelta` in int64 arithmetic, as Kafka's `DefaultRecord` adds them. */
  declare readonly offset: bigint;
  /**
   * Timestamp in ms since the epoch (the batch's max timestamp for LogAppendTime batches):
   * `baseTimestamp + timestampDelta` in int64 arithmetic, as Kafka's `DefaultRecord` adds them.
   */
  declare readonly timestamp: bigint;
  /** The key (a view), or null. */
  declare readonly key: Buffer | null;
  /** The value (a view), or null (a tombstone). */
  declare readonly value: Buffer | null;
  declare private readonly t: RecordTable;
  /** Index of the record in its table. */
  declare private readonly i: number;

  /** @internal built by the batch decoders */
  constructor(table: RecordTable, index: number) {
    const slots = table.slots;
    const s = index * RECORD_SLOTS;
    // Sums in int64 arithmetic (`BigInt.asIntN`), wrapping past int64 as Java's `long` does.
    this.offset = BigInt.asIntN(64, table.baseOffset + BigInt(slots[s + S_OFFSET_DELTA]!));
    this.timestamp =
      table.logAppendTime === null && table.wideTimestamps === null
        ? BigInt.asIntN(64, table.baseTimestamp + BigInt(slots[s + S_TIMESTAMP_DELTA]!))
        : rareTimestamp(table, index);
    const src = table.src;
    const keyLen = slots[s + S_KEY_LEN]!;
    this.key = keyLen < 0 ? null : viewOf(src.ab, src.off + slots[s + S_KEY_POS]!, keyLen);
    const valueLen = slots[s + S_VALUE_LEN]!;
    this.value = valueLen < 0 ? null : viewOf(src.ab, src.off + slots[s + S_VALUE_POS]!, valueLen);
    this.t = table;
    this.i = index;
  }

  /** Offset relative to the batch's base offset. */
  get offsetDelta(): number {
    return this.t.slots[this.i * RECORD_SLOTS + S_OFFSET_DELTA]!;
  }

  /** KafkaRecord attributes (unused by Kafka so far; kept as read). */
  get attributes(): number {
    return this.t.slots[this.i * RECORD_SLOTS + S_ATTRIBUTES]!;
  }

  /** Number of headers (their bytes are checked when the record is read). */
  get headerCount(): number {
    return this.t.slots[this.i * RECORD_SLOTS + S_HEADER_COUNT]!;
  }

  /**
   * Timestamp relative to the batch's base timestamp, as the record carries it (a varlong:
   * any int64, so a `bigint`, never a lossy number).
   */
  get timestampDelta(): bigint {
    const t = this.t;
    const wide = t.wideTimestamps?.get(this.i);
    return wide ?? BigInt(t.slots[this.i * RECORD_SLOTS + S_TIMESTAMP_DELTA]!);
  }

  /** Producer sequence number of this record, or -1 when the batch has none. */
  get sequence(): number {
    const s = this.t.baseSequence;
    // Sequences wrap at int32 max back to 0 (DefaultRecordBatch.incrementSequence).
    return s < 0 ? -1 : (s + this.offsetDelta) % 0x80000000;
  }

  /** The headers, decoded on first access (keys as strings, values as views). */
  get headers(): readonly RecordHeader[] {
    const t = this.t;
    return t.slots[this.i * RECORD_SLOTS + S_HEADER_COUNT] === 0
      ? NO_HEADERS
      : (t.headers?.[this.i] ?? decodeHeaders(t, this.i));
  }
}

/**
 * One decoded header. Made by a constructor, not an object literal: when a consumer keeps its
 * records' headers, nearly every literal from one site survives a scavenge, and V8's
 * allocation-site pretenuring then allocates that site's objects in the old generation: garbage
 * only a full GC frees, each pointing at a young value view.
 */
class Header implements RecordHeader {
  declare readonly key: string;
  declare readonly value: Buffer | null;
  constructor(key: string, value: Buffer | null) {
    this.key = key;
    this.value = value;
  }
}

/** Position after the last varint {@link varintAt} read. */
let varintEnd = 0;

/**
 * The zig-zag varint at `buf[p]`, already checked by the batch's read (at most 5 bytes, inside
 * the record): no bounds checks, and its end left in `varintEnd`.
 */
function varintAt(buf: Buffer, p: number): number {
  let z = 0;
  let shift = 0;
  let b: number;
  do {
    b = buf[p++]!;
    z |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  varintEnd = p;
  return (z >>> 1) ^ -(z & 1);
}

/** @internal Decodes the headers of record `i` (at least one) and keeps them in its table. */
export function decodeHeaders(t: RecordTable, i: number): readonly RecordHeader[] {
  const s = i * RECORD_SLOTS;
  const count = t.slots[s + S_HEADER_COUNT]!;
  const buf = t.src.buf;
  // Lengths were checked when the batch was read; these reads cannot fail. The headers
  // start after the value and the header count's varint.
  varintAt(buf, t.slots[s + S_VALUE_POS]! + Math.max(t.slots[s + S_VALUE_LEN]!, 0));
  let p = varintEnd;
  const out: RecordHeader[] = new Array(count);
  for (let h = 0; h < count; h++) {
    let len = varintAt(buf, p);
    p = varintEnd;
    const key = headerKey(t, buf, p, len);
    p += len;
    len = varintAt(buf, p);
    p = varintEnd;
    let value: Buffer | null = null;
    if (len >= 0) {
      value = view(t.src, p, len);
      p += len;
    }
    out[h] = new Header(key, value);
  }
  // One slot per record, made once: growing it record by record would copy it again and again.
  t.headers ??= new Array<readonly RecordHeader[] | undefined>(t.count);
  t.headers[i] = out;
  return out;
}

/**
 * @internal The timestamp of record `i` of a LogAppendTime batch (the batch's max timestamp)
 * or of a batch with deltas beyond int32.
 */
export function rareTimestamp(t: RecordTable, i: number): bigint {
  if (t.logAppendTime !== null) return t.logAppendTime;
  const wide = t.wideTimestamps?.get(i);
  const delta = wide ?? BigInt(t.slots[i * RECORD_SLOTS + S_TIMESTAMP_DELTA]!);
  return BigInt.asIntN(64, t.baseTimestamp + delta);
}

/**
 * A header key as a string. Records of a batch mostly carry the same few keys, so a key whose
 * bytes equal the last one decoded from the same table is that string again; short ASCII
 * keys are built from their char codes, several times cheaper than a UTF-8 decode through
 * `Buffer#toString`; anything else is decoded as UTF-8, as Kafka's `Utils.utf8` does.
 */
function headerKey(t: RecordTable, buf: Buffer, pos: number, len: number): string {
  if (len === t.lastKeyLen) {
    const at = t.lastKeyPos;
    let i = 0;
    while (i < len && buf[pos + i] === buf[at + i]) i++;
    if (i === len) return t.lastKey;
  }
  let key = '';
  if (len <= 16) {
    for (let i = 0; i < len; i++) {
      const c = buf[pos + i]!;
      if (c >= 0x80) {
        key = buf.toString('utf8', pos, pos + len);
        break;
      }
      key += String.fromCharCode(c);
    }
  } else {
    key = buf.toString('utf8', pos, pos + len);
  }
  t.lastKey = key;
  t.lastKeyPos = pos;
  t.lastKeyLen = len;
  return key;
}
