import {
  ErrorCode,
  FindCoordinatorApi,
  KafkaError,
  MetadataApi,
  ProtocolError,
} from '@kafkats/codec';
import type {
  ApiLike,
  ConnectionFactory,
  MetaConnection,
  RequestOf,
  ResponseOf,
  SendOptions,
} from './api.js';
import { buildFindCoordinatorRequest, readFindCoordinatorResponse } from './find-coordinator.js';
import { buildMetadataRequest, snapshotFromMetadata } from './metadata-request.js';
import { BrokerPool, type BrokerPoolOptions } from './pool.js';
import { responseErrors } from './response-errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs, sleep } from './retry.js';
import { type CoordinatorKind, routing } from './routing.js';
import { keepNewerLeaderEpochs, MetadataSnapshot } from './snapshot.js';
import { type WireConnectionOptions, wireConnectionFactory } from './wire-factory.js';

/** How to build a {@link Cluster}. Every field has a default. */
export interface ClusterConfig {
  /**
   * Opens broker connections. Default: {@link wireConnectionFactory} with `connection`
   * (a wire `BrokerConnection` per broker); tests inject fakes.
   */
  readonly connectionFactory?: ConnectionFactory;
  /** Options for every wire connection (TLS, SASL, timeouts) when no factory is given. */
  readonly connection?: WireConnectionOptions;
  /**
   * Background full refresh period, ms. Default 30000: fresher than Java's 5 minutes because a
   * UI shows it, with invalidation on errors doing the real work. 0 turns it off.
   */
  readonly refreshIntervalMs?: number;
  /** `refreshIfStale()` refreshes when the snapshot is older than this, ms. Default 300000. */
  readonly maxStalenessMs?: number;
  /** Retry behaviour (merged over {@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: Partial<RetryPolicy>;
  /** Reconnect backoff for the pool. */
  readonly pool?: BrokerPoolOptions;
  /** Injectable randomness for jitter (tests). */
  readonly random?: () => number;
}

/** Per-operation options for the send methods. */
export interface ClusterSendOptions extends SendOptions {
  /**
   * When true (the default), a non-zero top-level `errorCode` in the response is thrown as a
   * `ProtocolError`, so the retry rules apply to it. Pass false for APIs whose error response
   * carries data the caller needs (JoinGroup's MEMBER_ID_REQUIRED with the member id).
   * Errors below the top level are not thrown unless `retryInnerMetadataErrors`; see
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

type Target =
  | { readonly kind: 'any' }
  | { readonly kind: 'controller' }
  | { readonly kind: 'node'; readonly nodeId: number }
  | { readonly kind: 'coordinator'; readonly coordinator: CoordinatorKind; readonly key: string }
  | { readonly kind: 'leader'; readonly topic: string; readonly partition: number };

function describe(target: Target): string {
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

const isRetriable = (error: Error): boolean => error instanceof KafkaError && error.retriable;
const isConnectionError = (error: Error): boolean =>
  error instanceof KafkaError && error.code.startsWith('ERR_KAFKA_CONNECTION_');

/**
 * A connected Kafka cluster: the metadata snapshot, routing, connections and retries.
 * Everything above this layer sends through it.
 *
 * `snapshot()` never waits: it returns the current immutable snapshot, and a refresh swaps the
 * reference in one assignment, so a reader sees the old view or the new one, never a mix.
 */
export class Cluster {
  readonly #pool: BrokerPool;
  readonly #policy: RetryPolicy;
  readonly #maxStalenessMs: number;
  readonly #random: () => number;
  readonly #coordinators = new Map<string, number>();
  #snapshot: MetadataSnapshot = MetadataSnapshot.empty();
  #refreshing: Promise<MetadataSnapshot> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /** The last background refresh failure, for diagnostics; cleared by a success. */
  lastRefreshError: Error | undefined;

  private constructor(bootstrap: readonly string[], config: ClusterConfig) {
    this.#pool = new BrokerPool(
      bootstrap,
      config.connectionFactory ?? wireConnectionFactory(config.connection),
      config.pool,
    );
    this.#policy = Object.freeze({ ...DEFAULT_RETRY_POLICY, ...config.retry });
    this.#maxStalenessMs = config.maxStalenessMs ?? 300_000;
    this.#random = config.random ?? Math.random;
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
      await cluster.#withRetries({ kind: 'any' }, 'Metadata', (deadline) =>
        cluster.#refreshOnce(deadline),
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

