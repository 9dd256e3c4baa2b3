import {
  type ApiDescriptor,
  ErrorCode,
  FindCoordinatorApi,
  type FindCoordinatorResponse,
  KafkaError,
  ProtocolError,
} from '@kafkats/codec';
import {
  AbortedError,
  type CloseOptions,
  ConnectionMetrics,
  type ConnectionMetricsSnapshot,
  errorFields,
  type Logger,
  silentLogger,
  UnsupportedVersionError,
} from '@kafkats/wire';
import { apiAccess, requestMutation } from './access.js';
import type { ConnectionFactory, ConnectionSendOptions, MetaConnection } from './api.js';
import { classify } from './classify.js';
import { CoordinatorBatcher } from './coordinator-batcher.js';
import { ClusterClosedError, OperationTimeoutError, ReadOnlyError } from './errors.js';
import {
  buildFindCoordinatorBatchRequest,
  buildFindCoordinatorRequest,
  type CoordinatorAnswer,
  readFindCoordinatorResponse,
} from './find-coordinator.js';
import {
  buildMetadataRequest,
  MetadataSnapshotApi,
  snapshotFromAnswer,
} from './metadata-request.js';
import { type BrokerMetricsSnapshot, BrokerPool, type BrokerPoolOptions } from './pool.js';
import { responseErrors } from './response-errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs, sleep } from './retry.js';
import { type CoordinatorKind, routing } from './routing.js';
import {
  type BrokerInfo,
  keepNewerLeaderEpochs,
  type LeaderHint,
  MetadataSnapshot,
} from './snapshot.js';
import { type WireConnectionOptions, wireConnectionFactory } from './wire-factory.js';

/** How to build a {@link Cluster}. Every field has a default. */
export interface ClusterConfig {
  /**
   * Opens broker connections. Default: {@link wireConnectionFactory} with `connection`
   * (a wire `BrokerConnection` per broker); tests inject fakes.
   */
  readonly connectionFactory?: ConnectionFactory;
  /** Options for every wire connection (TLS, SASL, limits) when no factory is given. */
  readonly connection?: WireConnectionOptions;
  /**
   * How long one request may wait for its answer, ms, before the attempt fails with a
   * retriable `RequestTimeoutError` and its connection is recycled (Kafka's
   * `request.timeout.ms`). Each attempt waits `min(requestTimeoutMs, time left in the
   * operation)`. Default `connection.requestTimeoutMs`, else 30000.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Background full refresh period, ms. Default 30000: fresher than Java's 5 minutes because a
   * UI shows it, with invalidation on errors doing the real work. 0 turns it off.
   */
  readonly refreshIntervalMs?: number;
  /** `refreshIfStale()` refreshes when the snapshot is older than this, ms. Default 300000. */
  readonly maxStalenessMs?: number;
  /** Retry behaviour (merged over {@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: Partial<RetryPolicy>;
  /** Connection pool options (reconnect backoff, idle close). */
  readonly pool?: Omit<BrokerPoolOptions, 'rebootstrap'>;
  /**
   * What to do when the cluster cannot be reached through the brokers the metadata named
   * (Kafka's `metadata.recovery.strategy`, KIP-899/KIP-1102): `'rebootstrap'` (the default, as
   * in Kafka 4.x) goes back to the bootstrap addresses, resolved afresh, when every known broker
   * is unreachable, when no metadata could be had for `metadataRecoveryRebootstrapTriggerMs`,
   * or when a broker answers REBOOTSTRAP_REQUIRED; `'none'` only ever dials known brokers once
   * the first metadata is in.
   */
  readonly metadataRecoveryStrategy?: 'none' | 'rebootstrap';
  /**
   * With `'rebootstrap'`: how long without any successful metadata before the learnt brokers
   * are forgotten and the bootstrap addresses used again, ms (Kafka's
   * `metadata.recovery.rebootstrap.trigger.ms`). Default 300000.
   */
  readonly metadataRecoveryRebootstrapTriggerMs?: number;
  /** Injectable randomness for jitter (tests). */
  readonly random?: () => number;
  /**
   * Where the cluster and its connections log (a pino logger or `console` fit; see wire's
   * `Logger`): connection lifecycle and rebootstraps at info, retries and reconnect backoff at
   * debug, failed background refreshes and request timeouts at warn, authentication failures
   * at error. Handed to every wire connection unless `connection.logger` is set. Default silent.
   */
  readonly logger?: Logger;
  /**
   * Refuse every request that changes the cluster (see `ACCESS_TABLE`; an API it does not
   * classify counts as changing) with `ReadOnlyError`, before it is built or encoded. For
   * clients that promise their operator they only look: a principal with READ and DESCRIBE
   * is all they need. Default false.
   */
  readonly readOnly?: boolean;
}

/**
 * A request, or a function that builds it for the version the cluster picked. The function
 * form is for requests whose shape depends on the version (Fetch by topic id from v13,
 * FindCoordinator's `coordinatorKeys` from v4); it is called once per attempt, after the
 * connection for that attempt is known.
 */
export type RequestInput<Req> = Req | ((version: number) => Req);

