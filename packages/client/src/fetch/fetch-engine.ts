import { setMaxListeners } from 'node:events';
import {
  createOffsetForLeaderEpochRequest,
  ErrorCode,
  FetchApi,
  type FetchResponse,
  type FetchResponseNodeEndpoint,
  type FetchResponsePartitionData,
  KafkaError,
  OffsetForLeaderEpochApi,
  ProtocolError,
  RecordBatchError,
  ZERO_UUID,
} from '@kafkats/codec';
import { classify, type MetaConnection, type MetadataSnapshot, retryDelayMs } from '@kafkats/meta';
import { errorFields, type Logger, silentLogger, UnsupportedVersionError } from '@kafkats/wire';
import { type FetchTraceContext, fetchChannel } from '../client-diagnostics.js';
import { unlessAborted } from '../internal/abortable.js';
import type { TopicPartition } from '../topic-partition.js';
import {
  FetchPartitionError,
  FetchStateError,
  LogTruncationError,
  OffsetOutOfRangeError,
} from './fetch-errors.js';
import type {
  Fetcher,
  FetcherConfig,
  FetchPartitionStats,
  FetchRequestStats,
  FetchStart,
} from './fetcher.js';
import {
  buildSessionFetchRequest,
  FETCH_TOPIC_ID_VERSION,
  type FetchRequestCommon,
  FetchSessionHandler,
  type SessionPartition,
  type SessionRequestPlan,
  sessionKey,
} from './internal/fetch-session.js';
import { fetchedBatches } from './internal/fetched-batch.js';
import { readFetchedRecords } from './internal/fetched-records.js';
import { listOffset } from './internal/list-offset.js';
import { type PartitionBatch, recordCount } from './partition-batch.js';

/** What one Fetch of a session looked like, for instrumentation and tests. */
export interface FetchObservation {
  readonly nodeId: number;
  readonly full: boolean;
  /** The session id and epoch the request carried. */
  readonly sessionId: number;
  readonly epoch: number;
  readonly version: number;
  /** Partitions written into the request (all when full), as `topic-partition`. */
  readonly sent: readonly string[];
  /** Partitions in `forgottenTopicsData`, as `topic-partition`. */
  readonly forgotten: readonly string[];
  /** Of the answer: its top-level error and session id; undefined when the send failed. */
  readonly errorCode: number | undefined;
  readonly responseSessionId: number | undefined;
  /** Buffered bytes when the request went out (at most `maxBufferedBytes`). */
  readonly bufferedBytesAtSend: number;
  /** The request-level maxBytes asked for: the room left under the bound, at least 1. */
  readonly maxBytes: number;
  /** Buffered bytes once the answer was taken in. */
  readonly bufferedBytes: number;
}

/** Instrumentation hooks (tests, metrics); none changes what the fetcher does. */
export interface FetcherObserver {
  onFetch?(observation: FetchObservation): void;
  /** One OffsetsForLeaderEpoch sent to check positions (KIP-320), as `topic-partition`. */
  onValidate?(observation: {
    readonly nodeId: number;
    readonly partitions: readonly string[];
  }): void;
}

interface Buffered {
  readonly batch: PartitionBatch;
  readonly bytes: number;
  readonly lastLeaderEpoch: number;
}

/** One assigned partition. Replaced by a new object when assigned again. */
interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  /** The next offset to deliver (and to fetch), or a start still to resolve with ListOffsets. */
  position: bigint | 'earliest' | 'latest';
  /** The leader epoch of the last delivered record (or of the committed offset); -1 unknown. */
  positionEpoch: number;
  /**
   * KIP-320: the position must be checked against the leader's log (OffsetsForLeaderEpoch)
   * before the next Fetch: set when a position with an epoch is assigned and when the leader
   * epoch changes under one, as Kafka's `SubscriptionState` enters AWAIT_VALIDATION.
   */
  validating: boolean;
  /** Bumped by every seek or reset: an answer fetched under an older one is dropped. */
  generation: number;
  paused: boolean;
  buffered: Buffered[];
  leader: number | undefined;
  /**
   * KIP-392: the replica the leader named to fetch from instead of itself (`preferredReadReplica`),
   * until `readReplicaUntil` (ms); undefined: fetch from the leader.
   */
  readReplica: number | undefined;
  readReplicaUntil: number;
  /** The leader epoch we fetch with (KIP-320); never goes backwards. */
  leaderEpoch: number;
  topicId: string | undefined;
  /** The leader must be looked up again before the next fetch. */
  stale: boolean;
  /** The broker a Fetch holding this partition is in flight to. */
  inflight: number | undefined;
  /** A ListOffsets for it is in flight. */
  resolving: boolean;
  /** When a Fetch for it last went out (ms), for fairness under `maxBufferedBatches`. */
  fetchedAt: number;
  failures: number;
  retryAt: number;
  /** An error the next poll rejects with; nothing is fetched for it meanwhile. */
  error: Error | undefined;
  /** What {@link FetchEngine.partitionStats} reports. */
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  fetches: number;
  records: number;
  bytes: number;
  retries: number;
  lastError: Error | undefined;
}

/** The `kafkats:fetch` trace of one partition in one Fetch, settled with its answer. */
interface PartitionTrace {
  readonly context: FetchTraceContext;
  readonly started: number;
  settled: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** One partition of a Fetch in flight: what was asked, under which generation, its trace. */
interface SentPartition {
  readonly state: PartitionState;
  readonly generation: number;
  readonly data: SessionPartition;
  trace: PartitionTrace | undefined;
}

/** One leader broker: its fetch session, its dedicated connection, its backoff. */
interface NodeState {
  readonly id: number;
  readonly session: FetchSessionHandler;
  connection: MetaConnection | undefined;
  busy: boolean;
  /** The request-level maxBytes of the Fetch in flight: room in the buffer it may fill. */
  reserved: number;
  /** Partitions in the Fetch in flight: batches it may add under `maxBufferedBatches`. */
  reservedBatches: number;
  failures: number;
  retryAt: number;
  throttledUntil: number;
  fullRequests: number;
  incrementalRequests: number;
}

/** Per broker: how many full and incremental Fetches went out, and the session now held. */
export interface FetchSessionStats {
  readonly nodeId: number;
  readonly fullRequests: number;
  readonly incrementalRequests: number;
  /** 0 when no session is held. */
  readonly sessionId: number;
  readonly epoch: number;
}

const SESSION_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  ErrorCode.INVALID_FETCH_SESSION_EPOCH,
  ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
]);

