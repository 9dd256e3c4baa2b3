import { DEFAULT_CONSUME_WAIT_MS } from './config.js';
import { type ApplyTraceContext, applyChannel } from './diagnostics.js';
import { RemoteLogMetadataError } from './errors.js';
import type { MetadataEventLog, MetadataLogBatch } from './event-log.js';
import {
  partitionName,
  type RemoteLogMetadataEvent,
  type RemoteLogSegmentMetadata,
  type RemoteLogSegmentMetadataUpdate,
  type RemotePartitionDeleteMetadata,
  type TopicIdPartition,
  topicIdPartitionOf,
} from './events.js';
import { MetadataStore } from './internal/metadata-store.js';
import type { PartitionCache } from './internal/partition-cache.js';
import { partitionKey } from './internal/segment-key.js';
import { decodeSnapshot, encodeSnapshot } from './internal/snapshot-codec.js';
import { metadataPartition } from './partitioner.js';
import { deserializeMetadataEvent, serializeMetadataEvent } from './serde.js';

/** Where a record sits in the metadata topic. */
export interface MetadataRecordPosition {
  readonly partition: number;
  readonly offset: bigint;
}

/** Options of a {@link RemoteLogMetadataManager}. Every field has a default. */
export interface RemoteLogMetadataManagerOptions {
  /**
   * A snapshot from {@link RemoteLogMetadataManager.snapshot}: the state and read positions to
   * resume from, so that only records written since are read. Must come from the same metadata
   * topic (id and partition count).
   */
  readonly snapshot?: Uint8Array;
  /**
   * How long a write waits to be read back by this manager, ms. Default 120000, as Kafka's
   * `remote.log.metadata.consume.wait.ms`.
   */
  readonly consumeWaitMs?: number;
  /**
   * Called for a record that is not a metadata event this manager can apply (it is skipped and
   * reading goes on, where Kafka's consumer thread would stop). Default: ignored.
   */
  readonly onBadRecord?: (error: RemoteLogMetadataError, where: MetadataRecordPosition) => void;
  /**
   * Called for an event Kafka's cache drops with a log line (an invalid state transition, an
   * update of an unknown segment). Default: ignored.
   */
  readonly onDroppedEvent?: (
    reason: string,
    event: RemoteLogMetadataEvent,
    where: MetadataRecordPosition,
  ) => void;
}

/** A user partition as {@link RemoteLogMetadataManager.userPartitions} lists it. */
export interface UserPartitionState {
  readonly topicIdPartition: TopicIdPartition;
  /** The metadata partition its events go to. */
  readonly metadataPartition: number;
  /** Registered with `onPartitionLeadershipChanges`, and ready to answer reads. */
  readonly registered: boolean;
  readonly ready: boolean;
  /** Its deletion finished (DELETE_PARTITION_FINISHED): its segments are gone. */
  readonly deleted: boolean;
}

interface Registration {
  readonly tp: TopicIdPartition;
  readonly metadataPartition: number;
  /** The metadata partition's end offset when the partition was registered. */
  endOffset: bigint;
  ready: boolean;
}

interface Waiter {
  readonly offset: bigint;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

const notFound = (tp: TopicIdPartition) =>
  new RemoteLogMetadataError(
    'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND',
    `no resource found for partition ${partitionName(tp)}`,
  );

/**
 * The state of Kafka's topic-based remote log metadata manager over a {@link MetadataEventLog}:
 * writes go to the metadata partition Kafka's partitioner picks and resolve once this manager
 * has read them back; reads answer from the state built by reading the log, with Kafka's
 * semantics (`TopicBasedRemoteLogMetadataManager`, `RemoteLogMetadataCache`).
 *
 * User partitions are registered with {@link onPartitionLeadershipChanges} (leaders and
 * followers alike); the metadata partitions they map to are read from the snapshot's position
 * or from 0. A registered partition is ready once its metadata partition has been read up to
 * the end offset it had at registration; before that, reads throw
 * `ERR_KAFKA_RLMM_PARTITION_NOT_READY` (retriable, Kafka's ReplicaNotAvailableException).
 * Reads of a partition not registered, or whose deletion finished, throw
 * `ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND`.
 *
 * Events of every user partition in the metadata partitions read are kept, registered or not:
 * a partition registered later is served from that state, where Kafka replays the metadata
 * partition from its start. The log is the caller's: {@link close} leaves it open.
 */
export class RemoteLogMetadataManager {
  readonly #log: MetadataEventLog;
  readonly #options: RemoteLogMetadataManagerOptions;
  readonly #consumeWaitMs: number;
  #store: MetadataStore;
  /** Metadata partition -> next offset to read; the state reflects every record before it. */
  readonly #positions: Map<number, bigint>;
  readonly #registered = new Map<string, Registration>();
  readonly #waiters = new Map<number, Waiter[]>();
  // Checks of waiting callers, run after every batch read (and on failure and close).
  readonly #progressWaiters = new Set<() => void>();
  readonly #closer = new AbortController();
  readonly #pump: Promise<void>;
  #failure: Error | undefined;
  #closed = false;

