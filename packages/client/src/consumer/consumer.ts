import { ErrorCode, KafkaError } from '@kafkats/codec';
import { type Cluster, retryDelayMs, sleep } from '@kafkats/meta';
import {
  type ConsumerMetricsSnapshot,
  type ConsumerPartitionMetrics,
  clusterLogger,
  type RebalanceTraceContext,
  rebalanceChannel,
} from '../client-diagnostics.js';
import { FetchEngine } from '../fetch/fetch-engine.js';
import type { Fetcher, FetcherConfig, FetchStart } from '../fetch/fetcher.js';
import { type PartitionBatch, recordCount } from '../fetch/partition-batch.js';
import { deserializeBatch, deserializersInvalid } from '../internal/deserialize.js';
import { requireCluster } from '../internal/require-cluster.js';
import type { Deserializers } from '../serialization.js';
import type { TopicPartition } from '../topic-partition.js';
import {
  ConsumerClosedError,
  ConsumerConfigError,
  NoOffsetForPartitionError,
} from './consumer-errors.js';
import {
  type ConsumerCommitOffset,
  type ConsumerGroupMetadata,
  type ConsumerOptions,
  type ConsumerRunOptions,
  type ResolvedConsumerOptions,
  resolveConsumerOptions,
  topicRegExp,
} from './consumer-options.js';
import type {
  GroupMembership,
  MembershipConfig,
  MembershipListener,
} from './internal/contracts.js';
import {
  type CommittedPosition,
  commitOffsets,
  fetchCommitted,
  type OffsetCallConfig,
  type OffsetToCommit,
} from './internal/group-offsets.js';
import { ManualAssignment } from './internal/manual-assignment.js';
import { ClassicMembership } from './internal/membership-classic.js';
import { ConsumerProtocolMembership } from './internal/membership-consumer.js';

/**
 * How the consumer gets its parts; tests inject fakes. Not exported from the package.
 * @internal
 */
export interface ConsumerParts {
  readonly fetcher?: (config: FetcherConfig) => Fetcher;
  readonly membership?: (config: MembershipConfig) => GroupMembership;
}

const keyOf = (p: TopicPartition) => `${p.topic}\u0000${p.partition}`;

// A connection the pool closed under the request (the metadata moved or dropped its broker) fails
// it with a retriable ConnectionError, as Java's DisconnectException is retriable.
const retriable = (error: unknown) => error instanceof KafkaError && error.retriable;

interface Finished {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly leaderEpoch: number;
}

interface Buffered {
  readonly batch: PartitionBatch;
  readonly token: number;
}

/**
 * An owned partition the fetcher does not read yet, Java's INITIALIZING fetch state: it waits
 * for its committed offset (`'committed'`: OffsetFetch, retried while it fails), or, with none
 * committed and `autoOffsetReset` 'none', for the application to seek it (`'seek'`).
 */
interface Unpositioned extends TopicPartition {
  readonly waitsFor: 'committed' | 'seek';
}

/**
 * A group consumer, as Java's `KafkaConsumer`: joins `groupId` (KIP-848's
 * `ConsumerGroupHeartbeat` by default, the classic protocol with `groupProtocol: 'classic'`),
 * reads the partitions the group gives it and commits what the application finished.
 *
 * **Finished** is what commits count: a batch handed out by the iterator is finished when the
 * next one is asked for (or the loop is left, as Java commits what `poll` returned); in
 * {@link run} when `eachBatch` resolved. A partition's finished offset is its last finished
 * batch's `nextOffset`. Commits (manual, automatic every `autoCommitIntervalMs`, on revocation
 * before the coordinator hears of it, on close) send finished offsets that changed.
 */
