import type { CompressionBackend, CompressionCodec } from '@kafkats/codec';
import { type Logger, silentLogger } from '@kafkats/wire';
import type { Serializers } from '../serialization.js';
import type { Partitioner } from './partitioner.js';
import { ProducerConfigError } from './producer-errors.js';

/** One record to send. */
export interface ProducerRecord<K = Buffer | string, V = Buffer | string> {
  readonly topic: string;
  /**
   * Pins the record to this partition. Default: the producer's `partitioner` when it has one,
   * else Kafka's partitioning (murmur2 of the key for keyed records, sticky partitioning for
   * unkeyed ones).
   */
  readonly partition?: number;
  /**
   * Key bytes (a string is sent as UTF-8), or with `serializers.key`, what it serializes.
   * Default none (null).
   */
  readonly key?: K | null;
  /**
   * Value bytes (a string is sent as UTF-8), or with `serializers.value`, what it serializes;
   * null is a tombstone.
   */
  readonly value: V | null;
  /**
   * Headers, in order: `[{ key, value }]` (a key may repeat), or an object `{ key: value }`.
   * Values are bytes (a string is UTF-8) or null. Default none.
   */
  readonly headers?: ProducerRecordHeaders;
  /** CreateTime, ms since the epoch. Default the time of `send`. */
  readonly timestamp?: number | bigint;
}

/** A header value: bytes, a string (sent as UTF-8), or null. */
export type HeaderValue = Buffer | string | null;

/**
 * A record's headers: a list (order kept, keys may repeat, as Kafka allows) or an object, one
 * value per key, in the object's key order.
 */
export type ProducerRecordHeaders =
  | readonly { readonly key: string; readonly value: HeaderValue }[]
  | { readonly [key: string]: HeaderValue };

/**
 * Where and when a record was written. The producer hands out objects whose fields are read
 * from their batch's answer when accessed (offsets and timestamps are bigints, made only if
 * read); `toJSON()` gives a plain copy.
 */
export interface RecordMetadata {
  readonly topic: string;
  readonly partition: number;
  /**
   * The record's offset; `-1n` when the broker did not say (acks=0, or a batch the broker
   * reported as DUPLICATE_SEQUENCE_NUMBER: written earlier, offset no longer known).
   */
  readonly offset: bigint;
  /** The record's timestamp (ms): the broker's LogAppendTime when the topic uses it, else the record's CreateTime. */
  readonly timestamp: bigint;
  /** Which of the two `timestamp` is (the topic's `message.timestamp.type`, as the broker answered). */
  readonly timestampType: 'CreateTime' | 'LogAppendTime';
  /**
   * The partition's log start offset in the broker's answer (Produce v5+); `-1n` when it did not
   * say (acks=0, or an answer without one).
   */
  readonly logStartOffset: bigint;
}

/** One consumed position to commit with the transaction. */
export interface TransactionOffset {
  readonly topic: string;
  readonly partition: number;
  /** The next offset the group should read (last processed + 1). */
  readonly offset: bigint;
  /** Leader epoch of the last consumed record; default -1 (unknown). */
  readonly leaderEpoch?: number;
  readonly metadata?: string | null;
}

/** The consumer group the offsets belong to (Kafka's ConsumerGroupMetadata). */
export interface TransactionGroup {
  readonly groupId: string;
  /** Default -1: no generation check (a group without a live consumer). */
  readonly generationId?: number;
  /** Default '' (no member check). */
  readonly memberId?: string;
  readonly groupInstanceId?: string | null;
}

/**
 * A record's outcome, as Java's `Callback.onCompletion` hears it, but error first: `error` is
 * null and `metadata` set once the broker acknowledged the record; `error` is set when it was
 * refused or failed. Called exactly once per record. An exception it throws does not stop the
 * producer: the other records are still told, then it is rethrown as an uncaught exception.
 */
export type DeliveryCallback = (error: Error | null, metadata?: RecordMetadata) => void;

