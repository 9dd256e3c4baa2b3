import type { ApiDescriptor } from '@kafkats/codec';
import type { CloseOptions, ConnectionMetrics } from '@kafkats/wire';

/** Per-request options on one connection. The cluster always names the version. */
export interface ConnectionSendOptions {
  /** The version to encode and decode at; chosen once by the caller from `negotiatedVersion`. */
  readonly version: number;
  /** Give up waiting for this one request after this many ms (the connection's default otherwise). */
  readonly timeoutMs?: number;
  /** Aborts the wait for this request; a request already written is discarded when its answer comes. */
  readonly signal?: AbortSignal;
}

/**
 * What the cluster needs from one broker connection. The real one is the wire's
 * `BrokerConnection` (ApiVersions already negotiated when the factory resolves); tests inject
 * fakes. A connection lives exactly as long as its socket: once `closed`, it never comes back,
 * and the pool opens a new one.
 */
export interface MetaConnection {
  /**
   * Sends at `options.version` and decodes the answer at that version.
   *
   * @throws (rejects) a retriable error when the connection drops or the request times out
   *   (the connection is then closed); an unsupported-version error before anything is
   *   written when the broker cannot take that version
   */
  send<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: ConnectionSendOptions,
  ): Promise<Res>;
  /**
   * `send` with a pair of handlers instead of a promise (the wire's `BrokerConnection` has it):
   * exactly one of `onResponse(response, context)` and `onError(error, context)` runs, errors
   * always on a microtask, never inside this call. Optional: without it the cluster sends
   * through `send`.
   */
  readonly sendCallback?:
    | (<Req, Res, C>(
        api: ApiDescriptor<Req, Res>,
        request: Req,
        options: ConnectionSendOptions,
        onResponse: (response: Res, context: C) => void,
        onError: (error: unknown, context: C) => void,
        context: C,
      ) => void)
    | undefined;
  /** The highest version of an API both sides support, or undefined when the broker lacks it. */
  negotiatedVersion(apiKey: number): number | undefined;
  /**
   * A finalized cluster feature's level (`transaction.version`) as the broker stated it in
   * ApiVersions; undefined when not finalized. Optional: fakes may leave it out (none finalized).
   */
  finalizedFeature?(name: string): number | undefined;
  /** True once the connection is closed or lost. */
  readonly closed: boolean;
  /** Requests on the wire or waiting for a slot; an idle connection has none. */
  readonly pending: number;
  /** Requests on the wire (metrics); a connection without it reports `pending` as in flight. */
  readonly inFlight?: number;
  /** Requests waiting for a slot or for the connection (metrics); absent counts as 0. */
  readonly queued?: number;
  /** When a request was last written or a response last read, epoch ms. */
  readonly lastActivityMs: number;
  /**
   * Tells a bootstrap connection which node it reaches (the pool adopting it as that node's
   * connection), with that node's metrics recorder. Optional: fakes may ignore it.
   */
  identify?(nodeId: number, metrics: ConnectionMetrics): void;
  /** Calls `listener` once when the connection drops or closes. Returns an unsubscribe. */
  onClose(listener: (error: Error | undefined) => void): () => void;
  /**
   * Closes the socket; in-flight and queued requests fail: with a non-retriable error by
   * default (the close is final), with a retriable one when `options.retriable` is set (the
   * pool closing a connection on its own behalf, as the wire's `BrokerConnection.close` does).
   */
  close(options?: CloseOptions): Promise<void>;
}

/** Where a connection goes. `label` names it in errors: `broker 3 (127.0.0.1:9092)`. */
export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  /** Absent for a bootstrap address. */
  readonly nodeId?: number;
  readonly label: string;
  /**
   * Where the connection counts requests, bytes and latencies: the pool hands the same
   * recorder to every connection to one broker, so `Cluster.metrics()` outlives reconnects.
   * A factory that cannot record ignores it.
   */
  readonly metrics?: ConnectionMetrics;
}

/** Opens connections. Rejects with a retriable error when the broker cannot be reached. */
export type ConnectionFactory = (target: ConnectTarget) => Promise<MetaConnection>;
