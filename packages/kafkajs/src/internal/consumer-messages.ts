// How kafkats's fetched records look to a kafkajs handler: offsets and timestamps as decimal
// strings, header values as Buffers (an array when a key repeats, in record order), and the
// batch helpers kafkajs's `Batch` offers, computed from kafkats's `PartitionBatch`.
import type { PartitionBatch, RecordColumns } from '@kafkats/client';
import type { Batch, IHeaders, KafkaMessage } from '../consumer.js';

/** A record's headers as kafkajs decodes them: one entry per key, repeated keys as an array. */
export function toHeaders(
  headers: readonly { readonly key: string; readonly value: Buffer | null }[],
): IHeaders {
  const out: IHeaders = {};
  for (const h of headers) {
    const value = h.value as Buffer;
    const before = Object.hasOwn(out, h.key) ? out[h.key] : undefined;
    const next =
      before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
    // A header named `__proto__` is data, not the object's prototype.
    Object.defineProperty(out, h.key, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Batches whose base offset is below this give every offset as a number exactly. */
const SMALL_BASE = 2n ** 52n;

/**
 * kafkajs's `Batch` over one kafkats batch. kafkats hands out only data records (control
 * records and aborted transactions are left out, as kafkajs filters them), and its
 * `nextOffset` is past everything the fetch covered, so `lastOffset()` is `nextOffset - 1`: a
 * trailing control record counts, as in kafkajs.
 *
 * The messages are made from the batch's record columns, with no kafkats record object and,
 * for offsets below 2^52 and timestamps within 2^53 (every real one), no `bigint` per message:
 * offsets and timestamps become decimals through numbers, a timestamp's decimal is made once
 * for the records of a batch that share it (a producer's records written within the same
 * millisecond), and an offset's decimal is its thousands' decimal, made once per thousand
 * offsets, joined to its last three digits (a third of the cost of converting each offset).
 */
export class FacadeBatch implements Batch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: string;
  readonly messages: KafkaMessage[];
  readonly #columns: readonly RecordColumns[];
  readonly #last: bigint;
  readonly #hw: bigint;
  /** Where `nextOffsetOf` last found a message: the column and the index of its first message. */
  #column = 0;
  #columnStart = 0;

  constructor(batch: PartitionBatch) {
    this.topic = batch.topic;
    this.partition = batch.partition;
    this.highWatermark = String(batch.highWatermark);
    this.#columns = batch.columns;
    this.messages = messagesOf(batch.columns);
    this.#last =
      batch.nextOffset > batch.fetchOffset ? batch.nextOffset - 1n : batch.highWatermark - 1n;
    this.#hw = batch.highWatermark;
  }

  isEmpty(): boolean {
    return this.messages.length === 0;
  }

  firstOffset(): string | null {
    const first = this.firstMessageOffset();
    return first === null ? null : String(first);
  }

  lastOffset(): string {
    return String(this.#last);
  }

  /** Lag behind the last offset of the batch: `highWatermark - 1 - lastOffset`. */
  offsetLag(): string {
    return String(this.#hw - 1n - this.#last);
  }

  /** Lag behind the first offset of the batch; '0' for an empty batch. */
  offsetLagLow(): string {
    const first = this.firstMessageOffset();
    return first === null ? '0' : String(this.#hw - 1n - first);
  }

  /** The offset of the first message, or null for an empty batch. */
  firstMessageOffset(): bigint | null {
    const c = this.#columns[0];
    return c === undefined ? null : c.offset(0);
  }

  /** The offset of the last message, or null for an empty batch. */
  lastMessageOffset(): bigint | null {
    const c = this.#columns.at(-1);
    return c === undefined ? null : c.offset(c.length - 1);
  }

  /**
   * The offset after message `m` (`messages[m].offset + 1`), what resolving it commits. Found
   * from where the last call found one, so reading the messages in order costs one step each.
   */
  nextOffsetOf(m: number): bigint {
    const columns = this.#columns;
    if (m < this.#columnStart) {
      this.#column = 0;
      this.#columnStart = 0;
    }
    let c = columns[this.#column];
    while (c !== undefined && m >= this.#columnStart + c.length) {
      this.#columnStart += c.length;
      c = columns[++this.#column];
    }
    if (c === undefined) {
      throw new RangeError(`message ${m} is past the batch's ${this.messages.length}`);
    }
    // int64 arithmetic on bigints, which V8 compiles to machine adds (`BigInt(number)` is a
    // call into the runtime, several times slower).
    return c.offset(m - this.#columnStart) + 1n;
  }
}

/** '000' to '999': an offset's decimal is its thousands' decimal and one of these. */
const THREE_DIGITS: readonly string[] = Array.from({ length: 1000 }, (_, i) =>
  String(i).padStart(3, '0'),
);

/** A column's base offset as a number when every offset in it is exact as one, else NaN. */
function smallBase(c: RecordColumns): number {
  return c.baseOffset >= 0n && c.baseOffset < SMALL_BASE ? Number(c.baseOffset) : Number.NaN;
}

/** The messages of a batch's record columns, in order. */
function messagesOf(columns: readonly RecordColumns[]): KafkaMessage[] {
  let count = 0;
  for (const c of columns) count += c.length;
  const out = new Array<KafkaMessage>(count);
  let n = 0;
  let timestamp = Number.NaN;
  let timestampText = '';
  let lastThousands = -1;
  let thousandsText = '';
  for (let k = 0; k < columns.length; k++) {
    const c = columns[k]!;
    const base = smallBase(c);
    const small = !Number.isNaN(base);
    for (let i = 0; i < c.length; i++) {
      const ts = c.timestampMs(i);
      if (ts !== timestamp || !(Math.abs(ts) <= Number.MAX_SAFE_INTEGER)) {
        timestamp = ts;
        timestampText = Math.abs(ts) <= Number.MAX_SAFE_INTEGER ? `${ts}` : String(c.timestamp(i));
      }
      let offset: string;
      const o = base + c.offsetDelta(i);
      if (small && o >= 1000) {
        // Its thousands' decimal, made once per thousand offsets, and the last three digits.
        const thousands = Math.floor(o / 1000);
        if (thousands !== lastThousands) {
          lastThousands = thousands;
          thousandsText = `${thousands}`;
        }
        offset = thousandsText + THREE_DIGITS[o - thousands * 1000]!;
      } else {
        offset = small ? `${o}` : String(c.offset(i));
      }
      out[n++] = {
        key: c.key(i),
        value: c.value(i),
        timestamp: timestampText,
        attributes: c.attributes(i),
        offset,
        // A fresh object per message, as kafkajs decodes one per record.
        headers: c.headerCount(i) === 0 ? {} : toHeaders(c.headers(i)),
        // What kafkajs's record decoder also sets: the record format, and that it is data.
        magicByte: 2,
        isControlRecord: false,
      };
    }
  }
  return out;
}

/** kafkajs's `{ topic: [partitions] }` of a list of partitions, partitions ascending. */
export function byTopic(
  partitions: readonly { readonly topic: string; readonly partition: number }[],
): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const p of partitions) {
    const list = Object.hasOwn(out, p.topic) ? out[p.topic] : undefined;
    if (list === undefined)
      Object.defineProperty(out, p.topic, {
        value: [p.partition],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else list.push(p.partition);
  }
  for (const list of Object.values(out)) list.sort((a, b) => a - b);
  return out;
}
