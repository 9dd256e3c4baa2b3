/**
 * A decoded record: a lazy view over the batch's (possibly decompressed) buffer. Offsets and
 * deltas are read eagerly; the key, value and headers are handed out on first access as
 * Buffer views into that buffer (valid while the buffer is; copy to keep them longer).
 */
import { readVarint, type VarintSource } from '../varint.js';
import { type ViewSource, view } from './view.js';

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

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** A record read from a batch. */
export class KafkaRecord {
  /** Offset relative to the batch's base offset. */
  readonly offsetDelta: number;
  /** KafkaRecord attributes (unused by Kafka so far; kept as read). */
  readonly attributes: number;
  private readonly base: RecordBase;
  /** The delta when it fits a safe integer (NaN otherwise: then `tsBig` holds it). */
  private readonly tsDelta: number;
  private readonly tsBig: bigint | null;
  private readonly src: ViewSource;
  private readonly keyPos: number;
  private readonly keyLen: number;
  private readonly valuePos: number;
  private readonly valueLen: number;
  private readonly headersPos: number;
  /** Number of headers (their bytes are checked when the record is read). */
  readonly headerCount: number;
  private headersCache: readonly RecordHeader[] | null = null;

  /** @internal built by the batch decoders */
  constructor(
    base: RecordBase,
    offsetDelta: number,
    timestampDelta: number,
    tsBig: bigint | null,
    attributes: number,
    src: ViewSource,
    keyPos: number,
    keyLen: number,
    valuePos: number,
    valueLen: number,
    headersPos: number,
    headerCount: number,
  ) {
    this.base = base;
    this.offsetDelta = offsetDelta;
    this.tsDelta = timestampDelta;
    this.tsBig = tsBig;
    this.attributes = attributes;
    this.src = src;
    this.keyPos = keyPos;
    this.keyLen = keyLen;
    this.valuePos = valuePos;
    this.valueLen = valueLen;
    this.headersPos = headersPos;
    this.headerCount = headerCount;
  }

  /** Absolute offset: `baseOffset + offsetDelta` in int64 arithmetic, as Kafka's `DefaultRecord` adds them. */
  get offset(): bigint {
    return BigInt.asIntN(64, this.base.baseOffset + BigInt(this.offsetDelta));
  }

  /**
   * Timestamp relative to the batch's base timestamp, as the record carries it (a varlong:
   * any int64, so a `bigint`, never a lossy number).
   */
  get timestampDelta(): bigint {
    return this.tsBig ?? BigInt(this.tsDelta);
  }

  /**
   * Timestamp in ms since the epoch (the batch's max timestamp for LogAppendTime batches):
   * `baseTimestamp + timestampDelta` in int64 arithmetic, as Kafka's `DefaultRecord` adds them.
   */
  get timestamp(): bigint {
    const b = this.base;
    if (b.logAppendTime !== null) return b.logAppendTime;
    return BigInt.asIntN(64, b.baseTimestamp + (this.tsBig ?? BigInt(this.tsDelta)));
  }

  /** Producer sequence number of this record, or -1 when the batch has none. */
  get sequence(): number {
    const s = this.base.baseSequence;
    // Sequences wrap at int32 max back to 0 (DefaultRecordBatch.incrementSequence).
    return s < 0 ? -1 : (s + this.offsetDelta) % 0x80000000;
  }

  /** The key (a view), or null. */
  get key(): Buffer | null {
    return this.keyLen < 0 ? null : view(this.src, this.keyPos, this.keyLen);
  }

  /** The value (a view), or null (a tombstone). */
  get value(): Buffer | null {
    return this.valueLen < 0 ? null : view(this.src, this.valuePos, this.valueLen);
  }

  /** The headers, decoded on first access (keys as strings, values as views). */
  get headers(): readonly RecordHeader[] {
    if (this.headersCache !== null) return this.headersCache;
    if (this.headerCount === 0) return NO_HEADERS;
    const out: RecordHeader[] = new Array(this.headerCount);
    const buf = this.src.buf;
    // Lengths were validated when the record was read; these reads cannot fail.
    const cur: VarintSource = { buf, pos: this.headersPos, end: buf.length };
    for (let i = 0; i < this.headerCount; i++) {
      const keyLen = readVarint(cur);
      const key = buf.toString('utf8', cur.pos, cur.pos + keyLen);
      cur.pos += keyLen;
      const valueLen = readVarint(cur);
      let value: Buffer | null = null;
      if (valueLen >= 0) {
        value = view(this.src, cur.pos, valueLen);
        cur.pos += valueLen;
      }
      out[i] = { key, value };
    }
    this.headersCache = out;
    return out;
  }
}
