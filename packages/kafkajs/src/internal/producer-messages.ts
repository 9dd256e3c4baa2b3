// kafkajs messages in, kafkats records out; kafkats's per-record metadata in, kafkajs's
// per-partition RecordMetadata out. Pure functions, tested with property tests.
import type {
  HeaderValue,
  RecordMetadata as KatsMetadata,
  ProducerRecord as KatsRecord,
} from '@kafkats/client';
import { KafkaJSNonRetriableError } from '../errors.js';

/** A kafkajs header value: bytes, a string, or several of them for one key. */
export type KafkaJSHeaderValue = Buffer | string | (Buffer | string)[] | undefined;

/** The message fields kafkajs reads (the public `Message` type, loosely typed for validation). */
export interface LooseMessage {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly partition?: unknown;
  readonly headers?: unknown;
  readonly timestamp?: unknown;
}

/** One topic's messages as kafkajs's `sendBatch` takes them. */
export interface LooseTopicMessages {
  readonly topic?: unknown;
  readonly messages?: unknown;
}

/** What kafkajs's send and sendBatch resolve with: one entry per partition written. */
export interface PartitionMetadataResult {
  topicName: string;
  partition: number;
  errorCode: number;
  baseOffset: string;
  logAppendTime: string;
  logStartOffset: string;
}

/**
 * kafkajs writes a key, value or header value that is not a Buffer as `String(x)` in UTF-8, and
 * null or undefined as null: the same bytes go out here.
 */
export function toBytes(x: unknown): Buffer | string | null {
  if (x === null || x === undefined) return null;
  if (Buffer.isBuffer(x)) return x;
  return typeof x === 'string' ? x : String(x);
}

/**
 * kafkajs's headers object in kats's list form, order kept: an array value gives one header
 * per element under the same key (Kafka allows a key to repeat), undefined gives a null value.
 */
export function toHeaders(headers: unknown): { key: string; value: HeaderValue }[] | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers !== 'object') {
    throw new KafkaJSNonRetriableError(`Invalid headers ${String(headers)}: must be an object`);
  }
  const out: { key: string; value: HeaderValue }[] = [];
  for (const key of Object.keys(headers)) {
    const value = (headers as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const v of value) out.push({ key, value: toBytes(v) });
    } else {
      out.push({ key, value: toBytes(value) });
    }
  }
  return out;
}

/**
 * A kafkajs timestamp (a string of ms, or a number) as ms. kafkajs subtracts it from the batch's
 * first timestamp, so a numeric string or a number is what works there; anything else is
 * refused here rather than written as a wrong time.
 */
export function toTimestamp(timestamp: unknown, topic: string): number | undefined {
  if (timestamp === undefined || timestamp === null || timestamp === '') return undefined;
  const ms = typeof timestamp === 'bigint' ? Number(timestamp) : Number(timestamp);
  if (!Number.isSafeInteger(ms)) {
    throw new KafkaJSNonRetriableError(
      `Invalid timestamp ${String(timestamp)} for topic "${topic}": must be ms since the epoch`,
    );
  }
  return ms;
}

/**
 * The checks kafkajs's `sendBatch` makes before anything is sent, in its order and with its
 * messages: every topic named, then (idempotent producers) acks -1, then each topic's messages
 * an array whose every message has a `value` (null, a tombstone, is a value).
 * @throws KafkaJSNonRetriableError
 */
export function validateTopicMessages(
  topicMessages: readonly LooseTopicMessages[],
  acks: number,
  idempotent: boolean,
): void {
  if (topicMessages.some((t) => t === null || typeof t !== 'object' || !t.topic)) {
    throw new KafkaJSNonRetriableError('Invalid topic');
  }
  if (idempotent && acks !== -1) {
    throw new KafkaJSNonRetriableError(
      "Not requiring ack for all messages invalidates the idempotent producer's EoS guarantees",
    );
  }
  for (const { topic, messages } of topicMessages) {
    // kafkajs names only a missing array; one that is not an array fails further in, with a
    // TypeError. Both get kafkajs's message here.
    if (!Array.isArray(messages)) {
      throw new KafkaJSNonRetriableError(
        `Invalid messages array [${String(messages)}] for topic "${String(topic)}"`,
      );
    }
    const withoutValue = messages.find(
      (m: unknown) =>
        m === null || typeof m !== 'object' || (m as LooseMessage).value === undefined,
    );
    if (withoutValue !== undefined) {
      throw new KafkaJSNonRetriableError(
        `Invalid message without value for topic "${String(topic)}": ${JSON.stringify(withoutValue)}`,
      );
    }
  }
}