/** Per-operation options for the send methods. Every field has a default. */
export interface ClusterSendOptions {
  /**
   * Send at exactly this version. Refused with `UnsupportedVersionError` (before anything is
   * written) when the broker does not support it. Default: the highest both sides support.
   */
  readonly version?: number;
  /** Per-attempt request timeout, ms. Default the cluster's `requestTimeoutMs`. */
  readonly timeoutMs?: number;
  /** The whole operation's deadline, ms, retries included. Default `retry.operationTimeoutMs`. */
  readonly operationTimeoutMs?: number;
  /** Attempts for ordinary retriable errors, the first included; 1 sends once. Default `retry.maxAttempts`. */
  readonly maxAttempts?: number;
  /** Cancels the operation: the pending wait rejects at once with `AbortedError`. */
  readonly signal?: AbortSignal;
  /**
   * When true (the default), a non-zero top-level `errorCode` in the response is thrown as a
   * `ProtocolError`, so the retry rules apply to it. Pass false for APIs whose error response
   * carries data the caller needs (JoinGroup's MEMBER_ID_REQUIRED with the member id).
   * Errors below the top level are not thrown unless `retryInnerMetadataErrors`; see the
   * `responseErrors`.
   */
  readonly checkTopLevelError?: boolean;
  /**
   * When true, an error inside the response that needs a metadata refresh (a partition's
   * NOT_LEADER_OR_FOLLOWER, a topic's UNKNOWN_TOPIC_OR_PARTITION) fails the attempt like a
   * top-level one: the dispatcher refreshes (the topic, for a leader target) and sends the
   * whole request again. For idempotent reads such as ListOffsets; never for Produce, where
   * the partitions that succeeded would be written twice. Default false.
   */
  readonly retryInnerMetadataErrors?: boolean;
}

/** What {@link Cluster.metrics} reports: one object, later activity does not change it. */
export interface ClusterMetricsSnapshot {
  /** When taken, epoch ms. */
  readonly takenAtMs: number;
  /** Age of the metadata snapshot in use, ms (since its Metadata answer was installed). */
  readonly metadataAgeMs: number;
  /** The last background refresh failure's message; null after a success. */
  readonly lastRefreshError: string | null;
  /** Per broker, and per bootstrap address that was dialled. */
  readonly brokers: readonly BrokerMetricsSnapshot[];
  /** Sums over `brokers` (latencies merged per API). */
  readonly totals: ConnectionMetricsSnapshot & {
    readonly inFlight: number;
    readonly queued: number;
  };
}

/** Where a request goes. */
export type ClusterTarget =
  | { readonly kind: 'any' }
  | { readonly kind: 'controller' }
  | { readonly kind: 'node'; readonly nodeId: number }
  | { readonly kind: 'coordinator'; readonly coordinator: CoordinatorKind; readonly key: string }
  | { readonly kind: 'leader'; readonly topic: string; readonly partition: number };

/**
 * The least time an operation must have left for a further request of it to start (a retry,
 * or the metadata refresh before one): a request given a few milliseconds can only time out.
 */
const MIN_ATTEMPT_MS = 10;

