// kafkajs's group consumer on kafkats's `Consumer` (classic protocol). What differs from
// kafkajs is said where it happens; the rest keeps kafkajs's names, shapes and defaults.
// In short:
// - The member offers kafkajs's `RoundRobinAssigner` protocol, so kafkajs and facade members
//   share a group; an application's own kafkajs assigners are adapted (their assignment
//   userData is not passed on).
// - A failed handler is retried from the failed message after the retry backoff, on its
//   partition only (kafkajs restarts its whole fetch loop); the retry count resets at each
//   rebalance.
// - HEARTBEAT is emitted where kafkajs heartbeats and every heartbeatInterval while idle;
//   kafkats's Heartbeat requests run on their own timer.
// - FETCH_START / FETCH come once per partition of each Fetch (kafkajs: once per request),
//   and none while the member fetches nothing. Batches holding only control records or
//   aborted transactions give no START/END_BATCH_PROCESS. RECEIVED_UNSUBSCRIBED_TOPICS and
//   REQUEST_QUEUE_SIZE are never emitted.
// - allowAutoTopicCreation and maxInFlightRequests are accepted and ignored.
import { Admin, type Cluster } from '@kafkats/client';
import type { ClientContext, RetryOptions } from './config.js';
import { KafkaJSNonRetriableError, toKafkaJSError } from './errors.js';
import {
  CONSUMER_EVENTS,
  InstrumentationEmitter,
  type InstrumentationEvent,
  type RemoveInstrumentationEventListener,
} from './instrumentation.js';
import { memberAssignment, memberMetadata, roundRobin } from './internal/consumer-assigners.js';
import { ConsumerRunner, RunControl, type RunnerSettings } from './internal/consumer-runner.js';
import type { Logger } from './logger.js';

/** A header value as kafkajs hands it out: a Buffer, or an array when the key repeats. */
export interface IHeaders {
  [key: string]: Buffer | string | (Buffer | string)[] | undefined;
}

/**
 * A fetched message. `size` is absent, as for every record-batch message in kafkajs 2
 * (its type declares `size?: never` for them).
 */
export interface KafkaMessage {
  key: Buffer | null;
  value: Buffer | null;
  /** Milliseconds since the epoch, as a decimal string. */
  timestamp: string;
  attributes: number;
  /** The offset, as a decimal string. */
  offset: string;
  headers: IHeaders;
  size?: never;
  /** Set as kafkajs sets it at run time (not in kafkajs's type): 2, the record-batch format. */
  magicByte?: number;
  /** Set as kafkajs sets it at run time: false (control records are never handed out). */
  isControlRecord?: boolean;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}
export type TopicPartitionOffset = TopicPartition & { offset: string };
export type TopicPartitionOffsetAndMetadata = TopicPartitionOffset & { metadata?: string | null };
export interface TopicPartitions {
  topic: string;
  partitions: number[];
}
export interface PartitionOffset {
  partition: number;
  offset: string;
}
export interface TopicOffsets {
  topic: string;
  partitions: PartitionOffset[];
}
export interface OffsetsByTopicPartition {
  topics: TopicOffsets[];
}
export interface Offsets {
  topics: TopicOffsets[];
}

export interface Batch {
  topic: string;
  partition: number;
  highWatermark: string;
  messages: KafkaMessage[];
  isEmpty(): boolean;
  firstOffset(): string | null;
  lastOffset(): string;
  offsetLag(): string;
  offsetLagLow(): string;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** kafkats heartbeats in the background: resolves at once. */
  heartbeat(): Promise<void>;
  /** Pauses this partition; returns the function that resumes it. */
  pause(): () => void;
}

export interface EachBatchPayload {
  batch: Batch;
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  pause(): () => void;
  commitOffsetsIfNecessary(offsets?: Offsets): Promise<void>;
  uncommittedOffsets(): OffsetsByTopicPartition;
  isRunning(): boolean;
  isStale(): boolean;
}

export type ConsumerEachMessagePayload = EachMessagePayload;
export type ConsumerEachBatchPayload = EachBatchPayload;
export type EachBatchHandler = (payload: EachBatchPayload) => Promise<void>;
export type EachMessageHandler = (payload: EachMessagePayload) => Promise<void>;

