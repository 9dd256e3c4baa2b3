import { type Logger, silentLogger } from '@kafkats/wire';
import type { IsolationLevelName, PartitionBatch } from '../fetch/partition-batch.js';
import type { Deserializers } from '../serialization.js';
import type { TopicPartition } from '../topic-partition.js';
import { ConsumerConfigError } from './consumer-errors.js';
import type { PartitionAssignor } from './partition-assignor.js';

/** A partition as the consumer names it: the same shape as {@link TopicPartition}. */
export type GroupTopicPartition = TopicPartition;

/**
 * Rebalance callbacks (Kafka's `ConsumerRebalanceListener`). Each is awaited before the
 * membership goes on: the coordinator hears of a revocation only after `onRevoked` resolved.
 */
export interface ConsumerRebalanceListener {
  /** Partitions newly owned, after their committed offsets were fetched: `seek` here to override. */
  onAssigned?(partitions: readonly TopicPartition[]): Promise<void> | void;
  /**
   * Partitions given up in a rebalance or on close. Runs after the consumer stopped fetching
   * them, waited for the application to finish their delivered batches and (with
   * `enableAutoCommit`) committed them; `commit()` here still commits them.
   */
  onRevoked?(partitions: readonly TopicPartition[]): Promise<void> | void;
  /** Partitions lost without a chance to commit (the member was fenced or expired). */
  onLost?(partitions: readonly TopicPartition[]): Promise<void> | void;
}

