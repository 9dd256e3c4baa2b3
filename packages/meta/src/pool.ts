import { KafkaError } from '@kafkats/codec';
import type { ConnectionFactory, ConnectTarget, MetaConnection } from './api.js';
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
 * One connection per broker, opened lazily.
 *
 * Connecting is guarded per endpoint, never globally: concurrent callers for one broker share
 * one connect (twenty callers, one socket), and a slow connect to a dead broker does not hold
 * up connects to healthy ones. Connections are keyed by node id *and* address, so a node that
 * comes back on a new host or port gets a new connection and the old one is closed. When no
 * known broker can be reached, {@link BrokerPool.any} goes back to the bootstrap addresses: a
 * cluster rolled onto new addresses is a normal event, and a pool that only knows the last
 * metadata's addresses would retry dead endpoints forever.
 */
export class BrokerPool {
  readonly #bootstrap: readonly string[];
  readonly #factory: ConnectionFactory;
  readonly #backoffMs: number;
  readonly #backoffMaxMs: number;
  readonly #anyStaggerMs: number;
  /** node id -> its current address (from the latest installed snapshot). */
  readonly #addresses = new Map<number, { host: string; port: number }>();
  readonly #slots = new Map<string, Slot>();
  readonly #downListeners = new Set<(nodeId: number, error: Error | undefined) => void>();
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
  }

  /** The bootstrap addresses as given. */
  get bootstrap(): readonly string[] {
    return this.#bootstrap;
  }

  /**
   * Learns broker addresses from an installed snapshot. A node whose address changed has its
   * old connection closed; the next `get` opens one to the new address.
   */
  learnAddresses(brokers: readonly BrokerInfo[]): void {
    for (const b of brokers) {
      const known = this.#addresses.get(b.nodeId);
      if (known !== undefined && known.host === b.host && known.port === b.port) continue;
      this.#addresses.set(b.nodeId, { host: b.host, port: b.port });
      if (known !== undefined) this.#drop(nodeKey(b.nodeId, known.host, known.port));
    }
  }

  /** Node ids whose addresses the pool knows. */
  knownNodes(): number[] {
    return [...this.#addresses.keys()];
  }

  /** Calls `listener(nodeId, error)` when a connection to a known broker drops. Returns an unsubscribe. */
  onBrokerDown(listener: (nodeId: number, error: Error | undefined) => void): () => void {
    this.#downListeners.add(listener);
    return () => this.#downListeners.delete(listener);
  }

  /**
   * The connection to an endpoint, opened if needed.
   *
   * @throws KafkaError `ERR_KAFKA_POOL_UNKNOWN_NODE` (retriable: metadata may learn it) for a node
   *   id without a known address; the factory's error (a retriable connection error) when the
   *   connect fails; `ERR_KAFKA_POOL_CLOSED` after close()
   */
  get(endpoint: Endpoint): Promise<MetaConnection> {
    if (this.#closed)
      return Promise.reject(new KafkaError('ERR_KAFKA_POOL_CLOSED', 'the broker pool is closed'));
    let target: ConnectTarget;
    let key: string;
    if ('nodeId' in endpoint) {
      const address = this.#addresses.get(endpoint.nodeId);
      if (address === undefined) {
        return Promise.reject(
          new KafkaError(
            'ERR_KAFKA_POOL_UNKNOWN_NODE',
            `broker ${endpoint.nodeId} is not in the metadata`,
            {
              retriable: true,
            },
          ),
        );
      }
      key = nodeKey(endpoint.nodeId, address.host, address.port);
      target = {
        ...address,
        nodeId: endpoint.nodeId,
        label: `broker ${endpoint.nodeId} (${address.host}:${address.port})`,
      };
    } else {
      key = `bootstrap ${endpoint.bootstrap}`;
      target = { ...parseHostPort(endpoint.bootstrap), label: `bootstrap ${endpoint.bootstrap}` };
    }
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = {
        key,
        target,
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
    return slot.connecting;
  }

  /**
   * A connection to any broker: an open one if there is one, else the known brokers in turn,
   * else the bootstrap addresses (re-resolved by the connection on every attempt).
   *
   * @throws the last connect error when nothing can be reached
   */
  async any(): Promise<MetaConnection> {
    const open: MetaConnection[] = [];
    for (const [nodeId, address] of this.#addresses) {
      const c = this.#slots.get(nodeKey(nodeId, address.host, address.port))?.connection;
      if (c !== undefined && !c.closed) open.push(c);
    }
    if (open.length > 0) return open[this.#rotation++ % open.length] as MetaConnection;
    // Before metadata names any broker (or after every node connection dropped), an open
    // bootstrap connection is as good as any: no need for a second socket to the same broker.
    for (const address of this.#bootstrap) {
      const c = this.#slots.get(`bootstrap ${address}`)?.connection;
      if (c !== undefined && !c.closed && this.#addresses.size === 0) return c;
    }
    const nodes = this.knownNodes();
    const start = nodes.length === 0 ? 0 : this.#rotation++ % nodes.length;
    const endpoints: Endpoint[] = [];
    for (let i = 0; i < nodes.length; i++) {
      endpoints.push({ nodeId: nodes[(start + i) % nodes.length] as number });
    }
    for (const address of this.#bootstrap) endpoints.push({ bootstrap: address });
    return this.#firstReachable(endpoints);
  }

  /**
   * Staggered parallel connects: the first endpoint is tried at once, and each further one when
   * the previous has failed or has not answered within `anyStaggerMs`. The first connection
   * wins; the others finish in the background and stay in the pool (they are per-endpoint
   * connections like any other). Rejects with the last error when every endpoint failed.
   */
  #firstReachable(endpoints: readonly Endpoint[]): Promise<MetaConnection> {
    // Never empty: the constructor refuses an empty bootstrap list.
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

  /** How many connections are open or opening (for tests and diagnostics). */
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

  /** Closes every connection; later `get` calls reject. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing: Promise<void>[] = [];
    for (const slot of this.#slots.values()) {
      if (slot.connection !== undefined) closing.push(slot.connection.close().catch(() => {}));
      slot.connection = undefined;
    }
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
        throw new KafkaError(
          'ERR_KAFKA_POOL_CLOSED',
          `${slot.target.label}: connection no longer wanted`,
          {
            retriable: !this.#closed,
          },
        );
      }
      slot.connection = connection;
      slot.failures = 0;
      slot.retryAtMs = 0;
      connection.onClose((error) => {
        if (slot.connection !== connection) return;
        slot.connection = undefined;
        if (slot.target.nodeId !== undefined && !this.#closed) {
          for (const listener of this.#downListeners) listener(slot.target.nodeId, error);
        }
      });
      return connection;
    } catch (error) {
      slot.failures++;
      slot.retryAtMs =
        Date.now() +
        retryDelayMs(
          { backoffMs: this.#backoffMs, maxBackoffMs: this.#backoffMaxMs, jitter: 0.2 },
          slot.failures + 1,
        );
      throw error;
    } finally {
      slot.connecting = undefined;
    }
  }

  #drop(key: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    const connection = slot.connection;
    slot.connection = undefined;
    if (connection !== undefined) void connection.close().catch(() => {});
  }
}

function nodeKey(nodeId: number, host: string, port: number): string {
  return `node ${nodeId} ${host}:${port}`;
}
