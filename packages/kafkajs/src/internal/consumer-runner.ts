// One `consumer.run()`: a kafkats classic-group Consumer whose batches are handed to the
// application's eachMessage/eachBatch the way kafkajs's Runner hands them out. kafkats's own
// auto-commit is off: the facade keeps kafkajs's resolved offsets (last processed + 1) and
// commits exactly those, after each batch, by interval or threshold, on revocation and on stop.
import {
  Admin,
  type Cluster,
  type ConsumerOptions,
  type FetchTraceContext,
  fetchChannel,
  Consumer as KafkatsConsumer,
  type PartitionAssignor,
  type PartitionBatch,
  type TopicPartition,
} from '@kafkats/client';
import type { ClientContext, RetryOptions } from '../config.js';
import type {
  ConsumerConfig,
  ConsumerRunConfig,
  EachBatchPayload,
  Offsets,
  OffsetsByTopicPartition,
  TopicPartitions,
} from '../consumer.js';
import {
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  toKafkaJSError,
} from '../errors.js';
import { CONSUMER_EVENTS, type InstrumentationEmitter } from '../instrumentation.js';
import { kafkatsLogger, type Logger } from '../logger.js';
import {
  adaptAssigner,
  ROUND_ROBIN,
  roundRobin,
  roundRobinAssignor,
} from './consumer-assigners.js';
import { byTopic, FacadeBatch } from './consumer-messages.js';

/** What one run needs from its consumer. */
export interface RunnerSettings {
  readonly context: ClientContext;
  readonly config: ConsumerConfig;
  readonly run: ConsumerRunConfig;
  readonly logger: Logger;
  readonly emitter: InstrumentationEmitter;
  /** The run cannot go on: kafkajs's onCrash (disconnect, CRASH, maybe restart). */
  onCrash(error: Error): void;
}

interface Resolved {
  readonly topic: string;
  readonly partition: number;
  /** The next offset to read: last resolved + 1. */
  offset: bigint;
}

/**
 * What a run holds from the moment `run()` is called, before it has joined (kafkajs creates its
 * consumer group synchronously in run(), so pause and seek right after a run() not awaited
 * count): paused topics and partitions, and seeks waiting for their partition.
 */
export class RunControl {
  readonly pausedTopics = new Set<string>();
  readonly pausedPartitions = new Set<string>();
  readonly pendingSeeks = new Map<string, { tp: TopicPartition; offset: bigint }>();

  pause(list: readonly { topic: string; partitions?: number[] }[]): void {
    for (const t of list) {
      if (t.partitions === undefined) this.pausedTopics.add(t.topic);
      else
        for (const partition of t.partitions)
          this.pausedPartitions.add(keyOf({ topic: t.topic, partition: Number(partition) }));
    }
  }

  resume(list: readonly { topic: string; partitions?: number[] }[]): void {
    for (const t of list) {
      if (t.partitions === undefined) {
        this.pausedTopics.delete(t.topic);
        for (const key of [...this.pausedPartitions])
          if (key.startsWith(`${t.topic}\u0000`)) this.pausedPartitions.delete(key);
      } else
        for (const partition of t.partitions)
          this.pausedPartitions.delete(keyOf({ topic: t.topic, partition: Number(partition) }));
    }
  }

  isPaused(topic: string, partition: number): boolean {
    return this.isPausedKey(topic, keyOf({ topic, partition }));
  }

  /** `isPaused` with the partition's key made already (once per batch, not per message). */
  isPausedKey(topic: string, key: string): boolean {
    return this.pausedTopics.has(topic) || this.pausedPartitions.has(key);
  }
}

/** kafkajs's retry defaults. */
const RETRY_DEFAULTS = {
  maxRetryTime: 30_000,
  initialRetryTime: 300,
  factor: 0.2,
  multiplier: 2,
  retries: 5,
};

/** kafkats's poll timer made inert: kafkajs has no max.poll.interval, a handler may run long. */
const NO_POLL_TIMEOUT_MS = 2_147_483_647;

const UNRECOVERABLE = new Set(['RangeError', 'ReferenceError', 'SyntaxError', 'TypeError']);

/** kafkajs's retrier's test: retriable unless it says `retriable: false` or is a programming error. */
function retriable(e: Error): boolean {
  return (e as { retriable?: unknown }).retriable !== false && !UNRECOVERABLE.has(e.name);
}