function describe(target: ClusterTarget): string {
  switch (target.kind) {
    case 'any':
      return 'any broker';
    case 'controller':
      return 'the controller';
    case 'node':
      return `broker ${target.nodeId}`;
    case 'coordinator':
      return `the ${target.coordinator} coordinator for ${JSON.stringify(target.key)}`;
    case 'leader':
      return `the leader of ${target.topic}-${target.partition}`;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The version to send `api` at on `connection`: the pinned one, else the highest shared. */
function chooseVersion(
  connection: MetaConnection,
  api: Pick<ApiDescriptor, 'apiKey' | 'name'>,
  pinned: number | undefined,
  where: string,
): number {
  if (pinned !== undefined) return pinned;
  const version = connection.negotiatedVersion(api.apiKey);
  if (version === undefined)
    throw new UnsupportedVersionError(`${where}: the broker does not support ${api.name}`);
  return version;
}

/** The request for `version`: the message itself, or what the builder makes for that version. */
function buildRequest<Req>(input: RequestInput<Req>, version: number): Req {
  // A message is never a function, so a function is the builder.
  return typeof input === 'function' ? (input as (v: number) => Req)(version) : input;
}

/** One attempt's context, handed down so no inner step outlives the operation. */
interface Attempt {
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * One `sendToNodeCallback` whose first attempt went out on an open connection. The one object
 * per request on that path: it is also the attempt's target (a node) and the connection's send
 * options (its version and timeout), and the context the connection hands back.
 */
class NodeCall implements ConnectionSendOptions {
  readonly kind = 'node';
  version = -1;
  timeoutMs = 0;
  readonly nodeId: number;
  readonly api: ApiDescriptor<unknown, unknown>;
  readonly build: (version: number, context: unknown) => unknown;
  readonly options: ClusterSendOptions;
  readonly onResponse: (response: unknown, context: unknown) => void;
  readonly onError: (error: unknown, context: unknown) => void;
  readonly context: unknown;
  /** When the operation started, and when its time runs out, epoch ms. */
  readonly started: number;
  readonly deadline: number;

  constructor(
    nodeId: number,
    api: ApiDescriptor<unknown, unknown>,
    build: (version: number, context: unknown) => unknown,
    options: ClusterSendOptions,
    onResponse: (response: unknown, context: unknown) => void,
    onError: (error: unknown, context: unknown) => void,
    context: unknown,
    started: number,
    deadline: number,
  ) {
    this.nodeId = nodeId;
    this.api = api;
    this.build = build;
    this.options = options;
    this.onResponse = onResponse;
    this.onError = onError;
    this.context = context;
    this.started = started;
    this.deadline = deadline;
  }
}

/** A first attempt made outside the retry loop (`#sendOpen`), handed to it when it failed. */
interface FirstAttempt {
  readonly attempt: Attempt;
  /** When the operation started, epoch ms. */
  readonly started: number;
  /** Why it failed. */
  readonly error: Error;
}

/**
 * A connected Kafka cluster: the metadata snapshot, routing, connections and retries.
 * Everything above this layer sends through it.
 *
 * `snapshot()` never waits: it returns the current immutable snapshot, and a refresh swaps the
 * reference in one assignment, so a reader sees the old view or the new one, never a mix.
 *
 * Decisions each have one owner: the cluster picks the version once per attempt from the
 * connection it will use and the wire sends exactly that; the pool alone decides when to dial
 * a broker again; the wire's one timer per connection bounds each request, with
 * `min(requestTimeoutMs, time left in the operation)`.
 */
export class Cluster {
  readonly #pool: BrokerPool;
  readonly #policy: RetryPolicy;
  readonly #requestTimeoutMs: number;
  readonly #maxStalenessMs: number;
  readonly #random: () => number;
  readonly #readOnly: boolean;
  readonly #rebootstrap: boolean;
  readonly #rebootstrapTriggerMs: number;
  readonly #log: Logger;
  /** When the last metadata answer was installed, epoch ms. */
  #lastMetadataMs = Date.now();
  readonly #coordinators = new Map<string, number>();
  readonly #lookups = new CoordinatorBatcher((kind, keys, deadline) =>
    this.#lookupRound(kind, keys, deadline),
  );
  #snapshot: MetadataSnapshot = MetadataSnapshot.empty();
  #refreshing: Promise<MetadataSnapshot> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /** The last background refresh failure, for diagnostics; cleared by a success. */
  lastRefreshError: Error | undefined;

  private constructor(bootstrap: readonly string[], config: ClusterConfig) {
    this.#rebootstrap = (config.metadataRecoveryStrategy ?? 'rebootstrap') === 'rebootstrap';
    this.#rebootstrapTriggerMs = config.metadataRecoveryRebootstrapTriggerMs ?? 300_000;
    this.#log = config.logger ?? silentLogger;
    const connection =
      config.logger === undefined || config.connection?.logger !== undefined
        ? config.connection
        : { ...config.connection, logger: config.logger };
    this.#pool = new BrokerPool(
      bootstrap,
      config.connectionFactory ?? wireConnectionFactory(connection),
      {
        ...config.pool,
        rebootstrap: this.#rebootstrap,
        ...(config.pool?.logger === undefined && config.logger !== undefined
          ? { logger: config.logger }
          : {}),
      },
    );
    this.#policy = Object.freeze({ ...DEFAULT_RETRY_POLICY, ...config.retry });
    this.#requestTimeoutMs =
      config.requestTimeoutMs ?? config.connection?.requestTimeoutMs ?? 30_000;
    this.#maxStalenessMs = config.maxStalenessMs ?? 300_000;
    this.#random = config.random ?? Math.random;
    this.#readOnly = config.readOnly === true;
    // A dropped connection means the partitions that broker led need a new leader: forget them
    // so the next send to one refreshes instead of waiting on a dead broker.
    this.#pool.onBrokerDown((nodeId) => {
      this.#snapshot = this.#snapshot.withoutLeader(nodeId);
    });
    const interval = config.refreshIntervalMs ?? 30_000;
    if (interval > 0) {
      this.#timer = setInterval(() => {
        this.refresh().then(
          () => {
            this.lastRefreshError = undefined;
          },
          (error: unknown) => {
            this.lastRefreshError = asError(error);
            if (!this.#closed) {
              this.#log.warn(errorFields(error), 'background metadata refresh failed');
            }
          },
        );
      }, interval);
      this.#timer.unref?.();
    }
  }

  /**
   * Connects to the bootstrap brokers and fetches the first snapshot (retried like any other
   * operation within `retry.operationTimeoutMs`).
   *
   * @param bootstrap `host:port` list, as an array or comma-separated
   * @throws KafkaError `ERR_KAFKA_BOOTSTRAP_INVALID` for a malformed address; the last
   *   connection or broker error when no first snapshot could be had
   */
  static async connect(
    bootstrap: string | readonly string[],
    config: ClusterConfig = {},
  ): Promise<Cluster> {
    const list =
      typeof bootstrap === 'string' ? bootstrap.split(',').map((s) => s.trim()) : bootstrap;
    const cluster = new Cluster(
      list.filter((s) => s !== ''),
      config,
    );
    try {
      await cluster.#withRetries({ kind: 'any' }, 'Metadata', {}, (attempt) =>
        cluster.#refreshOnce(attempt),
      );
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** The current snapshot. Never waits. */
  snapshot(): MetadataSnapshot {
    return this.#snapshot;
  }

  /** The pool (diagnostics, tests). */
  get pool(): BrokerPool {
    return this.#pool;
  }

  /** The logger given in the config (silent by default); clients built on the cluster use it too. */
  get logger(): Logger {
    return this.#log;
  }

  /**
   * A snapshot of the cluster's figures: metadata age, and per broker the connects,
   * reconnects, requests, bytes, back-pressure rejections, timeouts, in-flight and queued
   * requests and latency histograms per API (see `BrokerMetricsSnapshot`). Cheap enough to
   * poll every few seconds; nothing is reset.
   */
  metrics(): ClusterMetricsSnapshot {
    const brokers = this.#pool.metrics();
    const sum = new ConnectionMetrics();
    let inFlight = 0;
    let queued = 0;
    for (const b of brokers) {
      inFlight += b.inFlight;
      queued += b.queued;
    }
    for (const r of this.#pool.recorders()) sum.add(r);
    const now = Date.now();
    return {
      takenAtMs: now,
      metadataAgeMs: now - this.#lastMetadataMs,
      lastRefreshError: this.lastRefreshError?.message ?? null,
      brokers,
      totals: { ...sum.snapshot(), inFlight, queued },
    };
  }

  /** The retry policy in force. */
  get retryPolicy(): RetryPolicy {
    return this.#policy;
  }

  /** True when the cluster refuses mutating requests (`ClusterConfig.readOnly`). */
  get readOnly(): boolean {
    return this.#readOnly;
  }

  /** The per-attempt request timeout in force, ms. */
  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  /**
   * Fetches metadata for every topic and installs it. Concurrent calls share one request.
   * One attempt; callers that want retries go through a send.
   */
  refresh(): Promise<MetadataSnapshot> {
    return this.#refreshOnce(this.#oneShot());
  }

  /**
   * Fetches metadata for `names` only and merges it into the snapshot: orders of magnitude
   * cheaper than a full refresh on a large cluster, and all that one moved leader needs.
   * A name that does not exist comes back with UNKNOWN_TOPIC_OR_PARTITION as its `errorCode`
   * (and is never created: see `buildMetadataRequest`).
   */
  refreshTopics(names: readonly string[]): Promise<MetadataSnapshot> {
    return this.#refreshTopicsOnce(names, this.#oneShot());
  }

  /** Refreshes only when the snapshot is older than `maxStalenessMs` or knows no broker. */
  async refreshIfStale(): Promise<MetadataSnapshot> {
    const current = this.#snapshot;
    if (current.age() < this.#maxStalenessMs && current.brokers.length > 0) return current;
    return this.refresh();
  }

  /** Discards the snapshot; the next lookup refetches. Broker addresses stay known to the pool. */
  invalidate(): void {
    this.#snapshot = MetadataSnapshot.empty();
  }

  /**
   * The leader of a partition, refreshing that topic once when the snapshot does not know.
   *
   * @throws ProtocolError the topic's error (UNKNOWN_TOPIC_OR_PARTITION, ...) or
   *   LEADER_NOT_AVAILABLE when there is still no leader
   */
  leaderFor(topic: string, partition: number): Promise<number> {
    return this.#leaderOnce(topic, partition, this.#oneShot());
  }

  /**
   * The controller id from metadata (in KRaft: a broker that forwards to the active
   * controller), refreshing once if unknown.
   *
   * @throws ProtocolError NOT_CONTROLLER when no controller is known after a refresh
   */
  controller(): Promise<number> {
    return this.#controllerOnce(this.#oneShot());
  }

  /**
   * The coordinator for a group or transactional id, cached until invalidated. Retried on
   * COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS within `coordinatorTimeoutMs`:
   * a fresh cluster's `__consumer_offsets` has no leader for a while after first use.
   */
  coordinator(kind: CoordinatorKind, key: string): Promise<number> {
    return this.#withRetries(
      { kind: 'coordinator', coordinator: kind, key },
      'FindCoordinator',
      {},
      (attempt) => this.#coordinatorOnce(kind, key, attempt),
    );
  }

  /**
   * Applies the new leaders a Produce (v10+) or Fetch (v16+) answer carries with
   * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (KIP-951 `CurrentLeader`, and the new
   * leader's address in `NodeEndpoints`): a new snapshot with those partitions' leaders and
   * epochs (never going back in epoch), the endpoints learnt by the pool, and no Metadata
   * request. Returns how many partitions moved; 0 means nothing usable was in the hints, and
   * the caller falls back to `refreshTopics`.
   */
  applyLeaderHints(hints: readonly LeaderHint[], endpoints: readonly BrokerInfo[] = []): number {
    const current = this.#snapshot;
    const next = current.withLeaderHints(hints, endpoints);
    if (next === current) return 0;
    this.#pool.learnAddresses(endpoints);
    this.#snapshot = next;
    let moved = 0;
    for (const h of hints) {
      if (
        next.leaderFor(h.topic, h.partition) !== current.leaderFor(h.topic, h.partition) ||
        next.partition(h.topic, h.partition)?.leaderEpoch !==
          current.partition(h.topic, h.partition)?.leaderEpoch
      )
        moved++;
    }
    return moved;
  }

  /** Forgets the cached coordinator for a key. */
  invalidateCoordinator(kind: CoordinatorKind, key: string): void {
    this.#coordinators.delete(`${kind} ${key}`);
  }

  /** The version a connection to some broker negotiated for an API key, or undefined if unsupported. */
  async negotiatedFor(apiKey: number): Promise<number | undefined> {
    return (await this.#pool.any()).negotiatedVersion(apiKey);
  }

  /**
   * A finalized cluster feature's level (KIP-584: `transaction.version`, `group.version`) as
   * some broker stated it when its connection was made, or undefined when not finalized (or
   * the broker predates feature flags). Levels change with an upgrade and reach a client as
   * its connections are made again, as Java's client learns them from ApiVersions.
   */
  async finalizedFeature(name: string): Promise<number | undefined> {
    return (await this.#pool.any()).finalizedFeature?.(name);
  }

  /**
   * Sends to `target` with retries, version choice and error handling: the one dispatcher the
   * `sendTo...` shorthands call.
   *
   * @throws ReadOnlyError (before anything is built) for a mutating API on a read-only
   *   cluster; the last attempt's error when it is not retriable or the attempts are spent;
   *   `OperationTimeoutError` (retriable, `cause` = last error) when the operation's time runs
   *   out; `AbortedError` when `options.signal` aborts
   */
  send<Req, Res>(
    target: ClusterTarget,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options: ClusterSendOptions = {},
  ): Promise<Res> {
    if (this.#readOnly && apiAccess(api.apiKey) !== 'read')
      return Promise.reject(new ReadOnlyError(api.name, api.apiKey));
    if (target.kind === 'node' && options.signal === undefined && !this.#closed) {
      const connection = this.#pool.openConnection(target.nodeId);
      if (connection !== undefined)
        return this.#sendOpen(target, connection, api, request, options);
    }
    return this.#withRetries(target, api.name, options, (attempt) =>
      this.#attemptSend(target, api, request, options, attempt),
    );
  }

  /**
   * The first attempt of a send to a broker whose connection is open: the same steps as
   * `#attemptSend` without its awaits, strings and connection lookup (a producer sends one
   * request per batch through here). A failure goes on in the retry loop as that attempt.
   */
  #sendOpen<Req, Res>(
    target: ClusterTarget,
    connection: MetaConnection,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options: ClusterSendOptions,
  ): Promise<Res> {
    const started = Date.now();
    const attempt: Attempt = {
      deadline: started + (options.operationTimeoutMs ?? this.#policy.operationTimeoutMs),
      signal: undefined,
    };
    let version: number;
    let sent: Promise<Res>;
    try {
      version = chooseVersion(connection, api, options.version, api.name);
      const built = buildRequest(request, version);
      if (this.#readOnly) this.#gate(api, built, version);
      sent = connection.send(api, built, {
        version,
        timeoutMs: this.#timeoutFor(attempt, options.timeoutMs),
      });
    } catch (error) {
      return this.#afterFirst(target, api, request, options, attempt, started, error);
    }
    return sent.then(
      (response) => {
        const failure = this.#responseFailure(target, api, response, version, options);
        if (failure === undefined) return response;
        return this.#afterFirst(target, api, request, options, attempt, started, failure);
      },
      (error: unknown) => this.#afterFirst(target, api, request, options, attempt, started, error),
    );
  }

  /**
   * `sendToNode` with a pair of handlers instead of a promise, for a caller that sends a
   * request per batch: one pair and one `build` serve every request, the `context` telling
   * them apart, and the first attempt on an open connection makes no promise and no closure.
   * Exactly one of `onResponse(response, context)` and `onError(error, context)` runs:
   * `onResponse` as the answer is read (an exception it throws surfaces on the next tick, as
   * from any Node callback), `onError` never inside this call. Versions, retries, errors and
   * answers are those of `sendToNode`; `build(version, context)` makes the request.
   */
  sendToNodeCallback<Req, Res, C>(
    nodeId: number,
    api: ApiDescriptor<Req, Res>,
    build: (version: number, context: C) => Req,
    options: ClusterSendOptions,
    onResponse: (response: Res, context: C) => void,
    onError: (error: unknown, context: C) => void,
    context: C,
  ): void {
    const connection =
      options.signal === undefined &&
      !this.#closed &&
      !(this.#readOnly && apiAccess(api.apiKey) !== 'read')
        ? this.#pool.openConnection(nodeId)
        : undefined;
    if (connection?.sendCallback === undefined) {
      this.sendToNode(nodeId, api, (v) => build(v, context), options).then(
        (response) => onResponse(response, context),
        (error: unknown) => onError(error, context),
      );
      return;
    }
    const started = Date.now();
    const call = new NodeCall(
      nodeId,
      api as ApiDescriptor<unknown, unknown>,
      build as (version: number, context: unknown) => unknown,
      options,
      onResponse as (response: unknown, context: unknown) => void,
      onError as (error: unknown, context: unknown) => void,
      context,
      started,
      started + (options.operationTimeoutMs ?? this.#policy.operationTimeoutMs),
    );
    let built: Req;
    try {
      call.version = chooseVersion(connection, api, options.version, api.name);
      built = build(call.version, context);
      if (this.#readOnly) this.#gate(api, built, call.version);
      const configured = options.timeoutMs ?? this.#requestTimeoutMs;
      call.timeoutMs = Math.max(1, Math.min(configured, call.deadline - Date.now()));
    } catch (error) {
      this.#retryCall(call, error);
      return;
    }
    connection.sendCallback(api, built, call, this.#callAnswered, this.#callFailed, call);
  }

  /** A `sendToNodeCallback` first attempt was answered. */
  readonly #callAnswered = (response: unknown, call: NodeCall) => {
    const failure = this.#responseFailure(call, call.api, response, call.version, call.options);
    if (failure === undefined) call.onResponse(response, call.context);
    else this.#retryCall(call, failure);
  };

  /** A `sendToNodeCallback` first attempt failed. */
  readonly #callFailed = (error: unknown, call: NodeCall) => {
    this.#retryCall(call, error);
  };

  /** The retry loop takes over a `sendToNodeCallback` whose first attempt failed. */
  #retryCall(call: NodeCall, error: unknown): void {
    const { api, build, context, options } = call;
    const target: ClusterTarget = { kind: 'node', nodeId: call.nodeId };
    const attempt: Attempt = { deadline: call.deadline, signal: undefined };
    this.#afterFirst(
      target,
      api,
      (v) => build(v, context),
      options,
      attempt,
      call.started,
      error,
    ).then(
      (response) => call.onResponse(response, context),
      (failure: unknown) => call.onError(failure, context),
    );
  }

  /** The retry loop, taking over from a `#sendOpen` attempt that failed with `error`. */
  #afterFirst<Req, Res>(
    target: ClusterTarget,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options: ClusterSendOptions,
    attempt: Attempt,
    started: number,
    error: unknown,
  ): Promise<Res> {
    return this.#withRetries(
      target,
      api.name,
      options,
      (next) => this.#attemptSend(target, api, request, options, next),
      { attempt, started, error: asError(error) },
    );
  }

  /** Sends to any live broker. */
  sendAny<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    return this.send({ kind: 'any' }, api, request, options);
  }

  /** Sends to the controller; on NOT_CONTROLLER the cached controller is cleared and metadata refreshed. */
  sendToController<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    return this.send({ kind: 'controller' }, api, request, options);
  }

  /** Sends to one named broker. */
  sendToNode<Req, Res>(
    nodeId: number,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    return this.send({ kind: 'node', nodeId }, api, request, options);
  }

  /** Sends to the group or transaction coordinator for `key`. */
  sendToCoordinator<Req, Res>(
    kind: CoordinatorKind,
    key: string,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    return this.send({ kind: 'coordinator', coordinator: kind, key }, api, request, options);
  }

  /** Sends to a partition's leader; a stale-leader error refreshes that topic only. */
  sendToLeader<Req, Res>(
    topic: string,
    partition: number,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    return this.send({ kind: 'leader', topic, partition }, api, request, options);
  }

  /**
   * Sends wherever the routing table puts the API. Only `Any` and `Controller` APIs: the others
   * need a key the API alone does not carry.
   *
   * @throws KafkaError `ERR_KAFKA_ROUTING_NEEDS_TARGET` for coordinator, caller and leader APIs
   */
  sendRouted<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options?: ClusterSendOptions,
  ): Promise<Res> {
    const route = routing(api.apiKey);
    if (route.kind === 'any') return this.sendAny(api, request, options);
    if (route.kind === 'controller') return this.sendToController(api, request, options);
    const use =
      route.kind === 'coordinator'
        ? `is routed to a ${route.coordinator} coordinator; use sendToCoordinator`
        : route.selector === 'caller'
          ? 'is routed to a broker the caller names; use sendToNode'
          : 'is routed to a partition leader; use sendToLeader';
    return Promise.reject(
      new KafkaError('ERR_KAFKA_ROUTING_NEEDS_TARGET', `${api.name} (key ${api.apiKey}) ${use}`),
    );
  }

  /**
   * Opens a connection to one broker that is not shared through the pool and not retried: for
   * long polls (a Fetch with a long `maxWaitMs` would hold up every other request on a shared
   * connection, since Kafka answers one connection in order). The caller sends on it with
   * {@link sendOn}, and closes it; a dropped dedicated connection is the caller's to reopen.
   *
   * @throws UnknownNodeError (retriable) when the metadata has no address for `nodeId`; the
   *   connection error when the broker cannot be reached
   */
  async openConnection(nodeId: number): Promise<MetaConnection> {
    if (this.#closed) throw new ClusterClosedError();
    if (!this.#pool.knowsNode(nodeId)) await this.#refreshOnce(this.#oneShot()).catch(() => {});
    const connection = await this.#pool.openDedicated(nodeId);
    // A read-only cluster's gate holds on a connection handed out, too.
    return this.#readOnly
      ? new ReadOnlyConnection(connection, (api, request, version) =>
          this.#gate(api, request, version),
        )
      : connection;
  }

  /** The read-only gate for a built request: its API's class, then what this request does. */
  #gate(api: ApiDescriptor<unknown, unknown>, request: unknown, version: number): void {
    if (apiAccess(api.apiKey) !== 'read') throw new ReadOnlyError(api.name, api.apiKey);
    const why = requestMutation(api.apiKey, request, version);
    if (why !== undefined) throw new ReadOnlyError(api.name, api.apiKey, why);
  }

  /**
   * One request on a connection the caller holds (from {@link openConnection}): the version
   * chosen once from that connection, the request built for it, a top-level error thrown as a
   * `ProtocolError`. No retries.
   */
  async sendOn<Req, Res>(
    connection: MetaConnection,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options: Pick<
      ClusterSendOptions,
      'version' | 'timeoutMs' | 'signal' | 'checkTopLevelError'
    > = {},
  ): Promise<Res> {
    if (this.#readOnly && apiAccess(api.apiKey) !== 'read')
      throw new ReadOnlyError(api.name, api.apiKey);
    const version = chooseVersion(connection, api, options.version, api.name);
    const built = buildRequest(request, version);
    if (this.#readOnly) this.#gate(api, built, version);
    const response = await connection.send(api, built, {
      version,
      timeoutMs: options.timeoutMs ?? this.#requestTimeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (options.checkTopLevelError !== false && topLevelCode(response) !== 0)
      throw topLevelError(response, `${api.name} v${version}`);
    return response;
  }

  /** Stops the background refresh and closes every pooled connection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pool.close();
  }

  // -- the dispatcher ---------------------------------------------------------------------

  #oneShot(): Attempt {
    return { deadline: Date.now() + this.#policy.operationTimeoutMs, signal: undefined };
  }

  /** The request timeout of one send: the configured one, cut to what the operation has left. */
  #timeoutFor(attempt: Attempt, configured = this.#requestTimeoutMs): number {
    return Math.max(1, Math.min(configured, attempt.deadline - Date.now()));
  }

  /** One send on `connection`, the version chosen from it once and pinned on the wire. */
  #sendVia<Req, Res>(
    connection: MetaConnection,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    attempt: Attempt,
    pinned?: number,
    timeoutMs?: number,
  ): Promise<{ response: Res; version: number }> {
    const version = chooseVersion(connection, api, pinned, api.name);
    const built = buildRequest(request, version);
    if (this.#readOnly) this.#gate(api, built, version);
    return connection
      .send(api, built, {
        version,
        timeoutMs: this.#timeoutFor(attempt, timeoutMs),
        ...(attempt.signal === undefined ? {} : { signal: attempt.signal }),
      })
      .then((response) => ({ response, version }));
  }

  async #attemptSend<Req, Res>(
    target: ClusterTarget,
    api: ApiDescriptor<Req, Res>,
    request: RequestInput<Req>,
    options: ClusterSendOptions,
    attempt: Attempt,
  ): Promise<Res> {
    const connection = await this.#resolve(target, attempt);
    const { response, version } = await this.#sendVia(
      connection,
      api,
      request,
      attempt,
      options.version,
      options.timeoutMs,
    );
    const failure = this.#responseFailure(target, api, response, version, options);
    if (failure !== undefined) throw failure;
    return response;
  }

  /**
   * The error an answer carries that fails its attempt (a top-level error code; with
   * `retryInnerMetadataErrors`, an inner one that needs fresh metadata), or undefined. An
   * answer without an error builds no message.
   */
  #responseFailure<Req, Res>(
    target: ClusterTarget,
    api: ApiDescriptor<Req, Res>,
    response: Res,
    version: number,
    options: ClusterSendOptions,
  ): Error | undefined {
    if (options.checkTopLevelError !== false && topLevelCode(response) !== 0)
      return topLevelError(response, `${api.name} v${version} to ${describe(target)}`);
    if (options.retryInnerMetadataErrors === true) {
      const context = `${api.name} v${version} to ${describe(target)}`;
      const stale = responseErrors(api, response, context).find(
        (e) => e.error.needsMetadataRefresh,
      );
      if (stale !== undefined) return stale.error;
    }
    return undefined;
  }

  /**
   * The one retry loop. `once` makes a single attempt; nothing it calls retries on its own
   * (refreshes and coordinator lookups inside are single attempts bounded by the same
   * deadline), so retries never nest and no inner step extends the operation's deadline.
   * Each failure is classified by {@link classify}; both refresh axes are acted on, since a
   * stale leader and a moved coordinator live in different caches.
   */
  async #withRetries<T>(
    target: ClusterTarget,
    what: string,
    options: Pick<ClusterSendOptions, 'operationTimeoutMs' | 'maxAttempts' | 'signal'>,
    once: (attempt: Attempt) => Promise<T>,
    first?: FirstAttempt,
  ): Promise<T> {
    const operationTimeoutMs = options.operationTimeoutMs ?? this.#policy.operationTimeoutMs;
    const maxAttempts = Math.max(1, options.maxAttempts ?? this.#policy.maxAttempts);
    const signal = options.signal;
    const started = first?.started ?? Date.now();
    const attempt: Attempt = first?.attempt ?? { deadline: started + operationTimeoutMs, signal };
    const label = `${what} to ${describe(target)}`;
    if (first === undefined && this.#closed)
      throw new ClusterClosedError(`${label}: the cluster is closed`);
    for (let n = 1; ; n++) {
      let error: Error;
      if (n === 1 && first !== undefined) {
        error = first.error;
      } else {
        if (signal?.aborted) throw new AbortedError(label, signal.reason);
        try {
          return await once(attempt);
        } catch (thrown) {
          error = asError(thrown);
        }
      }
      if (this.#closed || error instanceof AbortedError) throw error;
      let verdict = classify(error, target.kind);
      if (
        this.#rebootstrap &&
        error instanceof ProtocolError &&
        error.errorCode === ErrorCode.REBOOTSTRAP_REQUIRED
      ) {
        // KIP-1102: the broker says our metadata is beyond repair; start over from bootstrap.
        this.#rebootstrapNow();
        verdict = { ...verdict, retry: true };
      }
      if (verdict.refreshCoordinator && target.kind === 'coordinator')
        this.invalidateCoordinator(target.coordinator, target.key);
      if (verdict.refreshMetadata) {
        if (target.kind === 'controller') this.#snapshot = this.#snapshot.withoutController();
        // The refresh is a request of this operation: none starts once its time is spent.
        if (attempt.deadline - Date.now() >= MIN_ATTEMPT_MS)
          await this.#onStaleMetadata(target, attempt);
      }
      const budgetLeft = verdict.coordinatorWait
        ? Date.now() - started < this.#policy.coordinatorTimeoutMs
        : n < maxAttempts;
      if (!verdict.retry || !budgetLeft) throw error;
      const delay = retryDelayMs(this.#policy, n + 1, this.#random);
      if (Date.now() + delay + MIN_ATTEMPT_MS > attempt.deadline) {
        throw new OperationTimeoutError(
          `${label}: no success within ${operationTimeoutMs} ms (${n} attempt${n === 1 ? '' : 's'}); last error: ${error.message}`,
          error,
        );
      }
      this.#log.debug(
        { operation: label, attempt: n, delayMs: delay, ...errorFields(error) },
        'retrying',
      );
      await sleep(delay, signal);
    }
  }

  async #resolve(target: ClusterTarget, attempt: Attempt): Promise<MetaConnection> {
    switch (target.kind) {
      case 'any':
        return this.#pool.any(attempt);
      case 'node':
        return this.#nodeConnection(target.nodeId, attempt);
      case 'controller':
        return this.#nodeConnection(await this.#controllerOnce(attempt), attempt);
      case 'coordinator':
        return this.#nodeConnection(
          await this.#coordinatorOnce(target.coordinator, target.key, attempt),
          attempt,
        );
      case 'leader':
        return this.#nodeConnection(
          await this.#leaderOnce(target.topic, target.partition, attempt),
          attempt,
        );
    }
  }

  /** A node's connection; a node the snapshot has never named triggers one full refresh. */
  #nodeConnection(nodeId: number, attempt: Attempt): Promise<MetaConnection> {
    if (this.#pool.knowsNode(nodeId)) return this.#pool.get({ nodeId }, attempt);
    return this.#refreshOnce(attempt).then(
      () => this.#pool.get({ nodeId }, attempt),
      () => this.#pool.get({ nodeId }, attempt),
    );
  }

  async #onStaleMetadata(target: ClusterTarget, attempt: Attempt): Promise<void> {
    try {
      if (target.kind === 'leader') await this.#refreshTopicsOnce([target.topic], attempt);
      else await this.#refreshOnce(attempt);
    } catch {
      // The retry that follows reports what is still wrong; a failed refresh is not the story.
    }
  }

  /** Forgets the learnt brokers and the snapshot: the next metadata comes through bootstrap. */
  #rebootstrapNow(): void {
    this.#log.info(
      { bootstrap: this.#pool.bootstrap },
      'rebootstrapping: the learnt brokers are forgotten',
    );
    this.#pool.rebootstrap();
    this.#snapshot = MetadataSnapshot.empty();
    this.#coordinators.clear();
  }

  #refreshOnce(attempt: Attempt): Promise<MetadataSnapshot> {
    this.#refreshing ??= (async () => {
      try {
        if (
          this.#rebootstrap &&
          this.#pool.knownNodes().length > 0 &&
          Date.now() - this.#lastMetadataMs >= this.#rebootstrapTriggerMs
        ) {
          // No metadata for the trigger period through the brokers we knew: they may all be
          // gone (a rolled cluster), so go back to the addresses we were given.
          this.#rebootstrapNow();
        }
        const connection = await this.#pool.any(attempt);
        const { response, version } = await this.#sendVia(
          connection,
          MetadataSnapshotApi,
          (v) => buildMetadataRequest(null, v),
          attempt,
        );
        if (topLevelCode(response) !== 0) throw topLevelError(response, `Metadata v${version}`);
        return this.#install(snapshotFromAnswer(response, Date.now()), 'full');
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  async #refreshTopicsOnce(names: readonly string[], attempt: Attempt): Promise<MetadataSnapshot> {
    if (names.length === 0) return this.#snapshot;
    const connection = await this.#pool.any(attempt);
    const { response, version } = await this.#sendVia(
      connection,
      MetadataSnapshotApi,
      (v) => buildMetadataRequest(names, v),
      attempt,
    );
    if (topLevelCode(response) !== 0) throw topLevelError(response, `Metadata v${version}`);
    return this.#install(snapshotFromAnswer(response, Date.now()), 'merge');
  }

  /** The single place a snapshot becomes current: one reference assignment. */
  #install(fresh: MetadataSnapshot, mode: 'full' | 'merge'): MetadataSnapshot {
    const current = this.#snapshot;
    const next =
      mode === 'merge' ? current.withTopicsMerged(fresh) : keepNewerLeaderEpochs(fresh, current);
    this.#pool.learnAddresses(next.brokers, { complete: mode === 'full' });
    this.#snapshot = next;
    this.#lastMetadataMs = Date.now();
    return next;
  }

  async #leaderOnce(topic: string, partition: number, attempt: Attempt): Promise<number> {
    const known = this.#snapshot.leaderFor(topic, partition);
    if (known !== undefined) return known;
    const snapshot = await this.#refreshTopicsOnce([topic], attempt);
    const leader = snapshot.leaderFor(topic, partition);
    if (leader !== undefined) return leader;
    const info = snapshot.topic(topic);
    const code =
      info !== undefined && info.errorCode !== 0
        ? info.errorCode
        : info !== undefined && !info.partitions.some((p) => p.partition === partition)
          ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
          : (snapshot.partition(topic, partition)?.errorCode ?? 0) ||
            ErrorCode.LEADER_NOT_AVAILABLE;
    throw ProtocolError.fromCode(code, `leader of ${topic}-${partition}`);
  }

  async #controllerOnce(attempt: Attempt): Promise<number> {
    const known = this.#snapshot.controllerId;
    if (known !== undefined) return known;
    const id = (await this.#refreshOnce(attempt)).controllerId;
    if (id === undefined)
      throw ProtocolError.fromCode(ErrorCode.NOT_CONTROLLER, 'Metadata names no controller');
    return id;
  }

  async #coordinatorOnce(kind: CoordinatorKind, key: string, attempt: Attempt): Promise<number> {
    const cacheKey = `${kind} ${key}`;
    const cached = this.#coordinators.get(cacheKey);
    if (cached !== undefined) return cached;
    const answer = await this.#lookups.lookup(kind, key, attempt.deadline);
    if (!answer.ok) throw answer.error;
    // The coordinator may be a broker this snapshot has not seen yet; its address is in the answer.
    if (!this.#pool.knowsNode(answer.nodeId)) {
      this.#pool.learnAddresses([
        { nodeId: answer.nodeId, host: answer.host, port: answer.port, rack: null },
      ]);
    }
    this.#coordinators.set(cacheKey, answer.nodeId);
    return answer.nodeId;
  }

  /**
   * One FindCoordinator round for the keys the batcher gathered: a single request from v4,
   * one per key below it; each key keeps its own answer or error.
   */
  async #lookupRound(
    kind: CoordinatorKind,
    keys: readonly string[],
    deadline: number,
  ): Promise<Map<string, CoordinatorAnswer | Error>> {
    const attempt: Attempt = { deadline, signal: undefined };
    const connection = await this.#pool.any(attempt);
    const version = chooseVersion(connection, FindCoordinatorApi, undefined, 'FindCoordinator');
    const answers = new Map<string, CoordinatorAnswer | Error>();
    const read = (response: FindCoordinatorResponse, key: string) => {
      try {
        answers.set(key, readFindCoordinatorResponse(response, key, version));
      } catch (error) {
        answers.set(key, error instanceof Error ? error : new Error(String(error)));
      }
    };
    if (version >= 4) {
      const { response } = await this.#sendVia(
        connection,
        FindCoordinatorApi,
        buildFindCoordinatorBatchRequest(kind, keys, version),
        attempt,
        version,
      );
      for (const key of keys) read(response, key);
    } else {
      await Promise.all(
        keys.map(async (key) => {
          const { response } = await this.#sendVia(
            connection,
            FindCoordinatorApi,
            buildFindCoordinatorRequest(kind, key, version),
            attempt,
            version,
          );
          read(response, key);
        }),
      );
    }
    return answers;
  }
}

