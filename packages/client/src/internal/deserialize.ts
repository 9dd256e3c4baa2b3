import type { KafkaRecord, RecordHeader } from '@kafkats/codec';
import type { PartitionBatch } from '../fetch/partition-batch.js';
import {
  DeserializationError,
  type Deserializer,
  type DeserializerContext,
  type Deserializers,
} from '../serialization.js';

/** A field's outcome: the deserialized value, or the error reading it throws. */
type Outcome = { ok: unknown } | { error: DeserializationError };

/**
 * A record with deserialized key and value; the rest read from the record as fetched. A field
 * whose deserializer failed throws its DeserializationError when read.
 */
class DeserializedRecord {
  readonly #raw: KafkaRecord;
  #key: unknown;
  #value: unknown;
  #keyError: DeserializationError | undefined;
  #valueError: DeserializationError | undefined;

  constructor(raw: KafkaRecord) {
    this.#raw = raw;
    this.#key = raw.key;
    this.#value = raw.value;
  }

  get key(): unknown {
    if (this.#keyError !== undefined) throw this.#keyError;
    return this.#key;
  }

  get value(): unknown {
    if (this.#valueError !== undefined) throw this.#valueError;
    return this.#value;
  }

  get offset(): bigint {
    return this.#raw.offset;
  }

  get timestamp(): bigint {
    return this.#raw.timestamp;
  }

  get headers(): readonly RecordHeader[] {
    return this.#raw.headers;
  }

  get offsetDelta(): number {
    return this.#raw.offsetDelta;
  }

  get timestampDelta(): bigint {
    return this.#raw.timestampDelta;
  }

  get attributes(): number {
    return this.#raw.attributes;
  }

  get headerCount(): number {
    return this.#raw.headerCount;
  }

  get sequence(): number {
    return this.#raw.sequence;
  }

  /** Sets a field from its outcome. */
  set(field: 'key' | 'value', outcome: Outcome): void {
    if ('error' in outcome) {
      if (field === 'key') this.#keyError = outcome.error;
      else this.#valueError = outcome.error;
    } else if (field === 'key') this.#key = outcome.ok;
    else this.#value = outcome.ok;
  }

  /** A plain copy for logs: a failed field as `{ error: message }`. */
  toJSON(): object {
    const field = (value: unknown, error: DeserializationError | undefined) =>
      error === undefined ? value : { error: error.message };
    return {
      offset: this.offset,
      timestamp: this.timestamp,
      key: field(this.#key, this.#keyError),
      value: field(this.#value, this.#valueError),
      headers: this.headers,
    };
  }
}

/**
 * Runs one deserializer on one field of a record: its value, an error, or a promise of one of
 * the two (an async deserializer; never rejects).
 */
function run(
  deserializer: Deserializer<unknown>,
  data: Buffer,
  context: DeserializerContext,
  field: 'key' | 'value',
): Outcome | Promise<Outcome> {
  const fail = (cause: unknown): Outcome => ({
    error: new DeserializationError(
      context.topic,
      context.partition,
      context.record.offset,
      field,
      data,
      cause,
    ),
  });
  let result: unknown;
  try {
    result = deserializer(data, context);
  } catch (cause) {
    return fail(cause);
  }
  if (result instanceof Promise) return result.then((ok) => ({ ok }), fail);
  return { ok: result };
}

/**
 * What is wrong with a `deserializers` option (each present one must be a function), or
 * undefined when nothing is.
 */
export function deserializersInvalid(deserializers: unknown): string | undefined {
  if (deserializers === undefined) return undefined;
  if (typeof deserializers !== 'object' || deserializers === null)
    return 'deserializers must be an object { key?, value? }';
  for (const field of ['key', 'value'] as const) {
    const fn = (deserializers as Record<string, unknown>)[field];
    if (fn !== undefined && typeof fn !== 'function')
      return `deserializers.${field} must be a function (data, context) => value, got ${typeof fn}`;
  }
  return undefined;
}

/**
 * The batch as the application sees it with `deserializers`: the same batch without any, else
 * a copy whose records carry deserialized keys and values. Null keys and values stay null
 * (never given to a deserializer). Resolves after every async deserializer settled; never
 * rejects: a failed field throws when read.
 */
export function deserializeBatch<K, V>(
  batch: PartitionBatch,
  deserializers: Deserializers<K, V> | undefined,
): PartitionBatch<K, V> | Promise<PartitionBatch<K, V>> {
  const keyFn = deserializers?.key as Deserializer<unknown> | undefined;
  const valueFn = deserializers?.value as Deserializer<unknown> | undefined;
  if (keyFn === undefined && valueFn === undefined) return batch as unknown as PartitionBatch<K, V>;
  const { topic, partition } = batch;
  const raw = batch.records as readonly KafkaRecord[];
  const records: DeserializedRecord[] = new Array(raw.length);
  let pending: Promise<void>[] | undefined;
  const field = (
    out: DeserializedRecord,
    name: 'key' | 'value',
    fn: Deserializer<unknown> | undefined,
    data: Buffer | null,
    context: DeserializerContext,
  ): void => {
    if (fn === undefined || data === null) return;
    const outcome = run(fn, data, context, name);
    if (outcome instanceof Promise) (pending ??= []).push(outcome.then((o) => out.set(name, o)));
    else out.set(name, outcome);
  };
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i] as KafkaRecord;
    const out = new DeserializedRecord(r);
    records[i] = out;
    const context: DeserializerContext = { topic, partition, record: r };
    field(out, 'key', keyFn, r.key, context);
    field(out, 'value', valueFn, r.value, context);
  }
  const result = { ...batch, records } as unknown as PartitionBatch<K, V>;
  return pending === undefined ? result : Promise.all(pending).then(() => result);
}