/** The offset of a batch's first record, or where it was fetched when it holds none. */
function firstOffset(batch: PartitionBatch): bigint {
  const c = batch.columns[0];
  return c === undefined ? batch.fetchOffset : c.offset(0);
}

function keyOf(tp: { readonly topic: string; readonly partition: number }): string {
  return `${tp.topic}\u0000${tp.partition}`;
}

export class ConsumerRunner {
  readonly #s: RunnerSettings;
  readonly #cluster: Cluster;
  readonly #kc: KafkatsConsumer;
  readonly #groupId: string;
  readonly #fromBeginning: ReadonlyMap<string, boolean>;
  readonly #defaultFromBeginning: boolean;
  readonly #autoCommit: boolean;
  readonly #concurrency: number;
  readonly #retry: typeof RETRY_DEFAULTS;
  readonly #assignorNames: string[];
  readonly #abort = new AbortController();
  #running = false;
  #stopped = false;
  #crashed = false;
  #loop: Promise<void> | undefined;
  readonly #resolved = new Map<string, Resolved>();
  readonly #committed = new Map<string, bigint>();
  #resolvedSinceCommit = 0;
  #lastCommit = Date.now();
  /** Bumped when a partition's position jumps (seek, revoke, retry): older work is dropped. */
  readonly #epochs = new Map<string, number>();
  readonly #chains = new Map<string, Promise<void>>();
  #queued = 0;
  readonly #slotWaiters: (() => void)[] = [];
  readonly #control: RunControl;
  /** Partitions held back after a handler failed, until their retry time. */
  readonly #held = new Map<string, NodeJS.Timeout>();
  #retryCount = 0;
  #retryTime: number;
  #lastHeartbeat = 0;
  readonly #heartbeatInterval: number;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #leaderProtocol: string | null = null;
  #joinStarted = Date.now();
  #fetchTrace: { start(c: unknown): void; asyncEnd(c: unknown): void } | undefined;

  constructor(
    settings: RunnerSettings,
    control: RunControl,
    cluster: Cluster,
    topics: ReadonlyMap<string, boolean>,
  ) {
    this.#s = settings;
    this.#control = control;
    this.#cluster = cluster;
    const config = settings.config;
    this.#groupId = config.groupId;
    this.#fromBeginning = topics;
    const flags = [...topics.values()];
    // The consumer-wide reset is the common setting; topics that differ are positioned on
    // assignment (kafkajs keeps fromBeginning per topic).
    this.#defaultFromBeginning =
      flags.filter((f) => f).length > flags.length / 2 && flags.length > 0;
    this.#autoCommit = settings.run.autoCommit ?? true;
    this.#concurrency = settings.run.partitionsConsumedConcurrently ?? 1;
    const retry: RetryOptions = { ...settings.context.config.retry, ...config.retry };
    this.#retry = {
      maxRetryTime: retry.maxRetryTime ?? RETRY_DEFAULTS.maxRetryTime,
      initialRetryTime: retry.initialRetryTime ?? RETRY_DEFAULTS.initialRetryTime,
      factor: retry.factor ?? RETRY_DEFAULTS.factor,
      multiplier: retry.multiplier ?? RETRY_DEFAULTS.multiplier,
      retries: retry.retries ?? RETRY_DEFAULTS.retries,
    };
    this.#retryTime = this.#firstRetryTime();
    this.#heartbeatInterval = config.heartbeatInterval ?? 3000;
    const onLeader = (protocol: string) => {
      this.#leaderProtocol = protocol;
    };
    const assignors: PartitionAssignor[] = (config.partitionAssigners ?? [roundRobin]).map(
      (factory) =>
        factory === roundRobin
          ? roundRobinAssignor(onLeader)
          : adaptAssigner(factory, {
              groupId: this.#groupId,
              logger: settings.logger,
              cluster: () => this.#cluster,
              topics: () => [...this.#fromBeginning.keys()],
              onLeader,
            }),
    );
    this.#assignorNames = assignors.map((a) => a.name);
    const options: ConsumerOptions = {
      groupId: this.#groupId,
      groupProtocol: 'classic',
      topics: [...topics.keys()],
      autoOffsetReset: this.#defaultFromBeginning ? 'earliest' : 'latest',
      enableAutoCommit: false,
      isolationLevel: config.readUncommitted === true ? 'read_uncommitted' : 'read_committed',
      // Checked unless the application opts out: kafkajs never checks, Java's consumer does.
      checkCrcs: config.checkCrcs ?? true,
      sessionTimeoutMs: config.sessionTimeout ?? 30_000,
      // kafkajs takes 0 (heartbeat at every chance); kafkats's background heartbeats need a
      // period: at least 100 ms, below the session timeout.
      heartbeatIntervalMs: Math.min(
        Math.max(config.heartbeatInterval ?? 3000, 100),
        (config.sessionTimeout ?? 30_000) - 1,
      ),
      rebalanceTimeoutMs: config.rebalanceTimeout ?? 60_000,
      maxPollIntervalMs: NO_POLL_TIMEOUT_MS,
      metadataMaxAgeMs: config.metadataMaxAge ?? 300_000,
      assignors,
      fetchMaxWaitMs: config.maxWaitTimeInMs ?? 5000,
      fetchMinBytes: config.minBytes ?? 1,
      fetchMaxBytes: config.maxBytes ?? 10_485_760,
      maxPartitionFetchBytes: config.maxBytesPerPartition ?? 1_048_576,
      ...(config.rackId ? { rackId: config.rackId } : {}),
      logger: kafkatsLogger(settings.logger),
      listeners: {
        onAssigned: (ps) => this.#onAssigned(ps),
        onRevoked: (ps) => this.#onRevoked(ps, true),
        onLost: (ps) => this.#onRevoked(ps, false),
      },
    };
    try {
      this.#kc = new KafkatsConsumer(cluster, options);
    } catch (e) {
      throw toKafkaJSError(e);
    }
  }