/** Throws the response's top-level error code, when it has one and it is not NONE. */
/** A response's top-level `errorCode`, 0 when it has none. */
function topLevelCode(response: unknown): number {
  const code = (response as { errorCode?: unknown } | null)?.errorCode;
  return typeof code === 'number' ? code : 0;
}

/** The `ProtocolError` of a response whose top-level `errorCode` is not 0. */
function topLevelError(response: unknown, context: string): ProtocolError {
  const message = (response as { errorMessage?: unknown }).errorMessage;
  return ProtocolError.fromCode(
    topLevelCode(response),
    `${context}${typeof message === 'string' ? ` (${message})` : ''}`,
  );
}

/**
 * A connection from a read-only cluster's `openConnection`: every request passes the gate
 * before it reaches the socket; everything else is the connection's own.
 */
class ReadOnlyConnection implements MetaConnection {
  readonly #inner: MetaConnection;
  readonly #gate: (api: ApiDescriptor<unknown, unknown>, request: unknown, version: number) => void;

  constructor(
    inner: MetaConnection,
    gate: (api: ApiDescriptor<unknown, unknown>, request: unknown, version: number) => void,
  ) {
    this.#inner = inner;
    this.#gate = gate;
  }

  send<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: ConnectionSendOptions,
  ): Promise<Res> {
    try {
      this.#gate(api as ApiDescriptor<unknown, unknown>, request, options.version);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inner.send(api, request, options);
  }

  negotiatedVersion(apiKey: number): number | undefined {
    return this.#inner.negotiatedVersion(apiKey);
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  get pending(): number {
    return this.#inner.pending;
  }

  get inFlight(): number {
    return this.#inner.inFlight ?? this.#inner.pending;
  }

  get queued(): number {
    return this.#inner.queued ?? 0;
  }

  get lastActivityMs(): number {
    return this.#inner.lastActivityMs;
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.#inner.onClose(listener);
  }

  close(options?: CloseOptions): Promise<void> {
    return this.#inner.close(options);
  }
}