export interface ConsumerRunConfig {
  /** Default true: resolved offsets are committed after each batch, on rebalance and on stop. */
  autoCommit?: boolean;
  autoCommitInterval?: number | null;
  autoCommitThreshold?: number | null;
  eachBatchAutoResolve?: boolean;
  /** Partitions whose handlers run at once (default 1); one partition's batches stay in order. */
  partitionsConsumedConcurrently?: number;
  eachBatch?: EachBatchHandler;
  eachMessage?: EachMessageHandler;
}

/** @deprecated as in kafkajs: use ConsumerSubscribeTopics. */
export interface ConsumerSubscribeTopic {
  topic: string | RegExp;
  fromBeginning?: boolean;
}
export interface ConsumerSubscribeTopics {
  topics: (string | RegExp)[];
  fromBeginning?: boolean;
}

/** kafkajs's assignor interface (an application's own assignors are adapted to kafkats's). */
export type Assignment = { [topic: string]: number[] };
export type GroupMember = { memberId: string; memberMetadata: Buffer };
export type GroupMemberAssignment = { memberId: string; memberAssignment: Buffer };
export type GroupState = { name: string; metadata: Buffer };
export interface Assigner {
  name: string;
  version: number;
  assign(group: { members: GroupMember[]; topics: string[] }): Promise<GroupMemberAssignment[]>;
  protocol(subscription: { topics: string[] }): GroupState;
}
export type PartitionAssigner = (config: {
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs's Cluster; the facade offers findTopicPartitionMetadata only
  cluster: any;
  groupId: string;
  logger: Logger;
}) => Assigner;

export interface MemberMetadata {
  version: number;
  topics: string[];
  userData: Buffer;
}
export interface MemberAssignment {
  version: number;
  assignment: Assignment;
  userData: Buffer;
}
export interface ISerializer<T> {
  encode(value: T): Buffer;
  decode(buffer: Buffer): T | null;
}

/** kafkajs's consumer-protocol serializers (version-0 layouts, byte for byte). */
export const AssignerProtocol: {
  MemberMetadata: ISerializer<MemberMetadata>;
  MemberAssignment: ISerializer<MemberAssignment>;
} = Object.freeze({ MemberMetadata: memberMetadata, MemberAssignment: memberAssignment });

/**
 * kafkajs's built-in assigners. `roundRobin` is recognised by identity and runs as kafkats's
 * own assignor under kafkajs's protocol name `RoundRobinAssigner`.
 */
export const PartitionAssigners: { roundRobin: PartitionAssigner } = Object.freeze({
  roundRobin,
});

export interface ConsumerConfig {
  groupId: string;
  /** Default `[PartitionAssigners.roundRobin]`, as in kafkajs. */
  partitionAssigners?: PartitionAssigner[];
  /**
   * How often metadata is refreshed, ms (partitions added to a subscribed topic show up and the
   * leader rebalances). Default: kafkats's cluster refresh, 30000 (kafkajs: 300000).
   */
  metadataMaxAge?: number;
  /** Default 30000, as in kafkajs. */
  sessionTimeout?: number;
  /** Default 60000, as in kafkajs. */
  rebalanceTimeout?: number;
  /** Default 3000. */
  heartbeatInterval?: number;
  /** Default 1048576. */
  maxBytesPerPartition?: number;
  /** Default 1. */
  minBytes?: number;
  /** Default 10485760, as in kafkajs. */
  maxBytes?: number;
  /** Default 5000, as in kafkajs. */
  maxWaitTimeInMs?: number;
  /** The handler retry policy (and `restartOnFailure` after a crash); the cluster's otherwise. */
  retry?: RetryOptions & { restartOnFailure?: (err: Error) => Promise<boolean> };
  /**
   * Accepted and ignored: kafkats's consumer never creates topics (kafkajs's default true lets
   * a Metadata request create them); a subscribed topic that does not exist is warned about and
   * read once it is created.
   */
  allowAutoTopicCreation?: boolean;
  /** Accepted and ignored: kafkats keeps one Fetch in flight per broker. */
  maxInFlightRequests?: number;
  /** Default false: read_committed, as in kafkajs. */
  readUncommitted?: boolean;
  rackId?: string;
  /**
   * kafkats's addition, not a kafkajs option: check each fetched batch's CRC-32C, as Java's
   * consumer does by default (`check.crcs`), so a damaged batch fails the read instead of
   * reaching a handler. Default true. kafkajs reads the CRC and never checks it: false matches it and saves a pass
   * over every fetched byte (about 0.2 µs per 1 KiB record).
   */
  checkCrcs?: boolean;
}

