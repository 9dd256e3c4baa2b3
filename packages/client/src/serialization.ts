import { KafkaError, type KafkaRecord } from '@kafkats/codec';
import type { HeaderValue, ProducerRecordHeaders } from './producer/producer-options.js';

/**
 * Typed keys and values (Kafka's `Serializer` and `Deserializer`, the `key.serializer`,
 * `value.serializer`, `key.deserializer` and `value.deserializer` settings). A serializer turns
 * the application's key or value into what the record carries; a deserializer turns the bytes
 * read back into the application's type. Either may be async: records still go out, and come
 * back, in order. `null` is never passed to either: a null key stays "no key" and a null value
 * stays a tombstone, as Kafka's built-in serializers map null to null.
 */

/** What a serializer is told about the record it serializes. */
export interface SerializerContext {
  readonly topic: string;
  /** The record's headers as given (plus those added so far by a serializer); undefined for none. */
  readonly headers: ProducerRecordHeaders | undefined;
  /**
   * Adds a header to the record being sent, after its own (Java's `Headers.add` in
   * `Serializer.serialize(topic, headers, data)`): a schema id, a content type.
   */
  addHeader(key: string, value: HeaderValue): void;
}

/**
 * Turns a key or value into the bytes a record carries: a Buffer (or Uint8Array), a string
 * (sent as UTF-8) or null; or a promise of one. A throw or a rejection fails that record with
 * a {@link SerializationError}, and only that record.
 */
export type Serializer<T> = (
  data: T,
  context: SerializerContext,
) => Uint8Array | string | null | Promise<Uint8Array | string | null>;

/** What a deserializer is told about the record it reads. */
export interface DeserializerContext {
  readonly topic: string;
  readonly partition: number;
  /** The record as read: offset, timestamp, raw key and value, headers (decoded when read). */
  readonly record: KafkaRecord;
}

/**
 * Turns a record's key or value bytes into the application's type, or a promise of it. The
 * bytes are a view into the fetched response: copy what the result keeps. A throw or a
 * rejection fails that record only: reading its `key` or `value` throws a
 * {@link DeserializationError}; the other records of the batch read as usual.
 */
export type Deserializer<T> = (data: Buffer, context: DeserializerContext) => T | Promise<T>;

/** The producer's serializers (`key.serializer`, `value.serializer`); each defaults to none. */
export interface Serializers<K, V> {
  readonly key?: Serializer<K>;
  readonly value?: Serializer<V>;
}

/** A reader's deserializers (`key.deserializer`, `value.deserializer`); each defaults to none. */
export interface Deserializers<K, V> {
  readonly key?: Deserializer<K>;
  readonly value?: Deserializer<V>;
}

/**
 * A serializer failed (threw, rejected, or returned something that is neither bytes, a string
 * nor null). Code `ERR_KAFKA_SERIALIZATION`; not retriable; `cause` is what the serializer threw.
 * The record was not sent; the producer and the other records go on.
 */
export class SerializationError extends KafkaError {
  readonly topic: string;
  /** Which serializer failed. */
  readonly field: 'key' | 'value';

  constructor(topic: string, field: 'key' | 'value', message: string, cause?: unknown) {
    super('ERR_KAFKA_SERIALIZATION', `${field} serializer for topic ${topic}: ${message}`, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
    this.topic = topic;
    this.field = field;
  }
}

/**
 * A deserializer failed for one record (Kafka's `RecordDeserializationException`, KIP-334):
 * thrown when that record's `key` or `value` is read. Names the partition and the offset;
 * `data` holds the bytes that failed (a view: copy them to keep them, as to a dead-letter
 * topic); `cause` is what the deserializer threw. Code `ERR_KAFKA_DESERIALIZATION`; not
 * retriable.
 */
export class DeserializationError extends KafkaError {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly field: 'key' | 'value';
  readonly data: Buffer;

  constructor(
    topic: string,
    partition: number,
    offset: bigint,
    field: 'key' | 'value',
    data: Buffer,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'ERR_KAFKA_DESERIALIZATION',
      `${field} deserializer failed for ${topic}-${partition} at offset ${offset}: ${why}`,
      { retriable: false, cause },
    );
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.field = field;
    this.data = data;
  }
}

// -- built-ins -------------------------------------------------------------------------------

/** Kafka's `StringSerializer`: a string, sent as UTF-8. Anything else fails the record. */
export const stringSerializer: Serializer<string> = (data) => {
  if (typeof data !== 'string') throw new TypeError(`not a string: ${typeof data}`);
  return data;
};

/** Kafka's `StringDeserializer`: the bytes as UTF-8 text. */
export const stringDeserializer: Deserializer<string> = (data) => data.toString('utf8');

/**
 * JSON: `JSON.stringify` of the value, as UTF-8. A value JSON cannot represent (undefined, a
 * function, a bigint, a cycle) fails the record.
 */
export const jsonSerializer: Serializer<unknown> = (data) => {
  const text = JSON.stringify(data);
  if (text === undefined) throw new TypeError(`${typeof data} has no JSON form`);
  return text;
};

/** JSON: `JSON.parse` of the UTF-8 bytes, typed as `T` (unchecked: validate what you trust). */
export function jsonDeserializer<T = unknown>(): Deserializer<T> {
  return (data) => JSON.parse(data.toString('utf8')) as T;
}

/** Bytes as they are (Kafka's `ByteArraySerializer`). Anything else fails the record. */
export const rawSerializer: Serializer<Uint8Array> = (data) => {
  if (!(data instanceof Uint8Array)) throw new TypeError(`not bytes: ${typeof data}`);
  return data;
};

/**
 * Bytes as they are (Kafka's `ByteArrayDeserializer`): a view into the response, not a copy.
 * The same as no deserializer, for a reader typed with a deserializer on the other field.
 */
export const rawDeserializer: Deserializer<Buffer> = (data) => data;
