import { KafkaError } from '@kafkats/codec';
import {
  AbortedError,
  ConnectionError,
  ConnectionMetrics,
  type ConnectionMetricsSnapshot,
  errorFields,
  type Logger,
  silentLogger,
} from '@kafkats/wire';
import type { ConnectionFactory, ConnectTarget, MetaConnection } from './api.js';
import { ClusterClosedError, UnknownNodeError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';
import type { BrokerInfo } from './snapshot.js';

/** A broker known by id (address from metadata), or one of the bootstrap addresses. */
export type Endpoint = { readonly nodeId: number } | { readonly bootstrap: string };

/** Pool options; every field has a default. */
export interface BrokerPoolOptions {
  /** First reconnect delay after a failed connect, ms. Default 50 (Kafka's reconnect.backoff.ms). */
  readonly reconnectBackoffMs?: number;
  /** Cap on the reconnect delay, ms. Default 1000 (reconnect.backoff.max.ms). */
  readonly reconnectBackoffMaxMs?: number;
  /**
   * How long {@link BrokerPool.any} waits on one broker's connect before it also tries the next
   * one, ms. Default 250: a broker that hangs costs the caller this much, not a whole connect
   * timeout.
   */
  readonly anyStaggerMs?: number;
  /**
   * A pooled connection with nothing in flight for this long is closed, ms, and reopened on
   * demand (Kafka's `connections.max.idle.ms`, default 540000 = 9 minutes). 0 never closes.
   */
  readonly connectionsMaxIdleMs?: number;
  /** Random source in [0, 1) for the reconnect jitter; default Math.random. */
  readonly random?: () => number;
  /** Where failed connects and their backoff are logged (debug); default silent. */
  readonly logger?: Logger;
  /**
   * When every known broker is unreachable, dial the bootstrap addresses again (re-resolved)
   * instead of only the brokers the last metadata named: Kafka's
   * `metadata.recovery.strategy=rebootstrap` (KIP-899; the default since Kafka 4.0, KIP-1102).
   * False is `none`: after the first metadata, only known brokers are dialled. Default true.
   */
  readonly rebootstrap?: boolean;
}

/** One broker's connection figures, as {@link BrokerPool.metrics} reports them. */
export interface BrokerMetricsSnapshot extends ConnectionMetricsSnapshot {
  /** The broker's node id; -1 for a bootstrap address. */
  readonly nodeId: number;
  /** `broker 1 (host:port)` or `bootstrap host:port`. */
  readonly endpoint: string;
  /** True while a pooled connection to it is open. */
  readonly connected: boolean;
  /** Requests on the wire and waiting, over the pooled and dedicated connections to it. */
  readonly inFlight: number;
  readonly queued: number;
}

/** One broker's metrics recorder, and how many pooled connections it has had. */
interface Recorder {
  readonly label: string;
  readonly nodeId: number;
  readonly metrics: ConnectionMetrics;
  pooled: number;
}

/** How long a caller may wait for a connection, and its cancellation. */
export interface PoolWait {
  /** Epoch ms after which the wait fails. */
  readonly deadline?: number;
  readonly signal?: AbortSignal | undefined;
}

interface Slot {
  readonly key: string;
  readonly target: ConnectTarget;
  connection: MetaConnection | undefined;
  connecting: Promise<MetaConnection> | undefined;
  failures: number;
  /** No new attempt before this time (epoch ms) after a failure. */
  retryAtMs: number;
}

/**
 * Parses `host:port` (`[v6]:port` for IPv6).
 *
 * @throws KafkaError `ERR_KAFKA_BOOTSTRAP_INVALID` when it is not one
 */
export function parseHostPort(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || !(port > 0 && port < 65536)) {
    throw new KafkaError(
      'ERR_KAFKA_BOOTSTRAP_INVALID',
      `bootstrap address ${JSON.stringify(address)} is not host:port`,
    );
  }
  return { host, port };
}

