// kafkajs's producer on kafkats's Producer. What differs from kafkajs, and why:
// - Idempotence: kats's producer is idempotent by default (acks -1); kafkajs's is not. The
//   default stays kats's (no duplicates on retry); `idempotent: false` turns it off.
// - acks and compression are per send in kafkajs, per producer in kats: the facade keeps one
//   kats producer per (acks, compression, timeout) used, made at the first send that uses it.
// - Topics are never created by producing (kafkajs asks the broker to, `allowAutoTopicCreation`
//   default true): a send to a missing topic waits kafkajs's retry time, then fails.
// - Partitioning: with no `createPartitioner` or with `Partitioners.DefaultPartitioner`, kats
//   places messages: keys exactly as kafkajs's DefaultPartitioner (Java's murmur2), unkeyed
//   messages sticky per batch (KIP-480) where kafkajs goes round-robin per message. kafkajs's
//   one-time warning about its default partitioner is not printed: nothing changed silently.
// - Transactions run on one transactional kats producer (a second would fence the first); it
//   does not compress, so `compression` in a transaction's sends is not applied (logged once).
// - REQUEST and REQUEST_TIMEOUT come from kats's request traces of this producer's connections;
//   REQUEST_QUEUE_SIZE is accepted by on() and never emitted (kats queues per connection
//   without reporting each change).
import { compress, decompress } from '@kafkats/codec';
import type { ClientContext, RetryOptions } from './config.js';
import type {
  InstrumentationEvent,
  RemoveInstrumentationEventListener,
} from './instrumentation.js';
import { PRODUCER_EVENTS } from './instrumentation.js';
import { FacadeProducer } from './internal/producer-client.js';
import type { PartitionMetadataShape } from './internal/producer-partitioners.js';
import { defaultPartitioner, legacyPartitioner } from './internal/producer-partitioners.js';
import type { Logger } from './logger.js';

/** `kafka.producer(config)`. */
export interface ProducerConfig {
  /**
   * A partitioner factory, called once per producer; its function is called for every message
   * (pinned or not) with the topic's partition metadata. Default: kats's placement (see the
   * top of this file); `Partitioners.DefaultPartitioner` gives the same.
   */
  createPartitioner?: ICustomPartitioner;
  /**
   * Merged over the Kafka config's `retry`, as in kafkajs. Sets how long a send may take
   * (kats's `deliveryTimeoutMs` and `maxBlockMs`: the retries' total wait) and the backoff
   * (`initialRetryTime`, `maxRetryTime`). Default 5 retries (unbounded with `idempotent: true`).
   */
  retry?: RetryOptions;
  /** Background metadata refresh period, ms (kats's cluster `refreshIntervalMs`). */
  metadataMaxAge?: number;
  /**
   * Accepted and not used: kats never creates topics by producing (kafkajs's default true asks
   * the broker to). Create topics with `admin.createTopics`.
   */
  allowAutoTopicCreation?: boolean;
  /**
   * Default: kats's, idempotent with acks -1 (kafkajs's default is false). `true` refuses
   * sends with acks other than -1, as kafkajs does; `false` sends without producer ids.
   */
  idempotent?: boolean;
  /** Makes `transaction()` available; sends outside a transaction stay non-transactional. */
  transactionalId?: string;
  /** The coordinator aborts a transaction open longer than this, ms. Default 60000, as kafkajs. */
  transactionTimeout?: number;
  /**
   * Produce requests in flight per broker (kats's `maxInFlight`). Default 5 (kafkajs: no
   * limit); at most 5 while idempotent (a larger number is lowered to 5).
   */
  maxInFlightRequests?: number;
}

/**
 * kafkajs's message headers (its `IHeaders`, exported by the consumer's file): a key may carry
 * several values, sent as repeated headers.
 */
interface MessageHeaders {
  [key: string]: Buffer | string | (Buffer | string)[] | undefined;
}

/** One message to send. Strings are sent as UTF-8; a null value is a tombstone. */
export interface Message {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  partition?: number;
  headers?: MessageHeaders;
  /** CreateTime in ms since the epoch, as a string (a number is accepted). Default now. */
  timestamp?: string;
}

/** What a custom partitioner's function is called with, per message. */
export interface PartitionerArgs {
  topic: string;
  partitionMetadata: PartitionMetadataShape[];
  message: Message;
}

/** kafkajs's partitioner factory: `() => ({ topic, partitionMetadata, message }) => partition`. */
export type ICustomPartitioner = () => (args: PartitionerArgs) => number;
export type DefaultPartitioner = ICustomPartitioner;
export type LegacyPartitioner = ICustomPartitioner;

/**
 * kafkajs's partitioners. `DefaultPartitioner` (also `JavaCompatiblePartitioner`) places keys
 * as Java's producer; `LegacyPartitioner` as kafkajs 1.x (a murmur2 of its own that differs
 * for some keys). Both go round-robin for unkeyed messages when called; passed as
 * `createPartitioner`, `DefaultPartitioner` hands placement to kats instead (same for keys).
 */
export const Partitioners: {
  DefaultPartitioner: DefaultPartitioner;
  LegacyPartitioner: LegacyPartitioner;
  /** @deprecated kafkajs 2 renamed it `DefaultPartitioner`. */
  JavaCompatiblePartitioner: DefaultPartitioner;
} = {
  DefaultPartitioner: defaultPartitioner as DefaultPartitioner,
  LegacyPartitioner: legacyPartitioner as LegacyPartitioner,
  JavaCompatiblePartitioner: defaultPartitioner as DefaultPartitioner,
};

