import { setMaxListeners } from 'node:events';
import {
  ErrorCode,
  FetchApi,
  type FetchResponse,
  type FetchResponseNodeEndpoint,
  type FetchResponsePartitionData,
  KafkaError,
  ProtocolError,
  RecordBatchError,
} from '@kafkats/codec';
import {
  classify,
  type MetaConnection,
  type MetadataSnapshot,
  retryDelayMs,
  ZERO_UUID,
} from '@kafkats/meta';
import { unlessAborted } from '../internal/abortable.js';
import type { TopicPartition } from '../topic-partition.js';
import {
  FetchPartitionError,
  OffsetOutOfRangeError,
  PartitionReaderError,
} from './fetch-errors.js';
import type { Fetcher, FetcherConfig, FetchStart } from './fetcher.js';
import { FETCH_TOPIC_ID_VERSION } from './internal/fetch-request.js';
import {
  buildSessionFetchRequest,
  type FetchRequestCommon,
  FetchSessionHandler,
  type SessionPartition,
  type SessionRequestPlan,
  sessionKey,
} from './internal/fetch-session.js';
import { readFetchedRecords } from './internal/fetched-records.js';
import { listOffset } from './internal/list-offset.js';
import type { PartitionBatch } from './partition-batch.js';

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
  /** Bumped by every seek or reset: an answer fetched under an older one is dropped. */
  generation: number;
  paused: boolean;
  buffered: Buffered[];
  leader: number | undefined;
  /** The leader epoch we fetch with (KIP-320); never goes backwards. */
  leaderEpoch: number;
  topicId: string | undefined;
  /** The leader must be looked up again before the next fetch. */
  stale: boolean;
  /** The broker a Fetch holding this partition is in flight to. */
  inflight: number | undefined;
  /** A ListOffsets for it is in flight. */
  resolving: boolean;
  failures: number;
  retryAt: number;
  /** An error the next poll rejects with; nothing is fetched for it meanwhile. */
  error: Error | undefined;
}

/** One leader broker: its fetch session, its dedicated connection, its backoff. */
interface NodeState {
  readonly id: number;
  readonly session: FetchSessionHandler;
  connection: MetaConnection | undefined;
  busy: boolean;
  /** The request-level maxBytes of the Fetch in flight: room in the buffer it may fill. */
  reserved: number;
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
 * The group consumer's {@link Fetcher}: one KIP-227 fetch session per leader broker (see
 * {@link FetchSessionHandler}), one Fetch in flight per broker, each on a dedicated connection
 * to that broker (a long poll never holds up other requests), the brokers independent of each
 * other.
 *
 * Prefetch is bounded as in Kafka's `AbstractFetch`: a partition whose fetched data was not yet
 * polled is left out of the next Fetch (so it leaves the session and joins it again once
 * polled), and no Fetch goes out while the buffered bytes exceed `maxBufferedBytes`. Each Fetch
 * asks (request-level maxBytes) for no more than the room left under the bound once the Fetches
 * already in flight are counted, but at least 1 byte (a broker still returns the first whole
 * batch, KIP-74). So the buffer passes the bound by at most one answer per broker (each at most
 * `maxBytes`, or one record batch when that is larger), and near the bound answers are small.
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
 * epochs never go backwards. A lost connection or a
 * timed-out Fetch backs that broker off (exponentially, jittered) and starts its session anew;
 * the other brokers go on. OFFSET_OUT_OF_RANGE resets by `autoOffsetReset`, or with 'none'
 * rejects poll with {@link OffsetOutOfRangeError}. Anything else not retriable
 * (TOPIC_AUTHORIZATION_FAILED, a corrupt batch, ...) rejects poll with a
 * {@link FetchPartitionError} naming the partition; that partition is fetched again after the
 * error was reported, so a persisting error is reported on every poll.
 */
export class SessionFetcher implements Fetcher {
  readonly #config: FetcherConfig;
  readonly #observer: FetcherObserver;
  readonly #partitions = new Map<string, PartitionState>();
  readonly #nodes = new Map<number, NodeState>();
  readonly #stop = new AbortController();
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
    // Every request in flight (a Fetch per broker, a ListOffsets per partition) listens to it.
    setMaxListeners(0, this.#stop.signal);
  }