/**
 * One connection per broker, opened lazily; the one owner of reconnects.
 *
 * A connection lives exactly as long as its socket; when it drops, the pool forgets it and the
 * next `get` dials again, no sooner than the endpoint's jittered exponential backoff allows
 * (`reconnectBackoffMs` doubling to `reconnectBackoffMaxMs`, reset by a success).
 * Connecting is guarded per endpoint, never globally: concurrent callers for one broker share
 * one connect (twenty callers, one socket), and a slow connect to a dead broker does not hold
 * up connects to healthy ones. Connections are keyed by node id *and* address, so a node that
 * comes back on a new host or port gets a new connection and the old one is closed. When no
 * known broker can be reached, {@link BrokerPool.any} goes back to the bootstrap addresses: a
 * cluster rolled onto new addresses is a normal event, and a pool that only knows the last
 * metadata's addresses would retry dead endpoints forever.
 *
 * A bootstrap connection whose address turns out to be a known node's becomes that node's
 * connection; the other bootstrap connections close once idle, so no broker is held twice.
 * Connections idle for `connectionsMaxIdleMs` are closed.
 */
export class BrokerPool {
  readonly #bootstrap: readonly string[];
  readonly #factory: ConnectionFactory;
  readonly #backoffMs: number;
  readonly #backoffMaxMs: number;
  readonly #anyStaggerMs: number;
  readonly #maxIdleMs: number;
  readonly #random: () => number;
  readonly #rebootstrap: boolean;
  /** node id -> its current address (from the latest installed snapshot). */
  readonly #addresses = new Map<number, { host: string; port: number }>();
  readonly #slots = new Map<string, Slot>();
  /** Each known address's slot key, made once per address object. */
  readonly #nodeKeys = new WeakMap<{ host: string; port: number }, string>();
  /** Dedicated connections and the node each goes to. */
  readonly #dedicated = new Map<MetaConnection, number>();
  /** One recorder per broker (`node <id>`) or bootstrap address, outliving its connections. */
  readonly #recorders = new Map<string, Recorder>();
  readonly #log: Logger;
  readonly #downListeners = new Set<(nodeId: number, error: Error | undefined) => void>();
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #rotation = 0;