/** What one `sendBatch()` call delivered: each record's metadata, made when asked for. */
export interface SendBatchResult {
  /** Records the call sent. */
  readonly count: number;
  /**
   * The metadata of the call's record at `index` (in the order given).
   * @throws RangeError for an index outside the call
   */
  metadata(index: number): RecordMetadata;
  /** Every record's metadata, in the order given. */
  [Symbol.iterator](): Iterator<RecordMetadata>;
}

/** A record the producer took into its buffer; `result` settles on delivery. */
export interface Delivery {
  /**
   * Resolves once the broker acknowledged the record (as `acks` asks); rejects with the
   * record's failure. A rejection nobody awaits is not reported as unhandled.
   */
  readonly result: Promise<RecordMetadata>;
}

/**
 * Producer options. Defaults follow Kafka's Java producer (4.x) wherever it has the setting;
 * the Java name is given for each.
 */
export interface ProducerOptions<K = Buffer | string, V = Buffer | string> {
  /**
   * `acks`: `'all'` (same as -1; the default) waits for every in-sync replica, `1` for the
   * leader only, `0` for nothing (no offsets). Anything but `'all'` turns idempotence off
   * unless `idempotent: true` is set, which then is a configuration error.
   */
  readonly acks?: 'all' | -1 | 0 | 1;
  /**
   * `enable.idempotence`: InitProducerId, per-partition sequence numbers, exactly-once writes per
   * partition and order kept across retries. Default true (false when `acks` is not 'all').
   */
  readonly idempotent?: boolean;
  /** `transactional.id`: makes the producer transactional (requires idempotence). Default none. */
  readonly transactionalId?: string;
  /** `transaction.timeout.ms`: the coordinator aborts a transaction open longer than this. Default 60000. */
  readonly transactionTimeoutMs?: number;
  /** `linger.ms`: how long a batch waits for more records before it is sent, ms. Default 5. */
  readonly lingerMs?: number;
  /** `batch.size`: a batch closes once its records take this many bytes (uncompressed). Default 16384. */
  readonly batchSize?: number;
  /**
   * `max.in.flight.requests.per.connection`: Produce requests in flight per broker, and so
   * batches in flight per partition. At most 5 with idempotence (the broker keeps the last 5
   * batches per producer for deduplication). Default 5.
   */
  readonly maxInFlight?: number;
  /** `compression.type`. Default `'none'`. */
  readonly compression?: CompressionCodec;
  /** `compression.<codec>.level` (KIP-390): gzip 1-9, zstd -131072..22; none for snappy and lz4. */
  readonly compressionLevel?: number;
  /**
   * Which implementations may compress: `'auto'` (the default: node:zlib where it has the
   * codec, else a native addon the application installed, such as lz4-napi or snappy, else
   * the pure-JS package a plain install has), `'native'` or `'js'`. See the codec's
   * `compressionSupport()` for what runs here.
   */
  readonly compressionBackend?: CompressionBackend;
  /**
   * `buffer.memory`: bytes the producer may hold in batches (each batch takes its `batchSize`
   * buffer until it is delivered, as Java's BufferPool), before `send` waits. Default 33554432
   * (32 MiB).
   */
  readonly bufferMemory?: number;
  /**
   * `max.block.ms`: how long `send` waits for buffer room or for a topic's metadata, and how
   * long each transactional call may take, ms. Default 60000.
   */
  readonly maxBlockMs?: number;
  /**
   * `delivery.timeout.ms`: a record's whole life from `send` to acknowledgement, retries
   * included, ms. Must be at least `lingerMs + requestTimeoutMs`. Default 120000.
   */
  readonly deliveryTimeoutMs?: number;
  /** `request.timeout.ms`: one Produce request's wait for its answer, ms. Default 30000. */
  readonly requestTimeoutMs?: number;
  /** `retry.backoff.ms`: first wait before a retry, ms; doubles per attempt. Default 100. */
  readonly retryBackoffMs?: number;
  /** `retry.backoff.max.ms`: the cap on that wait, ms. Default 1000. */
  readonly retryBackoffMaxMs?: number;
  /** `max.request.size`: bytes of batches per Produce request, and the largest record. Default 1048576. */
  readonly maxRequestSize?: number;
  /**
   * `partitioner.class`: chooses the partition of each record that names none (see
   * {@link Partitioner}). Default none: murmur2 of the key for keyed records, sticky
   * partitioning for unkeyed ones, as Kafka's built-in partitioner.
   */
  readonly partitioner?: Partitioner<K, V>;
  /**
   * `key.serializer` and `value.serializer`: turn a record's key and value (of types `K` and
   * `V`) into the bytes it carries, on the `send` call, after the topic's metadata is known and
   * before the partition is chosen (keyed records are partitioned by the serialized key, as
   * Kafka does). Async serializers are allowed: records still go into their batches in the
   * order they were sent. A serializer that throws, rejects or returns something that is not
   * bytes, a string or null fails that record alone with a `SerializationError`. Default none:
   * keys and values are bytes or strings. Built-ins: `stringSerializer`, `jsonSerializer`,
   * `rawSerializer`.
   */
  readonly serializers?: Serializers<K, V>;
  /**
   * `partitioner.adaptive.partitioning.enable` (KIP-794): the default partitioner picks each
   * next sticky partition weighted against the partition's queue of unsent batches, so a slow
   * broker gets fewer new records; false picks uniformly. Default true.
   */
  readonly partitionerAdaptive?: boolean;
  /**
   * `partitioner.ignore.keys` (KIP-794): the default partitioner places keyed records as
   * unkeyed ones (sticky), not by murmur2 of the key. Default false.
   */
  readonly partitionerIgnoreKeys?: boolean;
  /**
   * `partitioner.availability.timeout.ms` (KIP-794): with `partitionerAdaptive`, a partition
   * whose leader has had batches waiting for it (at `maxInFlight`) longer than this is left out
   * of the default partitioner's picks until it takes data again. 0 (the default) never leaves
   * one out.
   */
  readonly partitionerAvailabilityTimeoutMs?: number;
  /** Injectable randomness in [0, 1) for the sticky partitioner and jitter (tests). */
  readonly random?: () => number;
  /**
   * Where retries (debug) and fatal errors (error) are logged; default the cluster's
   * `logger` (silent unless the cluster was given one).
   */
  readonly logger?: Logger;
}