const label = (topic: string, partition: number) => `${topic}-${partition}`;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The one fetch engine under every reader: the group consumer, `PartitionReader` (the engine
 * over one partition) and `MultiPartitionReader` (over many). One KIP-227 fetch session per
 * leader broker (see {@link FetchSessionHandler}), one Fetch in flight per broker, each on a
 * connection of its own to that broker, so a long poll never holds up other requests (Kafka
 * answers one connection in order); the brokers are independent of each other.
 *
 * Prefetch is bounded as in Kafka's `AbstractFetch`: a partition whose fetched data was not yet
 * polled is left out of the next Fetch (so it leaves the session and joins it again once
 * polled), and no Fetch goes out while the buffered bytes exceed `maxBufferedBytes` (or, when
 * set, the buffered batches reach `maxBufferedBatches`). Each Fetch asks (request-level
 * maxBytes) for no more than the room left under the byte bound once the Fetches already in
 * flight are counted, but at least 1 byte (a broker still returns the first whole batch,
 * KIP-74). So the buffer passes the bound by at most one answer per broker (each at most
 * `maxBytes`, or one record batch when that is larger), and near the bound answers are small.
 * Without `prefetch`, a Fetch goes out only while a poll waits. Polls take buffered batches
 * oldest answer first, so no partition starves another. An answer of more than
 * `maxBatchRecords` records is buffered as several batches, handed out together.
 *
 * Follower fetching (KIP-392): with a `rackId`, a leader may answer naming a replica to read
 * from (`preferredReadReplica`); the partition is then fetched from that replica until
 * `readReplicaMaxAgeMs` passes, and from its leader again at once after any error there or a
 * failed connection to it (OFFSET_OUT_OF_RANGE from the replica included: the leader is asked,
 * nothing is reset), as Kafka's `AbstractFetch` and `FetchCollector` do.
 *
 * Positions move only when {@link poll} hands a batch out (and past answers holding only
 * control or aborted batches, which deliver nothing). Pause keeps what is buffered and stops
 * fetching; seek, unassign and a new assign drop the partition's buffered data, and an answer
 * already in flight for it is dropped on arrival (a per-partition generation).
 *
 * Errors, as Kafka's consumer treats them: a moved leader (NOT_LEADER_OR_FOLLOWER,
 * FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION, ...) refreshes the partition's metadata and
 * fetches again after a backoff, or follows at once the leader a Fetch v16+ answer names
 * (KIP-951); UNKNOWN_LEADER_EPOCH (a leader behind our epoch) is only backed off; leader
 * epochs never go backwards. A lost connection or a timed-out Fetch backs that broker off
 * (exponentially, jittered) and starts its session anew; the other brokers go on. These are
 * retried without end: the caller stops reading to give up. OFFSET_OUT_OF_RANGE resets by
 * `autoOffsetReset`, or with 'none' rejects poll with {@link OffsetOutOfRangeError}. Anything
 * else not retriable (TOPIC_AUTHORIZATION_FAILED, a corrupt batch, ...) rejects poll with a
 * {@link FetchPartitionError} naming the partition, and a topic re-created or without an id
 * with a {@link FetchStateError}; the partition is fetched again a backoff after the error
 * was reported, so a persisting error is reported again to a caller that polls on.
 *
 * Each partition of each Fetch is a `kafkats:fetch` trace (nothing is built while no one
 * subscribes); retries are logged at debug, offset resets at info.
 */
export class FetchEngine implements Fetcher {
  readonly #config: FetcherConfig;
  readonly #observer: FetcherObserver;
  readonly #log: Logger;
  readonly #prefetch: boolean;
  readonly #maxBufferedBatches: number;
  readonly #maxBatchRecords: number;
  readonly #readReplicaMaxAgeMs: number;
  #fetchRequests = 0;
  #fetchFailures = 0;
  #fetchLatencyTotalMs = 0;
  #fetchLatencyMaxMs = 0;
  readonly #partitions = new Map<string, PartitionState>();
  readonly #nodes = new Map<number, NodeState>();
  readonly #stop = new AbortController();
  /** Partitions with buffered batches, oldest answer first (paused ones included). */
  #ready: PartitionState[] = [];
  #waiters = new Set<() => void>();
  #bufferedBytes = 0;
  #peakBufferedBytes = 0;
  #refreshing = false;
  #metadataFailures = 0;
  #metadataRetryAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closed = false;