export type ConsumerEvents = typeof CONSUMER_EVENTS;

export interface MemberDescription {
  clientHost: string;
  clientId: string;
  memberId: string;
  memberAssignment: Buffer;
  memberMetadata: Buffer;
}
export type ConsumerGroupState =
  | 'Unknown'
  | 'PreparingRebalance'
  | 'CompletingRebalance'
  | 'Stable'
  | 'Dead'
  | 'Empty';
export interface GroupDescription {
  /** 0, as kafkajs's DescribeGroups answer carries it (a failed describe rejects instead). */
  errorCode?: number;
  groupId: string;
  members: MemberDescription[];
  protocol: string;
  protocolType: string;
  state: ConsumerGroupState;
}

export interface ConsumerGroupJoinPayload {
  duration: number;
  groupId: string;
  isLeader: boolean;
  /** This member's id when it leads; `''` otherwise (kafkats does not expose the leader's id). */
  leaderId: string;
  groupProtocol: string;
  memberId: string;
  memberAssignment: { [topic: string]: number[] };
}
export interface ConsumerCrashPayload {
  error: Error;
  groupId: string;
  restart: boolean;
}
export type ConsumerGroupJoinEvent = InstrumentationEvent<ConsumerGroupJoinPayload>;
export type ConsumerCrashEvent = InstrumentationEvent<ConsumerCrashPayload>;

export interface Consumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void>;
  stop(): Promise<void>;
  run(config?: ConsumerRunConfig): Promise<void>;
  commitOffsets(topicPartitions: TopicPartitionOffsetAndMetadata[]): Promise<void>;
  seek(topicPartitionOffset: TopicPartitionOffset): void;
  describeGroup(): Promise<GroupDescription>;
  pause(topics: { topic: string; partitions?: number[] }[]): void;
  paused(): TopicPartitions[];
  resume(topics: { topic: string; partitions?: number[] }[]): void;
  on<T = unknown>(
    eventName: string,
    listener: (event: InstrumentationEvent<T>) => void,
  ): RemoveInstrumentationEventListener<T>;
  logger(): Logger;
  readonly events: ConsumerEvents;
}

const NOT_RUNNING = 'Consumer group was not initialized, consumer#run must be called first';

function checkOffset(offset: unknown, special: boolean): bigint {
  let value: bigint;
  try {
    if (typeof offset !== 'string' && typeof offset !== 'number' && typeof offset !== 'bigint')
      throw new TypeError();
    value = BigInt(offset);
  } catch {
    throw new KafkaJSNonRetriableError(`Invalid offset, expected a long received ${offset}`);
  }
  if (value < 0n && !(special && (value === -1n || value === -2n)))
    throw new KafkaJSNonRetriableError('Offset must not be a negative number');
  return value;
}

function checkTopicPartitions(list: { topic: string; partitions?: number[] }[], verb: string) {
  for (const tp of list) {
    if (!tp?.topic) throw new KafkaJSNonRetriableError(`Invalid topic ${tp?.topic || tp}`);
    if (
      tp.partitions !== undefined &&
      (!Array.isArray(tp.partitions) || tp.partitions.some((p) => Number.isNaN(Number(p))))
    )
      throw new KafkaJSNonRetriableError(
        `Array of valid partitions required to ${verb} specific partitions instead of ${tp.partitions}`,
      );
  }
}