  /** The retry policy in force. */
  get retryPolicy(): RetryPolicy {
    return this.#policy;
  }

  /**
   * Fetches metadata for every topic and installs it. Concurrent calls share one request.
   * One attempt; callers that want retries go through a send.
   */
  refresh(): Promise<MetadataSnapshot> {
    return this.#refreshOnce(Date.now() + this.#policy.operationTimeoutMs);
  }

  /**
   * Fetches metadata for `names` only and merges it into the snapshot: orders of magnitude
   * cheaper than a full refresh on a large cluster, and all that one moved leader needs.
   * A name that does not exist comes back with UNKNOWN_TOPIC_OR_PARTITION as its `errorCode`
   * (and is never created: see `buildMetadataRequest`).
   */
  refreshTopics(names: readonly string[]): Promise<MetadataSnapshot> {
    return this.#refreshTopicsOnce(names, Date.now() + this.#policy.operationTimeoutMs);
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
    return this.#leaderOnce(topic, partition, Date.now() + this.#policy.operationTimeoutMs);
  }

  /**
   * The controller id from metadata (in KRaft: a broker that forwards to the active controller,
   * kafka-facts C.13), refreshing once if unknown.
   *
   * @throws ProtocolError NOT_CONTROLLER when no controller is known after a refresh
   */
  controller(): Promise<number> {
    return this.#controllerOnce(Date.now() + this.#policy.operationTimeoutMs);
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
      (deadline) => this.#coordinatorOnce(kind, key, deadline),
    );
  }

  /** Forgets the cached coordinator for a key. */
  invalidateCoordinator(kind: CoordinatorKind, key: string): void {
    this.#coordinators.delete(`${kind} ${key}`);
  }