/** Options with every default applied (internal). */
export interface ResolvedProducerOptions {
  readonly acks: -1 | 0 | 1;
  readonly idempotent: boolean;
  readonly transactionalId: string | undefined;
  readonly transactionTimeoutMs: number;
  readonly lingerMs: number;
  readonly batchSize: number;
  readonly maxInFlight: number;
  readonly compression: CompressionCodec;
  readonly compressionLevel: number | undefined;
  readonly compressionBackend: CompressionBackend;
  readonly bufferMemory: number;
  readonly maxBlockMs: number;
  readonly deliveryTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly maxRequestSize: number;
  readonly partitioner: Partitioner<unknown, unknown> | undefined;
  /** Undefined when neither serializer is set. */
  readonly serializers: Serializers<unknown, unknown> | undefined;
  readonly partitionerAdaptive: boolean;
  readonly partitionerIgnoreKeys: boolean;
  readonly partitionerAvailabilityTimeoutMs: number;
  readonly random: () => number;
  readonly logger: Logger;
}

function positive(name: string, value: number, min = 1): number {
  if (!Number.isFinite(value) || value < min)
    throw new ProducerConfigError(`${name} must be a number >= ${min}, got ${value}`);
  return value;
}

/**
 * Applies the defaults and checks the combinations Kafka's producer refuses.
 * @throws ProducerConfigError `ERR_KAFKA_PRODUCER_CONFIG_INVALID`
 */