/** kafkajs's sendBatch sends the messages of a topic named twice as one list, in order. */
export function mergeByTopic(
  topicMessages: readonly LooseTopicMessages[],
): { topic: string; messages: LooseMessage[] }[] {
  const merged = new Map<string, LooseMessage[]>();
  for (const { topic, messages } of topicMessages) {
    const name = String(topic);
    const list = merged.get(name);
    if (list === undefined) merged.set(name, [...(messages as LooseMessage[])]);
    else list.push(...(messages as LooseMessage[]));
  }
  return [...merged].map(([topic, messages]) => ({ topic, messages }));
}

/**
 * A kafkajs message as a kats record. The timestamp is always set (kafkajs's default, the time
 * of the call, when the message has none) so that a different timestamp in the answer shows
 * that the topic uses LogAppendTime. `withPartition` false leaves the partition to the custom
 * partitioner, which kafkajs asks for every message, pinned or not.
 */
export function toRecord(
  topic: string,
  message: LooseMessage,
  now: number,
  withPartition: boolean,
): KatsRecord & { timestamp: number } {
  const key = toBytes(message.key);
  const headers = toHeaders(message.headers);
  const timestamp = toTimestamp(message.timestamp, topic) ?? now;
  const partition = message.partition;
  const pinned = withPartition && partition !== undefined && partition !== null;
  if (pinned && (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0)) {
    throw new KafkaJSNonRetriableError(
      `Invalid partition ${String(partition)} for topic "${topic}": must be an integer >= 0`,
    );
  }
  return {
    topic,
    value: toBytes(message.value),
    timestamp,
    ...(key === null ? {} : { key }),
    ...(headers === undefined ? {} : { headers }),
    ...(pinned ? { partition: partition as number } : {}),
  };
}

/**
 * kats's per-record answers as kafkajs's per-partition ones, in the order topics and partitions
 * were first written: `baseOffset` is the partition's lowest offset in the call (kafkajs sends
 * one batch per partition per call; kats may split a call's records over batches, whose first
 * offset is then the lowest). `logAppendTime` is the broker's time for a LogAppendTime topic,
 * else '-1' as kafkajs reports CreateTime topics; `logStartOffset` is the partition's log start
 * offset from the broker's answer ('-1' when it gave none, as with acks 0).
 */
export function toPartitionResults(metadata: Iterable<KatsMetadata>): PartitionMetadataResult[] {
  const byPartition = new Map<string, PartitionMetadataResult & { base: bigint }>();
  for (const m of metadata) {
    const id = `${m.partition}:${m.topic}`;
    const offset = m.offset;
    const appended = m.timestampType === 'LogAppendTime' ? String(m.timestamp) : '-1';
    const entry = byPartition.get(id);
    if (entry === undefined) {
      byPartition.set(id, {
        topicName: m.topic,
        partition: m.partition,
        errorCode: 0,
        baseOffset: String(offset),
        logAppendTime: appended,
        logStartOffset: String(m.logStartOffset),
        base: offset,
      });
    } else if (offset >= 0n && (entry.base < 0n || offset < entry.base)) {
      entry.base = offset;
      entry.baseOffset = String(offset);
      entry.logAppendTime = appended;
      entry.logStartOffset = String(m.logStartOffset);
    }
  }
  const topics = new Map<string, (PartitionMetadataResult & { base: bigint })[]>();
  for (const e of byPartition.values()) {
    const list = topics.get(e.topicName);
    if (list === undefined) topics.set(e.topicName, [e]);
    else list.push(e);
  }
  const out: PartitionMetadataResult[] = [];
  for (const list of topics.values()) {
    list.sort((a, b) => a.partition - b.partition);
    for (const { base: _base, ...result } of list) out.push(result);
  }
  return out;
}