export class Consumer<K = Buffer, V = Buffer> implements AsyncIterable<PartitionBatch<K, V>> {
  readonly #cluster: Cluster;
  readonly #options: ResolvedConsumerOptions;
  readonly #deserializers: Deserializers<K, V> | undefined;
  readonly #parts: ConsumerParts;
  #topics: readonly string[];
  // A regex subscription: KIP-848 sends it to the coordinator; classic matches it here.
  #pattern: string | null;
  #patternTimer: NodeJS.Timeout | undefined;
  // Set by assign(): partitions named by the application, no group membership.
  #manual: TopicPartition[] | undefined;
  #membership: GroupMembership | undefined;
  #fetcher: Fetcher | undefined;
  #started: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;
  #fatal: Error | undefined;
  // Errors to hand to the application on its next read (no offset for a partition, a throwing
  // rebalance callback): Java throws them from the next poll.
  readonly #pendingErrors: Error[] = [];
  readonly #owned = new Map<string, TopicPartition>();
  readonly #paused = new Set<string>();
  // Bumped whenever a partition's position jumps (assign, seek, revoke): buffered batches
  // fetched before carry the old token and are dropped.
  readonly #tokens = new Map<string, number>();
  #buffer: Buffered[] = [];
  readonly #finished = new Map<string, Finished>();
  readonly #committed = new Map<string, bigint>();
  // Batches handed out and not finished yet, per partition; revocation waits for them.
  readonly #inFlight = new Map<string, number>();
  #inFlightChanged: (() => void) | undefined;
  #pollAbort = new AbortController();
  #reading = false;
  #commitChain: Promise<void> = Promise.resolve();
  #autoCommitTimer: NodeJS.Timeout | undefined;
  // max.poll.interval.ms: when the application last asked for a batch (undefined before its
  // first), whether it is asking now, and the member that left for not asking in time.
  #lastPollAt: number | undefined;
  #polling = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #staleLeave: Promise<void> | undefined;
  #newMembership: (() => GroupMembership) | undefined;
  // Owned partitions without a position. A new assignment puts a new entry, so an OffsetFetch
  // answer for a partition revoked (or sought) meanwhile finds another entry, or none, and is
  // dropped.
  readonly #unpositioned = new Map<string, Unpositioned>();
  // The background OffsetFetch retries (one loop at a time), ended by close() and fatal errors.
  #offsetRetry: Promise<void> | undefined;
  readonly #offsetAbort = new AbortController();
  // The member leaving after a fatal error of the consumer's own (an OffsetFetch refused).
  #fatalLeave: Promise<void> | undefined;
  // Subscribed names already warned about as missing.
  readonly #warnedMissing = new Set<string>();
  // What metrics() reports: handed-out records and bytes (per owned partition too, reset when
  // it is assigned again), assignment changes and commits with their latencies.
  readonly #stats = {
    records: 0,
    bytes: 0,
    rebalances: 0,
    rebalanceTotalMs: 0,
    rebalanceMaxMs: 0,
    commits: 0,
    commitsFailed: 0,
    commitTotalMs: 0,
    commitMaxMs: 0,
  };
  readonly #partitionCounts = new Map<string, { records: number; bytes: number }>();

  /**
   * @throws ConsumerConfigError for an option out of range (see the README's table)
   */
  constructor(cluster: Cluster, options: ConsumerOptions<K, V>, parts: ConsumerParts = {}) {
    requireCluster('Consumer', cluster);
    this.#cluster = cluster;
    this.#options = resolveConsumerOptions(options, clusterLogger(cluster));
    const invalid = deserializersInvalid(options.deserializers);
    if (invalid !== undefined) throw new ConsumerConfigError(invalid);
    this.#deserializers = options.deserializers;
    this.#parts = parts;
    this.#topics = this.#options.topics;
    this.#pattern = this.#options.topicPattern;
  }

  /**
   * Replaces the subscription; a running member tells the coordinator with its next heartbeat.
   * @throws ConsumerConfigError without a `groupId`, or after `assign()`
   */
  subscribe(topics: readonly string[]): void {
    this.#checkOpen();
    if (this.#manual !== undefined)
      throw new ConsumerConfigError(
        'subscribe() after assign(): a consumer either subscribes or is assigned partitions',
      );
    if (this.#options.groupId === '')
      throw new ConsumerConfigError('subscribe() needs a groupId; assign() reads without one');
    for (const t of topics)
      if (typeof t !== 'string' || t === '')
        throw new ConsumerConfigError(
          `topic names must be non-empty strings, got ${JSON.stringify(t)}`,
        );
    this.#topics = [...topics];
    this.#pattern = null;
    this.#membership?.subscribe(this.#topics, null);
    if (this.#membership !== undefined) this.#warnMissingTopics().catch(() => undefined);
  }

  /**
   * Subscribes to every topic whose whole name matches `pattern` (replacing the subscription).
   * KIP-848: the coordinator matches (RE2/J syntax) and follows topics created or deleted
   * later. Classic: matched here as a JavaScript RegExp against the cluster's topics (internal
   * ones excluded), again every `metadataMaxAgeMs`.
   * @throws ConsumerConfigError without a `groupId`, after `assign()`, for a pattern that does
   *   not compile
   */
  subscribePattern(pattern: string): void {
    this.#checkOpen();
    if (this.#manual !== undefined)
      throw new ConsumerConfigError(
        'subscribePattern() after assign(): a consumer either subscribes or is assigned partitions',
      );
    if (this.#options.groupId === '')
      throw new ConsumerConfigError('subscribePattern() needs a groupId');
    topicRegExp(pattern);
    this.#pattern = pattern;
    if (this.#options.groupProtocol === 'consumer') {
      this.#topics = [];
      this.#membership?.subscribe([], pattern);
    } else if (this.#membership !== undefined) {
      this.#rematch().catch(() => undefined);
    }
  }

  /** The regex subscription, if any. */
  subscriptionPattern(): string | undefined {
    return this.#pattern ?? undefined;
  }

  /**
   * Manual assignment (Java's `assign`): reads exactly these partitions, without joining a
   * group. Replaces an earlier assignment: partitions dropped are revoked (with
   * `enableAutoCommit` their finished offsets are committed first), partitions added start at
   * the group's committed offset (with a `groupId`) or at `autoOffsetReset`. Rebalance
   * listeners are not called. Resolves once the change is applied (reading need not wait).
   * @throws ConsumerConfigError after a subscription, for a bad partition
   */
  assign(partitions: readonly TopicPartition[]): Promise<void> {
    this.#checkOpen();
    if (
      this.#topics.length > 0 ||
      this.#pattern !== null ||
      (this.#membership !== undefined && this.#manual === undefined)
    )
      throw new ConsumerConfigError(
        'assign() on a subscribed consumer: a consumer either subscribes or is assigned partitions',
      );
    const unique = new Map<string, TopicPartition>();
    for (const p of partitions) {
      if (typeof p?.topic !== 'string' || p.topic === '')
        throw new ConsumerConfigError(
          `assign: topic names must be non-empty strings, got ${JSON.stringify(p?.topic)}`,
        );
      if (!Number.isInteger(p.partition) || p.partition < 0)
        throw new ConsumerConfigError(
          `assign: ${p.topic}: partition must be an integer >= 0, got ${p.partition}`,
        );
      unique.set(keyOf(p), { topic: p.topic, partition: p.partition });
    }
    this.#manual = [...unique.values()];
    const membership = this.#membership;
    if (membership instanceof ManualAssignment) return membership.assign(this.#manual);
    return Promise.resolve();
  }

  /** The subscribed topics (classic regex subscriptions: the names matched so far). */
  subscription(): string[] {
    return [...this.#topics];
  }

  /** The partitions this member owns now. */
  assignment(): TopicPartition[] {
    return [...this.#owned.values()];
  }

  /** The group's identity for `Producer.sendOffsetsToTransaction` (generation -1 until joined). */
  groupMetadata(): ConsumerGroupMetadata {
    const identity = this.#membership?.identity;
    return {
      groupId: this.#options.groupId,
      generationId: identity?.generationId ?? -1,
      memberId: identity?.memberId ?? '',
      groupInstanceId: this.#options.groupInstanceId,
    };
  }

  /**
   * Joins the group (if not yet) and waits for the first assignment. Reading starts it too.
   * @throws GroupProtocolUnsupportedError, GroupMembershipError, ConsumerClosedError
   */
  start(): Promise<void> {
    this.#checkOpen();
    this.#started ??= this.#start();
    return this.#started;
  }

  /**
   * Batches of records, one partition each, as they come (Kafka's `poll`, one batch at a time).
   * One iteration at a time. The iteration ends on `close()`; it throws a fatal group error
   * (an OffsetFetch refused for good too), NoOffsetForPartitionError, or the fetcher's error it
   * cannot retry.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<PartitionBatch<K, V>, void, undefined> {
    this.#beginReading();
    let current: PartitionBatch | undefined;
    try {
      if (!(await this.#joined())) return;
      for (;;) {
        if (current !== undefined) {
          this.#finish(current, true);
          current = undefined;
        }
        const batch = await this.#next(undefined);
        if (batch === undefined) return;
        current = batch;
        const out = deserializeBatch(batch, this.#deserializers);
        yield out instanceof Promise ? await out : out;
      }
    } finally {
      // Leaving the loop counts the batch in hand as finished, as Java commits what poll returned.
      if (current !== undefined) this.#finish(current, true);
      this.#reading = false;
    }
  }

  /**
   * Calls `eachBatch` for each batch, one at a time, until `signal` aborts or the consumer
   * closes (then resolves). A batch is finished when `eachBatch` resolves; when it rejects the
   * partition goes back to its finished offset and `run` rejects with that error.
   */
  async run(options: ConsumerRunOptions<K, V>): Promise<void> {
    this.#beginReading();
    try {
      if (!(await this.#joined())) return;
      for (;;) {
        if (options.signal?.aborted) return;
        const batch = await this.#next(options.signal);
        if (batch === undefined) return;
        try {
          const out = deserializeBatch(batch, this.#deserializers);
          await options.eachBatch(out instanceof Promise ? await out : out);
        } catch (error) {
          this.#finish(batch, false);
          const key = keyOf(batch);
          const back = this.#finished.get(key)?.offset ?? batch.fetchOffset;
          if (this.#owned.has(key)) this.seek(batch, back);
          throw error;
        }
        this.#finish(batch, true);
      }
    } finally {
      this.#reading = false;
    }
  }

  /**
   * Commits finished offsets (or exactly `offsets`) and resolves once OffsetCommit succeeded.
   * Commits run one at a time, in call order.
   * @throws CommitFailedError when the member no longer owns them or the coordinator refused
   */
  commit(offsets?: readonly ConsumerCommitOffset[]): Promise<void> {
    // Allowed while closing: a rebalance listener's onRevoked commits during close().
    if (this.#closed) return Promise.reject(new ConsumerClosedError('the consumer is closed'));
    if (this.#options.groupId === '')
      return Promise.reject(new ConsumerConfigError('commit() needs a groupId'));
    return this.#enqueueCommit(offsets);
  }

  /**
   * Starts a commit of the finished offsets without waiting; `callback` hears how it went
   * (Kafka's `commitAsync`). Ordered with the other commits.
   */
  commitAsync(callback?: (error: Error | undefined) => void): void {
    if (this.#closed) throw new ConsumerClosedError('the consumer is closed');
    if (this.#options.groupId === '')
      throw new ConsumerConfigError('commitAsync() needs a groupId');
    this.#enqueueCommit(undefined).then(
      () => callback?.(undefined),
      (error: unknown) => callback?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * The group's committed offsets for `partitions` (OffsetFetch with `requireStable`);
   * undefined for a partition without one.
   */
  async committed(
    partitions: readonly TopicPartition[],
  ): Promise<Map<string, { offset: bigint; leaderEpoch: number } | undefined>> {
    if (this.#options.groupId === '') throw new ConsumerConfigError('committed() needs a groupId');
    const answer = await fetchCommitted(this.#offsetCall(), partitions);
    const result = new Map<string, { offset: bigint; leaderEpoch: number } | undefined>();
    for (const p of partitions) result.set(`${p.topic}-${p.partition}`, undefined);
    for (const c of answer)
      if (c.offset >= 0n)
        result.set(`${c.topic}-${c.partition}`, { offset: c.offset, leaderEpoch: c.leaderEpoch });
    return result;
  }

  /** Stops delivering (and fetching) owned partitions until `resume`; positions are kept. */
  pause(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) this.#paused.add(keyOf(p));
    this.#fetcher?.pause(partitions);
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) this.#paused.delete(keyOf(p));
    this.#fetcher?.resume(partitions);
  }

  /** The paused partitions. */
  paused(): TopicPartition[] {
    return [...this.#owned.values()].filter((p) => this.#paused.has(keyOf(p)));
  }

  /**
   * Moves an owned partition's position: the next batch starts at `offset`. Batches buffered
   * for it are dropped. A partition without a position yet (its committed offset not fetched, or
   * none under `autoOffsetReset: 'none'`) starts there, whatever OffsetFetch answers later.
   * @throws ConsumerConfigError for a partition not owned, or a negative offset
   */
  seek(partition: TopicPartition, offset: bigint): void {
    const key = keyOf(partition);
    if (!this.#owned.has(key) || this.#fetcher === undefined)
      throw new ConsumerConfigError(
        `seek: ${partition.topic}-${partition.partition} is not assigned to this consumer`,
      );
    if (offset < 0n) throw new ConsumerConfigError(`seek: offset ${offset} is negative`);
    this.#bump(key);
    const p = { topic: partition.topic, partition: partition.partition };
    if (this.#unpositioned.delete(key)) {
      // No position yet: the seek gives it one, and a committed offset fetched later is ignored
      // (as Java's seek ends the INITIALIZING state).
      this.#startFetching([{ ...p, start: { offset } }]);
      return;
    }
    this.#fetcher.seek(p, offset);
  }

  /**
   * Counters since the consumer was made, and each owned partition's position, committed
   * offset, high-water mark and lag (Kafka's `records-lag`: what `kafka-consumer-groups.sh`
   * shows as LAG once the position is committed), records and bytes handed out, and the broker
   * it is fetched from. Cheap: read it as often as a dashboard needs.
   */
  metrics(): ConsumerMetricsSnapshot {
    const s = this.#stats;
    const fetch = this.#fetcher?.fetchStats();
    const readCommitted = this.#options.isolationLevel === 'read_committed';
    let lag = 0n;
    const partitions: ConsumerPartitionMetrics[] = [];
    for (const [key, p] of this.#owned) {
      const stats = this.#fetcher?.partitionStats(p);
      const position = this.position(p) ?? -1n;
      const end = (readCommitted ? stats?.lastStableOffset : stats?.highWatermark) ?? -1n;
      const partitionLag = position < 0n || end < 0n ? -1n : end > position ? end - position : 0n;
      if (partitionLag > 0n) lag += partitionLag;
      const counts = this.#partitionCounts.get(key);
      partitions.push({
        topic: p.topic,
        partition: p.partition,
        position,
        committed: this.#committed.get(key) ?? -1n,
        highWatermark: stats?.highWatermark ?? -1n,
        lastStableOffset: stats?.lastStableOffset ?? -1n,
        lag: partitionLag,
        records: counts?.records ?? 0,
        bytes: counts?.bytes ?? 0,
        leaderId: stats?.leaderId,
        readReplicaId: stats?.readReplicaId,
      });
    }
    const fetches = fetch?.requests ?? 0;
    return {
      recordsConsumed: s.records,
      bytesConsumed: s.bytes,
      fetches,
      fetchesFailed: fetch?.failed ?? 0,
      fetchLatencyAvgMs: fetches === 0 ? 0 : (fetch?.latencyTotalMs ?? 0) / fetches,
      fetchLatencyMaxMs: fetch?.latencyMaxMs ?? 0,
      rebalances: s.rebalances,
      rebalanceLatencyAvgMs: s.rebalances === 0 ? 0 : s.rebalanceTotalMs / s.rebalances,
      rebalanceLatencyMaxMs: s.rebalanceMaxMs,
      commits: s.commits,
      commitsFailed: s.commitsFailed,
      commitLatencyAvgMs: s.commits === 0 ? 0 : s.commitTotalMs / s.commits,
      commitLatencyMaxMs: s.commitMaxMs,
      partitions,
      lag,
    };
  }

  /**
   * One assignment change taken in (`work`): timed for metrics, traced on `kafkats:rebalance`,
   * logged at info (warn when it failed).
   */
  async #rebalance(
    kind: RebalanceTraceContext['kind'],
    partitions: readonly TopicPartition[],
    work: () => Promise<void>,
  ): Promise<void> {
    const groupId = this.#options.groupId;
    const started = performance.now();
    const context: RebalanceTraceContext = {
      groupId,
      kind,
      partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
      ownedAfter: 0,
      durationMs: 0,
    };
    const finish = () => {
      const tookMs = performance.now() - started;
      context.durationMs = tookMs;
      context.ownedAfter = this.#owned.size;
      const s = this.#stats;
      s.rebalances++;
      s.rebalanceTotalMs += tookMs;
      if (tookMs > s.rebalanceMaxMs) s.rebalanceMaxMs = tookMs;
    };
    // A partition's counts start again with each assignment of it.
    for (const p of partitions) this.#partitionCounts.delete(keyOf(p));
    const run = async () => {
      try {
        await work();
      } finally {
        finish();
      }
    };
    const logger = this.#options.logger;
    const fields = () => ({
      groupId,
      partitions: context.partitions.map((p) => `${p.topic}-${p.partition}`),
      owned: context.ownedAfter,
      durationMs: Math.round(context.durationMs),
    });
    try {
      if (rebalanceChannel.hasSubscribers) await rebalanceChannel.tracePromise(run, context);
      else await run();
      logger?.info(fields(), `partitions ${kind}`);
    } catch (error) {
      logger?.warn({ ...fields(), error: String(error) }, `partitions ${kind}: failed`);
      throw error;
    }
  }

  /**
   * The offset of the next record this consumer will hand out for an owned partition; undefined
   * while it has no position (its committed offset is still being fetched).
   */
  position(partition: TopicPartition): bigint | undefined {
    const key = keyOf(partition);
    if (!this.#owned.has(key)) return undefined;
    const token = this.#tokens.get(key) ?? 0;
    const buffered = this.#buffer.find((b) => b.token === token && keyOf(b.batch) === key);
    if (buffered !== undefined) return buffered.batch.fetchOffset;
    return this.#fetcher?.position(partition)?.offset;
  }

  /**
   * Stops reading, commits finished offsets (with `enableAutoCommit`, through the revocation of
   * everything owned), leaves the group and closes the fetcher. The cluster stays open.
   * Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  // --- internals -------------------------------------------------------------------------

  #checkOpen(): void {
    if (this.#closing !== undefined) throw new ConsumerClosedError('the consumer is closed');
    if (this.#fatal !== undefined)
      throw new ConsumerClosedError(`the consumer stopped: ${this.#fatal.message}`, this.#fatal);
  }

  /** Starts (or waits for) the join; false when close() ended it first. */
  async #joined(): Promise<boolean> {
    try {
      await this.start();
      return true;
    } catch (error) {
      if (this.#closing !== undefined && this.#fatal === undefined) return false;
      throw error;
    }
  }

  /**
   * A read begun after close() (or after a fatal error) throws ConsumerClosedError, as Java's
   * poll on a closed consumer throws; a read under way when close() is called ends quietly.
   */
  #beginReading(): void {
    this.#checkOpen();
    if (this.#reading)
      throw new ConsumerConfigError(
        'the consumer is already being read (one iteration or run at a time)',
      );
    this.#reading = true;
  }

  async #start(): Promise<void> {
    const o = this.#options;
    if (this.#manual === undefined && o.groupId === '')
      throw new ConsumerConfigError('no groupId to join: pass one, or assign() partitions');
    const createFetcher = this.#parts.fetcher ?? ((c: FetcherConfig) => new FetchEngine(c));
    this.#fetcher = createFetcher({
      cluster: this.#cluster,
      isolationLevel: o.isolationLevel,
      autoOffsetReset: o.autoOffsetReset,
      maxWaitMs: o.fetchMaxWaitMs,
      minBytes: o.fetchMinBytes,
      maxBytes: o.fetchMaxBytes,
      partitionMaxBytes: o.maxPartitionFetchBytes,
      maxBatchRecords: o.maxPollRecords,
      maxBufferedBytes: o.maxBufferedBytes,
      requestTimeoutMs: o.requestTimeoutMs ?? this.#cluster.requestTimeoutMs,
      retryBackoffMs: o.retryBackoffMs,
      retryBackoffMaxMs: o.retryBackoffMaxMs,
      verifyCrc: o.checkCrcs,
      maxUncompressedBytes: o.maxUncompressedBytes,
      rackId: o.rackId,
      readReplicaMaxAgeMs: o.metadataMaxAgeMs,
      random: o.random,
      ...(o.logger === undefined ? {} : { logger: o.logger }),
    });
    if (this.#pattern !== null && this.#manual === undefined && o.groupProtocol === 'classic') {
      await this.#rematch();
      if (this.#closing !== undefined) throw new ConsumerClosedError('the consumer is closed');
      this.#patternTimer = setInterval(
        () => this.#rematch().catch(() => undefined),
        o.metadataMaxAgeMs,
      );
      this.#patternTimer.unref?.();
    }
    const listener: MembershipListener = {
      onAssigned: (ps) => this.#rebalance('assigned', ps, () => this.#onAssigned(ps)),
      onRevoked: (ps) => this.#rebalance('revoked', ps, () => this.#onRevoked(ps)),
      onLost: (ps) => this.#rebalance('lost', ps, () => this.#onLost(ps)),
      onFatal: (error) => this.#onFatal(error),
    };
    const config: MembershipConfig = {
      cluster: this.#cluster,
      groupId: o.groupId,
      groupInstanceId: o.groupInstanceId,
      rackId: o.rackId,
      topics: this.#topics,
      topicPattern: o.groupProtocol === 'consumer' ? this.#pattern : null,
      sessionTimeoutMs: o.sessionTimeoutMs,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs,
      heartbeatIntervalMs: o.heartbeatIntervalMs,
      serverAssignor: o.serverAssignor,
      assignors: o.assignors,
      retryBackoffMs: o.retryBackoffMs,
      retryBackoffMaxMs: o.retryBackoffMaxMs,
      listener,
      random: o.random,
    };
    const createMembership =
      this.#manual !== undefined
        ? () => new ManualAssignment(listener, this.#manual ?? [])
        : (this.#parts.membership ??
          (o.groupProtocol === 'consumer'
            ? (c: MembershipConfig) => new ConsumerProtocolMembership(c)
            : (c: MembershipConfig) => new ClassicMembership(c)));
    this.#membership = createMembership(config);
    if (this.#manual === undefined)
      this.#newMembership = () =>
        createMembership({
          ...config,
          topics: this.#topics,
          topicPattern: o.groupProtocol === 'consumer' ? this.#pattern : null,
        });
    if (this.#manual === undefined) {
      this.#pollTimer = setInterval(
        () => this.#checkPollInterval(),
        Math.max(10, Math.min(1000, Math.floor(o.maxPollIntervalMs / 4))),
      );
      this.#pollTimer.unref?.();
    }
    if (o.enableAutoCommit) {
      this.#autoCommitTimer = setInterval(() => {
        if (this.#closing !== undefined || this.#fatal !== undefined) return;
        this.#enqueueCommit(undefined).catch(() => undefined);
      }, o.autoCommitIntervalMs);
      this.#autoCommitTimer.unref?.();
    }
    try {
      await this.#membership.start();
    } catch (error) {
      if (this.#closing === undefined)
        this.#fatal ??= error instanceof Error ? error : new Error(String(error));
      this.#stopTimers();
      throw error;
    }
    if (this.#manual === undefined) await this.#warnMissingTopics().catch(() => undefined);
  }

  /**
   * Warns once per name about subscribed topics the brokers answer UNKNOWN_TOPIC_OR_PARTITION
   * for. The member stays subscribed (the group assigns a topic's partitions once it exists, as
   * with Java's consumer), so without the warning a misspelt name reads nothing, silently.
   */
  async #warnMissingTopics(): Promise<void> {
    if (this.#pattern !== null) return;
    const names = this.#topics.filter((t) => !this.#warnedMissing.has(t));
    if (names.length === 0) return;
    // Subscribed topics that exist are in the snapshot once assigned; only others are asked for.
    if (names.some((t) => this.#cluster.snapshot().topic(t) === undefined))
      await this.#cluster.refreshTopics(names).catch(() => undefined);
    const snapshot = this.#cluster.snapshot();
    const missing = names.filter(
      (t) => snapshot.topic(t)?.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
    if (missing.length === 0 || this.#closing !== undefined) return;
    for (const t of missing) this.#warnedMissing.add(t);
    const groupId = this.#options.groupId;
    const message = `consumer of group ${JSON.stringify(groupId)}: subscribed topic${missing.length === 1 ? '' : 's'} ${missing.map((t) => JSON.stringify(t)).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist; the group assigns ${missing.length === 1 ? 'its' : 'their'} partitions once created`;
    const logger = this.#options.logger;
    if (logger !== undefined) logger.warn({ groupId, topics: missing }, message);
    else
      process.emitWarning(message, {
        type: 'KafkatsWarning',
        code: 'KAFKATS_CONSUMER_TOPIC_MISSING',
      });
  }

  /**
   * Classic regex subscription: fetches every topic's name and subscribes to the matching ones
   * (Java's `ConsumerMetadata` with a pattern, internal topics excluded).
   */
  async #rematch(): Promise<void> {
    const pattern = this.#pattern;
    if (pattern === null) return;
    const snapshot = await this.#cluster.refresh();
    if (this.#pattern !== pattern) return;
    const re = topicRegExp(pattern);
    const matched = snapshot.topics
      .filter((t) => !t.isInternal && re.test(t.name))
      .map((t) => t.name)
      .sort();
    if (matched.join('\u0000') === [...this.#topics].sort().join('\u0000')) return;
    this.#topics = matched;
    this.#membership?.subscribe(matched, null);
  }

  #offsetCall(): OffsetCallConfig {
    return {
      cluster: this.#cluster,
      groupId: this.#options.groupId,
      retryBackoffMs: this.#options.retryBackoffMs,
      retryBackoffMaxMs: this.#options.retryBackoffMaxMs,
      timeoutMs: this.#options.defaultApiTimeoutMs,
      random: this.#options.random,
    };
  }

  #bump(key: string): void {
    this.#tokens.set(key, (this.#tokens.get(key) ?? 0) + 1);
  }

  /** The next deliverable batch; undefined when the read ends (close, signal). */
  async #next(signal: AbortSignal | undefined): Promise<PartitionBatch | undefined> {
    this.#polling = true;
    try {
      if (this.#staleLeave !== undefined) await this.#rejoin();
      return await this.#nextBatch(signal);
    } finally {
      this.#polling = false;
      this.#lastPollAt = Date.now();
    }
  }

  /**
   * Java's poll timer: a member whose application has not asked for a batch for
   * `maxPollIntervalMs` leaves the group (its partitions are lost: no commit, `onLost`), so that
   * the group can move on without waiting for the session to time out; it rejoins on the next read.
   */
  #checkPollInterval(): void {
    const last = this.#lastPollAt;
    if (
      last === undefined ||
      this.#polling ||
      this.#staleLeave !== undefined ||
      this.#closing !== undefined ||
      this.#fatal !== undefined ||
      this.#membership === undefined ||
      Date.now() - last <= this.#options.maxPollIntervalMs
    )
      return;
    this.#staleLeave = this.#membership.leave().catch(() => undefined);
  }

  /** After a poll-interval expiry: a new membership joins once the old one has left. */
  async #rejoin(): Promise<void> {
    await this.#staleLeave;
    if (this.#closing !== undefined || this.#newMembership === undefined) return;
    const membership = this.#newMembership();
    this.#membership = membership;
    this.#staleLeave = undefined;
    try {
      await membership.start();
    } catch (error) {
      if (this.#closing === undefined)
        this.#fatal ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    }
  }

  async #nextBatch(signal: AbortSignal | undefined): Promise<PartitionBatch | undefined> {
    for (;;) {
      const error = this.#pendingErrors.shift();
      if (error !== undefined) throw error;
      if (this.#fatal !== undefined) throw this.#fatal;
      if (this.#closing !== undefined || signal?.aborted) return undefined;
      const batch = this.#takeBuffered();
      if (batch !== undefined) return batch;
      const fetcher = this.#fetcher;
      if (fetcher === undefined) return undefined;
      const poll = this.#pollAbort.signal;
      const onAbort = () => this.#pollAbort.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let batches: PartitionBatch[];
      try {
        batches = await fetcher.poll(poll);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        if (this.#pollAbort.signal.aborted) this.#pollAbort = new AbortController();
      }
      for (const b of batches) {
        const key = keyOf(b);
        if (this.#owned.has(key))
          this.#buffer.push({ batch: b, token: this.#tokens.get(key) ?? 0 });
      }
    }
  }

  #takeBuffered(): PartitionBatch | undefined {
    for (let i = 0; i < this.#buffer.length; i++) {
      const { batch, token } = this.#buffer[i]!;
      const key = keyOf(batch);
      if (!this.#owned.has(key) || token !== (this.#tokens.get(key) ?? 0)) {
        this.#buffer.splice(i--, 1);
        continue;
      }
      if (this.#paused.has(key)) continue;
      this.#buffer.splice(i, 1);
      const count = recordCount(batch);
      if (count === 0) {
        // Only control records or an aborted transaction: nothing to hand out, but the
        // position moves past them and a commit must too.
        this.#recordFinished(batch);
        i--;
        continue;
      }
      this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1);
      this.#stats.records += count;
      this.#stats.bytes += batch.sizeInBytes;
      const counts = this.#partitionCounts.get(key);
      if (counts === undefined)
        this.#partitionCounts.set(key, { records: count, bytes: batch.sizeInBytes });
      else {
        counts.records += count;
        counts.bytes += batch.sizeInBytes;
      }
      return batch;
    }
    return undefined;
  }

  #finish(batch: PartitionBatch, done: boolean): void {
    const key = keyOf(batch);
    const n = (this.#inFlight.get(key) ?? 1) - 1;
    if (n <= 0) this.#inFlight.delete(key);
    else this.#inFlight.set(key, n);
    if (done) this.#recordFinished(batch);
    this.#inFlightChanged?.();
  }

  #recordFinished(batch: PartitionBatch): void {
    const key = keyOf(batch);
    if (!this.#owned.has(key)) return;
    const previous = this.#finished.get(key);
    if (previous !== undefined && previous.offset >= batch.nextOffset) return;
    this.#finished.set(key, {
      topic: batch.topic,
      partition: batch.partition,
      offset: batch.nextOffset,
      // The epoch of the last record read (KIP-320), else the one fetched with.
      leaderEpoch: batch.lastLeaderEpoch >= 0 ? batch.lastLeaderEpoch : batch.leaderEpoch,
    });
  }

  #enqueueCommit(offsets: readonly ConsumerCommitOffset[] | undefined): Promise<void> {
    const run = this.#commitChain.then(() => this.#commitNow(offsets, undefined));
    this.#commitChain = run.catch(() => undefined);
    return run;
  }

  async #commitNow(
    explicit: readonly ConsumerCommitOffset[] | undefined,
    only: ReadonlySet<string> | undefined,
  ): Promise<void> {
    const membership = this.#membership;
    if (membership === undefined) return;
    let offsets: OffsetToCommit[];
    if (explicit !== undefined) offsets = [...explicit];
    else {
      offsets = [];
      for (const [key, f] of this.#finished) {
        if (only !== undefined && !only.has(key)) continue;
        if (this.#committed.get(key) === f.offset) continue;
        offsets.push({
          topic: f.topic,
          partition: f.partition,
          offset: f.offset,
          ...(f.leaderEpoch >= 0 ? { leaderEpoch: f.leaderEpoch } : {}),
        });
      }
    }
    if (offsets.length === 0) return;
    const started = performance.now();
    try {
      await commitOffsets(this.#offsetCall(), offsets, () => membership.identity);
    } catch (error) {
      this.#stats.commitsFailed++;
      throw error;
    } finally {
      const tookMs = performance.now() - started;
      this.#stats.commits++;
      this.#stats.commitTotalMs += tookMs;
      if (tookMs > this.#stats.commitMaxMs) this.#stats.commitMaxMs = tookMs;
    }
    for (const o of offsets) {
      const key = keyOf(o);
      const known = this.#committed.get(key);
      if (known === undefined || known < o.offset || explicit !== undefined)
        this.#committed.set(key, o.offset);
    }
  }

  /**
   * Newly owned partitions are owned at once, without a position, until OffsetFetch gives them
   * their committed offsets (then they start there, else at `autoOffsetReset`); the listener
   * runs after that first attempt, so a `seek` there wins.
   */
  async #onAssigned(partitions: readonly TopicPartition[]): Promise<void> {
    const waiting: Unpositioned[] = [];
    for (const p of partitions) {
      const key = keyOf(p);
      const entry: Unpositioned = { topic: p.topic, partition: p.partition, waitsFor: 'committed' };
      this.#owned.set(key, { topic: p.topic, partition: p.partition });
      this.#bump(key);
      this.#unpositioned.set(key, entry);
      waiting.push(entry);
    }
    await this.#positionFromCommitted(waiting);
    await this.#callListener('onAssigned', partitions);
  }

  /**
   * One OffsetFetch (with `fetchCommitted`'s own retries within `defaultApiTimeoutMs`) for
   * partitions waiting for their committed offsets; those still waiting when it answers start.
   * As Java's `ConsumerCoordinator.fetchCommittedOffsets`: a retriable failure (the coordinator
   * loading or moving, an unstable offset, a timeout, a lost connection) leaves them owned and
   * waiting, tried again after a backoff; any other (GROUP_AUTHORIZATION_FAILED,
   * TOPIC_AUTHORIZATION_FAILED, ...) is fatal, unless all of them were revoked meanwhile.
   */
  async #positionFromCommitted(waiting: readonly Unpositioned[]): Promise<void> {
    const signal = this.#offsetAbort.signal;
    let committed: CommittedPosition[] = [];
    try {
      if (this.#options.groupId !== '')
        committed = await fetchCommitted({ ...this.#offsetCall(), signal }, waiting);
    } catch (error) {
      if (signal.aborted || !waiting.some((u) => this.#unpositioned.get(keyOf(u)) === u)) return;
      if (retriable(error)) this.#retryCommittedLater();
      else this.#failConsumer(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (signal.aborted) return;
    const o = this.#options;
    const byKey = new Map(committed.map((c) => [keyOf(c), c]));
    const starts: (TopicPartition & { start: FetchStart })[] = [];
    for (const u of waiting) {
      const key = keyOf(u);
      if (this.#unpositioned.get(key) !== u) continue; // revoked, assigned again or sought
      const c = byKey.get(key);
      let start: FetchStart;
      if (c !== undefined && c.offset >= 0n) {
        start =
          c.leaderEpoch >= 0
            ? { offset: c.offset, leaderEpoch: c.leaderEpoch }
            : { offset: c.offset };
        this.#committed.set(key, c.offset);
      } else if (o.autoOffsetReset === 'none') {
        // Owned without a position until the application seeks it.
        this.#unpositioned.set(key, { topic: u.topic, partition: u.partition, waitsFor: 'seek' });
        this.#pendingErrors.push(new NoOffsetForPartitionError(o.groupId, u.topic, u.partition));
        this.#pollAbort.abort();
        continue;
      } else start = o.autoOffsetReset;
      this.#unpositioned.delete(key);
      starts.push({ topic: u.topic, partition: u.partition, start });
    }
    this.#startFetching(starts);
  }

  /** Gives the fetcher partitions with their positions (paused ones paused). */
  #startFetching(starts: (TopicPartition & { start: FetchStart })[]): void {
    const fetcher = this.#fetcher;
    if (fetcher === undefined || starts.length === 0) return;
    fetcher.assign(starts);
    const paused = starts.filter((p) => this.#paused.has(keyOf(p)));
    if (paused.length > 0) fetcher.pause(paused);
  }

  #retryCommittedLater(): void {
    this.#offsetRetry ??= this.#retryCommitted();
  }

  /**
   * Java's `refreshCommittedOffsetsIfNeeded`, which every poll runs, here a loop of its own: after
   * a backoff (`retryBackoffMs`, doubling up to `retryBackoffMaxMs`), one OffsetFetch for every
   * owned partition still waiting for its committed offset; ends when none is left, on close()
   * and on a fatal error.
   */
  async #retryCommitted(): Promise<void> {
    const signal = this.#offsetAbort.signal;
    const policy = {
      backoffMs: this.#options.retryBackoffMs,
      maxBackoffMs: this.#options.retryBackoffMaxMs,
      jitter: 0.2,
    };
    const waiting = () =>
      [...this.#unpositioned.values()].filter((u) => u.waitsFor === 'committed');
    // The backoff comes first, so #offsetRetry is set before the loop can end.
    for (let round = 1; ; round++) {
      await sleep(retryDelayMs(policy, round + 1, this.#options.random), signal).catch(
        () => undefined,
      );
      const now = waiting();
      if (signal.aborted || now.length === 0) break;
      await this.#positionFromCommitted(now);
      if (waiting().length === 0) break;
    }
    // Cleared in the same turn as the last check: a failure after it starts a new loop.
    this.#offsetRetry = undefined;
  }

  /**
   * A failure of the consumer's own that it cannot retry: fatal as the membership's are, and the
   * member leaves the group so that its partitions move on.
   */
  #failConsumer(error: Error): void {
    if (this.#fatal !== undefined || this.#closing !== undefined) return;
    this.#onFatal(error);
    const membership = this.#membership;
    if (membership !== undefined && this.#staleLeave === undefined)
      this.#fatalLeave = membership.leave().catch(() => undefined);
  }

  async #onRevoked(partitions: readonly TopicPartition[]): Promise<void> {
    // Leaving because the application stopped polling: it may hold batches for long, and a
    // commit would not count any more (Java treats these partitions as lost).
    if (this.#staleLeave !== undefined) return this.#onLost(partitions);
    const keys = new Set(partitions.map(keyOf));
    for (const key of keys) this.#bump(key);
    this.#fetcher?.unassign(partitions);
    // Batches the application holds for these partitions are finished before anything is
    // committed, so the next owner starts after them (Java revokes inside poll, between
    // batches, for the same reason). Bounded by the rebalance timeout.
    await this.#inFlightDrained(keys, this.#options.rebalanceTimeoutMs);
    if (this.#options.enableAutoCommit) {
      const commit = this.#commitChain.then(() => this.#commitNow(undefined, keys));
      this.#commitChain = commit.catch(() => undefined);
      await commit.catch(() => undefined); // Java logs a failed commit on revocation and goes on
    }
    await this.#callListener('onRevoked', partitions);
    this.#forget(keys);
  }

  async #onLost(partitions: readonly TopicPartition[]): Promise<void> {
    const keys = new Set(partitions.map(keyOf));
    for (const key of keys) this.#bump(key);
    this.#fetcher?.unassign(partitions);
    this.#forget(keys);
    await this.#callListener('onLost', partitions);
  }

  #forget(keys: ReadonlySet<string>): void {
    for (const key of keys) {
      this.#owned.delete(key);
      this.#unpositioned.delete(key);
      this.#finished.delete(key);
      this.#committed.delete(key);
      this.#paused.delete(key);
    }
  }

  #onFatal(error: Error): void {
    if (this.#fatal === undefined)
      this.#options.logger?.error(
        { groupId: this.#options.groupId, error: String(error) },
        'the consumer cannot go on in its group',
      );
    this.#fatal ??= error;
    this.#stopTimers();
    this.#pollAbort.abort();
    this.#offsetAbort.abort();
  }

  async #callListener(
    which: 'onAssigned' | 'onRevoked' | 'onLost',
    partitions: readonly TopicPartition[],
  ): Promise<void> {
    const callback = this.#options.listeners[which];
    // Java calls no rebalance listener for a manual assignment.
    if (callback === undefined || this.#manual !== undefined) return;
    try {
      await callback.call(this.#options.listeners, partitions);
    } catch (error) {
      this.#pendingErrors.push(error instanceof Error ? error : new Error(String(error)));
      this.#pollAbort.abort();
    }
  }

  async #inFlightDrained(keys: ReadonlySet<string>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const busy = () => [...keys].some((k) => (this.#inFlight.get(k) ?? 0) > 0);
    while (busy() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1000, Math.max(1, deadline - Date.now())));
        timer.unref?.();
        this.#inFlightChanged = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#inFlightChanged = undefined;
    }
  }

  #stopTimers(): void {
    if (this.#autoCommitTimer !== undefined) clearInterval(this.#autoCommitTimer);
    this.#autoCommitTimer = undefined;
    if (this.#patternTimer !== undefined) clearInterval(this.#patternTimer);
    this.#patternTimer = undefined;
    if (this.#pollTimer !== undefined) clearInterval(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  async #close(): Promise<void> {
    this.#stopTimers();
    this.#pollAbort.abort();
    this.#offsetAbort.abort();
    // The membership exists as soon as start() began; leaving also ends a join in progress.
    if (this.#staleLeave !== undefined) await this.#staleLeave;
    else if (this.#fatalLeave !== undefined) await this.#fatalLeave;
    else if (this.#membership !== undefined && this.#fatal === undefined) {
      await this.#membership.leave().catch(() => undefined);
    } else this.#membership?.abandon();
    await this.#started?.catch(() => undefined);
    await this.#offsetRetry;
    await this.#commitChain;
    await this.#fetcher?.close().catch(() => undefined);
    this.#buffer = [];
    this.#closed = true;
  }
}