/** The `Consumer`'s options; Java's names in the README. Only `groupId` is required. */
export interface ConsumerOptions<K = Buffer, V = Buffer> {
  /**
   * The consumer group. Required to subscribe; optional with `assign()` (then nothing is
   * committed and partitions start at `autoOffsetReset`).
   */
  readonly groupId?: string;
  /** `'consumer'` (KIP-848, the default as in Kafka 4.x) or `'classic'`. */
  readonly groupProtocol?: 'consumer' | 'classic';
  /** Static membership (KIP-345). */
  readonly groupInstanceId?: string | null;
  /** Topics to subscribe to (exact names); also `subscribe()`. */
  readonly topics?: readonly string[];
  /**
   * Subscribe to every topic whose whole name matches this regex (instead of `topics`); also
   * `subscribePattern()`. KIP-848: sent to the coordinator as SubscribedTopicRegex (RE2/J
   * syntax), matched and re-evaluated by the broker. Classic: matched here (as a JavaScript
   * RegExp) against the cluster's topics, internal ones excluded, again every
   * `metadataMaxAgeMs`.
   */
  readonly topicPattern?: string;
  /**
   * Kafka's `metadata.max.age.ms`: how often a classic regex subscription fetches and matches
   * the topic list again, and how long a preferred read replica a leader named (KIP-392, see
   * `rackId`) is fetched from before the leader is asked again. Default 300000.
   */
  readonly metadataMaxAgeMs?: number;
  /** Where to start a partition without a committed offset. Default `'latest'` (as Java). */
  readonly autoOffsetReset?: 'earliest' | 'latest' | 'none';
  /**
   * Commit finished offsets every `autoCommitIntervalMs`, on revocation and on close. Default
   * true with a `groupId`, false without (true without one is a ConsumerConfigError).
   */
  readonly enableAutoCommit?: boolean;
  /** Default 5000. */
  readonly autoCommitIntervalMs?: number;
  /** Default `'read_uncommitted'` (as Java). */
  readonly isolationLevel?: IsolationLevelName;
  /** Classic protocol only (KIP-848: the broker's `group.consumer.session.timeout.ms`). Default 45000. */
  readonly sessionTimeoutMs?: number;
  /** Classic protocol only (KIP-848: the broker's interval). Default 3000. */
  readonly heartbeatIntervalMs?: number;
  /**
   * Kafka's `max.poll.interval.ms`: a member whose application has not asked for the next batch
   * for this long leaves the group (its partitions are lost) and rejoins on its next read.
   * Default 300000.
   */
  readonly maxPollIntervalMs?: number;
  /** The rebalance timeout sent to the coordinator (Java sends `max.poll.interval.ms`). Default `maxPollIntervalMs`. */
  readonly rebalanceTimeoutMs?: number;
  /** KIP-848 `group.remote.assignor`: `'uniform'` or `'range'`; default null (the broker's). */
  readonly serverAssignor?: string | null;
  /**
   * Classic assignors in preference order: built-in names, or assignors of the application's
   * own ({@link PartitionAssignor}, e.g. one another client's members offer). Default
   * `['cooperative-sticky', 'range']`.
   */
  readonly assignors?: readonly ('cooperative-sticky' | 'range' | PartitionAssignor)[];
  /**
   * KIP-392 `client.rack`: sent to the coordinator (rack-aware assignment) and in Fetch. A
   * leader whose `replica.selector.class` is `RackAwareReplicaSelector` then names a replica in
   * this rack, and the partition is fetched from it; any error there goes back to the leader.
   */
  readonly rackId?: string | null;
  /** Fetch `max.wait.ms`. Default 500. */
  readonly fetchMaxWaitMs?: number;
  /** Fetch `min.bytes`. Default 1. */
  readonly fetchMinBytes?: number;
  /** Fetch `max.bytes`. Default 52428800. */
  readonly fetchMaxBytes?: number;
  /** `max.partition.fetch.bytes`. Default 1048576. */
  readonly maxPartitionFetchBytes?: number;
  /**
   * `max.poll.records`: the most records one batch handed out holds. Default 500. A
   * partition's answer with more is handed out as several batches, in order, each committed as
   * it is processed; the records of one can be collected once it is done, instead of living as
   * long as the whole answer (1 MiB of compressed 100 B records is about 24,000 of them).
   */
  readonly maxPollRecords?: number;
  /** Bound on fetched but undelivered bytes. Default min(2 × `fetchMaxBytes`, 67108864). */
  readonly maxBufferedBytes?: number;
  /** Default the cluster's `requestTimeoutMs`. */
  readonly requestTimeoutMs?: number;
  /** Commits and committed-offset lookups give up after this long. Default 60000. */
  readonly defaultApiTimeoutMs?: number;
  /** Default 100 / 1000. */
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
  /** `check.crcs`. Default true. */
  readonly checkCrcs?: boolean;
  /** Bound on one decompressed batch. Default 268435456. */
  readonly maxUncompressedBytes?: number;
  readonly listeners?: ConsumerRebalanceListener;
  /**
   * `key.deserializer` and `value.deserializer`: turn each record's key and value bytes into
   * `K` and `V` before the batch is handed out (async ones are awaited; order is kept). Default
   * none: keys and values are bytes. A deserializer that fails makes reading that field of
   * that record throw a `DeserializationError` naming the partition and offset; the rest of
   * the batch reads as usual. Built-ins: `stringDeserializer`, `jsonDeserializer()`,
   * `rawDeserializer`.
   */
  readonly deserializers?: Deserializers<K, V>;
  /**
   * Where the consumer logs: `subscribed topics do not exist` at warn. Default the cluster's
   * logger; when neither was given, that warning goes to Node's `process.emitWarning` instead
   * (code `KAFKATS_CONSUMER_TOPIC_MISSING`), so a misspelt topic is never silent.
   */
  readonly logger?: Logger;
  /** Injectable randomness (member ids excepted) for jitter, tests. */
  readonly random?: () => number;
}

