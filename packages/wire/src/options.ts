import type { KafkaError } from '@kafkats/codec';
import type { BrokerCapabilities } from './broker-capabilities.js';
import type { ConnectionMetrics } from './connection-metrics.js';
import type { Resolver } from './dns.js';
import type { Logger } from './logger.js';
import type { SaslOptions } from './sasl.js';

/**
 * Lifecycle of a connection, observable through the `state` event. A connection lives exactly
 * as long as its socket: `closed` is final, whether the caller closed it or the socket was lost.
 */
export type ConnectionState = 'idle' | 'connecting' | 'negotiating' | 'ready' | 'closed';

/** TLS settings (node:tls). Verification is on unless `rejectUnauthorized: false`. */
export interface TlsOptions {
  /** Trusted CA certificates (PEM); default: Node's bundled roots. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** Client certificate chain (PEM) for mutual TLS. */
  readonly cert?: string | Buffer;
  /** Client private key (PEM) for mutual TLS; encrypted ones take `passphrase`. */
  readonly key?: string | Buffer;
  /**
   * Client key and certificate chain as one PKCS#12 file (`.p12`/`.pfx`, as Java's
   * `ssl.keystore.type=PKCS12`), instead of `cert` and `key`; encrypted ones take `passphrase`.
   */
  readonly pfx?: Buffer;
  /** Decrypts `key` or `pfx`. Never appears in an error or log line. */
  readonly passphrase?: string;
  /** SNI and certificate host name; default: the broker host when it is a name. */
  readonly servername?: string;
  /** Default true: an unverifiable certificate is a fatal AuthenticationError. */
  readonly rejectUnauthorized?: boolean;
}

/** Options of a `BrokerConnection`; every one has a documented default. */
export interface BrokerConnectionOptions {
  /** Broker host name or IP literal. */
  readonly host: string;
  readonly port: number;
  /** Node id, when known (metadata); used in names, logs and events. */
  readonly nodeId?: number;
  /** Request header ClientId; default `'kafkats'`. */
  readonly clientId?: string;
  /**
   * ApiVersions v3+ ClientSoftwareName, `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`; default
   * `'kafkats'`. The constructor throws TypeError on anything else.
   */
  readonly clientSoftwareName?: string;
  /** ApiVersions v3+ ClientSoftwareVersion; default the @kafkats/wire version. */
  readonly clientSoftwareVersion?: string;
  /**
   * Per-request timeout in ms, counted from `send` (time spent connecting included); default
   * 30000 (Kafka's `request.timeout.ms`). A request on the wire that times out closes the
   * connection, as Kafka's Java client does: the broker answers in order, so every later
   * request on that socket would wait behind the late one. Time a request waits because the
   * broker throttles the connection (KIP-219) is not counted: the broker asked for that wait.
   */
  readonly requestTimeoutMs?: number;
  /** Timeout of one TCP (+TLS) connect to one address, in ms; default 10000. */
  readonly connectionSetupTimeoutMs?: number;
  /** In-flight slots (requests sent and unanswered); default 5. */
  readonly maxInFlight?: number;
  /** Requests that may wait for a slot or for the connection; default 1024. */
  readonly maxQueuedRequests?: number;
  /**
   * With every slot busy: `'wait'` (default) queues up to `maxQueuedRequests`, `'reject'`
   * fails the send at once with BackpressureError.
   */
  readonly queuePolicy?: 'wait' | 'reject';
  /** Largest response frame accepted, in bytes; a larger one closes the connection. Default 104857600 (100 MiB). */
  readonly maxResponseBytes?: number;
  /** Host name resolver; default the system's (`dns.lookup`, all addresses). */
  readonly resolver?: Resolver;
  /** TLS: `true` for defaults, or options; default plaintext. */
  readonly tls?: boolean | TlsOptions;
  /**
   * SASL authentication after ApiVersions (PLAIN, SCRAM, OAUTHBEARER, or any `SaslMechanism`);
   * default none. It runs again on the same socket before the broker's session expires (KIP-368).
   */
  readonly sasl?: SaslOptions;
  /** Random source in [0, 1) for re-authentication timing; default Math.random. */
  readonly random?: () => number;
  /**
   * Where connection lifecycle (info), request timeouts (warn) and authentication failures
   * (error) are logged; default silent. See `Logger`.
   */
  readonly logger?: Logger;
  /**
   * Where requests, bytes and latencies are counted; default a new `ConnectionMetrics` per
   * connection. An owner passes the same one to every connection to a broker so the figures
   * outlive reconnects.
   */
  readonly metrics?: ConnectionMetrics;
  /**
   * Any value, handed unchanged to this connection's `kafkats:request` and `kafkats:connect`
   * traces as `owner`, so a subscriber can tell one client's connections from another's (the
   * channels are process-wide). Default undefined.
   */
  readonly traceOwner?: unknown;
}

/** Per-call options of `BrokerConnection.send`. */
export interface SendOptions {
  /** Send at this version (must be in both sides' ranges); default the highest shared. */
  readonly version?: number;
  /** Overrides `requestTimeoutMs` for this request, in ms. */
  readonly timeoutMs?: number;
  /**
   * Gives up waiting: the send rejects with `AbortedError` at once. A request already written
   * stays in its slot and its answer is discarded when it comes.
   */
  readonly signal?: AbortSignal;
}

/** Per-call options of `BrokerConnection.close`: how the requests still on it fail. */
export interface CloseOptions {
  /**
   * The owner closes this connection but not the work on it (the broker moved to another
   * address or left the cluster, the owner starts over from its bootstrap addresses): requests
   * in flight or queued fail with a retriable ConnectionError `ERR_KAFKA_CONNECTION_LOST`, as
   * Kafka's NetworkClient completes a request whose connection it disconnected with a
   * DisconnectException, so their callers send them again on a new connection. Default false:
   * they fail with the non-retriable `ERR_KAFKA_CONNECTION_CLOSED`, the close is final.
   */
  readonly retriable?: boolean;
  /** Why, in the message of the error those requests fail with; default `connection closed`. */
  readonly reason?: string;
}

/** Payload of the `disconnect` event. */
export interface DisconnectEvent {
  /** `broker <id> (<host:port>)` or `bootstrap (<host:port>)`. */
  readonly broker: string;
  readonly nodeId: number | undefined;
  /** Why; `retriable` false only for a close by the caller or an authentication failure. */
  readonly error: KafkaError;
  /** Requests that were on the wire and failed with `error`. */
  readonly inFlight: number;
}

/** Events a `BrokerConnection` emits. */
export interface BrokerConnectionEvents {
  state: [state: ConnectionState, previous: ConnectionState];
  ready: [capabilities: BrokerCapabilities];
  /** The socket was lost (not closed by the caller); the connection is closed for good. */
  disconnect: [event: DisconnectEvent];
}

/** Counters for metrics and tests; read them, never write. */
export interface ConnectionStats {
  /** Socket write calls (one per coalesced burst). */
  writes: number;
  /** Request bytes written. */
  bytesWritten: number;
  /** Response frames read. */
  framesRead: number;
  /** Late responses to aborted requests, read whole and dropped. */
  lateResponsesDiscarded: number;
  /** Requests on the wire that timed out (each one closed the connection). */
  requestTimeouts: number;
  /** Sends refused with BackpressureError. */
  backpressureRejections: number;
  /** Answers that asked the client to hold off (KIP-219), and the ms they asked for in all. */
  throttles: number;
  throttleTimeMs: number;
}
