import type { RecordHeader } from '@kafkats/codec';
import { type Logger, silentLogger } from '@kafkats/wire';
import { ConsumerConfigError } from '../consumer/consumer-errors.js';
import { deserializersInvalid } from '../internal/deserialize.js';
import type { Deserializers } from '../serialization.js';

/**
 * How delivered records are acknowledged (Kafka's `share.acknowledgement.mode`):
 * - `'implicit'` (the default): every record a `poll()` delivered and the application did not
 *   acknowledge itself is accepted by the next `poll()`, `commit()` or `close()`;
 * - `'explicit'`: the application acknowledges every delivered record with
 *   `acknowledge(record, type)` before the next `poll()`, which otherwise throws
 *   `ShareAcknowledgeError`.
 */
export type ShareAcknowledgementMode = 'implicit' | 'explicit';

/**
 * What becomes of a delivered record (Kafka's `AcknowledgeType`): `'accept'` processed, never
 * delivered again; `'release'` handed back to be delivered again (to this or another member,
 * with a higher delivery count); `'reject'` unprocessable, never delivered again.
 */
export type AcknowledgeType = 'accept' | 'release' | 'reject';

/** A record a share group delivered to this member: acquired by it until acknowledged. */
export interface ShareRecord<K = Buffer, V = Buffer> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** Timestamp in ms since the epoch. */
  readonly timestamp: bigint;
  /** The key, or null. Without deserializers a view into the fetched bytes. */
  readonly key: K | null;
  /** The value, or null (a tombstone). Without deserializers a view into the fetched bytes. */
  readonly value: V | null;
  readonly headers: readonly RecordHeader[];
  /**
   * How many times the share group has delivered this record, this delivery included: 1 the
   * first time; more after a release, a lock timeout, or a member that left holding it.
   */
  readonly deliveryCount: number;
}

/**
 * How acknowledgements of one partition ended, sent with a ShareFetch, by `commit()` or by
 * `close()` (Kafka's `AcknowledgementCommitCallback`): `error` is null when the partition's
 * leader applied them, else why it did not (records not applied go back to the group when
 * their acquisition lock times out).
 */
export interface ShareAcknowledgementResult {
  readonly topic: string;
  readonly partition: number;
  /** The offsets acknowledged, ascending (gaps, offsets without a record, not included). */
  readonly offsets: readonly bigint[];
  readonly error: Error | null;
}

/** The `ShareConsumer`'s options; Java's names in the README. `groupId` and `topics` are required. */
export interface ShareConsumerOptions<K = Buffer, V = Buffer> {
  /** The share group. */
  readonly groupId: string;
  /** Topics to subscribe to (exact names). */
  readonly topics: readonly string[];
  /** Default `'implicit'` (as Java). */
  readonly acknowledgementMode?: ShareAcknowledgementMode;
  /**
   * Kafka's `max.poll.records`: at most this many records acquired per ShareFetch (the
   * request's `maxRecords` and `batchSize`). Default 500.
   */
  readonly maxPollRecords?: number;
  /** Kafka's `fetch.max.wait.ms`. Default 500. */
  readonly fetchMaxWaitMs?: number;
  /** Kafka's `fetch.min.bytes`. Default 1. */
  readonly fetchMinBytes?: number;
  /** Kafka's `fetch.max.bytes`. Default 52428800. */
  readonly fetchMaxBytes?: number;
  /** Kafka's `client.rack`, sent with the membership. Default null. */
  readonly rackId?: string | null;
  /**
   * Kafka's `default.api.timeout.ms`: how long `commit()` sends acknowledgements again that a
   * leader refused with a retriable error. Default 60000.
   */
  readonly defaultApiTimeoutMs?: number;
  /** Default 100. */
  readonly retryBackoffMs?: number;
  /** Default 1000. */
  readonly retryBackoffMaxMs?: number;
  /** Applied to each delivered record's key and value (null stays null). */
  readonly deserializers?: Deserializers<K, V>;
  /**
   * Called once per partition whose acknowledgements a broker answered (Kafka's
   * `setAcknowledgementCommitCallback`); a throw is logged and ignored.
   */
  readonly onAcknowledgementCommit?: (result: ShareAcknowledgementResult) => void;
  readonly logger?: Logger;
}

/** @internal the options with defaults, checked. */
export interface ResolvedShareConsumerOptions<K, V> {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly acknowledgementMode: ShareAcknowledgementMode;
  readonly maxPollRecords: number;
  readonly fetchMaxWaitMs: number;
  readonly fetchMinBytes: number;
  readonly fetchMaxBytes: number;
  readonly rackId: string | null;
  readonly defaultApiTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly deserializers: Deserializers<K, V> | undefined;
  readonly onAcknowledgementCommit: ((result: ShareAcknowledgementResult) => void) | undefined;
  readonly logger: Logger;
}

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min)
    throw new ConsumerConfigError(`${name} must be an integer >= ${min}, got ${String(value)}`);
  return v;
}

/** @internal checks and completes the options. @throws ConsumerConfigError */
export function resolveShareConsumerOptions<K, V>(
  options: ShareConsumerOptions<K, V>,
): ResolvedShareConsumerOptions<K, V> {
  if (typeof options.groupId !== 'string' || options.groupId === '')
    throw new ConsumerConfigError('groupId must be a non-empty string');
  if (
    !Array.isArray(options.topics) ||
    options.topics.length === 0 ||
    options.topics.some((t) => typeof t !== 'string' || t === '')
  )
    throw new ConsumerConfigError('topics must be a non-empty list of topic names');
  const mode = options.acknowledgementMode ?? 'implicit';
  if (mode !== 'implicit' && mode !== 'explicit')
    throw new ConsumerConfigError(
      `acknowledgementMode must be 'implicit' or 'explicit', got ${JSON.stringify(mode)}`,
    );
  const invalid = deserializersInvalid(options.deserializers);
  if (invalid !== undefined) throw new ConsumerConfigError(invalid);
  return {
    groupId: options.groupId,
    topics: [...new Set(options.topics)],
    acknowledgementMode: mode,
    maxPollRecords: integer('maxPollRecords', options.maxPollRecords, 500, 1),
    fetchMaxWaitMs: integer('fetchMaxWaitMs', options.fetchMaxWaitMs, 500, 0),
    fetchMinBytes: integer('fetchMinBytes', options.fetchMinBytes, 1, 0),
    fetchMaxBytes: integer('fetchMaxBytes', options.fetchMaxBytes, 52_428_800, 1),
    rackId: options.rackId ?? null,
    defaultApiTimeoutMs: integer('defaultApiTimeoutMs', options.defaultApiTimeoutMs, 60_000, 0),
    retryBackoffMs: integer('retryBackoffMs', options.retryBackoffMs, 100, 0),
    retryBackoffMaxMs: integer('retryBackoffMaxMs', options.retryBackoffMaxMs, 1000, 0),
    deserializers: options.deserializers,
    onAcknowledgementCommit: options.onAcknowledgementCommit,
    logger: options.logger ?? silentLogger,
  };
}