  /** Joins the group (kafkajs's run() resolves once joined), then consumes in the background. */
  async start(): Promise<void> {
    this.#running = true;
    this.traceFetches();
    try {
      await this.#kc.start();
    } catch (e) {
      if (!this.#stopped) this.#crash(toKafkaJSError(e) as Error);
      return;
    }
    if (!this.#running) return;
    // kafkats heartbeats in the background: HEARTBEAT follows it while the member is in the
    // group, as kafkajs's idle fetch loop heartbeats (health checks watch for it).
    this.#lastHeartbeat = Date.now();
    const interval = this.#s.config.heartbeatInterval ?? 3000;
    this.#heartbeatTimer = setInterval(() => void this.#heartbeat(), Math.max(interval, 100));
    this.#heartbeatTimer.unref?.();
    this.#loop = this.#consume();
  }

  async #consume(): Promise<void> {
    try {
      await this.#kc.run({ signal: this.#abort.signal, eachBatch: (b) => this.#dispatch(b) });
    } catch (e) {
      if (this.#running) this.#crash(toKafkaJSError(e) as Error);
    }
  }

  /**
   * FETCH_START and FETCH from kafkats's `kafkats:fetch` trace, one per partition of each Fetch
   * (kafkajs: one per request), for the partitions this member owns; subscribed once someone
   * listens for them (at run, or when the listener is added), so no trace is built otherwise.
   */
  traceFetches(): void {
    const emitter = this.#s.emitter;
    if (this.#fetchTrace !== undefined || this.#stopped || this.#crashed) return;
    if (
      !emitter.listening(CONSUMER_EVENTS.FETCH) &&
      !emitter.listening(CONSUMER_EVENTS.FETCH_START)
    )
      return;
    const mine = (c: FetchTraceContext) =>
      this.#running && this.#owns({ topic: c.topic, partition: c.partition });
    this.#fetchTrace = {
      start: (c) => {
        const ctx = c as FetchTraceContext;
        if (mine(ctx)) emitter.emit(CONSUMER_EVENTS.FETCH_START, { nodeId: String(ctx.nodeId) });
      },
      asyncEnd: (c) => {
        const ctx = c as FetchTraceContext;
        if (mine(ctx))
          emitter.emit(CONSUMER_EVENTS.FETCH, {
            numberOfBatches: 0,
            duration: Math.round(ctx.durationMs ?? 0),
            nodeId: String(ctx.nodeId),
          });
      },
    };
    fetchChannel.subscribe(this.#fetchTrace as Parameters<typeof fetchChannel.subscribe>[0]);
  }

  #untraceFetches(): void {
    if (this.#fetchTrace === undefined) return;
    fetchChannel.unsubscribe(this.#fetchTrace as Parameters<typeof fetchChannel.unsubscribe>[0]);
    this.#fetchTrace = undefined;
  }

  #crash(error: Error): void {
    if (this.#crashed) return;
    this.#crashed = true;
    this.#untraceFetches();
    clearInterval(this.#heartbeatTimer);
    this.#running = false;
    this.#abort.abort();
    this.#s.onCrash(error);
  }

  /** Stops consuming: handlers finish their current message, offsets commit, the member leaves. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopped = true;
    this.#untraceFetches();
    clearInterval(this.#heartbeatTimer);
    this.#abort.abort();
    for (const w of this.#slotWaiters.splice(0)) w();
    await this.#loop;
    await Promise.all(this.#chains.values());
    for (const t of this.#held.values()) clearTimeout(t);
    this.#held.clear();
    // Leaving revokes every partition: #onRevoked commits what was resolved.
    await this.#kc.close();
  }

  // --- dispatch ---------------------------------------------------------------------------

  #epoch(key: string): number {
    return this.#epochs.get(key) ?? 0;
  }

  #bump(key: string): void {
    this.#epochs.set(key, this.#epoch(key) + 1);
  }

  /**
   * kafkats's run hands one batch at a time. With partitionsConsumedConcurrently > 1 the batch
   * is queued behind its partition's earlier ones and this returns once a slot is free, so up
   * to that many partitions are processed at once, each in order.
   */
  async #dispatch(batch: PartitionBatch): Promise<void> {
    if (!this.#running) return;
    const key = keyOf(batch);
    const epoch = this.#epoch(key);
    while (this.#queued >= this.#concurrency && this.#running)
      await new Promise<void>((resolve) => this.#slotWaiters.push(resolve));
    if (!this.#running) return;
    this.#queued++;
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(() => this.#process(batch, key, epoch))
      .catch((e: unknown) => {
        this.#s.logger.error('Unexpected error while processing a batch', { error: String(e) });
      })
      .finally(() => {
        this.#queued--;
        this.#slotWaiters.shift()?.();
        if (this.#chains.get(key) === next) this.#chains.delete(key);
      });
    this.#chains.set(key, next);
    if (this.#concurrency === 1) await next;
  }

  #current(key: string, epoch: number): boolean {
    return this.#running && this.#epoch(key) === epoch;
  }

  async #process(batch: PartitionBatch, key: string, epoch: number): Promise<void> {
    if (!this.#current(key, epoch)) return;
    const fb = new FacadeBatch(batch);
    const info = {
      topic: fb.topic,
      partition: fb.partition,
      highWatermark: fb.highWatermark,
      offsetLag: fb.offsetLag(),
      offsetLagLow: fb.offsetLagLow(),
      batchSize: fb.messages.length,
      firstOffset: fb.firstOffset(),
      lastOffset: fb.lastOffset(),
    };
    const started = Date.now();
    this.#s.emitter.emit(CONSUMER_EVENTS.START_BATCH_PROCESS, info);
    const run = this.#s.run;
    if (run.eachMessage === undefined && run.eachBatch === undefined) {
      // No handler: nothing is resolved, and nothing is read again either.
      this.#s.emitter.emit(CONSUMER_EVENTS.END_BATCH_PROCESS, { ...info, duration: 0 });
      return;
    }
    try {
      if (run.eachMessage !== undefined) await this.#eachMessage(batch, fb, key, epoch);
      else await this.#eachBatch(batch, fb, key, epoch);
    } catch (e) {
      await this.#failed(batch, key, epoch, e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.#s.emitter.emit(CONSUMER_EVENTS.END_BATCH_PROCESS, {
      ...info,
      duration: Date.now() - started,
    });
    this.#rewindIfBehind(batch, key, epoch);
    if (this.#autoCommit) await this.#commitResolved(undefined).catch((e) => this.#commitFailed(e));
    await this.#heartbeat();
  }

  /**
   * HEARTBEAT where kafkajs heartbeats (a handler's heartbeat(), after each message and batch,
   * and every heartbeatInterval while idle), at most once per heartbeatInterval. kafkats's
   * actual Heartbeat requests run in the background on their own timer.
   */
  readonly #heartbeat = async (): Promise<void> => {
    if (this.#heartbeatDue()) this.#emitHeartbeat();
  };

  #heartbeatDue(): boolean {
    return this.#running && Date.now() - this.#lastHeartbeat >= this.#heartbeatInterval;
  }

  #emitHeartbeat(): void {
    this.#lastHeartbeat = Date.now();
    const meta = this.#kc.groupMetadata();
    this.#s.emitter.emit(CONSUMER_EVENTS.HEARTBEAT, {
      groupId: this.#groupId,
      memberId: meta.memberId,
      groupGenerationId: meta.generationId,
    });
  }

  #pauseFn(topic: string, partition: number): () => () => void {
    return () => {
      this.pause([{ topic, partitions: [partition] }]);
      return () => this.resume([{ topic, partitions: [partition] }]);
    };
  }

  async #eachMessage(
    batch: PartitionBatch,
    fb: FacadeBatch,
    key: string,
    epoch: number,
  ): Promise<void> {
    const handler = this.#s.run.eachMessage!;
    const { topic, partition } = batch;
    const pause = this.#pauseFn(topic, partition);
    const heartbeat = this.#heartbeat;
    const control = this.#control;
    const messages = fb.messages;
    for (let i = 0; i < messages.length; i++) {
      if (!this.#current(key, epoch) || control.isPausedKey(topic, key)) return;
      await handler({ topic, partition, message: messages[i]!, heartbeat, pause });
      if (this.#epoch(key) !== epoch) return; // sought meanwhile: the seek decides
      this.#resolve(key, batch, fb.nextOffsetOf(i));
      // kafkajs awaits a heartbeat and an auto-commit check after each message: here the
      // heartbeat is emitted when due and only a due commit is awaited (no promise otherwise).
      if (this.#heartbeatDue()) this.#emitHeartbeat();
      if (this.#autoCommit && this.#commitDue()) await this.#commitResolved(undefined);
    }
    // Every message done: trailing control records are passed too, as kafkats's position is.
    this.#resolve(key, batch, batch.nextOffset);
  }

  async #eachBatch(
    batch: PartitionBatch,
    fb: FacadeBatch,
    key: string,
    epoch: number,
  ): Promise<void> {
    const handler = this.#s.run.eachBatch!;
    const last = fb.lastMessageOffset();
    const payload: EachBatchPayload = {
      batch: fb,
      resolveOffset: (offset: string) => {
        if (this.#epoch(key) !== epoch) return;
        const value = BigInt(offset);
        // The last message resolves the batch's trailing control records with it (as kafkajs).
        this.#resolve(key, batch, value === last ? batch.nextOffset : value + 1n);
      },
      heartbeat: this.#heartbeat,
      pause: this.#pauseFn(batch.topic, batch.partition),
      commitOffsetsIfNecessary: async (offsets?: Offsets) => {
        if (offsets !== undefined) {
          await this.commitExplicit(
            offsets.topics.flatMap((t) =>
              t.partitions.map((p) => ({
                topic: t.topic,
                partition: p.partition,
                offset: BigInt(p.offset),
                metadata: null,
              })),
            ),
          );
        } else await this.#commitIfNecessary();
      },
      uncommittedOffsets: () => this.#uncommitted(),
      isRunning: () => this.#running,
      isStale: () => this.#epoch(key) !== epoch,
    };
    await handler(payload);
    if ((this.#s.run.eachBatchAutoResolve ?? true) && this.#epoch(key) === epoch)
      this.#resolve(key, batch, batch.nextOffset);
  }

  #resolve(key: string, tp: TopicPartition, offset: bigint): void {
    const r = this.#resolved.get(key);
    if (r === undefined)
      this.#resolved.set(key, { topic: tp.topic, partition: tp.partition, offset });
    else r.offset = offset;
    this.#resolvedSinceCommit++;
  }

  /**
   * kafkajs fetches each partition from its resolved offset: what a handler did not resolve
   * (a failure, a pause mid-batch, eachBatch without auto-resolve) is read again. kafkats's
   * position is past the batch, so it is sought back to the resolved offset.
   */
  #rewindIfBehind(batch: PartitionBatch, key: string, epoch: number): void {
    if (this.#epoch(key) !== epoch || this.#stopped) return;
    const resolved = this.#resolved.get(key)?.offset;
    const first = firstOffset(batch);
    const target = resolved !== undefined && resolved >= first ? resolved : first;
    if (target >= batch.nextOffset) return;
    this.#bump(key);
    try {
      this.#kc.seek({ topic: batch.topic, partition: batch.partition }, target);
    } catch {
      // Revoked meanwhile: the next owner starts from the committed offset.
    }
  }

  async #failed(batch: PartitionBatch, key: string, epoch: number, error: Error): Promise<void> {
    const which = this.#s.run.eachMessage !== undefined ? 'eachMessage' : 'eachBatch';
    if (!(error instanceof KafkaJSError))
      this.#s.logger.error(`Error when calling ${which}`, {
        topic: batch.topic,
        partition: batch.partition,
        offset: String(firstOffset(batch)),
        stack: error.stack,
        error,
      });
    if (this.#autoCommit) await this.#commitResolved(undefined).catch((e) => this.#commitFailed(e));
    this.#rewindIfBehind(batch, key, epoch);
    if (!this.#running) return;
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (!retriable(error)) {
      this.#crash(new KafkaJSNonRetriableError(error, { cause }));
      return;
    }
    if (this.#retryCount >= this.#retry.retries) {
      this.#crash(
        new KafkaJSNumberOfRetriesExceeded(error, {
          retryCount: this.#retryCount,
          retryTime: this.#retryTime,
          cause,
        }),
      );
      return;
    }
    // kafkajs retries the fetch loop after a backoff; here the failed partition waits it out
    // (from its failed message) while the others go on.
    const delay = this.#retryTime;
    this.#retryCount++;
    this.#retryTime = this.#nextRetryTime(delay);
    this.#hold({ topic: batch.topic, partition: batch.partition }, delay);
  }

  #hold(tp: TopicPartition, delayMs: number): void {
    const key = keyOf(tp);
    clearTimeout(this.#held.get(key));
    try {
      this.#kc.pause([tp]);
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      this.#held.delete(key);
      if (!this.#running || this.#isPaused(tp.topic, tp.partition)) return;
      this.#kc.resume([tp]);
    }, delayMs);
    this.#held.set(key, timer);
  }

  #firstRetryTime(): number {
    return this.#jitter(this.#retry.initialRetryTime);
  }

  #jitter(time: number): number {
    const delta = this.#retry.factor * time;
    return Math.ceil(time - delta + Math.random() * 2 * delta);
  }

  #nextRetryTime(time: number): number {
    return Math.min(this.#jitter(time) * this.#retry.multiplier, this.#retry.maxRetryTime);
  }

  // --- commits ----------------------------------------------------------------------------

  #commitFailed(e: unknown): void {
    this.#s.logger.warn('Failed to commit offsets', {
      groupId: this.#groupId,
      error: e instanceof Error ? e.message : String(e),
    });
  }

  async #commitIfNecessary(): Promise<void> {
    if (this.#commitDue()) await this.#commitResolved(undefined);
  }

  /** kafkajs's autoCommitInterval or autoCommitThreshold reached. */
  #commitDue(): boolean {
    const run = this.#s.run;
    const interval = run.autoCommitInterval ?? null;
    const threshold = run.autoCommitThreshold ?? null;
    return (
      (interval !== null && Date.now() >= this.#lastCommit + interval) ||
      (threshold !== null && this.#resolvedSinceCommit >= threshold)
    );
  }

  #uncommitted(): OffsetsByTopicPartition {
    // kafkajs keys these by object key: the partition comes out as a string.
    const topics = new Map<string, { partition: number; offset: string }[]>();
    for (const [key, r] of this.#resolved) {
      if (this.#committed.get(key) === r.offset) continue;
      let list = topics.get(r.topic);
      if (list === undefined) topics.set(r.topic, (list = []));
      list.push({ partition: String(r.partition) as unknown as number, offset: String(r.offset) });
    }
    return { topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) };
  }

  /** Commits the resolved offsets not committed yet (of `keys` only, when given). */
  async #commitResolved(keys: ReadonlySet<string> | undefined): Promise<void> {
    const list = [...this.#resolved]
      .filter(
        ([key, r]) =>
          (keys === undefined || keys.has(key)) && this.#committed.get(key) !== r.offset,
      )
      .map(([, r]) => ({ topic: r.topic, partition: r.partition, offset: r.offset }));
    if (keys === undefined) this.#resolvedSinceCommit = 0;
    if (list.length === 0) {
      this.#lastCommit = Date.now();
      return;
    }
    await this.#commit(list, true);
  }

  /**
   * One OffsetCommit, then COMMIT_OFFSETS. `resolved`: offsets of resolved messages, whose
   * partitions kafkajs's payload carries as strings (it keys them by object key).
   */
  async #commit(
    list: { topic: string; partition: number; offset: bigint; metadata?: string | null }[],
    resolved: boolean,
  ): Promise<void> {
    try {
      await this.#kc.commit(list);
    } catch (e) {
      throw toKafkaJSError(e);
    }
    this.#lastCommit = Date.now();
    for (const c of list) this.#committed.set(keyOf(c), c.offset);
    const meta = this.#kc.groupMetadata();
    const topics = new Map<string, { partition: number; offset: string }[]>();
    for (const c of list) {
      let ps = topics.get(c.topic);
      if (ps === undefined) topics.set(c.topic, (ps = []));
      ps.push({
        partition: resolved ? (String(c.partition) as unknown as number) : c.partition,
        offset: String(c.offset),
      });
    }
    this.#s.emitter.emit(CONSUMER_EVENTS.COMMIT_OFFSETS, {
      groupId: this.#groupId,
      memberId: meta.memberId,
      groupGenerationId: meta.generationId,
      topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
    });
  }

  /** `consumer.commitOffsets()`: exactly these offsets (the next to read, as kafkajs takes them). */
  async commitExplicit(
    list: { topic: string; partition: number; offset: bigint; metadata: string | null }[],
  ): Promise<void> {
    if (!this.#running) return;
    await this.#commit(list, false);
  }

  // --- seek, pause ------------------------------------------------------------------------

  #owns(tp: TopicPartition): boolean {
    return this.#kc.assignment().some((p) => p.topic === tp.topic && p.partition === tp.partition);
  }

  seek(tp: TopicPartition, offset: bigint): void {
    if (offset < 0n) {
      // kafkajs's -2 (earliest) and -1 (latest): looked up, then sought.
      const spec = offset === -2n ? 'earliest' : 'latest';
      new Admin(this.#cluster)
        .listOffsets([{ ...tp, spec }])
        .then((r) => {
          const found = r.partitions[0]?.offset;
          if (found !== undefined && found >= 0n) this.seek(tp, found);
        })
        .catch((e: unknown) =>
          this.#s.logger.error('Failed to look up the offset to seek to', {
            topic: tp.topic,
            partition: tp.partition,
            error: e instanceof Error ? e.message : String(e),
          }),
        );
      return;
    }
    if (!this.#owns(tp)) {
      // Not assigned (yet): kafkajs keeps the seek and applies it once the partition is fetched.
      this.#control.pendingSeeks.set(keyOf(tp), { tp, offset });
      return;
    }
    this.#applySeek(tp, offset);
  }

  #applySeek(tp: TopicPartition, offset: bigint): void {
    const key = keyOf(tp);
    this.#bump(key);
    try {
      this.#kc.seek(tp, offset);
    } catch {
      // Revoked in between: kept for when it is assigned again, as kafkajs keeps a seek.
      this.#control.pendingSeeks.set(key, { tp, offset });
      return;
    }
    if (this.#autoCommit) {
      // kafkajs commits the sought offset at once, so a restart starts there too.
      this.#resolved.delete(key);
      this.#commit([{ ...tp, offset }], false).catch((e) => this.#commitFailed(e));
    } else this.#resolve(key, tp, offset);
  }

  #isPaused(topic: string, partition: number): boolean {
    return this.#control.isPaused(topic, partition);
  }

  #ownedOf(list: { topic: string; partitions?: number[] }[]): TopicPartition[] {
    const owned = this.#kc.assignment();
    return owned.filter((p) =>
      list.some(
        (t) =>
          t.topic === p.topic && (t.partitions === undefined || t.partitions.includes(p.partition)),
      ),
    );
  }

  pause(list: { topic: string; partitions?: number[] }[]): void {
    this.#control.pause(list);
    const owned = this.#ownedOf(list);
    if (owned.length > 0) this.#kc.pause(owned);
  }

  resume(list: { topic: string; partitions?: number[] }[]): void {
    this.#control.resume(list);
    const owned = this.#ownedOf(list).filter(
      (p) => !this.#isPaused(p.topic, p.partition) && !this.#held.has(keyOf(p)),
    );
    if (owned.length > 0) this.#kc.resume(owned);
  }

  paused(): TopicPartitions[] {
    const out = byTopic(this.#kc.assignment().filter((p) => this.#isPaused(p.topic, p.partition)));
    return Object.entries(out).map(([topic, partitions]) => ({ topic, partitions }));
  }

  // --- rebalances -------------------------------------------------------------------------

  async #onAssigned(partitions: readonly TopicPartition[]): Promise<void> {
    try {
      await this.#positionByTopic(partitions);
    } catch (e) {
      this.#s.logger.warn('Failed to position partitions by their fromBeginning', {
        error: e instanceof Error ? e.message : String(e),
      });
    }
    for (const p of partitions) {
      const key = keyOf(p);
      const seek = this.#control.pendingSeeks.get(key);
      if (seek !== undefined) {
        this.#control.pendingSeeks.delete(key);
        if (seek.offset < 0n) this.seek(p, seek.offset);
        else this.#applySeek(p, seek.offset);
      }
    }
    const paused = partitions.filter((p) => this.#isPaused(p.topic, p.partition));
    if (paused.length > 0) this.#kc.pause(paused);
    this.#retryCount = 0;
    this.#retryTime = this.#firstRetryTime();
    const meta = this.#kc.groupMetadata();
    const isLeader = this.#leaderProtocol !== null;
    this.#s.emitter.emit(CONSUMER_EVENTS.GROUP_JOIN, {
      duration: Date.now() - this.#joinStarted,
      groupId: this.#groupId,
      isLeader,
      leaderId: isLeader ? meta.memberId : '',
      groupProtocol: this.#leaderProtocol ?? this.#assignorNames[0] ?? ROUND_ROBIN,
      memberId: meta.memberId,
      memberAssignment: byTopic(this.#kc.assignment()),
    });
    this.#joinStarted = Date.now();
  }

  /**
   * Topics whose fromBeginning differs from the consumer-wide reset: a partition without a
   * committed offset is moved to its earliest or latest offset.
   */
  async #positionByTopic(partitions: readonly TopicPartition[]): Promise<void> {
    const differing = partitions.filter(
      (p) => (this.#fromBeginning.get(p.topic) ?? false) !== this.#defaultFromBeginning,
    );
    if (differing.length === 0) return;
    const committed = await this.#kc.committed(differing);
    const without = differing.filter(
      (p) => committed.get(`${p.topic}-${p.partition}`) === undefined,
    );
    if (without.length === 0) return;
    const listed = await new Admin(this.#cluster).listOffsets(
      without.map((p) => ({
        ...p,
        spec: this.#fromBeginning.get(p.topic) === true ? 'earliest' : 'latest',
      })),
    );
    for (const l of listed.partitions)
      if (l.offset !== undefined && l.offset >= 0n)
        this.#kc.seek({ topic: l.topic, partition: l.partition }, l.offset);
  }

  async #onRevoked(partitions: readonly TopicPartition[], commit: boolean): Promise<void> {
    if (this.#running) {
      const meta = this.#kc.groupMetadata();
      this.#s.emitter.emit(CONSUMER_EVENTS.REBALANCING, {
        groupId: this.#groupId,
        memberId: meta.memberId,
      });
    }
    this.#joinStarted = Date.now();
    this.#leaderProtocol = null;
    const keys = new Set(partitions.map(keyOf));
    for (const key of keys) this.#bump(key);
    await Promise.all([...keys].map((k) => this.#chains.get(k)));
    if (commit && this.#autoCommit)
      await this.#commitResolved(keys).catch((e) => this.#commitFailed(e));
    for (const key of keys) {
      this.#resolved.delete(key);
      this.#committed.delete(key);
      clearTimeout(this.#held.get(key));
      this.#held.delete(key);
    }
  }
}