  /**
   * Starts reading (nothing until a partition is registered).
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_SNAPSHOT_INVALID` for a snapshot that does
   *   not decode or belongs to another metadata topic; `ERR_KAFKA_RLMM_CONFIG_INVALID`
   */
  constructor(log: MetadataEventLog, options: RemoteLogMetadataManagerOptions = {}) {
    this.#log = log;
    this.#options = options;
    this.#consumeWaitMs = options.consumeWaitMs ?? DEFAULT_CONSUME_WAIT_MS;
    if (!Number.isInteger(this.#consumeWaitMs) || this.#consumeWaitMs < 0) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_CONFIG_INVALID',
        `consumeWaitMs must be an integer >= 0, got ${this.#consumeWaitMs}`,
      );
    }
    if (options.snapshot !== undefined) {
      const content = decodeSnapshot(options.snapshot);
      if (content.topicId !== log.topicId || content.numPartitions !== log.numPartitions) {
        throw new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_SNAPSHOT_INVALID',
          `remote log metadata snapshot of topic ${content.topicId} with ${content.numPartitions} partitions does not match topic ${log.topicId} with ${log.numPartitions}`,
        );
      }
      this.#store = content.store;
      this.#positions = new Map(content.positions);
    } else {
      this.#store = new MetadataStore();
      this.#positions = new Map();
    }
    this.#pump = this.#run();
  }