/** The group's identity for `Producer.sendOffsetsToTransaction` (Kafka's `ConsumerGroupMetadata`). */
export interface ConsumerGroupMetadata {
  readonly groupId: string;
  /** Classic: the generation. KIP-848: the member epoch. -1 when not a member. */
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

/** An explicit offset for `commit(offsets)`: the next offset to read (last processed + 1). */
export interface ConsumerCommitOffset extends TopicPartition {
  readonly offset: bigint;
  readonly leaderEpoch?: number;
  readonly metadata?: string | null;
}

/** The `run` loop's callback and its stop signal. */
export interface ConsumerRunOptions<K = Buffer, V = Buffer> {
  /** Called for each batch, one at a time; the batch counts as finished when this resolves. */
  eachBatch(batch: PartitionBatch<K, V>): Promise<void> | void;
  /** Ends the loop (the promise resolves); `close()` ends it too. */
  readonly signal?: AbortSignal;
}

export type ResolvedConsumerOptions = Required<
  Omit<
    ConsumerOptions,
    'listeners' | 'requestTimeoutMs' | 'topicPattern' | 'logger' | 'deserializers'
  >
> & {
  readonly listeners: ConsumerRebalanceListener;
  /** Undefined: neither the consumer nor its cluster was given one. */
  readonly logger: Logger | undefined;
  readonly requestTimeoutMs: number | undefined;
  readonly topicPattern: string | null;
};

/**
 * The RegExp a classic member matches whole topic names with.
 * @throws ConsumerConfigError when `pattern` is not a string or does not compile
 */
export function topicRegExp(pattern: string): RegExp {
  if (typeof pattern !== 'string' || pattern === '')
    throw new ConsumerConfigError('topicPattern must be a non-empty string');
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch (error) {
    throw new ConsumerConfigError(
      `topicPattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

function assignorsOf(
  assignors: ConsumerOptions['assignors'],
): ('cooperative-sticky' | 'range' | PartitionAssignor)[] {
  const list = [...(assignors ?? ['cooperative-sticky', 'range'])];
  for (const a of list)
    if (
      typeof a === 'object' &&
      (a === null ||
        typeof a.name !== 'string' ||
        a.name === '' ||
        typeof a.assign !== 'function' ||
        typeof a.subscriptionUserData !== 'function')
    )
      throw new ConsumerConfigError(
        'an assignor object needs a non-empty name, assign() and subscriptionUserData()',
      );
  return list;
}

function positive(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min)
    throw new ConsumerConfigError(`${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/** Applies defaults and checks ranges. @throws ConsumerConfigError */
export function resolveConsumerOptions(
  options: ConsumerOptions<unknown, unknown>,
  clusterLogger?: Logger,
): ResolvedConsumerOptions {
  const groupId = options.groupId ?? '';
  if (typeof groupId !== 'string' || (options.groupId !== undefined && groupId === ''))
    throw new ConsumerConfigError('groupId must be a non-empty string');
  if (groupId === '' && options.enableAutoCommit === true)
    throw new ConsumerConfigError('enableAutoCommit needs a groupId to commit to');
  const topicPattern = options.topicPattern ?? null;
  if (topicPattern !== null) {
    topicRegExp(topicPattern);
    if ((options.topics ?? []).length > 0)
      throw new ConsumerConfigError('topics and topicPattern exclude each other');
  }
  if (groupId === '' && ((options.topics ?? []).length > 0 || topicPattern !== null))
    throw new ConsumerConfigError(
      'a subscription (topics) needs a groupId; assign() reads without one',
    );
  const groupProtocol = options.groupProtocol ?? 'consumer';
  if (groupProtocol !== 'consumer' && groupProtocol !== 'classic')
    throw new ConsumerConfigError(
      `groupProtocol must be 'consumer' or 'classic', got ${String(groupProtocol)}`,
    );
  const autoOffsetReset = options.autoOffsetReset ?? 'latest';
  if (!['earliest', 'latest', 'none'].includes(autoOffsetReset))
    throw new ConsumerConfigError(
      `autoOffsetReset must be 'earliest', 'latest' or 'none', got ${String(autoOffsetReset)}`,
    );
  const isolationLevel = options.isolationLevel ?? 'read_uncommitted';
  if (isolationLevel !== 'read_uncommitted' && isolationLevel !== 'read_committed')
    throw new ConsumerConfigError(
      `isolationLevel must be 'read_uncommitted' or 'read_committed', got ${String(isolationLevel)}`,
    );
  const serverAssignor = options.serverAssignor ?? null;
  if (groupProtocol === 'classic' && serverAssignor !== null)
    throw new ConsumerConfigError("serverAssignor is for groupProtocol 'consumer' (KIP-848) only");
  const topics = [...(options.topics ?? [])];
  for (const t of topics)
    if (typeof t !== 'string' || t === '')
      throw new ConsumerConfigError(
        `topic names must be non-empty strings, got ${JSON.stringify(t)}`,
      );
  const maxPollIntervalMs = positive('maxPollIntervalMs', options.maxPollIntervalMs ?? 300_000);
  const fetchMaxBytes = positive('fetchMaxBytes', options.fetchMaxBytes ?? 52_428_800);
  const heartbeatIntervalMs = positive('heartbeatIntervalMs', options.heartbeatIntervalMs ?? 3000);
  const sessionTimeoutMs = positive('sessionTimeoutMs', options.sessionTimeoutMs ?? 45_000);
  if (groupProtocol === 'classic' && heartbeatIntervalMs >= sessionTimeoutMs)
    throw new ConsumerConfigError('heartbeatIntervalMs must be lower than sessionTimeoutMs');
  return {
    groupId,
    groupProtocol,
    groupInstanceId: options.groupInstanceId ?? null,
    topics,
    topicPattern,
    metadataMaxAgeMs: positive('metadataMaxAgeMs', options.metadataMaxAgeMs ?? 300_000),
    autoOffsetReset,
    enableAutoCommit: options.enableAutoCommit ?? groupId !== '',
    autoCommitIntervalMs: positive('autoCommitIntervalMs', options.autoCommitIntervalMs ?? 5000),
    isolationLevel,
    sessionTimeoutMs,
    heartbeatIntervalMs,
    maxPollIntervalMs,
    rebalanceTimeoutMs: positive(
      'rebalanceTimeoutMs',
      options.rebalanceTimeoutMs ?? maxPollIntervalMs,
    ),
    serverAssignor,
    assignors: assignorsOf(options.assignors),
    rackId: options.rackId ?? null,
    fetchMaxWaitMs: positive('fetchMaxWaitMs', options.fetchMaxWaitMs ?? 500, 0),
    fetchMinBytes: positive('fetchMinBytes', options.fetchMinBytes ?? 1, 0),
    fetchMaxBytes,
    maxPartitionFetchBytes: positive(
      'maxPartitionFetchBytes',
      options.maxPartitionFetchBytes ?? 1_048_576,
    ),
    maxPollRecords: positive('maxPollRecords', options.maxPollRecords ?? 500),
    maxBufferedBytes: positive(
      'maxBufferedBytes',
      options.maxBufferedBytes ?? Math.min(2 * fetchMaxBytes, 67_108_864),
    ),
    requestTimeoutMs: options.requestTimeoutMs,
    defaultApiTimeoutMs: positive('defaultApiTimeoutMs', options.defaultApiTimeoutMs ?? 60_000),
    retryBackoffMs: positive('retryBackoffMs', options.retryBackoffMs ?? 100, 0),
    retryBackoffMaxMs: positive('retryBackoffMaxMs', options.retryBackoffMaxMs ?? 1000, 0),
    checkCrcs: options.checkCrcs ?? true,
    maxUncompressedBytes: positive(
      'maxUncompressedBytes',
      options.maxUncompressedBytes ?? 268_435_456,
    ),
    listeners: options.listeners ?? {},
    logger: options.logger ?? (clusterLogger === silentLogger ? undefined : clusterLogger),
    random: options.random ?? Math.random,
  };
}