/** kafkajs's compression codes (record batch attribute bits 0-2). */
export const CompressionTypes = Object.freeze({
  None: 0,
  GZIP: 1,
  Snappy: 2,
  LZ4: 3,
  ZSTD: 4,
} as const);
export type CompressionTypes = (typeof CompressionTypes)[keyof typeof CompressionTypes];

/** A codec as kafkajs's registry holds them: compresses an encoder's bytes, decompresses bytes. */
interface CompressionCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** Largest output a registry codec's `decompress` makes, bytes (a bound against bombs). */
const MAX_DECOMPRESSED_BYTES = 1 << 30;

function katsCodec(codec: 'gzip' | 'snappy' | 'lz4' | 'zstd'): () => CompressionCodec {
  return () => ({
    compress: (encoder) => compress(codec, encoder.buffer),
    decompress: async (buffer) => decompress(codec, buffer, MAX_DECOMPRESSED_BYTES),
  });
}

/**
 * kafkajs's codec registry, where applications plug codecs in
 * (`CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec`). Assignments are accepted and
 * not used: kats compresses and decompresses every codec itself (native where installed, pure
 * JS otherwise). The entries it starts with are kats's codecs in kafkajs's codec shape.
 */
export const CompressionCodecs: {
  [CompressionTypes.GZIP]: () => CompressionCodec;
  [CompressionTypes.Snappy]: () => CompressionCodec;
  [CompressionTypes.LZ4]: () => CompressionCodec;
  [CompressionTypes.ZSTD]: () => CompressionCodec;
} = {
  [CompressionTypes.GZIP]: katsCodec('gzip'),
  [CompressionTypes.Snappy]: katsCodec('snappy'),
  [CompressionTypes.LZ4]: katsCodec('lz4'),
  [CompressionTypes.ZSTD]: katsCodec('zstd'),
};

/** `producer.send(record)`. */
export interface ProducerRecord {
  topic: string;
  messages: Message[];
  /** -1 (all in-sync replicas, the default), 1 (the leader) or 0 (no answer: resolves with []). */
  acks?: number;
  /** How long the broker may wait for the acks, ms (kats's producer `requestTimeoutMs`). */
  timeout?: number;
  compression?: CompressionTypes;
}

/** One topic's messages in `sendBatch`. */
export interface TopicMessages {
  topic: string;
  messages: Message[];
}

/** `producer.sendBatch(batch)`: several topics in one call. */
export interface ProducerBatch {
  acks?: number;
  timeout?: number;
  compression?: CompressionTypes;
  topicMessages?: TopicMessages[];
}

/**
 * One partition written by a send. `baseOffset` is the first offset written to it by the call;
 * `logAppendTime` is '-1' for CreateTime topics; `logStartOffset` is the broker's, as in kafkajs.
 */
export interface RecordMetadata {
  topicName: string;
  partition: number;
  errorCode: number;
  offset?: string;
  timestamp?: string;
  baseOffset?: string;
  logAppendTime?: string;
  logStartOffset?: string;
}

/** The producer's event names. */
export interface ProducerEvents {
  CONNECT: 'producer.connect';
  DISCONNECT: 'producer.disconnect';
  REQUEST: 'producer.network.request';
  REQUEST_TIMEOUT: 'producer.network.request_timeout';
  REQUEST_QUEUE_SIZE: 'producer.network.request_queue_size';
}

interface Sender {
  send(record: ProducerRecord): Promise<RecordMetadata[]>;
  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]>;
}

/** The offsets `transaction.sendOffsets` commits (kafkajs's `Offsets & { consumerGroupId }`). */
interface TransactionOffsets {
  consumerGroupId: string;
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/** One transaction: sends in it commit or abort together. */
export interface Transaction extends Sender {
  /** Commits the group's offsets with the transaction (the group id alone, generation -1). */
  sendOffsets(offsets: TransactionOffsets): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
  /** True until `commit()` or `abort()` succeeded (or the producer disconnected). */
  isActive(): boolean;
}

export interface Producer extends Sender {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Whether sends with acks -1 are idempotent: true unless `idempotent: false` was given. */
  isIdempotent(): boolean;
  readonly events: ProducerEvents;
  /**
   * Listens for one of `events`. CONNECT, DISCONNECT, REQUEST (each answered request of this
   * producer's connections) and REQUEST_TIMEOUT are emitted; REQUEST_QUEUE_SIZE is accepted
   * and never emitted.
   */
  on(
    eventName: ProducerEvents[keyof ProducerEvents],
    // biome-ignore lint/suspicious/noExplicitAny: kafkajs's listener takes any event payload
    listener: (event: InstrumentationEvent<any>) => void,
  ): RemoveInstrumentationEventListener<typeof eventName>;
  /**
   * Starts a transaction (the producer needs `transactionalId`). One at a time: a second call
   * before the first ended rejects, as in kafkajs.
   */
  transaction(): Promise<Transaction>;
  logger(): Logger;
}

/** kafka.producer(config): nothing connects before `connect()`. */
export function createProducer(context: ClientContext, config: ProducerConfig): Producer {
  const p = new FacadeProducer(context, config);
  return {
    connect: () => p.connect(),
    disconnect: () => p.disconnect(),
    isIdempotent: () => p.isIdempotent(),
    events: PRODUCER_EVENTS as ProducerEvents,
    on: (eventName, listener) => p.on(eventName, listener),
    send: (record) => p.send(record),
    sendBatch: (batch) => p.sendBatch(batch),
    transaction: () => p.transaction(),
    logger: () => p.logger,
  };
}
