// How kafkats's fetched records look to a kafkajs handler: offsets and timestamps as decimal
// strings, header values as Buffers (an array when a key repeats, in record order), and the
// batch helpers kafkajs's `Batch` offers, computed from kafkats's `PartitionBatch`.
import type { ConsumerRecord, PartitionBatch } from '@kafkats/client';
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

/** Offsets below this are converted through a small integer (a Smi in V8). */
const SMALL_OFFSET = 1n << 30n;

/**
 * An offset as a decimal string. Through `Number` below 2^30: a small integer's decimal
 * costs a third of a bigint's, and an offset is converted for every record handed out.
 */
export function offsetText(offset: bigint): string {
  return offset < SMALL_OFFSET && offset >= 0n ? `${Number(offset)}` : String(offset);
}

/** One record as kafkajs's `eachMessage` receives it. Key and value stay the fetched views. */
export function toKafkaMessage(record: ConsumerRecord): KafkaMessage {
  return kafkaMessage(record, String(record.timestamp));
}

/** `toKafkaMessage` with the timestamp's decimal given (records of a batch often share one). */
function kafkaMessage(record: ConsumerRecord, timestamp: string): KafkaMessage {
  const headers = record.headers;
  return {
    key: record.key,
    value: record.value,
    timestamp,
    attributes: record.attributes,
    offset: offsetText(record.offset),
    // A fresh object per message, as kafkajs decodes one per record.
    headers: headers.length === 0 ? {} : toHeaders(headers),
    // What kafkajs's record decoder also sets: the record format, and that it is data.
    magicByte: 2,
    isControlRecord: false,
  };
}

/**
 * The messages of a batch: a producer's records written within the same millisecond carry the
 * same timestamp, whose decimal is made once for them.
 */
export function toKafkaMessages(records: readonly ConsumerRecord[]): KafkaMessage[] {
  const out = new Array<KafkaMessage>(records.length);
  let timestamp: bigint | undefined;
  let text = '';
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.timestamp !== timestamp) {
      timestamp = record.timestamp;
      text = String(timestamp);
    }
    out[i] = kafkaMessage(record, text);
  }
  return out;
}

/**
 * kafkajs's `Batch` over one kafkats batch. kafkats hands out only data records (control
 * records and aborted transactions are left out, as kafkajs filters them), and its
 * `nextOffset` is past everything the fetch covered, so `lastOffset()` is `nextOffset - 1`: a
 * trailing control record counts, as in kafkajs.
 */
export class FacadeBatch implements Batch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: string;
  readonly messages: KafkaMessage[];
  readonly #first: bigint | null;
  readonly #last: bigint;
  readonly #hw: bigint;

  constructor(batch: PartitionBatch) {
    this.topic = batch.topic;
    this.partition = batch.partition;
    this.highWatermark = String(batch.highWatermark);
    this.messages = toKafkaMessages(batch.records);
    this.#first = batch.records[0]?.offset ?? null;
    this.#last =
      batch.nextOffset > batch.fetchOffset ? batch.nextOffset - 1n : batch.highWatermark - 1n;
    this.#hw = batch.highWatermark;
  }

  isEmpty(): boolean {
    return this.messages.length === 0;
  }

  firstOffset(): string | null {
    return this.#first === null ? null : String(this.#first);
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
    return this.#first === null ? '0' : String(this.#hw - 1n - this.#first);
  }
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