class KafkaJSConsumer implements Consumer {
  readonly events = CONSUMER_EVENTS;
  readonly #context: ClientContext;
  readonly #config: ConsumerConfig;
  readonly #logger: Logger;
  readonly #emitter: InstrumentationEmitter;
  /** Subscriptions in call order: names or patterns, each with its fromBeginning. */
  readonly #subscriptions: { topic: string | RegExp; fromBeginning: boolean }[] = [];
  #cluster: Cluster | undefined;
  #connecting: Promise<Cluster> | undefined;
  /** Set synchronously by run() (kafkajs's consumerGroup), cleared by stop(). */
  #control: RunControl | undefined;
  #runner: ConsumerRunner | undefined;
  #stopping: Promise<void> | undefined;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(context: ClientContext, config: ConsumerConfig) {
    if (config === null || typeof config !== 'object' || !config.groupId)
      throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.');
    const sessionTimeout = config.sessionTimeout ?? 30_000;
    const heartbeatInterval = config.heartbeatInterval ?? 3000;
    if (heartbeatInterval >= sessionTimeout)
      throw new KafkaJSNonRetriableError(
        `Consumer heartbeatInterval (${heartbeatInterval}) must be lower than sessionTimeout (${sessionTimeout}). It is recommended to set heartbeatInterval to approximately a third of the sessionTimeout.`,
      );
    this.#context = context;
    this.#config = config;
    this.#logger = context.logger.namespace('Consumer');
    this.#emitter = new InstrumentationEmitter(CONSUMER_EVENTS, this.#logger, {
      request: CONSUMER_EVENTS.REQUEST,
      timeout: CONSUMER_EVENTS.REQUEST_TIMEOUT,
    });
  }

  async #open(): Promise<Cluster> {
    if (this.#cluster !== undefined) return this.#cluster;
    // kafkajs's metadataMaxAge is how often metadata is refreshed (partitions added show up, and
    // the leader rebalances); kafkats's cluster refreshes every 30 s unless told otherwise.
    const extra =
      this.#config.metadataMaxAge === undefined
        ? {}
        : { refreshIntervalMs: this.#config.metadataMaxAge };
    // The emitter owns this consumer's connection traces: REQUEST events find their requests.
    this.#connecting ??= this.#context
      .openCluster(this.#logger, extra, this.#emitter)
      .finally(() => {
        this.#connecting = undefined;
      });
    this.#cluster = await this.#connecting;
    return this.#cluster;
  }

  async connect(): Promise<void> {
    await this.#open();
    this.#emitter.emit(CONSUMER_EVENTS.CONNECT, undefined);
  }

  async disconnect(): Promise<void> {
    try {
      await this.stop();
      this.#logger.debug('consumer has stopped, disconnecting', { groupId: this.#config.groupId });
      const cluster = this.#cluster;
      this.#cluster = undefined;
      await cluster?.close();
      this.#emitter.emit(CONSUMER_EVENTS.DISCONNECT, undefined);
    } catch (e) {
      const error = toKafkaJSError(e) as Error;
      this.#logger.error(`Caught error when disconnecting the consumer: ${error.message}`, {
        stack: error.stack,
        groupId: this.#config.groupId,
      });
      throw error;
    }
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop().finally(() => {
      this.#stopping = undefined;
    });
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const runner = this.#runner;
    const wasRunning = this.#control !== undefined;
    this.#control = undefined;
    this.#runner = undefined;
    await runner?.stop();
    if (wasRunning) this.#emitter.emit(CONSUMER_EVENTS.STOP, undefined);
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#logger.info('Stopped', { groupId: this.#config.groupId });
  }

  async subscribe(subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void> {
    if (this.#control !== undefined)
      throw new KafkaJSNonRetriableError('Cannot subscribe to topic while consumer is running');
    const s = (subscription ?? {}) as Partial<ConsumerSubscribeTopics & ConsumerSubscribeTopic>;
    if (!s.topic && !s.topics)
      throw new KafkaJSNonRetriableError('Missing required argument "topics"');
    if (s.topics != null && !Array.isArray(s.topics))
      throw new KafkaJSNonRetriableError('Argument "topics" must be an array');
    const list = s.topics ?? [s.topic as string | RegExp];
    for (const t of list)
      if (typeof t !== 'string' && !(t instanceof RegExp))
        throw new KafkaJSNonRetriableError(
          `Invalid topic ${t} (${typeof t}), the topic name has to be a String or a RegExp`,
        );
    for (const topic of list)
      this.#subscriptions.push({ topic, fromBeginning: s.fromBeginning ?? false });
  }

  /**
   * The subscribed names with their fromBeginning (a later subscribe of a name wins, as in
   * kafkajs). RegExps are matched here against the cluster's topics, once, as kafkajs matches
   * them once at subscribe: kafkajs at `subscribe()`, the facade at `run()` (the first point
   * where it is connected).
   */
  async #resolveTopics(cluster: Cluster): Promise<Map<string, boolean>> {
    const out = new Map<string, boolean>();
    let names: string[] | undefined;
    for (const s of this.#subscriptions) {
      if (typeof s.topic === 'string') {
        out.set(s.topic, s.fromBeginning);
        continue;
      }
      if (names === undefined) {
        const listed = await new Admin(cluster).listTopics({ listInternal: true });
        names = listed.topics.map((t) => t.name);
      }
      const re = s.topic;
      for (const name of names) {
        re.lastIndex = 0;
        if (re.test(name)) out.set(name, s.fromBeginning);
      }
      this.#logger.debug('Subscription based on RegExp', {
        groupId: this.#config.groupId,
        topicRegExp: String(re),
      });
    }
    return out;
  }

  async run(config: ConsumerRunConfig = {}): Promise<void> {
    if (this.#control !== undefined) {
      this.#logger.warn('consumer#run was called, but the consumer is already running', {
        groupId: this.#config.groupId,
      });
      return;
    }
    const concurrency = config.partitionsConsumedConcurrently ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new KafkaJSNonRetriableError(
        `partitionsConsumedConcurrently must be a positive integer, got ${concurrency}`,
      );
    await this.#start(config);
  }

  async #start(run: ConsumerRunConfig): Promise<void> {
    this.#logger.info('Starting', { groupId: this.#config.groupId });
    const control = new RunControl();
    this.#control = control;
    const settings: RunnerSettings = {
      context: this.#context,
      config: this.#config,
      run,
      logger: this.#logger,
      emitter: this.#emitter,
      onCrash: (e) => {
        void this.#onCrash(e, run);
      },
    };
    let runner: ConsumerRunner;
    try {
      const cluster = await this.#open();
      const topics = await this.#resolveTopics(cluster);
      // stop() while connecting ends this run before it joins.
      if (this.#control !== control) return;
      runner = new ConsumerRunner(settings, control, cluster, topics);
      this.#runner = runner;
    } catch (e) {
      // kafkajs's run() crashes the consumer (CRASH event) rather than rejecting; a run that
      // stop() ended meanwhile just ends.
      if (this.#control === control) void this.#onCrash(toKafkaJSError(e) as Error, run);
      return;
    }
    await runner.start();
  }

  /** kafkajs's crash: disconnect, tell CRASH listeners, and restart when the error allows. */
  async #onCrash(error: Error, run: ConsumerRunConfig): Promise<void> {
    const groupId = this.#config.groupId;
    this.#logger.error(`Crash: ${error.name}: ${error.message}`, {
      groupId,
      retryCount: (error as { retryCount?: number }).retryCount,
      stack: error.stack,
    });
    await this.disconnect().catch(() => undefined);
    let original: unknown = error;
    while (original instanceof Error && original.cause !== undefined) original = original.cause;
    const retriable =
      error.name === 'KafkaJSNumberOfRetriesExceeded' ||
      (original as { retriable?: unknown } | undefined)?.retriable === true;
    const retry = this.#config.retry;
    let restart = retriable;
    if (retriable && retry?.restartOnFailure !== undefined) {
      restart = await retry.restartOnFailure(error).catch((e: unknown) => {
        this.#logger.error(
          'Caught error when invoking user-provided "restartOnFailure" callback. Defaulting to restarting.',
          { error: e instanceof Error ? e.message : String(e), cause: error.message, groupId },
        );
        return true;
      });
    }
    this.#emitter.emit(CONSUMER_EVENTS.CRASH, { error, groupId, restart });
    if (!restart) return;
    const failedAfter = (error as { retryTime?: number }).retryTime;
    const retryTime =
      failedAfter !== undefined && failedAfter > 0 ? failedAfter : (retry?.initialRetryTime ?? 300);
    this.#logger.error(`Restarting the consumer in ${retryTime}ms`, { retryTime, groupId });
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      void this.#start(run);
    }, retryTime);
  }

  async commitOffsets(topicPartitions: TopicPartitionOffsetAndMetadata[] = []): Promise<void> {
    const offsets = topicPartitions.map(({ topic, partition, offset, metadata = null }) => {
      if (!topic) throw new KafkaJSNonRetriableError(`Invalid topic ${topic}`);
      if (Number.isNaN(Number(partition)))
        throw new KafkaJSNonRetriableError(
          `Invalid partition, expected a number received ${partition}`,
        );
      const value = checkOffset(offset, false);
      if (metadata !== null && typeof metadata !== 'string')
        throw new KafkaJSNonRetriableError(
          `Invalid offset metadata, expected string or null, received ${metadata}`,
        );
      return { topic, partition: Number(partition), offset: value, metadata };
    });
    if (this.#control === undefined) throw new KafkaJSNonRetriableError(NOT_RUNNING);
    // Not joined yet: kafkajs's runner drops a commit while it is not running.
    await this.#runner?.commitExplicit(offsets);
  }

  seek({ topic, partition, offset }: TopicPartitionOffset): void {
    if (!topic) throw new KafkaJSNonRetriableError(`Invalid topic ${topic}`);
    if (Number.isNaN(Number(partition)))
      throw new KafkaJSNonRetriableError(
        `Invalid partition, expected a number received ${partition}`,
      );
    const value = checkOffset(offset, true);
    const control = this.#control;
    if (control === undefined) throw new KafkaJSNonRetriableError(NOT_RUNNING);
    const tp = { topic, partition: Number(partition) };
    if (this.#runner !== undefined) this.#runner.seek(tp, value);
    else control.pendingSeeks.set(`${tp.topic}\u0000${tp.partition}`, { tp, offset: value });
  }

  async describeGroup(): Promise<GroupDescription> {
    const cluster = await this.#open();
    const groupId = this.#config.groupId;
    let result: Awaited<ReturnType<Admin['describeGroups']>>;
    try {
      result = await new Admin(cluster).describeGroups([groupId]);
    } catch (e) {
      throw toKafkaJSError(e);
    }
    const g = result.groups.find((x) => x.groupId === groupId);
    if (g?.error !== undefined) throw toKafkaJSError(g.error);
    return {
      errorCode: 0,
      groupId,
      members: (g?.members ?? []).map((m) => ({
        clientHost: m.clientHost,
        clientId: m.clientId,
        memberId: m.memberId,
        memberAssignment: m.assignment,
        memberMetadata: m.metadata,
      })),
      protocol: g?.protocol ?? '',
      protocolType: g?.protocolType ?? '',
      state: (g?.state || 'Unknown') as ConsumerGroupState,
    };
  }

  pause(topicPartitions: { topic: string; partitions?: number[] }[] = []): void {
    checkTopicPartitions(topicPartitions, 'pause');
    const control = this.#control;
    if (control === undefined) throw new KafkaJSNonRetriableError(NOT_RUNNING);
    if (this.#runner !== undefined) this.#runner.pause(topicPartitions);
    else control.pause(topicPartitions);
  }

  paused(): TopicPartitions[] {
    return this.#runner?.paused() ?? [];
  }

  resume(topicPartitions: { topic: string; partitions?: number[] }[] = []): void {
    checkTopicPartitions(topicPartitions, 'resume');
    const control = this.#control;
    if (control === undefined) throw new KafkaJSNonRetriableError(NOT_RUNNING);
    if (this.#runner !== undefined) this.#runner.resume(topicPartitions);
    else control.resume(topicPartitions);
  }

  on<T = unknown>(
    eventName: string,
    listener: (event: InstrumentationEvent<T>) => void,
  ): RemoveInstrumentationEventListener<T> {
    // The emitter refuses a name the consumer does not emit, as kafkajs does.
    const remove = this.#emitter.on<T>(eventName, listener);
    if (eventName === CONSUMER_EVENTS.FETCH || eventName === CONSUMER_EVENTS.FETCH_START)
      this.#runner?.traceFetches();
    return remove;
  }

  logger(): Logger {
    return this.#logger;
  }
}

/**
 * `kafka.consumer(config)`: a kafkajs consumer on kafkats's classic group protocol, offering
 * kafkajs's `RoundRobinAssigner` so that kafkajs members and facade members share a group.
 * @throws KafkaJSNonRetriableError without a groupId, or with heartbeatInterval >= sessionTimeout
 */
export function createConsumer(context: ClientContext, config: ConsumerConfig): Consumer {
  return new KafkaJSConsumer(context, config);
}