export function resolveProducerOptions(
  options: ProducerOptions<unknown, unknown>,
  fallbackLogger: Logger = silentLogger,
): ResolvedProducerOptions {
  const acks = options.acks === undefined || options.acks === 'all' ? -1 : options.acks;
  if (acks !== -1 && acks !== 0 && acks !== 1)
    throw new ProducerConfigError(`acks must be 'all', -1, 0 or 1, got ${String(options.acks)}`);
  const transactional = options.transactionalId !== undefined;
  if (transactional && options.idempotent === false)
    throw new ProducerConfigError('a transactional producer needs idempotence');
  const idempotent = options.idempotent ?? acks === -1;
  if (idempotent && acks !== -1)
    throw new ProducerConfigError(`idempotence needs acks 'all', got acks ${acks}`);
  const maxInFlight = positive('maxInFlight', options.maxInFlight ?? 5);
  if (idempotent && maxInFlight > 5)
    throw new ProducerConfigError(`idempotence allows at most 5 in flight, got ${maxInFlight}`);
  const lingerMs = positive('lingerMs', options.lingerMs ?? 5, 0);
  const requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
  const deliveryTimeoutMs = positive('deliveryTimeoutMs', options.deliveryTimeoutMs ?? 120_000);
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs) {
    throw new ProducerConfigError(
      `deliveryTimeoutMs (${deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${lingerMs + requestTimeoutMs})`,
    );
  }
  const backend = options.compressionBackend;
  if (backend !== undefined && backend !== 'auto' && backend !== 'native' && backend !== 'js')
    throw new ProducerConfigError(
      `compressionBackend must be 'auto', 'native' or 'js', got ${String(backend)}`,
    );
  if (options.transactionalId === '')
    throw new ProducerConfigError('transactionalId must not be empty');
  if (options.partitioner !== undefined && typeof options.partitioner !== 'function')
    throw new ProducerConfigError(
      `partitioner must be a function (record, context) => partition, got ${typeof options.partitioner}`,
    );
  const serializers = options.serializers;
  if (serializers !== undefined) {
    if (typeof serializers !== 'object' || serializers === null)
      throw new ProducerConfigError('serializers must be an object { key?, value? }');
    for (const field of ['key', 'value'] as const) {
      const fn = serializers[field];
      if (fn !== undefined && typeof fn !== 'function')
        throw new ProducerConfigError(
          `serializers.${field} must be a function (data, context) => bytes, got ${typeof fn}`,
        );
    }
  }
  return {
    acks,
    idempotent,
    transactionalId: options.transactionalId,
    transactionTimeoutMs: positive('transactionTimeoutMs', options.transactionTimeoutMs ?? 60_000),
    lingerMs,
    batchSize: positive('batchSize', options.batchSize ?? 16_384),
    maxInFlight,
    compression: options.compression ?? 'none',
    compressionLevel: options.compressionLevel,
    compressionBackend: options.compressionBackend ?? 'auto',
    bufferMemory: positive('bufferMemory', options.bufferMemory ?? 32 * 1024 * 1024),
    maxBlockMs: positive('maxBlockMs', options.maxBlockMs ?? 60_000, 0),
    deliveryTimeoutMs,
    requestTimeoutMs,
    retryBackoffMs: positive('retryBackoffMs', options.retryBackoffMs ?? 100, 0),
    retryBackoffMaxMs: positive('retryBackoffMaxMs', options.retryBackoffMaxMs ?? 1000, 0),
    maxRequestSize: positive('maxRequestSize', options.maxRequestSize ?? 1024 * 1024),
    partitioner: options.partitioner,
    serializers:
      serializers?.key === undefined && serializers?.value === undefined ? undefined : serializers,
    partitionerAdaptive: options.partitionerAdaptive ?? true,
    partitionerIgnoreKeys: options.partitionerIgnoreKeys ?? false,
    partitionerAvailabilityTimeoutMs: positive(
      'partitionerAvailabilityTimeoutMs',
      options.partitionerAvailabilityTimeoutMs ?? 0,
      0,
    ),
    random: options.random ?? Math.random,
    logger: options.logger ?? fallbackLogger,
  };
}