  /** The version a connection to some broker negotiated for an API key, or undefined if unsupported. */
  async negotiatedFor(apiKey: number): Promise<number | undefined> {
    return (await this.#pool.any()).negotiatedVersion(apiKey);
  }

  /** Sends to any live broker. */
  sendAny<A extends ApiLike>(
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
    return this.#dispatch({ kind: 'any' }, api, request, options);
  }

  /** Sends to the controller; on NOT_CONTROLLER the cached controller is cleared and metadata refreshed. */
  sendToController<A extends ApiLike>(
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
    return this.#dispatch({ kind: 'controller' }, api, request, options);
  }

  /** Sends to one named broker. */
  sendToNode<A extends ApiLike>(
    nodeId: number,
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
    return this.#dispatch({ kind: 'node', nodeId }, api, request, options);
  }

  /** Sends to the group or transaction coordinator for `key`. */
  sendToCoordinator<A extends ApiLike>(
    kind: CoordinatorKind,
    key: string,
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
    return this.#dispatch({ kind: 'coordinator', coordinator: kind, key }, api, request, options);
  }

  /** Sends to a partition's leader; a stale-leader error refreshes that topic only. */
  sendToLeader<A extends ApiLike>(
    topic: string,
    partition: number,
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
    return this.#dispatch({ kind: 'leader', topic, partition }, api, request, options);
  }

  /**
   * Sends wherever the routing table puts the API. Only `Any` and `Controller` APIs: the others
   * need a key the API alone does not carry.
   *
   * @throws KafkaError `ERR_KAFKA_ROUTING_NEEDS_TARGET` for coordinator, caller and leader APIs
   */
  sendRouted<A extends ApiLike>(
    api: A,
    request: RequestOf<A>,
    options?: ClusterSendOptions,
  ): Promise<ResponseOf<A>> {
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

  /** Stops the background refresh and closes every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pool.close();
  }

  // -- the dispatcher ---------------------------------------------------------------------

  #dispatch<A extends ApiLike>(
    target: Target,
    api: A,
    request: RequestOf<A>,
    options: ClusterSendOptions = {},
  ): Promise<ResponseOf<A>> {
    return this.#withRetries(target, api.name, async (deadline) => {
      const connection = await this.#resolve(target, deadline);
      const remaining = Math.max(1, deadline - Date.now());
      const response = await connection.send(api, request, {
        timeoutMs: Math.min(remaining, options.timeoutMs ?? remaining),
      });
      if (options.checkTopLevelError !== false) {
        const code = (response as { errorCode?: unknown } | null)?.errorCode;
        if (typeof code === 'number' && code !== 0) {
          const message = (response as { errorMessage?: unknown }).errorMessage;
          throw KafkaError.fromCode(
            code,
            `${api.name} to ${describe(target)}${typeof message === 'string' ? ` (${message})` : ''}`,
          );
        }
      }
      if (options.retryInnerMetadataErrors === true) {
        const stale = responseErrors(response, `${api.name} to ${describe(target)}`).find(
          (e) => e.error.needsMetadataRefresh,
        );
        if (stale !== undefined) throw stale.error;
      }
      return response;
    });
  }

  /**
   * The one retry loop. `once` makes a single attempt; nothing it calls retries on its own
   * (refreshes and coordinator lookups inside are single attempts bounded by the same
   * deadline), so retries never nest and no inner step extends the operation's deadline.
   */
  async #withRetries<T>(
    target: Target,
    what: string,
    once: (deadline: number) => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    const deadline = started + this.#policy.operationTimeoutMs;
    let attempt = 1;
    for (;;) {
      const delay = retryDelayMs(this.#policy, attempt, this.#random);
      if (delay > 0) await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      let error: Error;
      try {
        return await byDeadline(
          once(deadline),
          deadline,
          () =>
            `${what} to ${describe(target)}: no success within ${this.#policy.operationTimeoutMs} ms (attempt ${attempt} still in flight)`,
        );
      } catch (thrown) {
        error = asError(thrown);
      }
      if (this.#closed) throw error;
      const protocol = error instanceof ProtocolError ? error : undefined;

      // Two independent axes, both acted on: a stale leader and a moved coordinator live in
      // different caches, and refreshing the wrong one retries the same wrong broker.
      // A broker we cannot reach may no longer lead or control anything: ask again (Java's
      // NetworkClient requests a metadata update on every disconnect too).
      const unreachable =
        isConnectionError(error) && (target.kind === 'leader' || target.kind === 'controller');
      if (target.kind === 'controller' && unreachable)
        this.#snapshot = this.#snapshot.withoutController();
      if (protocol?.needsMetadataRefresh || unreachable)
        await this.#onStaleMetadata(target, deadline);
      if (protocol?.errorCode === ErrorCode.NOT_CONTROLLER) {
        // KRaft: the "controller" is any broker, re-picked by a full refresh (kafka-facts B.1).
        this.#snapshot = this.#snapshot.withoutController();
        await this.#onStaleMetadata({ kind: 'controller' }, deadline);
      }
      const coordinatorGone =
        target.kind === 'coordinator' &&
        (protocol?.needsCoordinatorRefresh === true || isConnectionError(error));
      if (target.kind === 'coordinator' && coordinatorGone)
        this.invalidateCoordinator(target.coordinator, target.key);
      // LOAD_IN_PROGRESS: right coordinator, still loading; same node again, but the wait is
      // as long as a move's, not an attempt count's.
      const coordinatorWait =
        target.kind === 'coordinator' &&
        (protocol?.needsCoordinatorRefresh === true ||
          protocol?.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);

      const now = Date.now();
      const budgetLeft = coordinatorWait
        ? now - started < this.#policy.coordinatorTimeoutMs
        : attempt < this.#policy.maxAttempts;
      if (!isRetriable(error) || !budgetLeft || now >= deadline) {
        if (now >= deadline && isRetriable(error) && budgetLeft) {
          throw new KafkaError(
            'ERR_KAFKA_OPERATION_TIMEOUT',
            `${what} to ${describe(target)}: no success within ${this.#policy.operationTimeoutMs} ms (${attempt} attempts); last error: ${error.message}`,
            { cause: error },
          );
        }
        throw error;
      }
      attempt++;
    }
  }

  async #resolve(target: Target, deadline: number): Promise<MetaConnection> {
    switch (target.kind) {
      case 'any':
        return this.#pool.any();
      case 'node':
        return this.#nodeConnection(target.nodeId, deadline);
      case 'controller':
        return this.#nodeConnection(await this.#controllerOnce(deadline), deadline);
      case 'coordinator':
        return this.#nodeConnection(
          await this.#coordinatorOnce(target.coordinator, target.key, deadline),
          deadline,
        );
      case 'leader':
        return this.#nodeConnection(
          await this.#leaderOnce(target.topic, target.partition, deadline),
          deadline,
        );
    }
  }

  /** A node's connection; a node the snapshot has never named triggers one full refresh. */
  async #nodeConnection(nodeId: number, deadline: number): Promise<MetaConnection> {
    if (!this.#pool.knownNodes().includes(nodeId))
      await this.#refreshOnce(deadline).catch(() => {});
    return this.#pool.get({ nodeId });
  }