  /** Bytes fetched and not yet polled. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
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
        generation: (old?.generation ?? 0) + 1,
        paused: false,
        buffered: [],
        leader: old?.leader,
        leaderEpoch: old?.leaderEpoch ?? -1,
        topicId: old?.topicId,
        stale: false,
        inflight: undefined,
        resolving: false,
        failures: 0,
        retryAt: 0,
        error: undefined,
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

  async poll(signal?: AbortSignal): Promise<PartitionBatch[]> {
    for (;;) {
      if (this.#closed) return [];
      for (const state of this.#partitions.values()) {
        const error = state.error;
        if (error === undefined) continue;
        state.error = undefined;
        this.#pump();
        throw error;
      }
      const out = this.#drain();
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
    this.#stop.abort();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#notify();
    await Promise.all(
      [...this.#nodes.values()].map(async (node) => {
        const connection = node.connection;
        node.connection = undefined;
        const plan = node.session.closePlan();
        if (connection === undefined) return;
        if (plan !== undefined && !connection.closed) {
          // Tell the broker the session can go (epoch -1) so it frees the slot, as Kafka's
          // consumer does on close. An aborted long poll still holds the connection: the broker
          // answers this after it, within maxWaitMs.
          const common = { ...this.#common(), maxWaitMs: 0 };
          const response = await this.#config.cluster
            .sendOn(connection, FetchApi, (v) => buildSessionFetchRequest(plan, v, common), {
              timeoutMs: this.#config.maxWaitMs + Math.min(this.#config.requestTimeoutMs, 5000),
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

  #drain(): PartitionBatch[] {
    const out: PartitionBatch[] = [];
    for (const state of this.#partitions.values()) {
      if (state.paused || state.buffered.length === 0) continue;
      for (const b of state.buffered) {
        out.push(b.batch);
        state.position = b.batch.nextOffset;
        if (b.lastLeaderEpoch >= 0) state.positionEpoch = b.lastLeaderEpoch;
        this.#bufferedBytes -= b.bytes;
      }
      state.buffered = [];
    }
    return out;
  }

  #dropBuffered(state: PartitionState): void {
    for (const b of state.buffered) this.#bufferedBytes -= b.bytes;
    state.buffered = [];
  }

  #news(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
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
      const list = byNode.get(state.leader);
      if (list === undefined) byNode.set(state.leader, [state]);
      else list.push(state);
    }
    if (needMetadata) {
      if (this.#metadataRetryAt > now) wakeAt = Math.min(wakeAt, this.#metadataRetryAt);
      else void this.#refreshMetadata();
    }
    if (this.#bufferedBytes <= this.#config.maxBufferedBytes) {
      for (const [nodeId, states] of byNode) {
        const node = this.#node(nodeId);
        if (node.busy) continue;
        const readyAt = Math.max(node.retryAt, node.throttledUntil);
        if (readyAt > now) {
          wakeAt = Math.min(wakeAt, readyAt);
          continue;
        }
        void this.#fetch(node, states);
      }
    }
    this.#wakeAt(wakeAt);
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
      if (this.#retriable(error)) return;
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
        new PartitionReaderError(
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
      state.leader = known.leader;
      state.leaderEpoch = known.leaderEpoch;
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

  /** Resolves 'earliest' or 'latest' with ListOffsets (the isolation level applies to 'latest'). */
  async #resolve(state: PartitionState): Promise<void> {
    const spec = state.position;
    if (typeof spec === 'bigint') return;
    const generation = state.generation;
    state.resolving = true;
    try {
      const offset = await listOffset(
        this.#config.cluster,
        state.topic,
        state.partition,
        spec,
        this.#config.isolationLevel,
        { signal: this.#stop.signal, timeoutMs: this.#config.requestTimeoutMs },
      );
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
      listOffset(
        this.#config.cluster,
        state.topic,
        state.partition,
        spec,
        this.#config.isolationLevel,
        { signal: this.#stop.signal, timeoutMs: this.#config.requestTimeoutMs },
      ).catch(() => undefined);
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
    const sent = new Map<
      string,
      { state: PartitionState; generation: number; data: SessionPartition }
    >();
    for (const state of states) {
      state.inflight = node.id;
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
    try {
      const connection = await this.#connection(node);
      plan = node.session.build([...sent.values()].map((s) => s.data));
      const chosen = plan;
      response = await this.#config.cluster.sendOn(
        connection,
        FetchApi,
        (v) => {
          version = v;
          return buildSessionFetchRequest(chosen, v, { ...this.#common(), maxBytes });
        },
        {
          // The broker may hold the answer for maxWaitMs before the request timeout matters.
          timeoutMs: this.#config.maxWaitMs + this.#config.requestTimeoutMs,
          signal: this.#stop.signal,
          checkTopLevelError: false,
        },
      );
      if (plan.full) node.fullRequests++;
      else node.incrementalRequests++;
      if (response.throttleTimeMs > 0) node.throttledUntil = Date.now() + response.throttleTimeMs;
      this.#onResponse(node, plan, response, version, sent);
    } catch (error) {
      if (!this.#closed) this.#onSendFailure(node, asError(error), sent);
    } finally {
      node.busy = false;
      node.reserved = 0;
      for (const { state } of sent.values()) {
        if (state.inflight === node.id) state.inflight = undefined;
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

  /** The Fetch could not be sent or answered: the session starts over, the broker backs off. */
  #onSendFailure(
    node: NodeState,
    error: Error,
    sent: ReadonlyMap<string, { state: PartitionState; generation: number }>,
  ): void {
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
    // A lost connection may mean the broker no longer leads these (Kafka's NetworkClient asks
    // for a metadata update on every disconnect).
    if (classify(error, 'leader').refreshMetadata) {
      for (const { state, generation } of sent.values()) {
        if (this.#current(state, generation)) state.stale = true;
      }
    }
  }

  #onResponse(
    node: NodeState,
    plan: SessionRequestPlan,
    response: FetchResponse,
    version: number,
    sent: ReadonlyMap<
      string,
      { state: PartitionState; generation: number; data: SessionPartition }
    >,
  ): void {
    const accepted = node.session.handleResponse(plan, response.errorCode, response.sessionId);
    if (!accepted) {
      const error = ProtocolError.fromCode(
        response.errorCode,
        `Fetch v${version} to broker ${node.id} (session ${plan.sessionId}, epoch ${plan.epoch})`,
      );
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
      entry: { state: PartitionState; generation: number; data: SessionPartition };
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
    entry: { state: PartitionState; data: SessionPartition },
    data: FetchResponsePartitionData,
    version: number,
    othersHadRecords: boolean,
  ): void {
    const { state } = entry;
    const fetchOffset = entry.data.fetchOffset;
    const where = `Fetch v${version} from broker ${node.id}`;
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
      this.#fail(
        state,
        cause instanceof RecordBatchError
          ? new FetchPartitionError(
              ErrorCode.CORRUPT_MESSAGE,
              state.topic,
              state.partition,
              fetchOffset,
              `${where}: ${cause.message}`,
              { cause },
            )
          : cause,
      );
      return;
    }
    state.failures = 0;
    if (read.nextOffset === fetchOffset) {
      // A partial batch alone, with no other partition filling the answer, cannot move on.
      if (read.partialBytes > 0 && !othersHadRecords) {
        this.#fail(
          state,
          new PartitionReaderError(
            'ERR_KAFKA_FETCH_NO_PROGRESS',
            state.topic,
            state.partition,
            `${where} at ${fetchOffset}: ${read.partialBytes} bytes came back without one whole record batch`,
          ),
        );
      }
      return;
    }
    if (read.records.length === 0) {
      // Only control or aborted batches: nothing to deliver, the position steps past them.
      state.position = read.nextOffset;
      return;
    }
    const bytes = data.records?.length ?? 0;
    state.buffered.push({
      batch: {
        topic: state.topic,
        partition: state.partition,
        fetchOffset,
        records: read.records,
        nextOffset: read.nextOffset,
        highWatermark: data.highWatermark,
        lastStableOffset: data.lastStableOffset,
        logStartOffset: data.logStartOffset,
        leaderId: node.id,
        leaderEpoch: entry.data.currentLeaderEpoch,
      },
      bytes,
      lastLeaderEpoch: read.lastLeaderEpoch,
    });
    this.#bufferedBytes += bytes;
    this.#peakBufferedBytes = Math.max(this.#peakBufferedBytes, this.#bufferedBytes);
    if (!state.paused) this.#notify();
  }

  #onPartitionError(
    node: NodeState,
    entry: { state: PartitionState; generation: number; data: SessionPartition },
    data: FetchResponsePartitionData,
    endpoints: readonly FetchResponseNodeEndpoint[],
    version: number,
  ): void {
    const { state, generation } = entry;
    const fetchOffset = entry.data.fetchOffset;
    if (data.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      const policy = this.#config.autoOffsetReset;
      if (policy === 'none') {
        void this.#outOfRange(state, generation, fetchOffset);
        return;
      }
      state.generation++;
      state.position = policy;
      state.positionEpoch = -1;
      state.failures = 0;
      return;
    }
    const where = `Fetch v${version} from broker ${node.id}`;
    const error = new FetchPartitionError(
      data.errorCode,
      state.topic,
      state.partition,
      fetchOffset,
      where,
    );
    if (!this.#retriable(error)) {
      this.#fail(state, error);
      return;
    }
    const hint = data.currentLeader;
    if (hint.leaderId >= 0 && hint.leaderEpoch > state.leaderEpoch) {
      // KIP-951: the broker named the new leader; go there now instead of refreshing first.
      state.leader = hint.leaderId;
      state.leaderEpoch = hint.leaderEpoch;
      state.stale = false;
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
