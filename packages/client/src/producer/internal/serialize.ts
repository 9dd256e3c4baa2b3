import type { RecordHeadersInput } from '@kafkats/codec';
import {
  SerializationError,
  type Serializer,
  type SerializerContext,
  type Serializers,
} from '../../serialization.js';
import type { HeaderValue, ProducerRecord, ProducerRecordHeaders } from '../producer-options.js';

/** A record's key, value and headers as its batch takes them. */
export interface Serialized {
  readonly key: Uint8Array | string | null;
  readonly value: Uint8Array | string | null;
  readonly headers: RecordHeadersInput | null;
}

/** What serializing a record gave: its fields, the error that fails it, or a promise of either. */
export type Serialization =
  | Serialized
  | SerializationError
  | Promise<Serialized | SerializationError>;

/** The serializers' view of one record: its topic and headers; headers added go after its own. */
class Context implements SerializerContext {
  readonly topic: string;
  /** The field whose serializer runs (or last ran). */
  field: 'key' | 'value' = 'key';
  #headers: ProducerRecordHeaders | undefined;
  #added: { key: string; value: HeaderValue }[] | undefined;

  constructor(topic: string, headers: ProducerRecordHeaders | undefined) {
    this.topic = topic;
    this.#headers = headers;
  }

  get headers(): ProducerRecordHeaders | undefined {
    return this.#headers;
  }

  addHeader(key: string, value: HeaderValue): void {
    if (typeof key !== 'string') throw new TypeError('a header key must be a string');
    if (this.#added === undefined) {
      const own = this.#headers;
      const list: { key: string; value: HeaderValue }[] = [];
      if (Array.isArray(own)) list.push(...own);
      else if (own !== undefined && own !== null) {
        for (const k in own) {
          const v = (own as Record<string, HeaderValue | undefined>)[k];
          if (v !== undefined) list.push({ key: k, value: v });
        }
      }
      this.#added = list;
      this.#headers = list;
    }
    this.#added.push({ key, value });
  }
}

const isBytes = (v: unknown): v is Uint8Array | string | null =>
  v === null || typeof v === 'string' || v instanceof Uint8Array;

/**
 * One serializer on one field: its result, or a promise of it; a SerializationError thrown
 * (or the promise rejected with one) when the serializer failed or gave something that is
 * neither bytes, a string nor null.
 */
function step(
  field: 'key' | 'value',
  fn: Serializer<unknown> | undefined,
  data: unknown,
  context: Context,
): Uint8Array | string | null | Promise<Uint8Array | string | null> {
  // No serializer, or null (no key, a tombstone): the field goes as given.
  if (fn === undefined || data === null || data === undefined)
    return (data ?? null) as Uint8Array | string | null;
  const topic = context.topic;
  const check = (out: unknown): Uint8Array | string | null => {
    if (isBytes(out)) return out;
    throw new SerializationError(
      topic,
      field,
      `returned ${out === undefined ? 'undefined' : typeof out}, not bytes, a string or null`,
    );
  };
  const fail = (cause: unknown): never => {
    if (cause instanceof SerializationError) throw cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new SerializationError(topic, field, why, cause);
  };
  let out: unknown;
  context.field = field;
  try {
    out = fn(data, context);
  } catch (cause) {
    fail(cause);
  }
  if (out instanceof Promise) return out.then(check, fail);
  return check(out);
}

// The serializer a pending serialization waits for: its field, for the error when it takes
// longer than the producer waits.
const pendingField = new WeakMap<Promise<unknown>, Context>();

/** Which serializer (key or value) a pending serialization is waiting for. */
export function waitingFor(pending: Promise<unknown>): 'key' | 'value' {
  return pendingField.get(pending)?.field ?? 'key';
}

/**
 * Serializes a record's key, then its value (Kafka's order: `keySerializer`, then
 * `valueSerializer`, both seeing the same headers), with the producer's serializers. Synchronous
 * serializers give the result at once; an async one gives a promise that never rejects.
 */
export function serializeRecord(
  record: ProducerRecord<unknown, unknown>,
  topic: string,
  serializers: Serializers<unknown, unknown>,
): Serialization {
  const context = new Context(topic, record.headers);
  const done = (
    key: Uint8Array | string | null,
    value: Uint8Array | string | null,
  ): Serialized => ({
    key,
    value,
    headers: (context.headers ?? null) as RecordHeadersInput | null,
  });
  const asError = (error: unknown) => error as SerializationError;
  try {
    let pending: Promise<Serialized | SerializationError>;
    const key = step('key', serializers.key, record.key, context);
    if (key instanceof Promise) {
      pending = key
        .then((k) => {
          const value = step('value', serializers.value, record.value, context);
          return value instanceof Promise ? value.then((v) => done(k, v)) : done(k, value);
        })
        .catch(asError);
    } else {
      const value = step('value', serializers.value, record.value, context);
      if (!(value instanceof Promise)) return done(key, value);
      pending = value.then((v) => done(key, v), asError);
    }
    pendingField.set(pending, context);
    return pending;
  } catch (error) {
    return asError(error);
  }
}