  async #onStaleMetadata(target: Target, deadline: number): Promise<void> {
    try {
      if (target.kind === 'leader') await this.#refreshTopicsOnce([target.topic], deadline);
      else await this.#refreshOnce(deadline);
    } catch {
      // The retry that follows reports what is still wrong; a failed refresh is not the story.
    }
  }

  #refreshOnce(deadline: number): Promise<MetadataSnapshot> {
    this.#refreshing ??= (async () => {
      try {
        const connection = await this.#pool.any();
        const version = connection.negotiatedVersion(MetadataApi.apiKey) ?? 0;
        const response = await connection.send(MetadataApi, buildMetadataRequest(null, version), {
          timeoutMs: Math.max(1, deadline - Date.now()),
        });
        throwTopLevel(response.errorCode, `Metadata v${version}`);
        return this.#install(snapshotFromMetadata(response, Date.now()), 'full');
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  async #refreshTopicsOnce(names: readonly string[], deadline: number): Promise<MetadataSnapshot> {
    if (names.length === 0) return this.#snapshot;
    const connection = await this.#pool.any();
    const version = connection.negotiatedVersion(MetadataApi.apiKey) ?? 0;
    const response = await connection.send(MetadataApi, buildMetadataRequest(names, version), {
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    throwTopLevel(response.errorCode, `Metadata v${version}`);
    return this.#install(snapshotFromMetadata(response, Date.now()), 'merge');
  }

  /** The single place a snapshot becomes current: one reference assignment. */
  #install(fresh: MetadataSnapshot, mode: 'full' | 'merge'): MetadataSnapshot {
    const current = this.#snapshot;
    const next =
      mode === 'merge' ? current.withTopicsMerged(fresh) : keepNewerLeaderEpochs(fresh, current);
    this.#pool.learnAddresses(next.brokers);
    this.#snapshot = next;
    return next;
  }

  async #leaderOnce(topic: string, partition: number, deadline: number): Promise<number> {
    const known = this.#snapshot.leaderFor(topic, partition);
    if (known !== undefined) return known;
    const snapshot = await this.#refreshTopicsOnce([topic], deadline);
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
    throw KafkaError.fromCode(code, `leader of ${topic}-${partition}`);
  }

  async #controllerOnce(deadline: number): Promise<number> {
    const known = this.#snapshot.controllerId;
    if (known !== undefined) return known;
    const id = (await this.#refreshOnce(deadline)).controllerId;
    if (id === undefined)
      throw KafkaError.fromCode(ErrorCode.NOT_CONTROLLER, 'Metadata names no controller');
    return id;
  }

  async #coordinatorOnce(kind: CoordinatorKind, key: string, deadline: number): Promise<number> {
    const cacheKey = `${kind} ${key}`;
    const cached = this.#coordinators.get(cacheKey);
    if (cached !== undefined) return cached;
    const connection = await this.#pool.any();
    const version = connection.negotiatedVersion(FindCoordinatorApi.apiKey) ?? 0;
    const response = await connection.send(
      FindCoordinatorApi,
      buildFindCoordinatorRequest(kind, key, version),
      {
        timeoutMs: Math.max(1, deadline - Date.now()),
      },
    );
    const answer = readFindCoordinatorResponse(response, key, version);
    if (!answer.ok) throw answer.error;
    // The coordinator may be a broker this snapshot has not seen yet; its address is in the answer.
    if (!this.#pool.knownNodes().includes(answer.nodeId)) {
      this.#pool.learnAddresses([
        { nodeId: answer.nodeId, host: answer.host, port: answer.port, rack: null },
      ]);
    }
    this.#coordinators.set(cacheKey, answer.nodeId);
    return answer.nodeId;
  }
}

/**
 * `work`, or a rejection with `ERR_KAFKA_OPERATION_TIMEOUT` at `deadline` if it is still
 * pending then. A connect to a broker that does not answer is bounded only by the connection's
 * own timeout (and the pool shares it with later callers, so it is left running); without this
 * it could hold the operation past the deadline the caller was promised.
 */
function byDeadline<T>(work: Promise<T>, deadline: number, message: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new KafkaError('ERR_KAFKA_OPERATION_TIMEOUT', message())),
      Math.max(0, deadline - Date.now()),
    );
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function throwTopLevel(code: number | undefined, context: string): void {
  if (code !== undefined && code !== 0) throw KafkaError.fromCode(code, context);
}