  constructor(config: FetcherConfig, observer: FetcherObserver = {}) {
    this.#config = config;
    this.#observer = observer;
    this.#log = config.logger ?? silentLogger;
    this.#prefetch = config.prefetch ?? true;
    this.#maxBufferedBatches = config.maxBufferedBatches ?? Number.POSITIVE_INFINITY;
    this.#maxBatchRecords = config.maxBatchRecords ?? Number.POSITIVE_INFINITY;
    this.#readReplicaMaxAgeMs = config.readReplicaMaxAgeMs ?? 300_000;
    // Every request in flight (a Fetch per broker, a ListOffsets per partition) listens to it.
    setMaxListeners(0, this.#stop.signal);
  }

  /** Bytes fetched and not yet polled. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /** Batches fetched and not yet polled (at most one per partition). */
  get bufferedBatches(): number {
    return this.#ready.length;
  }

  /** The most bytes ever buffered at once. */
  get peakBufferedBytes(): number {
    return this.#peakBufferedBytes;
  }

  /** Every broker fetched from so far, with its session. */
  sessionStats(): FetchSessionStats[] {
    return [...this.#nodes.values()].map((n) => ({
      nodeId: n.id,
      fullRequests: n.fullRequests,
      incrementalRequests: n.incrementalRequests,
      sessionId: n.session.sessionId,
      epoch: n.session.epoch,
    }));
  }

  partitionStats(partition: TopicPartition): FetchPartitionStats | undefined {
    const s = this.#partitions.get(sessionKey(partition.topic, partition.partition));
    if (s === undefined) return undefined;
    return {
      highWatermark: s.highWatermark,
      lastStableOffset: s.lastStableOffset,
      logStartOffset: s.logStartOffset,
      leaderId: s.leader,
      leaderEpoch: s.leaderEpoch,
      readReplicaId: s.readReplica,
      fetches: s.fetches,
      records: s.records,
      bytes: s.bytes,
      retries: s.retries,
      lastError: s.lastError,
    };
  }

  fetchStats(): FetchRequestStats {
    return {
      requests: this.#fetchRequests,
      failed: this.#fetchFailures,
      latencyTotalMs: this.#fetchLatencyTotalMs,
      latencyMaxMs: this.#fetchLatencyMaxMs,
    };
  }

  assign(partitions: ReadonlyArray<TopicPartition & { readonly start: FetchStart }>): void {
    for (const p of partitions) {
      const key = sessionKey(p.topic, p.partition);
      const old = this.#partitions.get(key);
      if (old !== undefined) this.#dropBuffered(old);
      const start = p.start;
      const state: PartitionState = {
        topic: p.topic,
        partition: p.partition,
        key,
        position: typeof start === 'string' ? start : start.offset,
        positionEpoch: typeof start === 'string' ? -1 : (start.leaderEpoch ?? -1),
        validating: typeof start !== 'string' && (start.leaderEpoch ?? -1) >= 0,
        generation: (old?.generation ?? 0) + 1,
        paused: false,
        buffered: [],
        leader: old?.leader,
        readReplica: undefined,
        readReplicaUntil: 0,
        leaderEpoch: old?.leaderEpoch ?? -1,
        topicId: old?.topicId,
        stale: false,
        inflight: undefined,
        resolving: false,
        fetchedAt: 0,
        failures: 0,
        retryAt: 0,
        error: undefined,
        highWatermark: old?.highWatermark ?? -1n,
        lastStableOffset: old?.lastStableOffset ?? -1n,
        logStartOffset: old?.logStartOffset ?? -1n,
        fetches: old?.fetches ?? 0,
        records: old?.records ?? 0,
        bytes: old?.bytes ?? 0,
        retries: old?.retries ?? 0,
        lastError: undefined,
      };
      this.#partitions.set(key, state);
    }
    this.#pump();
  }

  unassign(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) {
      const state = this.#partitions.get(sessionKey(p.topic, p.partition));
      if (state === undefined) continue;
      this.#dropBuffered(state);
      state.generation++;
      this.#partitions.delete(state.key);
    }
    this.#pump();
  }

  seek(partition: TopicPartition, offset: bigint): void {
    const state = this.#require(partition, 'seek');
    this.#dropBuffered(state);
    state.generation++;
    state.position = offset;
    state.positionEpoch = -1;
    state.validating = false;
    state.error = undefined;
    state.failures = 0;
    state.retryAt = 0;
    this.#pump();
  }

  pause(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) {
      const state = this.#partitions.get(sessionKey(p.topic, p.partition));
      if (state !== undefined) state.paused = true;
    }
    this.#pump();
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) {
      const state = this.#partitions.get(sessionKey(p.topic, p.partition));
      if (state !== undefined) state.paused = false;
    }
    this.#notify();
    this.#pump();
  }

  position(partition: TopicPartition): { offset: bigint; leaderEpoch: number } | undefined {
    const state = this.#partitions.get(sessionKey(partition.topic, partition.partition));
    if (state === undefined || typeof state.position !== 'bigint') return undefined;
    return { offset: state.position, leaderEpoch: state.positionEpoch };
  }

  async poll(signal?: AbortSignal, max = Number.POSITIVE_INFINITY): Promise<PartitionBatch[]> {
    for (;;) {
      if (this.#closed) return [];
      for (const state of this.#partitions.values()) {
        const error = state.error;
        if (error === undefined) continue;
        state.error = undefined;
        // Read again after a backoff, so that a caller polling on through a persisting error
        // (one found without a round trip, as a topic without an id) does not spin.
        state.failures++;
        state.retryAt = Date.now() + this.#backoff(state.failures);
        this.#pump();
        throw error;
      }
      const out = this.#drain(max);
      if (out.length > 0) {
        this.#pump();
        return out;
      }
      if (signal?.aborted) return [];
      await this.#news(signal);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Brokers with a Fetch out: the broker answers a connection in order, so a session-closing
    // request there would wait out that long poll (up to maxWaitMs). Their connections are
    // closed at once instead; the broker's session cache evicts the orphaned session.
    const polling = new Set([...this.#nodes.values()].filter((n) => n.busy));
    this.#stop.abort();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#notify();
    await Promise.all(
      [...this.#nodes.values()].map(async (node) => {
        const connection = node.connection;
        node.connection = undefined;
        const plan = node.session.closePlan();
        if (connection === undefined) return;
        if (plan !== undefined && !connection.closed && !polling.has(node)) {
          // Tell the broker the session can go (epoch -1) so it frees the slot, as Kafka's
          // consumer does on close.
          const common = { ...this.#common(), maxWaitMs: 0 };
          const response = await this.#config.cluster
            .sendOn(connection, FetchApi, (v) => buildSessionFetchRequest(plan, v, common), {
              timeoutMs: Math.min(this.#config.requestTimeoutMs, 5000),
              checkTopLevelError: false,
            })
            .catch(() => undefined);
          this.#observer.onFetch?.({
            nodeId: node.id,
            full: false,
            sessionId: plan.sessionId,
            epoch: plan.epoch,
            version: -1,
            sent: [],
            forgotten: [],
            errorCode: response?.errorCode,
            responseSessionId: response?.sessionId,
            bufferedBytesAtSend: this.#bufferedBytes,
            maxBytes: 0,
            bufferedBytes: this.#bufferedBytes,
          });
        }
        await connection.close().catch(() => {});
      }),
    );
    for (const state of this.#partitions.values()) this.#dropBuffered(state);
  }

  // -- delivery --------------------------------------------------------------------------

  #require(partition: TopicPartition, what: string): PartitionState {
    const state = this.#partitions.get(sessionKey(partition.topic, partition.partition));
    if (state === undefined) {
      throw new KafkaError(
        'ERR_KAFKA_PARTITION_NOT_ASSIGNED',
        `${what} ${label(partition.topic, partition.partition)}: the partition is not assigned`,
      );
    }
    return state;
  }

  /**
   * The buffered batches of up to `max` unpaused partitions, oldest answer first (each
   * partition's all together); moves positions.
   */
  #drain(max: number): PartitionBatch[] {
    const out: PartitionBatch[] = [];
    const kept: PartitionState[] = [];
    for (const state of this.#ready) {
      if (state.paused || out.length >= max) {
        kept.push(state);
        continue;
      }
      for (const b of state.buffered) {
        out.push(b.batch);
        state.position = b.batch.nextOffset;
        if (b.lastLeaderEpoch >= 0) state.positionEpoch = b.lastLeaderEpoch;
        state.records += recordCount(b.batch);
        state.bytes += b.bytes;
        this.#bufferedBytes -= b.bytes;
      }
      state.buffered = [];
    }
    this.#ready = kept;
    return out;
  }

  #dropBuffered(state: PartitionState): void {
    if (state.buffered.length === 0) return;
    for (const b of state.buffered) this.#bufferedBytes -= b.bytes;
    state.buffered = [];
    this.#ready = this.#ready.filter((s) => s !== state);
  }

  /** Resolves at the next news (a batch, an error, close) or when `signal` aborts. */
  #news(signal: AbortSignal | undefined): Promise<void> {
    const news = new Promise<void>((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
    // Without prefetch, a waiting poll is what lets a Fetch go out.
    if (!this.#prefetch) this.#pump();
    return news;
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const w of waiters) w();
  }

  // -- scheduling ------------------------------------------------------------------------

  #backoff(failures: number): number {
    const policy = {
      backoffMs: this.#config.retryBackoffMs,
      maxBackoffMs: this.#config.retryBackoffMaxMs,
      jitter: 0.2,
    };
    return retryDelayMs(policy, failures + 1, this.#config.random);
  }

  #current(state: PartitionState, generation: number): boolean {
    return this.#partitions.get(state.key) === state && state.generation === generation;
  }

  /** Starts whatever can start now: ListOffsets, a metadata refresh, a Fetch per broker. */
  #pump(): void {
    if (this.#closed) return;
    const now = Date.now();
    let wakeAt = Number.POSITIVE_INFINITY;
    const byNode = new Map<number, PartitionState[]>();
    const toValidate = new Map<number, PartitionState[]>();
    let needMetadata = false;
    const snapshot = this.#config.cluster.snapshot();
    for (const state of this.#partitions.values()) {
      if (state.error !== undefined || state.resolving || state.inflight !== undefined) continue;
      if (state.retryAt > now) {
        wakeAt = Math.min(wakeAt, state.retryAt);
        continue;
      }
      if (typeof state.position !== 'bigint') {
        void this.#resolve(state);
        continue;
      }
      if (state.paused || state.buffered.length > 0) continue;
      if (!state.stale && (state.leader === undefined || state.topicId === undefined)) {
        this.#applyMetadata(state, snapshot, false);
      }
      if (state.stale || state.leader === undefined) {
        if (state.retryAt > now) wakeAt = Math.min(wakeAt, state.retryAt);
        else needMetadata = true;
        continue;
      }
      if (state.validating) {
        const list = toValidate.get(state.leader);
        if (list === undefined) toValidate.set(state.leader, [state]);
        else list.push(state);
        continue;
      }
      const target = this.#fetchNode(state, state.leader, snapshot, now);
      const list = byNode.get(target);
      if (list === undefined) byNode.set(target, [state]);
      else list.push(state);
    }
    if (needMetadata) {
      if (this.#metadataRetryAt > now) wakeAt = Math.min(wakeAt, this.#metadataRetryAt);
      else void this.#refreshMetadata();
    }
    for (const [nodeId, states] of toValidate) void this.#validate(nodeId, states);
    this.#closeIdle();
    const fetchNow =
      this.#bufferedBytes <= this.#config.maxBufferedBytes &&
      this.#ready.length < this.#maxBufferedBatches &&
      (this.#prefetch || this.#waiters.size > 0);
    if (fetchNow) {
      const sendable: [NodeState, PartitionState[]][] = [];
      for (const [nodeId, states] of byNode) {
        const node = this.#node(nodeId);
        if (node.busy) continue;
        const readyAt = Math.max(node.retryAt, node.throttledUntil);
        if (readyAt > now) {
          wakeAt = Math.min(wakeAt, readyAt);
          continue;
        }
        sendable.push([node, states]);
      }
      for (const [node, states] of this.#withinBatchBound(sendable)) void this.#fetch(node, states);
    }
    this.#wakeAt(wakeAt);
  }

  /**
   * The broker to fetch a led partition from: the replica its leader named (KIP-392), as
   * Kafka's `AbstractFetch.selectReadReplica` picks it, while that is fresh, known to the
   * metadata and not backing off after a failure; else the leader (the replica is forgotten).
   */
  #fetchNode(
    state: PartitionState,
    leader: number,
    snapshot: MetadataSnapshot,
    now: number,
  ): number {
    const replica = state.readReplica;
    if (replica === undefined) return leader;
    const node = this.#nodes.get(replica);
    if (
      now < state.readReplicaUntil &&
      snapshot.broker(replica) !== undefined &&
      !(node !== undefined && node.failures > 0 && node.retryAt > now)
    )
      return replica;
    this.#forgetReadReplica(state, now < state.readReplicaUntil ? 'unavailable' : 'expired');
    return leader;
  }

  /** Fetch the partition from its leader again (which may name a replica anew). */
  #forgetReadReplica(state: PartitionState, why: string, error?: Error): void {
    if (state.readReplica === undefined) return;
    this.#log.debug(
      {
        topic: state.topic,
        partition: state.partition,
        replica: state.readReplica,
        why,
        ...(error === undefined ? {} : errorFields(error)),
      },
      'fetching from the leader again',
    );
    state.readReplica = undefined;
    state.readReplicaUntil = 0;
  }

  /**
   * The Fetches to send, cut to the room under `maxBufferedBatches` once the Fetches in flight
   * are counted (each partition in one may come back with a batch). When cut, the partitions
   * fetched longest ago go first, whichever broker leads them, so none starves.
   */
  #withinBatchBound(
    sendable: readonly [NodeState, PartitionState[]][],
  ): readonly [NodeState, PartitionState[]][] {
    let slots = this.#maxBufferedBatches - this.#ready.length;
    for (const node of this.#nodes.values()) slots -= node.reservedBatches;
    let wanted = 0;
    for (const [, states] of sendable) wanted += states.length;
    if (wanted <= slots) return sendable;
    if (slots <= 0) return [];
    const chosen = new Set(
      sendable
        .flatMap(([, states]) => states)
        .sort((a, b) => a.fetchedAt - b.fetchedAt)
        .slice(0, slots),
    );
    const out: [NodeState, PartitionState[]][] = [];
    for (const [node, states] of sendable) {
      const mine = states.filter((state) => chosen.has(state));
      if (mine.length > 0) out.push([node, mine]);
    }
    return out;
  }

  /**
   * Closes the connection (and forgets the session) of each broker that leads none of the
   * assigned partitions any more: a leader that moved away, a partition unassigned. The
   * connection is the engine's own, so nothing else uses it; a later partition there opens a
   * new one.
   */
  #closeIdle(): void {
    for (const node of this.#nodes.values()) {
      if (node.busy || node.connection === undefined) continue;
      let leads = false;
      for (const state of this.#partitions.values())
        if (state.leader === node.id || state.readReplica === node.id) {
          leads = true;
          break;
        }
      if (leads) continue;
      const connection = node.connection;
      node.connection = undefined;
      node.session.handleError();
      void connection.close().catch(() => {});
    }
  }

  #wakeAt(at: number): void {
    if (at === Number.POSITIVE_INFINITY || at >= this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, at - Date.now()),
    );
  }

  #node(nodeId: number): NodeState {
    let node = this.#nodes.get(nodeId);
    if (node === undefined) {
      node = {
        id: nodeId,
        session: new FetchSessionHandler(),
        connection: undefined,
        busy: false,
        reserved: 0,
        reservedBatches: 0,
        failures: 0,
        retryAt: 0,
        throttledUntil: 0,
        fullRequests: 0,
        incrementalRequests: 0,
      };
      this.#nodes.set(nodeId, node);
    }
    return node;
  }

  #common(): FetchRequestCommon {
    const c = this.#config;
    return {
      maxWaitMs: c.maxWaitMs,
      minBytes: c.minBytes,
      maxBytes: c.maxBytes,
      isolationLevel: c.isolationLevel === 'read_committed' ? 1 : 0,
      rackId: c.rackId ?? '',
    };
  }

  /** A retriable failure of one partition: back it off; a stale leader is looked up again. */
  #partitionRetry(state: PartitionState, error: Error): void {
    // The error table decides: UNKNOWN_LEADER_EPOCH (the broker has not caught up with the epoch
    // we hold, often one a KIP-951 hint gave) is not in Kafka's InvalidMetadataException family,
    // so it is only backed off, as Kafka's consumer does.
    if (classify(error, 'leader').refreshMetadata) state.stale = true;
    state.failures++;
    state.retryAt = Date.now() + this.#backoff(state.failures);
    this.#retried(state, error);
  }

  /** Counts and logs a retry of one partition. */
  #retried(state: PartitionState, error: Error): void {
    state.retries++;
    state.lastError = error;
    this.#log.debug(
      {
        topic: state.topic,
        partition: state.partition,
        failures: state.failures,
        ...errorFields(error),
      },
      'retrying a fetch',
    );
  }

  /** Whether a partition's error is retried (Kafka's consumer also retries UNKNOWN_SERVER_ERROR). */
  #retriable(error: Error): boolean {
    if (error instanceof ProtocolError && error.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR)
      return true;
    return classify(error, 'leader').retry;
  }

  #fail(state: PartitionState, error: Error): void {
    state.error = error;
    this.#notify();
  }

  // -- metadata and ListOffsets ----------------------------------------------------------

  /**
   * The partition's leader is now `leader` at `epoch`. When that is a change (another broker, a
   * newer epoch), a position that carries a leader epoch is checked against the new leader's
   * log before the next Fetch (KIP-320), and a preferred read replica is forgotten, as
   * Kafka's `SubscriptionState.maybeValidatePosition` does.
   */
  #newLeader(state: PartitionState, leader: number, epoch: number): void {
    if (state.leader !== undefined && (leader !== state.leader || epoch > state.leaderEpoch)) {
      this.#forgetReadReplica(state, 'the leader changed');
      if (typeof state.position === 'bigint' && state.positionEpoch >= 0) state.validating = true;
    }
    state.leader = leader;
    state.leaderEpoch = epoch;
  }

  /**
   * KIP-320: checks the positions of `states`, all led by `nodeId`, with one
   * OffsetsForLeaderEpoch (the position's epoch, fenced by the leader epoch we hold), as Kafka's
   * `OffsetsForLeaderEpochUtils` does. Where the leader's log ends that epoch before the
   * position, the log was truncated under it: the position moves back to that end (the first
   * offset known to diverge), or under 'none' the partition fails with
   * {@link LogTruncationError}. A leader that no longer knows the epoch at all is a reset by
   * policy. Errors are retried as a Fetch's are.
   */
  async #validate(nodeId: number, states: PartitionState[]): Promise<void> {
    const asked = states.map((state) => ({
      state,
      generation: state.generation,
      offset: state.position as bigint,
      epoch: state.positionEpoch,
    }));
    for (const { state } of asked) state.resolving = true;
    this.#observer.onValidate?.({
      nodeId,
      partitions: asked.map((a) => label(a.state.topic, a.state.partition)),
    });
    const topics = new Map<
      string,
      { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[]
    >();
    for (const { state, epoch } of asked) {
      const list = topics.get(state.topic) ?? [];
      list.push({
        partition: state.partition,
        currentLeaderEpoch: state.leaderEpoch,
        leaderEpoch: epoch,
      });
      topics.set(state.topic, list);
    }
    let version = -1;
    try {
      const response = await this.#config.cluster.sendToNode(
        nodeId,
        OffsetForLeaderEpochApi,
        (v) => {
          version = v;
          return createOffsetForLeaderEpochRequest({
            // -1: a consumer (v3+); a broker id would be read as a follower's.
            replicaId: -1,
            topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
          });
        },
        { timeoutMs: this.#config.requestTimeoutMs, signal: this.#stop.signal, maxAttempts: 1 },
      );
      const where = `OffsetsForLeaderEpoch v${version} to broker ${nodeId}`;
      for (const { state, generation, offset, epoch } of asked) {
        if (!this.#current(state, generation)) continue;
        const answer = response.topics
          .find((t) => t.topic === state.topic)
          ?.partitions.find((p) => p.partition === state.partition);
        if (answer === undefined) {
          this.#partitionRetry(
            state,
            new KafkaError('ERR_KAFKA_RESPONSE_INCOMPLETE', `${where}: the answer left it out`, {
              retriable: true,
            }),
          );
          continue;
        }
        if (answer.errorCode !== 0) {
          const error = new FetchPartitionError(
            answer.errorCode,
            state.topic,
            state.partition,
            offset,
            where,
          );
          if (this.#retriable(error)) this.#partitionRetry(state, error);
          else this.#fail(state, error);
          continue;
        }
        state.failures = 0;
        if (answer.endOffset < 0n || answer.leaderEpoch < 0)
          this.#truncated(state, offset, epoch, undefined);
        else if (answer.endOffset < offset)
          this.#truncated(state, offset, epoch, {
            offset: answer.endOffset,
            leaderEpoch: answer.leaderEpoch,
          });
        else state.validating = false;
      }
    } catch (error) {
      const failed = asError(error);
      if (!this.#closed)
        for (const { state, generation } of asked) {
          if (!this.#current(state, generation)) continue;
          // A broker without OffsetsForLeaderEpoch: read on unchecked, as Kafka's consumer does.
          if (failed instanceof UnsupportedVersionError) state.validating = false;
          else if (this.#retriable(failed)) this.#partitionRetry(state, failed);
          else this.#fail(state, failed);
        }
    } finally {
      for (const { state } of asked) state.resolving = false;
      this.#pump();
    }
  }

  /** The log was truncated under `offset`: move back by policy, or fail the partition. */
  #truncated(
    state: PartitionState,
    offset: bigint,
    epoch: number,
    divergent: { readonly offset: bigint; readonly leaderEpoch: number } | undefined,
  ): void {
    const policy = this.#config.autoOffsetReset;
    if (policy === 'none') {
      this.#fail(
        state,
        new LogTruncationError(state.topic, state.partition, offset, epoch, divergent),
      );
      return;
    }
    this.#log.info(
      {
        topic: state.topic,
        partition: state.partition,
        position: String(offset),
        leaderEpoch: epoch,
        ...(divergent === undefined
          ? { reset: policy }
          : {
              divergentOffset: String(divergent.offset),
              divergentLeaderEpoch: divergent.leaderEpoch,
            }),
      },
      divergent === undefined
        ? 'log truncation detected: resetting'
        : 'log truncation detected: going back to the first offset known to diverge',
    );
    state.generation++;
    state.validating = false;
    state.position = divergent === undefined ? policy : divergent.offset;
    state.positionEpoch = divergent === undefined ? -1 : divergent.leaderEpoch;
  }

  /**
   * Takes the partition's leader, epoch and topic id from `snapshot`. Marks it stale when the
   * snapshot cannot say (then a refresh follows); fails it when the topic's error is fatal.
   */
  #applyMetadata(state: PartitionState, snapshot: MetadataSnapshot, refreshed: boolean): void {
    const info = snapshot.topic(state.topic);
    const known = snapshot.partition(state.topic, state.partition);
    const where = `leader of ${label(state.topic, state.partition)}`;
    const retry = (error: Error) => {
      state.stale = true;
      if (refreshed) {
        state.failures++;
        state.retryAt = Date.now() + this.#backoff(state.failures);
      }
      if (this.#retriable(error)) {
        if (refreshed) this.#retried(state, error);
        return;
      }
      const at = typeof state.position === 'bigint' ? state.position : -1n;
      this.#fail(
        state,
        error instanceof ProtocolError
          ? new FetchPartitionError(error.errorCode, state.topic, state.partition, at, 'metadata')
          : error,
      );
    };
    if (info !== undefined && info.errorCode !== 0) {
      retry(ProtocolError.fromCode(info.errorCode, where));
      return;
    }
    if (info === undefined || known === undefined) {
      retry(ProtocolError.fromCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, where));
      return;
    }
    if (known.leader === undefined || info.topicId === ZERO_UUID) {
      // No leader right now (an election), or an old view without the topic id: look again.
      if (known.leader === undefined || !refreshed) {
        retry(ProtocolError.fromCode(known.errorCode || ErrorCode.LEADER_NOT_AVAILABLE, where));
        return;
      }
    }
    const pinned = state.topicId;
    if (
      pinned !== undefined &&
      pinned !== ZERO_UUID &&
      info.topicId !== ZERO_UUID &&
      info.topicId !== pinned
    ) {
      this.#fail(
        state,
        new FetchStateError(
          'ERR_KAFKA_TOPIC_ID_CHANGED',
          state.topic,
          state.partition,
          `the topic id went from ${pinned} to ${info.topicId}: the topic was re-created`,
        ),
      );
      return;
    }
    if (pinned === undefined || pinned === ZERO_UUID) state.topicId = info.topicId;
    // Epochs never go backwards: metadata from a lagging broker does not undo a newer leader.
    if (known.leaderEpoch < 0 || known.leaderEpoch >= state.leaderEpoch) {
      this.#newLeader(state, known.leader, known.leaderEpoch);
    }
    state.stale = false;
  }

  async #refreshMetadata(): Promise<void> {
    if (this.#refreshing) return;
    this.#refreshing = true;
    const waiting = [...this.#partitions.values()].filter((s) => s.stale || s.leader === undefined);
    const topics = [...new Set(waiting.map((s) => s.topic))];
    let snapshot: MetadataSnapshot | undefined;
    try {
      snapshot = await unlessAborted(
        this.#config.cluster.refreshTopics(topics),
        this.#stop.signal,
        `Metadata for ${topics.join(', ')}`,
      );
      this.#metadataFailures = 0;
    } catch {
      if (this.#closed) return;
      this.#metadataFailures++;
      this.#metadataRetryAt = Date.now() + this.#backoff(this.#metadataFailures);
    } finally {
      this.#refreshing = false;
    }
    if (snapshot !== undefined) {
      for (const state of waiting) {
        if (this.#partitions.get(state.key) !== state || state.error !== undefined) continue;
        if (!state.stale && state.leader !== undefined) continue;
        state.stale = false;
        this.#applyMetadata(state, snapshot, true);
      }
    }
    this.#pump();
  }

  /** One ListOffsets for the partition, bounded by the request timeout and the engine's stop. */
  #listOffset(state: PartitionState, spec: 'earliest' | 'latest'): Promise<bigint> {
    return listOffset(
      this.#config.cluster,
      state.topic,
      state.partition,
      spec,
      this.#config.isolationLevel,
      { signal: this.#stop.signal, timeoutMs: this.#config.requestTimeoutMs },
    );
  }

  /** Resolves 'earliest' or 'latest' with ListOffsets (the isolation level applies to 'latest'). */
  async #resolve(state: PartitionState): Promise<void> {
    const spec = state.position;
    if (typeof spec === 'bigint') return;
    const generation = state.generation;
    state.resolving = true;
    try {
      const offset = await this.#listOffset(state, spec);
      if (this.#current(state, generation)) {
        state.position = offset;
        state.positionEpoch = -1;
        state.failures = 0;
      }
    } catch (error) {
      if (this.#closed || !this.#current(state, generation)) return;
      const e = asError(error);
      if (this.#retriable(e)) {
        state.failures++;
        state.retryAt = Date.now() + this.#backoff(state.failures);
        this.#retried(state, e);
      } else {
        this.#fail(state, e);
      }
    } finally {
      state.resolving = false;
      this.#pump();
    }
  }

  /** OFFSET_OUT_OF_RANGE under 'none': the error, with where the log is now. */
  async #outOfRange(state: PartitionState, generation: number, fetchOffset: bigint): Promise<void> {
    state.resolving = true;
    const ask = (spec: 'earliest' | 'latest') =>
      this.#listOffset(state, spec).catch(() => undefined);
    try {
      const [logStartOffset, logEndOffset] = await Promise.all([ask('earliest'), ask('latest')]);
      if (this.#current(state, generation)) {
        this.#fail(
          state,
          new OffsetOutOfRangeError(state.topic, state.partition, fetchOffset, {
            logStartOffset,
            logEndOffset,
          }),
        );
      }
    } finally {
      state.resolving = false;
      this.#pump();
    }
  }

  // -- fetching --------------------------------------------------------------------------

  async #connection(node: NodeState): Promise<MetaConnection> {
    const current = node.connection;
    if (current !== undefined && !current.closed) return current;
    node.connection = undefined;
    const opened = await unlessAborted(
      this.#config.cluster.openConnection(node.id),
      this.#stop.signal,
      `connect to broker ${node.id}`,
      (late) => void late.close().catch(() => {}),
    );
    node.connection = opened;
    return opened;
  }

  /** One Fetch of `node`'s session for `states`, and what its answer means for each. */
  async #fetch(node: NodeState, states: PartitionState[]): Promise<void> {
    node.busy = true;
    node.reservedBatches = states.length;
    const sent = new Map<string, SentPartition>();
    const now = Date.now();
    for (const state of states) {
      state.inflight = node.id;
      state.fetchedAt = now;
      sent.set(state.key, {
        state,
        generation: state.generation,
        data: {
          topic: state.topic,
          topicId: state.topicId ?? ZERO_UUID,
          partition: state.partition,
          fetchOffset: state.position as bigint,
          currentLeaderEpoch: state.leaderEpoch,
          maxBytes: this.#config.partitionMaxBytes,
        },
        trace: undefined,
      });
    }
    let plan: SessionRequestPlan | undefined;
    let version = -1;
    const bufferedBytesAtSend = this.#bufferedBytes;
    let reservedElsewhere = 0;
    for (const other of this.#nodes.values())
      if (other !== node) reservedElsewhere += other.reserved;
    const room = this.#config.maxBufferedBytes - this.#bufferedBytes - reservedElsewhere;
    const maxBytes = Math.max(1, Math.min(this.#config.maxBytes, room));
    node.reserved = maxBytes;
    let response: FetchResponse | undefined;
    let failure: Error | undefined;
    let sentAt = 0;
    try {
      const connection = await this.#connection(node);
      this.#dropWithoutTopicId(connection, node, sent);
      if (sent.size === 0) return;
      plan = node.session.build([...sent.values()].map((s) => s.data));
      const chosen = plan;
      if (fetchChannel.hasSubscribers)
        for (const entry of sent.values()) entry.trace = this.#trace(node, entry);
      sentAt = performance.now();
      response = await this.#config.cluster.sendOn(
        connection,
        FetchApi,
        (v) => {
          version = v;
          for (const entry of sent.values()) if (entry.trace) entry.trace.context.version = v;
          return buildSessionFetchRequest(chosen, v, { ...this.#common(), maxBytes });
        },
        {
          // The broker may hold the answer for maxWaitMs before the request timeout matters.
          timeoutMs: this.#config.maxWaitMs + this.#config.requestTimeoutMs,
          signal: this.#stop.signal,
          checkTopLevelError: false,
        },
      );
      const tookMs = performance.now() - sentAt;
      this.#fetchRequests++;
      this.#fetchLatencyTotalMs += tookMs;
      if (tookMs > this.#fetchLatencyMaxMs) this.#fetchLatencyMaxMs = tookMs;
      if (plan.full) node.fullRequests++;
      else node.incrementalRequests++;
      if (response.throttleTimeMs > 0) node.throttledUntil = Date.now() + response.throttleTimeMs;
      this.#onResponse(node, plan, response, version, sent);
    } catch (error) {
      failure = asError(error);
      if (sentAt > 0) this.#fetchFailures++;
      if (!this.#closed) this.#onSendFailure(node, failure, sent);
    } finally {
      node.busy = false;
      node.reserved = 0;
      node.reservedBatches = 0;
      for (const entry of sent.values()) {
        if (entry.state.inflight === node.id) entry.state.inflight = undefined;
        // Left out of an incremental answer: no news for it, which is an answer too.
        if (entry.trace !== undefined) this.#settle(entry.trace, failure);
      }
      if (plan !== undefined && !this.#closed) {
        this.#observer.onFetch?.({
          nodeId: node.id,
          full: plan.full,
          sessionId: plan.sessionId,
          epoch: plan.epoch,
          version,
          sent: plan.toSend.map((p) => label(p.topic, p.partition)),
          forgotten: plan.forgotten.map((p) => label(p.topic, p.partition)),
          errorCode: response?.errorCode,
          responseSessionId: response?.sessionId,
          bufferedBytesAtSend,
          maxBytes,
          bufferedBytes: this.#bufferedBytes,
        });
      }
      this.#pump();
    }
  }

  /**
   * Fetch v13+ names topics by id: a partition whose metadata gave none would be answered
   * UNKNOWN_TOPIC_ID forever, a silent stall, so it fails here instead and is left out.
   */
  #dropWithoutTopicId(
    connection: MetaConnection,
    node: NodeState,
    sent: Map<string, SentPartition>,
  ): void {
    const version = connection.negotiatedVersion(FetchApi.apiKey);
    if (version === undefined || version < FETCH_TOPIC_ID_VERSION) return;
    for (const [key, { state, data }] of sent) {
      if (data.topicId !== ZERO_UUID) continue;
      sent.delete(key);
      if (state.inflight === node.id) state.inflight = undefined;
      this.#fail(
        state,
        new FetchStateError(
          'ERR_KAFKA_TOPIC_ID_MISSING',
          state.topic,
          state.partition,
          `Fetch v${version} needs the topic id, and metadata gave none`,
        ),
      );
    }
  }

  /** Starts the `kafkats:fetch` trace of one partition of a Fetch about to go out. */
  #trace(node: NodeState, entry: SentPartition): PartitionTrace {
    const context: FetchTraceContext = {
      topic: entry.state.topic,
      partition: entry.state.partition,
      nodeId: node.id,
      fetchOffset: entry.data.fetchOffset,
      isolationLevel: this.#config.isolationLevel,
      version: -1,
      errorCode: -1,
      records: 0,
      bytes: 0,
      nextOffset: entry.data.fetchOffset,
      highWatermark: -1n,
      lag: -1n,
      outcome: 'pending',
      durationMs: 0,
    };
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const answered = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // The channel's own promise carries the rejection to the `error` event; nobody awaits it.
    fetchChannel.tracePromise(() => answered, context).catch(() => {});
    return { context, started: performance.now(), settled: false, resolve, reject };
  }

  /** Ends a partition's trace: `'ok'`, or `'error'` with why (retried inside unless fatal). */
  #settle(trace: PartitionTrace, error?: unknown): void {
    if (trace.settled) return;
    trace.settled = true;
    trace.context.durationMs = performance.now() - trace.started;
    if (error === undefined) {
      trace.context.outcome = 'ok';
      trace.resolve();
    } else {
      trace.context.outcome = 'error';
      trace.reject(error);
    }
  }

  /** The Fetch could not be sent or answered: the session starts over, the broker backs off. */
  #onSendFailure(node: NodeState, error: Error, sent: ReadonlyMap<string, SentPartition>): void {
    node.session.handleError();
    const connection = node.connection;
    node.connection = undefined;
    void connection?.close().catch(() => {});
    if (!this.#retriable(error)) {
      // Not the broker's state: an unsupported version, a topic without id at v13+, ...
      for (const { state, generation } of sent.values()) {
        if (this.#current(state, generation)) this.#fail(state, error);
      }
      return;
    }
    node.failures++;
    node.retryAt = Date.now() + this.#backoff(node.failures);
    this.#log.debug(
      { broker: node.id, failures: node.failures, partitions: sent.size, ...errorFields(error) },
      'retrying a fetch',
    );
    // A lost connection may mean the broker no longer leads these (Kafka's NetworkClient asks
    // for a metadata update on every disconnect).
    const stale = classify(error, 'leader').refreshMetadata;
    for (const { state, generation } of sent.values()) {
      if (!this.#current(state, generation)) continue;
      // A preferred read replica out of reach: its partitions go back to their leaders now.
      if (state.readReplica === node.id) this.#forgetReadReplica(state, 'unreachable', error);
      else if (stale) state.stale = true;
      state.retries++;
      state.lastError = error;
    }
  }

  #onResponse(
    node: NodeState,
    plan: SessionRequestPlan,
    response: FetchResponse,
    version: number,
    sent: ReadonlyMap<string, SentPartition>,
  ): void {
    const accepted = node.session.handleResponse(plan, response.errorCode, response.sessionId);
    if (!accepted) {
      const error = ProtocolError.fromCode(
        response.errorCode,
        `Fetch v${version} to broker ${node.id} (session ${plan.sessionId}, epoch ${plan.epoch})`,
      );
      for (const entry of sent.values()) if (entry.trace) this.#settle(entry.trace, error);
      if (SESSION_ERRORS.has(response.errorCode)) {
        // The session is reset; the next request is full. A full request refused as well
        // backs off, so a broker that keeps refusing is not asked in a tight loop.
        if (plan.full) {
          node.failures++;
          node.retryAt = Date.now() + this.#backoff(node.failures);
        }
        return;
      }
      this.#onSendFailure(node, error, sent);
      return;
    }
    node.failures = 0;
    const byId = version >= FETCH_TOPIC_ID_VERSION;
    const names = new Map<string, string>();
    if (byId) for (const { data } of sent.values()) names.set(data.topicId, data.topic);
    const answered: {
      entry: SentPartition;
      data: FetchResponsePartitionData;
    }[] = [];
    for (const t of response.responses) {
      const topic = byId ? names.get(t.topicId) : t.topic;
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        const entry = sent.get(sessionKey(topic, p.partitionIndex));
        if (entry === undefined) continue;
        answered.push({ entry, data: p });
      }
    }
    const anyRecords = answered.some(
      (a) => a.data.errorCode === 0 && (a.data.records?.length ?? 0) > 0,
    );
    for (const { entry, data } of answered) {
      const { state, generation } = entry;
      // Sought, reset, unassigned or assigned again while the Fetch was out: not ours any more.
      if (!this.#current(state, generation)) continue;
      if (data.errorCode !== 0) {
        this.#onPartitionError(node, entry, data, response.nodeEndpoints, version);
        continue;
      }
      this.#onPartitionData(node, entry, data, version, anyRecords);
    }
  }

  #onPartitionData(
    node: NodeState,
    entry: SentPartition,
    data: FetchResponsePartitionData,
    version: number,
    othersHadRecords: boolean,
  ): void {
    const { state, trace } = entry;
    const fetchOffset = entry.data.fetchOffset;
    const where = `Fetch v${version} from broker ${node.id}`;
    state.fetches++;
    state.highWatermark = data.highWatermark;
    state.lastStableOffset = data.lastStableOffset;
    state.logStartOffset = data.logStartOffset;
    state.lastError = undefined;
    if (data.preferredReadReplica >= 0) {
      // KIP-392: the leader names a replica (its replica.selector.class chose one near our
      // rackId) and answers with no records: fetch from that replica until the metadata's
      // age runs out, as Kafka's FetchCollector keeps it.
      const replica =
        data.preferredReadReplica === state.leader ? undefined : data.preferredReadReplica;
      if (replica !== state.readReplica)
        this.#log.debug(
          { topic: state.topic, partition: state.partition, leader: node.id, replica },
          'fetching from the preferred read replica',
        );
      state.readReplica = replica;
      state.readReplicaUntil = replica === undefined ? 0 : Date.now() + this.#readReplicaMaxAgeMs;
    }
    if (trace !== undefined) {
      trace.context.errorCode = 0;
      trace.context.bytes = data.records?.length ?? 0;
      trace.context.highWatermark = data.highWatermark;
    }
    let read: ReturnType<typeof readFetchedRecords>;
    try {
      read = readFetchedRecords(data.records, {
        fetchOffset,
        isolationLevel: this.#config.isolationLevel,
        abortedTransactions: data.abortedTransactions,
        verifyCrc: this.#config.verifyCrc,
        maxUncompressedBytes: this.#config.maxUncompressedBytes,
      });
    } catch (error) {
      const cause = asError(error);
      const failed =
        cause instanceof RecordBatchError
          ? new FetchPartitionError(
              ErrorCode.CORRUPT_MESSAGE,
              state.topic,
              state.partition,
              fetchOffset,
              `${where}: ${cause.message}`,
              { cause },
            )
          : cause;
      if (trace !== undefined) this.#settle(trace, failed);
      this.#fail(state, failed);
      return;
    }
    state.failures = 0;
    if (trace !== undefined) {
      trace.context.records = read.count;
      trace.context.nextOffset = read.nextOffset;
      const lag = data.highWatermark - read.nextOffset;
      trace.context.lag = lag > 0n ? lag : 0n;
    }
    if (read.nextOffset === fetchOffset) {
      // A partial batch alone, with no other partition filling the answer, cannot move on.
      if (read.partialBytes > 0 && !othersHadRecords) {
        this.#fail(
          state,
          new FetchStateError(
            'ERR_KAFKA_FETCH_NO_PROGRESS',
            state.topic,
            state.partition,
            `${where} at ${fetchOffset}: ${read.partialBytes} bytes came back without one whole record batch`,
          ),
        );
      }
      return;
    }
    if (read.count === 0) {
      // Only control or aborted batches: nothing to deliver, the position steps past them.
      state.position = read.nextOffset;
      return;
    }
    const bytes = data.records?.length ?? 0;
    if (state.buffered.length === 0) this.#ready.push(state);
    const batches = fetchedBatches(
      {
        topic: state.topic,
        partition: state.partition,
        fetchOffset,
        columns: read.columns,
        count: read.count,
        nextOffset: read.nextOffset,
        highWatermark: data.highWatermark,
        lastStableOffset: data.lastStableOffset,
        logStartOffset: data.logStartOffset,
        leaderId: node.id,
        leaderEpoch: entry.data.currentLeaderEpoch,
        lastLeaderEpoch: read.lastLeaderEpoch,
        sizeInBytes: bytes,
      },
      read.epochs,
      this.#maxBatchRecords,
    );
    for (const batch of batches) {
      state.buffered.push({
        batch,
        bytes: batch.sizeInBytes,
        lastLeaderEpoch: batch.lastLeaderEpoch,
      });
    }
    this.#bufferedBytes += bytes;
    this.#peakBufferedBytes = Math.max(this.#peakBufferedBytes, this.#bufferedBytes);
    if (!state.paused) this.#notify();
  }

  #onPartitionError(
    node: NodeState,
    entry: SentPartition,
    data: FetchResponsePartitionData,
    endpoints: readonly FetchResponseNodeEndpoint[],
    version: number,
  ): void {
    const { state, generation, trace } = entry;
    const fetchOffset = entry.data.fetchOffset;
    const where = `Fetch v${version} from broker ${node.id}`;
    const error = new FetchPartitionError(
      data.errorCode,
      state.topic,
      state.partition,
      fetchOffset,
      where,
    );
    state.fetches++;
    if (trace !== undefined) {
      trace.context.errorCode = data.errorCode;
      this.#settle(trace, error);
    }
    if (state.readReplica !== undefined && state.readReplica === node.id) {
      // Any error from the preferred read replica sends the partition back to its leader, as
      // Kafka's FetchCollector clears it; out of range there (a replica behind the leader's log
      // start, or not yet caught up) is asked of the leader, not reset.
      this.#forgetReadReplica(state, 'error', error);
      if (data.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) return;
    }
    if (data.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      const policy = this.#config.autoOffsetReset;
      if (policy === 'none') {
        void this.#outOfRange(state, generation, fetchOffset);
        return;
      }
      this.#log.info(
        {
          topic: state.topic,
          partition: state.partition,
          fetchOffset: String(fetchOffset),
          reset: policy,
        },
        'fetch offset out of range: resetting',
      );
      state.generation++;
      state.position = policy;
      state.positionEpoch = -1;
      state.failures = 0;
      return;
    }
    if (!this.#retriable(error)) {
      this.#fail(state, error);
      return;
    }
    const hint = data.currentLeader;
    if (hint.leaderId >= 0 && hint.leaderEpoch > state.leaderEpoch) {
      // KIP-951: the broker named the new leader; go there now instead of refreshing first.
      this.#newLeader(state, hint.leaderId, hint.leaderEpoch);
      state.stale = false;
      this.#retried(state, error);
      this.#config.cluster.applyLeaderHints(
        [
          {
            topic: state.topic,
            partition: state.partition,
            leaderId: hint.leaderId,
            leaderEpoch: hint.leaderEpoch,
          },
        ],
        endpoints.map((e) => ({ nodeId: e.nodeId, host: e.host, port: e.port, rack: e.rack })),
      );
      return;
    }
    this.#partitionRetry(state, error);
  }
}