  /**
   * @param bootstrap `host:port` addresses
   * @throws KafkaError `ERR_KAFKA_BOOTSTRAP_INVALID` for an empty list or a malformed address
   */
  constructor(
    bootstrap: readonly string[],
    factory: ConnectionFactory,
    options: BrokerPoolOptions = {},
  ) {
    if (bootstrap.length === 0)
      throw new KafkaError('ERR_KAFKA_BOOTSTRAP_INVALID', 'no bootstrap addresses given');
    for (const address of bootstrap) parseHostPort(address);
    this.#bootstrap = Object.freeze([...bootstrap]);
    this.#factory = factory;
    this.#backoffMs = options.reconnectBackoffMs ?? 50;
    this.#backoffMaxMs = options.reconnectBackoffMaxMs ?? 1000;
    this.#anyStaggerMs = options.anyStaggerMs ?? 250;
    this.#maxIdleMs = options.connectionsMaxIdleMs ?? 540_000;
    this.#random = options.random ?? Math.random;
    this.#rebootstrap = options.rebootstrap ?? true;
    this.#log = options.logger ?? silentLogger;
    if (this.#maxIdleMs > 0) {
      // Checked at half the idle limit (at most every 30 s), so a connection closes between
      // one and one and a half limits after its last use.
      this.#idleTimer = setInterval(
        () => this.closeIdle(),
        Math.max(10, Math.min(this.#maxIdleMs / 2, 30_000)),
      );
      this.#idleTimer.unref();
    }
  }

  /** The bootstrap addresses as given. */
  get bootstrap(): readonly string[] {
    return this.#bootstrap;
  }

  /**
   * Learns broker addresses from an installed snapshot. A node whose address changed has its
   * old connection closed; the next `get` opens one to the new address. An open bootstrap
   * connection to a node's address becomes that node's connection; other bootstrap
   * connections are closed once nothing is in flight on them. With `complete` (a full
   * Metadata answer), brokers it does not name are forgotten and their connections closed.
   * Requests in flight on a connection closed here fail with a retriable error, to be sent again.
   */
  learnAddresses(brokers: readonly BrokerInfo[], options: { complete?: boolean } = {}): void {
    if (options.complete === true) {
      // A full Metadata answer lists every live broker: one it no longer names has left the
      // cluster (scaled in, replaced); keeping its address would keep dialling a dead endpoint.
      const present = new Set(brokers.map((b) => b.nodeId));
      for (const [nodeId, address] of [...this.#addresses]) {
        if (present.has(nodeId)) continue;
        this.#addresses.delete(nodeId);
        this.#recorders.delete(`node ${nodeId}`);
        this.#drop(
          nodeKey(nodeId, address.host, address.port),
          `broker ${nodeId} is no longer in the metadata`,
        );
      }
    }
    for (const b of brokers) {
      const known = this.#addresses.get(b.nodeId);
      if (known !== undefined && known.host === b.host && known.port === b.port) continue;
      this.#addresses.set(b.nodeId, { host: b.host, port: b.port });
      if (known !== undefined)
        this.#drop(
          nodeKey(b.nodeId, known.host, known.port),
          `broker ${b.nodeId} moved to ${b.host}:${b.port}`,
        );
      this.#adoptBootstrap(b);
    }
    if (this.#addresses.size > 0) this.#closeBootstrapIfIdle();
  }

  /**
   * Forgets every broker the metadata named and closes their connections: the next `any()`
   * dials the bootstrap addresses, resolved afresh (KIP-899 rebootstrap, also what a
   * REBOOTSTRAP_REQUIRED answer asks for, KIP-1102). Dedicated connections are the caller's.
   * Requests in flight on the closed connections fail with a retriable error.
   */
  rebootstrap(): void {
    for (const [nodeId, address] of [...this.#addresses])
      this.#drop(nodeKey(nodeId, address.host, address.port), 'rebootstrap');
    this.#addresses.clear();
  }

  /** Node ids whose addresses the pool knows. */
  knownNodes(): number[] {
    return [...this.#addresses.keys()];
  }

  /** Whether the pool knows `nodeId`'s address (without making the list `knownNodes` makes). */
  knowsNode(nodeId: number): boolean {
    return this.#addresses.has(nodeId);
  }

  /** Calls `listener(nodeId, error)` when a connection to a known broker drops. Returns an unsubscribe. */
  onBrokerDown(listener: (nodeId: number, error: Error | undefined) => void): () => void {
    this.#downListeners.add(listener);
    return () => this.#downListeners.delete(listener);
  }

  /**
   * The connection to an endpoint, opened if needed. An open connection comes back at once
   * (no timer); a caller that has to wait for a connect waits until `wait.deadline` at most.
   *
   * @throws UnknownNodeError (retriable: metadata may learn it) for a node id without a known
   *   address; the factory's error (a retriable connection error) when the connect fails; a
   *   retriable `ConnectionError` when the connect outlasts `wait.deadline`; `AbortedError`;
   *   `ClusterClosedError` after close()
   */
  get(endpoint: Endpoint, wait?: PoolWait): Promise<MetaConnection> {
    if (this.#closed) return Promise.reject(new ClusterClosedError());
    let key: string;
    let address: { host: string; port: number } | undefined;
    if ('nodeId' in endpoint) {
      address = this.#addresses.get(endpoint.nodeId);
      if (address === undefined) return Promise.reject(new UnknownNodeError(endpoint.nodeId));
      key = this.#nodeKey(endpoint.nodeId, address);
    } else {
      key = bootstrapKey(endpoint.bootstrap);
    }
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = {
        key,
        target: this.#withMetrics(
          'nodeId' in endpoint
            ? nodeTarget(endpoint.nodeId, address as { host: string; port: number })
            : { ...parseHostPort(endpoint.bootstrap), label: `bootstrap ${endpoint.bootstrap}` },
        ),
        connection: undefined,
        connecting: undefined,
        failures: 0,
        retryAtMs: 0,
      };
      this.#slots.set(key, slot);
    }
    if (slot.connection !== undefined && !slot.connection.closed)
      return Promise.resolve(slot.connection);
    // Every caller arriving while a connect is in flight gets that same promise.
    slot.connecting ??= this.#connect(slot);
    return bounded(slot.connecting, wait, slot.target.label);
  }

  /**
   * The open connection to a broker the pool knows, or undefined (none open, or the node
   * unknown): no connect, no promise. `get` is the way to a connection; this is the send
   * path's shortcut for the common case.
   */
  openConnection(nodeId: number): MetaConnection | undefined {
    if (this.#closed) return undefined;
    const address = this.#addresses.get(nodeId);
    if (address === undefined) return undefined;
    const connection = this.#slots.get(this.#nodeKey(nodeId, address))?.connection;
    return connection !== undefined && !connection.closed ? connection : undefined;
  }

  /**
   * A node's slot key, made once per address (a producer asks for its leaders' connections
   * per request); an address that changes is a new object, so a new key and slot.
   */
  #nodeKey(nodeId: number, address: { host: string; port: number }): string {
    let key = this.#nodeKeys.get(address);
    if (key === undefined) {
      key = nodeKey(nodeId, address.host, address.port);
      this.#nodeKeys.set(address, key);
    }
    return key;
  }

  /**
   * A connection to any broker: an open one if there is one, else the known brokers in turn,
   * else (unless `rebootstrap` is off) the bootstrap addresses, re-resolved by the connection on
   * every attempt.
   *
   * @throws the last connect error when nothing can be reached
   */
  async any(wait?: PoolWait): Promise<MetaConnection> {
    const open: MetaConnection[] = [];
    for (const [nodeId, address] of this.#addresses) {
      const c = this.#slots.get(nodeKey(nodeId, address.host, address.port))?.connection;
      if (c !== undefined && !c.closed) open.push(c);
    }
    if (open.length > 0) return open[this.#rotation++ % open.length] as MetaConnection;
    // Before metadata names any broker (or after every node connection dropped), an open
    // bootstrap connection is as good as any: no need for a second socket to the same broker.
    for (const address of this.#bootstrap) {
      const c = this.#slots.get(bootstrapKey(address))?.connection;
      if (c !== undefined && !c.closed) return c;
    }
    const nodes = this.knownNodes();
    const start = nodes.length === 0 ? 0 : this.#rotation++ % nodes.length;
    const endpoints: Endpoint[] = [];
    for (let i = 0; i < nodes.length; i++) {
      endpoints.push({ nodeId: nodes[(start + i) % nodes.length] as number });
    }
    if (this.#rebootstrap || nodes.length === 0)
      for (const address of this.#bootstrap) endpoints.push({ bootstrap: address });
    return bounded(this.#firstReachable(endpoints), wait, 'any broker');
  }

  /**
   * A connection to `nodeId` that the pool does not share: the caller owns it and closes it
   * (the pool closes it too, on close()). For long polls that must not hold up other requests.
   *
   * @throws UnknownNodeError; the factory's connect error
   */
  async openDedicated(nodeId: number): Promise<MetaConnection> {
    if (this.#closed) throw new ClusterClosedError();
    const address = this.#addresses.get(nodeId);
    if (address === undefined) throw new UnknownNodeError(nodeId);
    const connection = await this.#factory({
      ...this.#withMetrics(nodeTarget(nodeId, address)),
      label: `broker ${nodeId} (${address.host}:${address.port}, dedicated)`,
    });
    if (this.#closed) {
      await connection.close().catch(() => {});
      throw new ClusterClosedError();
    }
    this.#dedicated.set(connection, nodeId);
    connection.onClose(() => this.#dedicated.delete(connection));
    return connection;
  }

  /**
   * Staggered parallel connects: the first endpoint is tried at once, and each further one when
   * the previous has failed or has not answered within `anyStaggerMs`. The first connection
   * wins; the others finish in the background and stay in the pool (they are per-endpoint
   * connections like any other). Rejects with the last error when every endpoint failed.
   */
  #firstReachable(endpoints: readonly Endpoint[]): Promise<MetaConnection> {
    // Never empty: the known brokers, or the bootstrap list (the constructor refuses an empty one).
    return new Promise((resolve, reject) => {
      let next = 0;
      let pending = 0;
      let settled = false;
      let last: unknown;
      let timer: NodeJS.Timeout | undefined;
      const launch = (): void => {
        if (settled || next >= endpoints.length) return;
        const endpoint = endpoints[next++] as Endpoint;
        pending++;
        clearTimeout(timer);
        if (next < endpoints.length) {
          timer = setTimeout(launch, this.#anyStaggerMs);
          timer.unref();
        }
        this.get(endpoint).then(
          (connection) => {
            pending--;
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(connection);
          },
          (error: unknown) => {
            pending--;
            last = error;
            if (settled) return;
            if (next < endpoints.length) launch();
            else if (pending === 0) {
              settled = true;
              reject(last);
            }
          },
        );
      };
      launch();
    });
  }

  /** How many pooled connections are open or opening (for tests and diagnostics). */
  connectionCount(): number {
    let n = 0;
    for (const slot of this.#slots.values()) {
      if (
        (slot.connection !== undefined && !slot.connection.closed) ||
        slot.connecting !== undefined
      )
        n++;
    }
    return n;
  }

  /**
   * Closes pooled connections with nothing pending whose last activity is older than
   * `connectionsMaxIdleMs`; runs on a timer, callable for tests. Returns how many it closed.
   */
  closeIdle(nowMs: number = Date.now()): number {
    if (this.#maxIdleMs <= 0) return 0;
    let closed = 0;
    for (const slot of [...this.#slots.values()]) {
      const c = slot.connection;
      if (c === undefined || c.closed || c.pending > 0) continue;
      if (nowMs - c.lastActivityMs < this.#maxIdleMs) continue;
      this.#release(slot, `idle for ${this.#maxIdleMs} ms`);
      closed++;
    }
    return closed;
  }

  /**
   * Per broker (and per bootstrap address dialled): the recorder's counters and latencies,
   * which outlive reconnects, with the live in-flight and queued counts of its connections.
   */
  metrics(): BrokerMetricsSnapshot[] {
    const gauges = new Map<string, { inFlight: number; queued: number; connected: boolean }>();
    const count = (key: string, c: MetaConnection, pooled: boolean) => {
      if (c.closed) return;
      const g = gauges.get(key) ?? { inFlight: 0, queued: 0, connected: false };
      g.inFlight += c.inFlight ?? c.pending;
      g.queued += c.queued ?? 0;
      if (pooled) g.connected = true;
      gauges.set(key, g);
    };
    for (const slot of this.#slots.values()) {
      if (slot.connection !== undefined) count(recorderKey(slot.target), slot.connection, true);
    }
    for (const [c, nodeId] of this.#dedicated) count(`node ${nodeId}`, c, false);
    const out: BrokerMetricsSnapshot[] = [];
    for (const [key, r] of this.#recorders) {
      const g = gauges.get(key);
      out.push({
        nodeId: r.nodeId,
        endpoint: r.label,
        connected: g?.connected ?? false,
        inFlight: g?.inFlight ?? 0,
        queued: g?.queued ?? 0,
        ...r.metrics.snapshot(),
      });
    }
    return out.sort((a, b) => a.nodeId - b.nodeId || a.endpoint.localeCompare(b.endpoint));
  }

  /** Every broker's recorder (for totals). */
  recorders(): ConnectionMetrics[] {
    return [...this.#recorders.values()].map((r) => r.metrics);
  }

  /** A pooled connection to `target` opened (or adopted): after the first, a reconnect. */
  #countPooled(target: ConnectTarget): void {
    const r = this.#recorders.get(recorderKey(target));
    if (r === undefined) return;
    if (r.pooled > 0) r.metrics.reconnects++;
    r.pooled++;
  }

  /** The target with its broker's recorder, made on first use. */
  #withMetrics(target: ConnectTarget): ConnectTarget {
    const key = recorderKey(target);
    let r = this.#recorders.get(key);
    if (r === undefined) {
      r = {
        label: target.nodeId === undefined ? target.label : `broker ${target.nodeId}`,
        nodeId: target.nodeId ?? -1,
        metrics: new ConnectionMetrics(),
        pooled: 0,
      };
      this.#recorders.set(key, r);
    }
    return { ...target, metrics: r.metrics };
  }

  /**
   * Closes every connection, dedicated ones included; later `get` calls reject. The close is
   * final: what is in flight fails with the connections' non-retriable close error.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#idleTimer !== undefined) clearInterval(this.#idleTimer);
    const closing: Promise<void>[] = [];
    for (const slot of this.#slots.values()) {
      if (slot.connection !== undefined) closing.push(slot.connection.close().catch(() => {}));
      slot.connection = undefined;
    }
    for (const c of this.#dedicated.keys()) closing.push(c.close().catch(() => {}));
    this.#dedicated.clear();
    this.#slots.clear();
    await Promise.all(closing);
  }

  async #connect(slot: Slot): Promise<MetaConnection> {
    try {
      const wait = slot.retryAtMs - Date.now();
      if (wait > 0) await sleep(wait);
      const connection = await this.#factory(slot.target);
      if (this.#closed || this.#slots.get(slot.key) !== slot) {
        // Closed, or the node moved, while we were connecting: this socket has no owner.
        await connection.close().catch(() => {});
        if (this.#closed) throw new ClusterClosedError();
        throw new ConnectionError(
          'ERR_KAFKA_CONNECTION_LOST',
          slot.target.label,
          'the broker moved while this connection was opened; connect again',
          { retriable: true },
        );
      }
      slot.failures = 0;
      slot.retryAtMs = 0;
      this.#countPooled(slot.target);
      this.#attach(slot, connection);
      return connection;
    } catch (error) {
      slot.failures++;
      const backoffMs = retryDelayMs(
        { backoffMs: this.#backoffMs, maxBackoffMs: this.#backoffMaxMs, jitter: 0.2 },
        slot.failures + 1,
        this.#random,
      );
      slot.retryAtMs = Date.now() + backoffMs;
      if (!this.#closed) {
        this.#log.debug(
          { broker: slot.target.label, failures: slot.failures, backoffMs, ...errorFields(error) },
          'connect failed: next attempt after the backoff',
        );
      }
      throw error;
    } finally {
      slot.connecting = undefined;
    }
  }

  /** Makes `connection` the slot's, and forgets it (telling the listeners) when it drops. */
  #attach(slot: Slot, connection: MetaConnection): void {
    slot.connection = connection;
    connection.onClose((error) => {
      if (slot.connection !== connection) return;
      slot.connection = undefined;
      if (slot.target.nodeId !== undefined && !this.#closed && error !== undefined) {
        for (const listener of this.#downListeners) listener(slot.target.nodeId, error);
      }
    });
  }

  /** An open bootstrap connection to `broker`'s address becomes the node's connection. */
  #adoptBootstrap(broker: BrokerInfo): void {
    const nodeSlotKey = nodeKey(broker.nodeId, broker.host, broker.port);
    const existing = this.#slots.get(nodeSlotKey);
    if (existing?.connection !== undefined || existing?.connecting !== undefined) return;
    for (const address of this.#bootstrap) {
      const bootstrap = this.#slots.get(bootstrapKey(address));
      const c = bootstrap?.connection;
      if (bootstrap === undefined || c === undefined || c.closed) continue;
      const { host, port } = bootstrap.target;
      if (host !== broker.host || port !== broker.port) continue;
      bootstrap.connection = undefined;
      this.#slots.delete(bootstrap.key);
      const slot: Slot = existing ?? {
        key: nodeSlotKey,
        target: nodeTarget(broker.nodeId, broker),
        connection: undefined,
        connecting: undefined,
        failures: 0,
        retryAtMs: 0,
      };
      this.#slots.set(nodeSlotKey, slot);
      const recorder = this.#withMetrics(nodeTarget(broker.nodeId, broker)).metrics;
      if (recorder !== undefined) c.identify?.(broker.nodeId, recorder);
      this.#countPooled(slot.target);
      this.#attach(slot, c);
      return;
    }
  }

  /** Bootstrap connections that became redundant once metadata named the brokers. */
  #closeBootstrapIfIdle(): void {
    for (const address of this.#bootstrap) {
      const slot = this.#slots.get(bootstrapKey(address));
      const c = slot?.connection;
      if (slot === undefined || c === undefined || c.closed || c.pending > 0) continue;
      this.#release(slot, 'bootstrap connection no longer needed');
    }
  }

  /** Closes a slot's connection on purpose (no broker-down signal) and forgets the slot. */
  #release(slot: Slot, reason: string): void {
    const connection = slot.connection;
    slot.connection = undefined;
    if (slot.connecting === undefined) this.#slots.delete(slot.key);
    if (connection !== undefined) closeOnOwnBehalf(connection, reason);
  }

  /** Forgets an endpoint (moved, gone, rebootstrapped) and closes its connection. */
  #drop(key: string, reason: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    const connection = slot.connection;
    slot.connection = undefined;
    if (connection !== undefined) closeOnOwnBehalf(connection, reason);
  }
}

/**
 * A close the pool makes on its own behalf, not the user's: what is still in flight or queued on
 * the connection fails with a retriable error, as Kafka's NetworkClient completes a request whose
 * connection it disconnected with a DisconnectException, so the dispatcher (or any caller) sends
 * it again on the broker's current connection. Only close() of the pool itself is final.
 */
function closeOnOwnBehalf(connection: MetaConnection, reason: string): void {
  void connection.close({ retriable: true, reason }).catch(() => {});
}

function nodeKey(nodeId: number, host: string, port: number): string {
  return `node ${nodeId} ${host}:${port}`;
}

/** Recorders are per node id (whatever its address) or per bootstrap address. */
function recorderKey(target: ConnectTarget): string {
  return target.nodeId === undefined ? target.label : `node ${target.nodeId}`;
}

function bootstrapKey(address: string): string {
  return `bootstrap ${address}`;
}

function nodeTarget(nodeId: number, address: { host: string; port: number }): ConnectTarget {
  return {
    host: address.host,
    port: address.port,
    nodeId,
    label: `broker ${nodeId} (${address.host}:${address.port})`,
  };
}

/**
 * `work`, or a rejection when `wait.deadline` passes or `wait.signal` aborts first. Only
 * callers that must wait for a connect get here, so the timer is off the hot path. A connect
 * to a broker that does not answer is bounded by the connection's own setup timeout, and the
 * pool shares it with later callers, so it is left running.
 */
function bounded<T>(work: Promise<T>, wait: PoolWait | undefined, label: string): Promise<T> {
  if (wait === undefined || (wait.deadline === undefined && wait.signal === undefined)) return work;
  const { deadline, signal } = wait;
  if (signal?.aborted)
    return Promise.reject(new AbortedError(`connect to ${label}`, signal.reason));
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      finish();
      reject(new AbortedError(`connect to ${label}`, signal?.reason));
    };
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (deadline !== undefined) {
      const waitMs = Math.max(0, deadline - Date.now());
      timer = setTimeout(() => {
        finish();
        reject(
          new ConnectionError(
            'ERR_KAFKA_CONNECTION_FAILED',
            label,
            `no connection within the operation's time (${waitMs} ms left when the wait began)`,
          ),
        );
      }, waitMs);
      timer.unref();
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}