  /** The error that stopped reading (the log failed in a way it cannot retry), if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /**
   * Next offset to read of each metadata partition whose state this manager holds or reads:
   * one being read that never had a record is there as 0.
   */
  positions(): Map<number, bigint> {
    const out = new Map(this.#positions);
    for (const mp of this.#log.assigned()) if (!out.has(mp)) out.set(mp, 0n);
    return out;
  }

  /**
   * Every user partition this manager knows of: registered, or met in the metadata partitions
   * it has read (events of every user partition there are kept), sorted by topic and partition.
   */
  userPartitions(): UserPartitionState[] {
    const out = new Map<string, UserPartitionState>();
    for (const [key, entry] of this.#store.entries) {
      const r = this.#registered.get(key);
      out.set(key, {
        topicIdPartition: entry.tp,
        metadataPartition: entry.metadataPartition,
        registered: r !== undefined,
        ready: r?.ready === true,
        deleted: entry.cache === undefined,
      });
    }
    for (const [key, r] of this.#registered) {
      if (out.has(key)) continue;
      out.set(key, {
        topicIdPartition: r.tp,
        metadataPartition: r.metadataPartition,
        registered: true,
        ready: r.ready,
        deleted: false,
      });
    }
    return [...out.values()].sort((a, b) => {
      const x = a.topicIdPartition;
      const y = b.topicIdPartition;
      return x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : x.partition - y.partition;
    });
  }

  /**
   * Reads metadata partitions (default: every one of the topic) up to the end offsets they have
   * now (one ListOffsets round), whether or not a registered partition maps to them, and
   * resolves with the positions reached. Partitions read only for this call are released
   * afterwards (their state and position are kept). Afterwards {@link userPartitions} lists
   * every user partition with events there.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_CONSUME_TIMEOUT` after `timeoutMs` (default
   *   `consumeWaitMs`), `ERR_KAFKA_RLMM_CONFIG_INVALID` for a partition not in the topic,
   *   `ERR_KAFKA_RLMM_STATE` after close; the reading failure, if reading stopped
   */
  async readToEnd(
    options: {
      readonly metadataPartitions?: readonly number[];
      readonly timeoutMs?: number;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<Map<number, bigint>> {
    this.#ensureOpen();
    const n = this.#log.numPartitions;
    const partitions = [
      ...new Set(options.metadataPartitions ?? Array.from({ length: n }, (_, i) => i)),
    ];
    for (const mp of partitions)
      if (!Number.isInteger(mp) || mp < 0 || mp >= n)
        throw new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_CONFIG_INVALID',
          `metadata partition ${mp} is not in [0, ${n})`,
        );
    const ends = await this.#log.highWaterMarks(partitions);
    const assigned = new Set(this.#log.assigned());
    const added = partitions.filter((mp) => !assigned.has(mp));
    for (const mp of added) this.#read(mp);
    const behind = () =>
      partitions.filter((mp) => (this.#positions.get(mp) ?? 0n) < (ends.get(mp) ?? 0n));
    try {
      await this.#waitUntil(
        () => behind().length === 0,
        options.timeoutMs ?? this.#consumeWaitMs,
        options.signal,
        (ms) => `metadata partitions not read to their end after ${ms} ms: ${behind().join(', ')}`,
      );
    } finally {
      const used = new Set([...this.#registered.values()].map((r) => r.metadataPartition));
      for (const mp of added) if (!used.has(mp) && !this.#closed) await this.#log.unassign(mp);
    }
    return new Map(partitions.map((mp) => [mp, this.#positions.get(mp) ?? 0n]));
  }

  /** Starts reading a metadata partition where this manager's state ends. */
  #read(mp: number): void {
    const from = this.#positions.get(mp) ?? 0n;
    this.#positions.set(mp, from);
    this.#log.assign(mp, from);
  }

  /** The metadata partition a user partition's events go to. */
  metadataPartitionOf(tp: TopicIdPartition): number {
    return metadataPartition(tp, this.#log.numPartitions);
  }

  // ---- registration

  /**
   * Registers user partitions this broker leads or follows (Kafka treats both alike): their
   * metadata partitions are read from here on, and each partition becomes ready once its
   * metadata partition is read up to the end offset captured now (one ListOffsets round).
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_STATE` after close; the log's errors
   */
  async onPartitionLeadershipChanges(
    leaders: readonly TopicIdPartition[],
    followers: readonly TopicIdPartition[] = [],
  ): Promise<void> {
    this.#ensureOpen();
    const added: Registration[] = [];
    for (const tp of [...leaders, ...followers]) {
      const key = partitionKey(tp);
      if (this.#registered.has(key)) continue;
      const mp = this.metadataPartitionOf(tp);
      this.#store.load(tp, mp);
      const registration: Registration = {
        tp,
        metadataPartition: mp,
        endOffset: -1n,
        ready: false,
      };
      this.#registered.set(key, registration);
      added.push(registration);
    }
    if (added.length === 0) return;
    const metadataPartitions = [...new Set(added.map((r) => r.metadataPartition))];
    const ends = await this.#log.highWaterMarks(metadataPartitions);
    const assigned = new Set(this.#log.assigned());
    for (const mp of metadataPartitions) if (!assigned.has(mp)) this.#read(mp);
    for (const r of added) {
      r.endOffset = ends.get(r.metadataPartition) ?? 0n;
      this.#checkReady(r);
    }
    for (const check of [...this.#progressWaiters]) check();
  }

  /**
   * Unregisters user partitions; a metadata partition no registered partition maps to is no
   * longer read (its state and position are kept, so reading it again resumes there).
   */
  async onStopPartitions(partitions: readonly TopicIdPartition[]): Promise<void> {
    this.#ensureOpen();
    const touched = new Set<number>();
    for (const tp of partitions) {
      const r = this.#registered.get(partitionKey(tp));
      if (r === undefined) continue;
      this.#registered.delete(partitionKey(tp));
      touched.add(r.metadataPartition);
    }
    const stillUsed = new Set([...this.#registered.values()].map((r) => r.metadataPartition));
    for (const mp of touched) {
      if (!stillUsed.has(mp)) {
        await this.#log.unassign(mp);
        this.#rejectWaiters(
          mp,
          new RemoteLogMetadataError(
            'ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED',
            `metadata partition ${mp} is no longer read by this manager`,
          ),
        );
      }
    }
  }

  /** Whether a registered partition's metadata has been read up to its registration-time end. */
  isReady(tp: TopicIdPartition): boolean {
    return this.#registered.get(partitionKey(tp))?.ready === true;
  }

  /**
   * Resolves once every given partition is ready.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_CONSUME_TIMEOUT` after `timeoutMs`
   *   (default `consumeWaitMs`), `ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND` for a partition not
   *   registered; the reading failure, if reading stopped
   */
  async waitUntilReady(
    partitions: readonly TopicIdPartition[],
    options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {},
  ): Promise<void> {
    for (const tp of partitions) if (!this.#registered.has(partitionKey(tp))) throw notFound(tp);
    await this.#waitUntil(
      () => partitions.every((tp) => this.isReady(tp)),
      options.timeoutMs ?? this.#consumeWaitMs,
      options.signal,
      (ms) =>
        `partitions not ready after ${ms} ms: ${partitions
          .filter((tp) => !this.isReady(tp))
          .map(partitionName)
          .join(', ')}`,
    );
  }

  /**
   * Resolves once `done()` holds, checked again after every batch read; rejects with
   * `ERR_KAFKA_RLMM_CONSUME_TIMEOUT` (`timedOut` says what was missing) after `timeoutMs`, with
   * the reading failure, on close, or on abort.
   */
  async #waitUntil(
    done: () => boolean,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    timedOut: (ms: number) => string,
  ): Promise<void> {
    if (done()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.#failure !== undefined) finish(this.#failure);
        else if (this.#closed)
          finish(new RemoteLogMetadataError('ERR_KAFKA_RLMM_STATE', 'the manager is closed'));
        else if (done()) finish();
      };
      const onAbort = () =>
        finish(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(
        () =>
          finish(new RemoteLogMetadataError('ERR_KAFKA_RLMM_CONSUME_TIMEOUT', timedOut(timeoutMs))),
        timeoutMs,
      );
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#progressWaiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#progressWaiters.add(check);
      check();
    });
  }

  // ---- writes

  /**
   * Publishes a new segment (Kafka's addRemoteLogSegmentMetadata) and resolves once this
   * manager has read it back.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` unless its state is
   *   COPY_SEGMENT_STARTED; see {@link publish} for the rest
   */
  addRemoteLogSegmentMetadata(segment: RemoteLogSegmentMetadata): Promise<MetadataRecordPosition> {
    if (segment.state !== 'COPY_SEGMENT_STARTED') {
      return Promise.reject(
        new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_EVENT_INVALID',
          `given segment ${segment.remoteLogSegmentId.id} should have state COPY_SEGMENT_STARTED but has ${segment.state}`,
        ),
      );
    }
    return this.publish(segment);
  }

  /**
   * Publishes a segment update (Kafka's updateRemoteLogSegmentMetadata).
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` for state COPY_SEGMENT_STARTED
   */
  updateRemoteLogSegmentMetadata(
    update: RemoteLogSegmentMetadataUpdate,
  ): Promise<MetadataRecordPosition> {
    if (update.state === 'COPY_SEGMENT_STARTED') {
      return Promise.reject(
        new RemoteLogMetadataError(
          'ERR_KAFKA_RLMM_EVENT_INVALID',
          `given update of segment ${update.remoteLogSegmentId.id} can not have state COPY_SEGMENT_STARTED`,
        ),
      );
    }
    return this.publish(update);
  }

  /** Publishes a partition deletion step (Kafka's putRemotePartitionDeleteMetadata; any state). */
  putRemotePartitionDeleteMetadata(
    metadata: RemotePartitionDeleteMetadata,
  ): Promise<MetadataRecordPosition> {
    return this.publish(metadata);
  }

  /**
   * Writes an event to its metadata partition and waits until this manager has read it back
   * (as Kafka's `waitTillConsumptionCatchesUp`). Nothing is validated against the state: the
   * state machine judges the event when it is read.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED` when its metadata
   *   partition is not read by this manager (the record is written all the same),
   *   `ERR_KAFKA_RLMM_CONSUME_TIMEOUT` after `consumeWaitMs`, `ERR_KAFKA_RLMM_STATE` after
   *   close; the log's write errors
   */
  async publish(event: RemoteLogMetadataEvent): Promise<MetadataRecordPosition> {
    this.#ensureOpen();
    const mp = this.metadataPartitionOf(topicIdPartitionOf(event));
    const written = await this.#log.write(mp, serializeMetadataEvent(event));
    const where = { partition: written.partition, offset: written.offset };
    if (!this.#log.assigned().includes(mp)) {
      const assigned = this.#log.assigned();
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED',
        `this consumer is not assigned to the target partition ${mp}. Currently assigned partitions: [${assigned.join(', ')}]`,
      );
    }
    // A retried batch the broker reported as a duplicate has no offset: it is below the end.
    const target =
      written.offset >= 0n
        ? written.offset
        : ((await this.#log.highWaterMarks([mp])).get(mp) ?? 1n) - 1n;
    await this.#waitConsumed(mp, target);
    return where;
  }

  #waitConsumed(mp: number, offset: bigint): Promise<void> {
    if ((this.#positions.get(mp) ?? 0n) > offset) return Promise.resolve();
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        remove();
        reject(
          new RemoteLogMetadataError(
            'ERR_KAFKA_RLMM_CONSUME_TIMEOUT',
            `metadata partition ${mp} offset ${offset} was not read back within ${this.#consumeWaitMs} ms`,
          ),
        );
      }, this.#consumeWaitMs);
      const waiter: Waiter = {
        offset,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const remove = () => {
        const list = this.#waiters.get(mp);
        if (list !== undefined) list.splice(list.indexOf(waiter), 1);
      };
      let list = this.#waiters.get(mp);
      if (list === undefined) {
        list = [];
        this.#waiters.set(mp, list);
      }
      list.push(waiter);
    });
  }

  #rejectWaiters(mp: number | undefined, error: Error): void {
    for (const [p, list] of this.#waiters) {
      if (mp !== undefined && p !== mp) continue;
      this.#waiters.delete(p);
      for (const w of list) w.reject(error);
    }
  }

  // ---- reads

  #cache(tp: TopicIdPartition): PartitionCache {
    const r = this.#registered.get(partitionKey(tp));
    const cache = this.#store.entry(tp)?.cache;
    if (r === undefined || cache === undefined) throw notFound(tp);
    if (!r.ready) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_PARTITION_NOT_READY',
        `remote log metadata cache is not initialized for partition ${partitionName(tp)}`,
      );
    }
    return cache;
  }

  /**
   * The COPY_SEGMENT_FINISHED segment holding `offset` written in `leaderEpoch`, or undefined.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND`, `ERR_KAFKA_RLMM_PARTITION_NOT_READY`
   */
  remoteLogSegmentMetadata(
    tp: TopicIdPartition,
    leaderEpoch: number,
    offset: bigint,
  ): RemoteLogSegmentMetadata | undefined {
    return this.#cache(tp).lookup(leaderEpoch, offset);
  }

  /** The highest offset copied in `leaderEpoch` (never lowered by deletions), or undefined. Throws as above. */
  highestOffsetForEpoch(tp: TopicIdPartition, leaderEpoch: number): bigint | undefined {
    return this.#cache(tp).highestOffsetForEpoch(leaderEpoch);
  }

  /**
   * Segments of a partition not yet DELETE_SEGMENT_FINISHED: all of them (insertion order), or
   * those of one leader epoch sorted by start offset. Throws as above.
   */
  listRemoteLogSegments(tp: TopicIdPartition, leaderEpoch?: number): RemoteLogSegmentMetadata[] {
    const cache = this.#cache(tp);
    return leaderEpoch === undefined ? cache.listAll() : cache.listByEpoch(leaderEpoch);
  }

  /** The first segment from `offset` on in `leaderEpoch` with a non-empty transaction index. Throws as above. */
  nextSegmentWithTxnIndex(
    tp: TopicIdPartition,
    leaderEpoch: number,
    offset: bigint,
  ): RemoteLogSegmentMetadata | undefined {
    return this.#cache(tp).nextSegmentWithTxnIndex(leaderEpoch, offset);
  }

  /** Sum of `segmentSizeInBytes` over the epoch's listed segments (Kafka's remoteLogSize). Throws as above. */
  remoteLogSize(tp: TopicIdPartition, leaderEpoch: number): bigint {
    let size = 0n;
    for (const s of this.listRemoteLogSegments(tp, leaderEpoch))
      size += BigInt(s.segmentSizeInBytes);
    return size;
  }

  /** The last deletion step read for a partition (none after DELETE_PARTITION_FINISHED). */
  remotePartitionDeleteMetadata(tp: TopicIdPartition): RemotePartitionDeleteMetadata | undefined {
    return this.#store.deletes.get(partitionKey(tp));
  }

  // ---- snapshot

  /**
   * The state and read positions, encoded with msgpack, to pass as `snapshot` to a new manager
   * over the same metadata topic. Registrations are not part of it.
   */
  snapshot(): Uint8Array {
    return encodeSnapshot({
      topicId: this.#log.topicId,
      numPartitions: this.#log.numPartitions,
      positions: this.#positions,
      store: this.#store,
    });
  }

  /** Stops reading and rejects pending writes; the log stays open. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closer.abort();
    this.#rejectWaiters(
      undefined,
      new RemoteLogMetadataError('ERR_KAFKA_RLMM_STATE', 'the manager is closed'),
    );
    for (const check of [...this.#progressWaiters]) check();
    await this.#pump;
  }

  #ensureOpen(): void {
    if (this.#closed)
      throw new RemoteLogMetadataError('ERR_KAFKA_RLMM_STATE', 'the manager is closed');
  }

  // ---- reading

  async #run(): Promise<void> {
    try {
      for await (const batch of this.#log.read(this.#closer.signal)) this.#apply(batch);
    } catch (error) {
      if (this.#closed) return;
      this.#failure = error instanceof Error ? error : new Error(String(error));
      this.#rejectWaiters(undefined, this.#failure);
      for (const check of [...this.#progressWaiters]) check();
    }
  }

  #apply(batch: MetadataLogBatch): void {
    const mp = batch.partition;
    const position = this.#positions.get(mp) ?? 0n;
    for (const record of batch.records) {
      if (record.offset < position) continue;
      const where = { partition: mp, offset: record.offset };
      let event: RemoteLogMetadataEvent;
      try {
        event = deserializeMetadataEvent(record.value);
      } catch (error) {
        this.#options.onBadRecord?.(error as RemoteLogMetadataError, where);
        continue;
      }
      try {
        const outcome = applyChannel.hasSubscribers
          ? this.#tracedApply(event, mp, record.offset)
          : this.#store.apply(event, mp);
        if (!outcome.applied) this.#options.onDroppedEvent?.(outcome.dropped, event, where);
      } catch (error) {
        const wrapped =
          error instanceof RemoteLogMetadataError
            ? new RemoteLogMetadataError(
                'ERR_KAFKA_RLMM_RECORD_INVALID',
                `metadata partition ${mp} offset ${record.offset}: ${error.message}`,
                { cause: error },
              )
            : error;
        this.#options.onBadRecord?.(wrapped as RemoteLogMetadataError, where);
      }
    }
    if (batch.nextOffset > position) this.#positions.set(mp, batch.nextOffset);
    else if (!this.#positions.has(mp)) this.#positions.set(mp, position);
    const next = this.#positions.get(mp)!;
    const list = this.#waiters.get(mp);
    if (list !== undefined) {
      const done = list.filter((w) => w.offset < next);
      if (done.length > 0) {
        this.#waiters.set(
          mp,
          list.filter((w) => w.offset >= next),
        );
        for (const w of done) w.resolve();
      }
    }
    for (const r of this.#registered.values()) {
      if (r.metadataPartition === mp) this.#checkReady(r);
    }
    for (const check of [...this.#progressWaiters]) check();
  }

  /** Applies one event under a `kafkats:remote-log-metadata:apply` trace. */
  #tracedApply(event: RemoteLogMetadataEvent, mp: number, offset: bigint) {
    const context: ApplyTraceContext = {
      metadataPartition: mp,
      offset,
      kind: event.kind,
      topicIdPartition: topicIdPartitionOf(event),
      state: event.state,
      event,
      applied: false,
      dropped: null,
    };
    return applyChannel.traceSync(() => {
      const outcome = this.#store.apply(event, mp);
      context.applied = outcome.applied;
      context.dropped = outcome.applied ? null : outcome.dropped;
      return outcome;
    }, context);
  }

  #checkReady(r: Registration): void {
    if (r.ready || r.endOffset < 0n) return;
    if ((this.#positions.get(r.metadataPartition) ?? 0n) >= r.endOffset) {
      r.ready = true;
      const cache = this.#store.entry(r.tp)?.cache;
      if (cache !== undefined) cache.initialized = true;
    }
  }
}
