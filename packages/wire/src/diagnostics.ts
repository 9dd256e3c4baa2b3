import { type TracingChannel, tracingChannel } from 'node:diagnostics_channel';

/**
 * The context of one `kafkats:request` trace: one request on one broker connection, from
 * `BrokerConnection.send` to its settlement. The same object is handed to every event of the
 * trace; fields marked "filled" are set as they become known (all of them by `asyncStart`).
 * `error` (a rejection) and `result` (the decoded response) are set by the tracing channel.
 */
export interface RequestTraceContext {
  /** `broker <id> (<host:port>)` or `bootstrap (<host:port>)`. */
  readonly broker: string;
  /** The broker's node id; -1 for a bootstrap connection. */
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  /** The request header's client id. */
  readonly clientId: string;
  /** The connection's `traceOwner` option (undefined when not given). */
  readonly owner: unknown;
  /** The API's key and Kafka's name for it (`Metadata`, `Produce`, ...). */
  readonly apiKey: number;
  readonly api: string;
  /** Filled: the version sent; -1 when the request was refused before being written. */
  version: number;
  /** Filled: the correlation id; -1 when never written. */
  correlationId: number;
  /** Filled: request frame bytes written, size prefix included; 0 when never written. */
  bytesOut: number;
  /** Filled: response frame bytes read, size prefix included; 0 without an answer (acks=0). */
  bytesIn: number;
  /** Filled: the answer's top-level `errorCode` (0 = NONE, or no such field); -1 without an answer. */
  errorCode: number;
  /**
   * Filled: `performance.now()` when the request was handed to the socket; -1 when it never
   * was. Time before it is spent connecting, waiting for a free slot, or held by a throttle.
   */
  writtenAt: number;
  /** Filled: the answer's `throttleTimeMs` (0 when none, or no such field); -1 without an answer. */
  throttleTimeMs: number;
  /**
   * Filled: when the answer asked the client to hold off (KIP-219: a positive `throttleTimeMs`
   * at a version where the broker mutes the channel), the `performance.now()` until which
   * this connection writes nothing; -1 otherwise.
   */
  throttledUntil: number;
  /** Filled: `'ok'` when the send resolved, `'error'` when it rejected (see `error`). */
  outcome: 'pending' | 'ok' | 'error';
  /** Filled: ms from `send` to settlement (queueing and connecting included). */
  durationMs: number;
  /** Set by the channel: why the send rejected. */
  error?: unknown;
  /** Set by the channel: the decoded response. */
  result?: unknown;
}

/**
 * The context of one `kafkats:connect` trace: one connect of a `BrokerConnection` (resolve,
 * TCP or TLS, ApiVersions, SASL), from its start to ready or failure.
 */
export interface ConnectTraceContext {
  readonly broker: string;
  /** -1 for a bootstrap connection. */
  readonly nodeId: number;
  /** The configured host and port. */
  readonly host: string;
  readonly port: number;
  /** The connection's `traceOwner` option (undefined when not given). */
  readonly owner: unknown;
  readonly tls: boolean;
  /** The SASL mechanism configured; null without SASL. */
  readonly saslMechanism: string | null;
  /** Filled: the address the socket reached (`ip:port`); null when none was reached. */
  address: string | null;
  /** Filled: `'ok'` once ready, `'error'` when the connect failed (see `error`). */
  outcome: 'pending' | 'ok' | 'error';
  /** Filled: ms from the start of the connect to its end. */
  durationMs: number;
  /** Set by the channel: why the connect failed. */
  error?: unknown;
  result?: unknown;
}

/**
 * `tracingChannel(name)` of `node:diagnostics_channel` whose `hasSubscribers` answers on every
 * runtime kafkats supports. `TracingChannel.hasSubscribers` came in Node 20.13 and 22.0, and
 * Bun 1.x has none: there it reads `undefined`, and a channel guarded by it would never trace.
 * Every kafkats tracing channel is made by this function.
 */
export function createTracingChannel<C extends object>(name: string): TracingChannel<unknown, C> {
  return withHasSubscribers(tracingChannel<unknown, C>(name));
}

/**
 * Gives `channel` a `hasSubscribers` getter when the runtime's has none: true while any of the
 * trace's five channels has a subscriber, as Node's own getter answers. Returns `channel`.
 */
export function withHasSubscribers<C extends object>(
  channel: TracingChannel<unknown, C>,
): TracingChannel<unknown, C> {
  if (typeof channel.hasSubscribers !== 'boolean') {
    Object.defineProperty(channel, 'hasSubscribers', {
      configurable: true,
      get: () =>
        channel.start.hasSubscribers ||
        channel.end.hasSubscribers ||
        channel.asyncStart.hasSubscribers ||
        channel.asyncEnd.hasSubscribers ||
        channel.error.hasSubscribers,
    });
  }
  return channel;
}

/** Name of the request tracing channel (`node:diagnostics_channel`). */
export const REQUEST_CHANNEL = 'kafkats:request';
/** Name of the connect tracing channel. */
export const CONNECT_CHANNEL = 'kafkats:connect';

/**
 * Every request of every `BrokerConnection`: `start` when `send` is called, `end` when it
 * returns its promise, `asyncStart`/`asyncEnd` when it settles, `error` before them when it
 * rejects. Nothing is built or published while no one subscribes.
 */
export const requestChannel: TracingChannel<unknown, RequestTraceContext> =
  createTracingChannel(REQUEST_CHANNEL);

/** Every connect of every `BrokerConnection`, with the same event sequence. */
export const connectChannel: TracingChannel<unknown, ConnectTraceContext> =
  createTracingChannel(CONNECT_CHANNEL);
