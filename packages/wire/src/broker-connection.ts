import { EventEmitter } from 'node:events';
import { isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  type ApiDescriptor,
  ApiVersionsApi,
  type ApiVersionsResponse,
  apiDescriptor,
  decodeResponseFrame,
  encodeRequestFrame,
  KafkaError,
  ProtocolError,
  Reader,
} from '@kafkats/codec';
import { ReconnectBackoff } from './backoff.js';
import { BrokerCapabilities } from './broker-capabilities.js';
import {
  type BrokerAddress,
  formatBrokerAddress,
  type ResolvedAddress,
  type Resolver,
  resolveBrokerHost,
  systemResolver,
} from './dns.js';
import {
  AuthenticationError,
  BackpressureError,
  ConnectionError,
  type ConnectionErrorCode,
  RequestTimeoutError,
} from './errors.js';
import { FrameReader, FrameSizeError } from './internal/frame-reader.js';
import { CoalescingWriter } from './internal/frame-writer.js';
import { authenticateSasl, type SaslOptions } from './internal/sasl.js';
import { RequestPipeline, RING_ID_SPACE, SlotState } from './request-pipeline.js';

/** Lifecycle of a connection, observable through the `state` event. */
export type ConnectionState =
  | 'idle'
  | 'connecting'
  | 'negotiating'
  | 'ready'
  | 'backing-off'
  | 'closed';

/** TLS settings (node:tls). Verification is on unless `rejectUnauthorized: false`. */
export interface TlsOptions {
  /** Trusted CA certificates (PEM); default: Node's bundled roots. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** Client certificate chain (PEM) for mutual TLS. */
  readonly cert?: string | Buffer;
  /** Client private key (PEM) for mutual TLS. */
  readonly key?: string | Buffer;
  readonly passphrase?: string;
  /** SNI and certificate host name; default: the broker host when it is a name. */
  readonly servername?: string;
  /** Default true: an unverifiable certificate is a fatal AuthenticationError. */
  readonly rejectUnauthorized?: boolean;
}

export type { SaslOptions } from './internal/sasl.js';

/** Options of a {@link BrokerConnection}; every one has a documented default. */
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
  /** Per-request timeout in ms, counted from `send` (connecting and backing off included); default 30000. */
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
  /** First reconnect delay in ms; default 50. */
  readonly reconnectBackoffMs?: number;
  /** Reconnect delay ceiling in ms; default 1000. */
  readonly reconnectBackoffMaxMs?: number;
  /** Host name resolver; default the system's (`dns.lookup`, all addresses). */
  readonly resolver?: Resolver;
  /** TLS: `true` for defaults, or options; default plaintext. */
  readonly tls?: boolean | TlsOptions;
  /** SASL authentication after ApiVersions; default none. */
  readonly sasl?: SaslOptions;
  /** Random source in [0, 1) for backoff jitter and re-authentication timing; default Math.random. */
  readonly random?: () => number;
}

/** Per-call options of {@link BrokerConnection.send}. */
export interface SendOptions {
  /** Send at this version (must be in both sides' ranges); default the highest shared. */
  readonly version?: number;
  /** Overrides `requestTimeoutMs` for this request, in ms. */
  readonly timeoutMs?: number;
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

/** Events a {@link BrokerConnection} emits. */
export interface BrokerConnectionEvents {
  state: [state: ConnectionState, previous: ConnectionState];
  ready: [capabilities: BrokerCapabilities];
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
  /** Late responses to timed-out requests, read whole and dropped. */
  lateResponsesDiscarded: number;
  /** Successful connections (ApiVersions and SASL done). */
  connects: number;
  /** Sends refused with BackpressureError. */
  backpressureRejections: number;
}

const WIRE_VERSION = '0.1.0';
const UNSUPPORTED_VERSION = 35;
/** ApiVersionsRequest v3+ software name/version rule (KIP-511, ApiVersionsRequest.isValid). */
const SOFTWARE_FIELD = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** Per-slot record; rewritten for every request, never reallocated. */
interface Waiter {
  api: ApiDescriptor<unknown, unknown> | null;
  version: number;
  /** Resolve with the raw frame instead of decoding it (the ApiVersions exchange). */
  raw: boolean;
  timeoutMs: number;
  resolve: ((value: unknown) => void) | null;
  reject: ((error: unknown) => void) | null;
}

/** A request waiting for a slot or for the connection. */
interface Queued {
  api: ApiDescriptor<unknown, unknown>;
  request: unknown;
  pinned: number | undefined;
  deadlineMs: number;
  timeoutMs: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  live: boolean;
}

function clearWaiter(w: Waiter): void {
  w.api = null;
  w.resolve = null;
  w.reject = null;
}

const TLS_AUTH_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME|ERR_SSL|EPROTO/;

/**
 * One connection to one broker, owning its socket (the seed's BrokerTask). Callers hold the
 * object and call {@link send}; the socket is never touched from outside.
 *
 * Connects lazily (or on {@link connect}): resolve every address (IPv4 first), TCP or TLS,
 * ApiVersions (falling back on UNSUPPORTED_VERSION), SASL when configured, then the
 * pipeline opens. A dropped connection fails what was in flight with a retriable
 * ConnectionError, emits `disconnect`, and reconnects with jittered exponential backoff
 * while requests wait; authentication failures are fatal and close the connection for good.
 */
export class BrokerConnection extends EventEmitter<BrokerConnectionEvents> {
  /** `broker <id> (<host:port>)` or `bootstrap (<host:port>)`. */
  readonly name: string;
  readonly address: BrokerAddress;
  readonly nodeId: number | undefined;
  private readonly counters = {
    framesRead: 0,
    lateResponsesDiscarded: 0,
    connects: 0,
    backpressureRejections: 0,
  };

  private readonly clientId: string;
  private readonly softwareName: string;
  private readonly softwareVersion: string;
  private readonly requestTimeoutMs: number;
  private readonly setupTimeoutMs: number;
  private readonly maxQueued: number;
  private readonly rejectWhenFull: boolean;
  private readonly resolver: Resolver;
  // JS-private: util.inspect and JSON never show them, so credentials and keys stay out of logs.
  readonly #tls: TlsOptions | null;
  readonly #sasl: SaslOptions | undefined;
  private readonly random: () => number;
  private readonly backoff: ReconnectBackoff;
  private readonly ring: RequestPipeline<Waiter>;
  private readonly writer = new CoalescingWriter();
  private readonly reader: FrameReader;

  private currentState: ConnectionState = 'idle';
  private socket: Socket | null = null;
  /** Bumped per socket so handlers of an old socket do nothing. */
  private epoch = 0;
  private caps: BrokerCapabilities | null = null;
  private fatal: KafkaError | null = null;
  private queue: Queued[] = [];
  private queueHead = 0;
  private queueLive = 0;
  private oneWayId = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private backoffTimer: NodeJS.Timeout | null = null;
  private reauthTimer: NodeJS.Timeout | null = null;
  private reauthDue = false;
  private reauthenticating = false;
  private connectPromise: Promise<BrokerCapabilities> | null = null;
  private readonly onTimerBound = () => this.onTimer();
  private readonly onFrameBound = (frame: Buffer) => this.onFrame(frame);

  constructor(options: BrokerConnectionOptions) {
    super();
    this.address = { host: options.host, port: options.port };
    this.nodeId = options.nodeId;
    const where = formatBrokerAddress(this.address);
    this.name =
      options.nodeId === undefined ? `bootstrap (${where})` : `broker ${options.nodeId} (${where})`;
    this.clientId = options.clientId ?? 'kafkats';
    this.softwareName = options.clientSoftwareName ?? 'kafkats';
    this.softwareVersion = options.clientSoftwareVersion ?? WIRE_VERSION;
    // Brokers refuse ApiVersions with other characters (INVALID_REQUEST), which would
    // otherwise look like a flaky broker and be retried forever.
    for (const [field, value] of [
      ['clientSoftwareName', this.softwareName],
      ['clientSoftwareVersion', this.softwareVersion],
    ] as const) {
      if (!SOFTWARE_FIELD.test(value)) {
        throw new TypeError(`${field} "${value}" must match ${SOFTWARE_FIELD.source}`);
      }
    }
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.setupTimeoutMs = options.connectionSetupTimeoutMs ?? 10_000;
    this.maxQueued = Math.max(0, options.maxQueuedRequests ?? 1024);
    this.rejectWhenFull = options.queuePolicy === 'reject';
    this.resolver = options.resolver ?? systemResolver;
    this.#tls = options.tls === true ? {} : options.tls ? options.tls : null;
    this.#sasl = options.sasl;
    this.random = options.random ?? Math.random;
    this.backoff = new ReconnectBackoff(
      options.reconnectBackoffMs ?? 50,
      options.reconnectBackoffMaxMs ?? 1000,
      this.random,
    );
    this.ring = new RequestPipeline<Waiter>(options.maxInFlight ?? 5, () => ({
      api: null,
      version: 0,
      raw: false,
      timeoutMs: 0,
      resolve: null,
      reject: null,
    }));
    this.reader = new FrameReader(options.maxResponseBytes ?? 104_857_600, this.onFrameBound);
  }

  /** Where the connection is in its lifecycle. */
  get state(): ConnectionState {
    return this.currentState;
  }

  /** What the broker supports on the current connection; null until negotiated. */
  get capabilities(): BrokerCapabilities | null {
    return this.caps;
  }

  /** A snapshot of the connection's counters (for metrics and tests). */
  get stats(): ConnectionStats {
    return { writes: this.writer.writes, bytesWritten: this.writer.bytes, ...this.counters };
  }

  /** Requests on the wire (tombstones of timed-out requests included). */
  get inFlight(): number {
    return this.ring.size;
  }

  /** Requests waiting for a slot or for the connection. */
  get queued(): number {
    return this.queueLive;
  }

  /**
   * The version requests of an API go at on this connection (the highest both sides
   * support), or undefined when not connected, not offered by the broker, or unknown to us.
   */
  negotiatedVersion(api: number | ApiDescriptor<unknown, unknown>): number | undefined {
    const descriptor = typeof api === 'number' ? apiDescriptor(api) : api;
    return descriptor === undefined ? undefined : this.caps?.negotiatedVersion(descriptor);
  }

  /**
   * Connects now (sends connect lazily anyway) and resolves with the broker's capabilities.
   *
   * @throws ConnectionError (retriable) when this attempt fails; AuthenticationError when
   *   SASL or TLS authentication fails (fatal: the connection is closed)
   */
  connect(): Promise<BrokerCapabilities> {
    if (this.fatal !== null) return Promise.reject(this.fatal);
    if (this.currentState === 'closed') return Promise.reject(this.closedError());
    if (this.currentState === 'ready' && this.caps !== null) return Promise.resolve(this.caps);
    if (this.connectPromise !== null) return this.connectPromise;
    this.clearBackoffTimer();
    return this.startConnect();
  }

  /**
   * Sends one request and resolves with the typed response. The version is the highest both
   * sides support unless `options.version` pins one. Produce with `acks: 0` gets no response
   * from Kafka: it resolves with an empty ProduceResponse once handed to the socket.
   *
   * @throws (rejects) UnsupportedVersionError before anything is written when the broker
   *   cannot take the API or pinned version; BackpressureError when the queue is full (or all
   *   slots are busy with `queuePolicy: 'reject'`); RequestTimeoutError; ConnectionError
   *   (retriable when the request may be sent again); AuthenticationError; CodecError when
   *   the request cannot be encoded or the response cannot be decoded
   */
  send<Req, Res>(api: ApiDescriptor<Req, Res>, request: Req, options?: SendOptions): Promise<Res> {
    const anyApi = api as ApiDescriptor<unknown, unknown>;
    if (this.fatal !== null) return Promise.reject(this.fatal);
    if (this.currentState === 'closed') return Promise.reject(this.closedError());
    const timeoutMs = options?.timeoutMs ?? this.requestTimeoutMs;
    const pinned = options?.version;
    if (
      this.currentState === 'ready' &&
      this.queueLive === 0 &&
      !this.reauthenticating &&
      !this.reauthDue
    ) {
      if (!this.ring.isFull || this.isOneWay(anyApi, request)) {
        return new Promise<Res>((resolve, reject) => {
          this.dispatch(
            anyApi,
            request,
            pinned,
            Date.now() + timeoutMs,
            timeoutMs,
            resolve as (v: unknown) => void,
            reject,
          );
        });
      }
      if (this.rejectWhenFull) {
        this.counters.backpressureRejections++;
        return Promise.reject(
          new BackpressureError(this.name, `all ${this.ring.maxInFlight} in-flight slots are busy`),
        );
      }
    }
    if (this.queueLive >= this.maxQueued) {
      this.counters.backpressureRejections++;
      return Promise.reject(
        new BackpressureError(
          this.name,
          `${this.ring.size} requests in flight and ${this.queueLive} queued (maxQueuedRequests ${this.maxQueued})`,
        ),
      );
    }
    return new Promise<Res>((resolve, reject) => {
      const deadlineMs = Date.now() + timeoutMs;
      this.queue.push({
        api: anyApi,
        request,
        pinned,
        deadlineMs,
        timeoutMs,
        resolve: resolve as (v: unknown) => void,
        reject,
        live: true,
      });
      this.queueLive++;
      this.armTimer(deadlineMs);
      if (this.currentState === 'idle') {
        this.startConnect().catch(() => {
          // A failed attempt backs off and retries; queued requests wait for it or time out.
        });
      }
    });
  }

  /**
   * Closes the connection for good: everything in flight or queued fails with a
   * non-retriable ConnectionError `ERR_KAFKA_CONNECTION_CLOSED`. Resolves once the socket is gone.
   */
  async close(): Promise<void> {
    if (this.currentState === 'closed') return;
    const error = this.closedError();
    const socket = this.socket;
    this.teardown(error, true);
    this.setState('closed');
    this.failQueue(error);
    if (socket !== null && !socket.destroyed) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      });
    }
  }

  // ---------------------------------------------------------------- connect sequence

  private startConnect(): Promise<BrokerCapabilities> {
    const attempt = this.runConnect();
    this.connectPromise = attempt;
    attempt.then(
      () => {
        if (this.connectPromise === attempt) this.connectPromise = null;
      },
      () => {
        if (this.connectPromise === attempt) this.connectPromise = null;
      },
    );
    return attempt;
  }

  private async runConnect(): Promise<BrokerCapabilities> {
    this.setState('connecting');
    const epoch = ++this.epoch;
    try {
      const socket = await this.openSocket(epoch);
      if (epoch !== this.epoch) {
        // Closed while the connect was under way: do not leak the new socket.
        socket.destroy();
        throw this.closedError();
      }
      this.attachSocket(socket, epoch);
      this.setState('negotiating');
      const caps = await this.negotiateApiVersions(epoch);
      this.caps = caps;
      if (this.#sasl !== undefined) {
        const lifetimeMs = await authenticateSasl(this.#sasl, {
          broker: this.name,
          capabilities: caps,
          exchange: (api, request, version) => this.internalRequest(api, request, version, epoch),
        });
        this.scheduleReauth(lifetimeMs, epoch);
      }
      if (epoch !== this.epoch) throw this.closedError();
      this.backoff.reset();
      this.counters.connects++;
      this.setState('ready');
      this.emit('ready', caps);
      this.pump();
      return caps;
    } catch (err) {
      if (epoch !== this.epoch || this.currentState === 'closed') {
        throw err instanceof KafkaError ? err : this.closedError();
      }
      const error = this.classifyConnectError(err);
      this.failAttempt(error);
      throw error;
    }
  }

  private classifyConnectError(err: unknown): KafkaError {
    if (err instanceof AuthenticationError || err instanceof ConnectionError) return err;
    if (err instanceof KafkaError) {
      // A protocol error during the handshake (e.g. a broken ApiVersions answer) is not a
      // credential problem: retry like any failed connect.
      return new ConnectionError(
        'ERR_KAFKA_CONNECTION_FAILED',
        this.name,
        `handshake failed: ${err.message}`,
        {
          cause: err,
        },
      );
    }
    return new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      this.name,
      `could not connect: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }

  /** A connect attempt failed: fatal errors close for good; others back off and retry. */
  private failAttempt(error: KafkaError): void {
    this.teardown(error, false);
    if (error instanceof AuthenticationError) {
      this.fatal = error;
      this.setState('closed');
      this.failQueue(error);
      return;
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const delay = this.backoff.next();
    this.setState('backing-off');
    this.clearBackoffTimer();
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      if (this.currentState !== 'backing-off') return;
      if (this.queueLive > 0) {
        this.startConnect().catch(() => {
          // Reported to queued requests through failAttempt.
        });
      } else {
        this.setState('idle');
      }
    }, delay);
    // Left referenced: with no socket during the backoff, an unref'd timer would let a script
    // awaiting a queued request exit before the broker came back.
  }

  private async openSocket(epoch: number): Promise<Socket> {
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolveBrokerHost(this.address.host, this.resolver);
    } catch (err) {
      throw new ConnectionError(
        'ERR_KAFKA_CONNECTION_FAILED',
        this.name,
        `cannot resolve ${this.address.host}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    if (addresses.length === 0) {
      throw new ConnectionError(
        'ERR_KAFKA_CONNECTION_FAILED',
        this.name,
        `${this.address.host} resolved to no address`,
      );
    }
    const failures: string[] = [];
    let lastError: unknown;
    for (const a of addresses) {
      if (epoch !== this.epoch) throw this.closedError();
      try {
        return await this.openOne(a);
      } catch (err) {
        if (err instanceof AuthenticationError) throw err;
        lastError = err;
        failures.push(
          `${formatBrokerAddress({ host: a.address, port: this.address.port })}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    throw new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      this.name,
      `could not connect to any address (${failures.join('; ')})`,
      { cause: lastError },
    );
  }

  /** One TCP (+TLS) connect with the setup timeout; resolves once the socket can carry requests. */
  private openOne(a: ResolvedAddress): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      const tls = this.#tls;
      let socket: Socket;
      let tcpUp = false;
      if (tls === null) {
        socket = new Socket();
        socket.connect({ host: a.address, port: this.address.port, family: a.family });
      } else {
        const servername =
          tls.servername ?? (isIP(this.address.host) === 0 ? this.address.host : undefined);
        socket = tlsConnect({
          host: a.address,
          port: this.address.port,
          ...(servername === undefined ? {} : { servername }),
          ...(tls.ca === undefined ? {} : { ca: tls.ca as string | Buffer | (string | Buffer)[] }),
          ...(tls.cert === undefined ? {} : { cert: tls.cert }),
          ...(tls.key === undefined ? {} : { key: tls.key }),
          ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
          rejectUnauthorized: tls.rejectUnauthorized ?? true,
        });
      }
      const onTcp = () => {
        tcpUp = true;
      };
      const readyEvent = tls === null ? 'connect' : 'secureConnect';
      // Only our own listeners come off: Node's sockets keep internal ones (e.g. on 'end').
      const detach = () => {
        clearTimeout(timer);
        socket.off('connect', onTcp);
        socket.off('error', onError);
        socket.off('close', onClose);
        socket.off(readyEvent, onReady);
      };
      const fail = (err: Error) => {
        detach();
        socket.on('error', () => {});
        socket.destroy();
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (tls !== null && tcpUp && TLS_AUTH_CODE.test(code)) {
          reject(
            new AuthenticationError(
              'ERR_KAFKA_AUTHENTICATION_TLS',
              this.name,
              `TLS handshake failed: ${err.message}`,
              { cause: err },
            ),
          );
        } else {
          reject(err);
        }
      };
      const onError = (err: Error) => fail(err);
      const onClose = () => fail(new Error('connection closed during connect'));
      const onReady = () => {
        detach();
        resolve(socket);
      };
      const timer = setTimeout(() => {
        fail(new Error(`connect timed out after ${this.setupTimeoutMs} ms`));
      }, this.setupTimeoutMs);
      if (tls !== null) socket.once('connect', onTcp);
      socket.once('error', onError);
      socket.once('close', onClose);
      socket.once(readyEvent, onReady);
    });
  }

  private attachSocket(socket: Socket, epoch: number): void {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    this.reader.reset();
    this.writer.attach(socket);
    socket.on('data', (chunk: Buffer) => {
      if (epoch !== this.epoch) return;
      try {
        this.reader.push(chunk);
      } catch (err) {
        if (epoch !== this.epoch) return;
        if (err instanceof FrameSizeError) {
          this.connectionLost(
            err.tooLarge ? 'ERR_KAFKA_CONNECTION_FRAME_TOO_LARGE' : 'ERR_KAFKA_CONNECTION_DESYNC',
            err.message,
            err,
          );
        } else {
          this.connectionLost(
            'ERR_KAFKA_CONNECTION_DESYNC',
            `cannot process a response: ${String(err)}`,
            err,
          );
        }
      }
    });
    socket.on('error', (err) => {
      if (epoch !== this.epoch) return;
      this.connectionLost('ERR_KAFKA_CONNECTION_LOST', `socket error: ${err.message}`, err);
    });
    socket.on('close', () => {
      if (epoch !== this.epoch) return;
      this.connectionLost('ERR_KAFKA_CONNECTION_LOST', 'connection closed by the broker');
    });
  }

  /**
   * ApiVersions at our highest version; on UNSUPPORTED_VERSION the broker answers with a v0
   * body naming its own highest ApiVersions version, and we retry at that (or 0), as Java's
   * NetworkClient does.
   */
  private async negotiateApiVersions(epoch: number): Promise<BrokerCapabilities> {
    let version = ApiVersionsApi.maxVersion;
    for (let attempt = 0; attempt < 3; attempt++) {
      const request = ApiVersionsApi.createRequest(
        version >= 3
          ? { clientSoftwareName: this.softwareName, clientSoftwareVersion: this.softwareVersion }
          : {},
      );
      const frame = (await this.internalRequest(
        ApiVersionsApi,
        request,
        version,
        epoch,
        true,
      )) as Buffer;
      // Response header v0 is the 4-byte correlation id; every body version starts with ErrorCode.
      const errorCode = frame.length >= 6 ? frame.readInt16BE(4) : -1;
      if (errorCode === UNSUPPORTED_VERSION && version > 0) {
        const body = ApiVersionsApi.decodeResponse(new Reader(frame, 4), 0) as ApiVersionsResponse;
        const theirs = body.apiKeys.find((k) => k.apiKey === ApiVersionsApi.apiKey);
        const next = theirs === undefined ? 0 : Math.min(theirs.maxVersion, version - 1);
        version = Math.max(0, next);
        continue;
      }
      const { body } = decodeResponseFrame(ApiVersionsApi, version, frame);
      if (body.errorCode !== 0)
        throw new ProtocolError(body.errorCode, `${this.name} ApiVersions v${version}`);
      return new BrokerCapabilities(body, version, Date.now());
    }
    throw new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      this.name,
      'ApiVersions version negotiation did not converge',
    );
  }

  /** A request of the connect sequence (or re-authentication), sent regardless of state. */
  private internalRequest<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    version: number,
    epoch: number,
    raw = false,
  ): Promise<Res | Buffer> {
    if (epoch !== this.epoch || this.socket === null) return Promise.reject(this.closedError());
    return new Promise((resolve, reject) => {
      const slot = this.ring.acquire();
      if (slot === null) {
        reject(
          new ConnectionError(
            'ERR_KAFKA_CONNECTION_DESYNC',
            this.name,
            'no free slot for a handshake request',
          ),
        );
        return;
      }
      const anyApi = api as ApiDescriptor<unknown, unknown>;
      let frame: Buffer;
      try {
        frame = encodeRequestFrame(anyApi, version, slot.correlationId, this.clientId, request);
      } catch (err) {
        this.ring.complete(slot.correlationId);
        this.ring.release(slot);
        reject(err);
        return;
      }
      this.fillSlot(
        slot.data,
        anyApi,
        version,
        raw,
        this.requestTimeoutMs,
        resolve as (v: unknown) => void,
        reject,
      );
      slot.deadlineMs = Date.now() + this.requestTimeoutMs;
      this.armTimer(slot.deadlineMs);
      this.writer.enqueue(frame);
    });
  }

  // ---------------------------------------------------------------- hot path

  private isOneWay(api: ApiDescriptor<unknown, unknown>, request: unknown): boolean {
    // Produce (key 0) with acks=0: Kafka sends no response at all.
    return api.apiKey === 0 && (request as { acks?: number }).acks === 0;
  }

  private fillSlot(
    w: Waiter,
    api: ApiDescriptor<unknown, unknown>,
    version: number,
    raw: boolean,
    timeoutMs: number,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void {
    w.api = api;
    w.version = version;
    w.raw = raw;
    w.timeoutMs = timeoutMs;
    w.resolve = resolve;
    w.reject = reject;
  }

  /** Encodes and writes one request into a free slot (the caller checked there is one). */
  private dispatch(
    api: ApiDescriptor<unknown, unknown>,
    request: unknown,
    pinned: number | undefined,
    deadlineMs: number,
    timeoutMs: number,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void {
    const caps = this.caps as BrokerCapabilities;
    let version: number;
    try {
      version = caps.requireVersion(api, this.name, pinned);
    } catch (err) {
      reject(err);
      return;
    }
    if (this.isOneWay(api, request)) {
      const id = RING_ID_SPACE + (this.oneWayId++ % RING_ID_SPACE);
      let frame: Buffer;
      try {
        frame = encodeRequestFrame(api, version, id, this.clientId, request);
      } catch (err) {
        reject(err);
        return;
      }
      // Settles either way: written (resolve) or dropped with the socket (the teardown error).
      this.writer.enqueue(frame, (dropped) =>
        dropped === null ? resolve(api.createResponse()) : reject(dropped),
      );
      return;
    }
    const slot = this.ring.acquire();
    if (slot === null) {
      reject(new BackpressureError(this.name, 'no free in-flight slot'));
      return;
    }
    let frame: Buffer;
    try {
      frame = encodeRequestFrame(api, version, slot.correlationId, this.clientId, request);
    } catch (err) {
      // The slot is the tail and nothing was written: hand it back.
      this.ring.complete(slot.correlationId);
      this.ring.release(slot);
      reject(err);
      return;
    }
    this.fillSlot(slot.data, api, version, false, timeoutMs, resolve, reject);
    slot.deadlineMs = deadlineMs;
    this.armTimer(deadlineMs);
    this.writer.enqueue(frame);
  }

  private onFrame(frame: Buffer): void {
    this.counters.framesRead++;
    const correlationId = frame.readInt32BE(0);
    const slot = this.ring.complete(correlationId);
    if (slot === null) {
      const head = this.ring.peekHead();
      this.connectionLost(
        'ERR_KAFKA_CONNECTION_DESYNC',
        head === null
          ? `response with correlation id ${correlationId} but no request in flight`
          : `response with correlation id ${correlationId} but the oldest request in flight has ${head.correlationId}`,
      );
      return;
    }
    const w = slot.data;
    const state = slot.state;
    const api = w.api;
    const version = w.version;
    const raw = w.raw;
    const resolve = w.resolve;
    const reject = w.reject;
    clearWaiter(w);
    this.ring.release(slot);
    if (state === SlotState.Tombstone || api === null || resolve === null || reject === null) {
      this.counters.lateResponsesDiscarded++;
    } else if (raw) {
      resolve(frame);
    } else {
      let body: unknown;
      let failed: unknown = null;
      try {
        body = decodeResponseFrame(api, version, frame).body;
      } catch (err) {
        failed = err;
      }
      // The frame was read whole, so the stream is still in step: only this request fails.
      if (failed === null) resolve(body);
      else reject(failed);
    }
    this.pump();
  }

  /** Moves queued requests into free slots while the connection is ready. */
  private pump(): void {
    if (this.currentState !== 'ready') return;
    if (this.reauthDue) {
      if (this.ring.size === 0) this.runReauth();
      return;
    }
    if (this.reauthenticating) return;
    while (this.queueLive > 0 && !this.ring.isFull) {
      const q = this.queue[this.queueHead] as Queued;
      this.queue[this.queueHead] = undefined as unknown as Queued;
      this.queueHead++;
      if (this.queueHead > 64 && this.queueHead * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.queueHead);
        this.queueHead = 0;
      }
      if (!q.live) continue;
      this.queueLive--;
      this.dispatch(q.api, q.request, q.pinned, q.deadlineMs, q.timeoutMs, q.resolve, q.reject);
    }
    this.compactQueue();
  }

  private compactQueue(): void {
    // Skip dead entries (timed out while queued) at the head.
    while (this.queueHead < this.queue.length && !(this.queue[this.queueHead] as Queued).live) {
      this.queueHead++;
    }
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queue.length - this.queueHead > 2 * this.queueLive + 64) {
      // Dead entries behind a live head (short timeouts queued after a long one) would pile
      // up with their requests for as long as the head waits: memory must follow
      // maxQueuedRequests, not the number of sends that timed out.
      this.queue = this.queue.slice(this.queueHead).filter((q) => q.live);
      this.queueHead = 0;
    }
  }

  // ---------------------------------------------------------------- timeouts

  /** One timer per connection, due at the earliest deadline known when it was armed. */
  private armTimer(deadlineMs: number): void {
    if (deadlineMs >= this.timerDueMs) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDueMs = deadlineMs;
    this.timer = setTimeout(this.onTimerBound, Math.max(0, deadlineMs - Date.now()));
    this.timer.unref?.();
  }

  private onTimer(): void {
    this.timer = null;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    let reap = false;
    this.ring.forEach((slot) => {
      if (slot.state === SlotState.Waiting) {
        if (slot.deadlineMs <= now) {
          const w = slot.data;
          const reject = w.reject;
          const label = w.api === null ? 'request' : `${w.api.name} v${w.version}`;
          slot.state = SlotState.Tombstone;
          // A tombstone waits one more timeout for its late answer before the socket is recycled.
          slot.deadlineMs = now + w.timeoutMs;
          const timeoutMs = w.timeoutMs;
          w.resolve = null;
          w.reject = null;
          reject?.(new RequestTimeoutError(this.name, label, timeoutMs));
        }
        next = Math.min(next, slot.deadlineMs);
      } else if (slot.state === SlotState.Tombstone) {
        if (slot.deadlineMs <= now) reap = true;
        next = Math.min(next, slot.deadlineMs);
      }
    });
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const q = this.queue[i] as Queued;
      if (!q.live) continue;
      if (q.deadlineMs <= now) {
        q.live = false;
        this.queueLive--;
        q.reject(
          new RequestTimeoutError(
            this.name,
            `${q.api.name} (queued, ${this.currentState})`,
            q.timeoutMs,
          ),
        );
      } else {
        next = Math.min(next, q.deadlineMs);
      }
    }
    this.compactQueue();
    if (reap) {
      this.connectionLost(
        'ERR_KAFKA_CONNECTION_LOST',
        'timed-out requests got no late response: recycling the connection',
      );
      return;
    }
    if (next !== Number.POSITIVE_INFINITY) this.armTimer(next);
  }

  // ---------------------------------------------------------------- failure

  /** The socket is gone or cannot be trusted: fail what is in flight and reconnect if needed. */
  private connectionLost(code: ConnectionErrorCode, message: string, cause?: unknown): void {
    if (this.currentState === 'closed') return;
    const wasReady = this.currentState === 'ready';
    const error = new ConnectionError(
      code,
      this.name,
      message,
      cause === undefined ? {} : { cause },
    );
    if (!wasReady) {
      // Mid-handshake: the attempt failed; the pending handshake request rejects with
      // `error` and runConnect, seeing a newer epoch, leaves the retry to this path.
      this.failAttempt(error);
      return;
    }
    const inFlight = this.teardown(error, false);
    this.emit('disconnect', { broker: this.name, nodeId: this.nodeId, error, inFlight });
    if (this.queueLive > 0) {
      this.clearBackoffTimer();
      this.startConnect().catch(() => {
        // Reported to queued requests through failAttempt.
      });
    } else {
      this.setState('idle');
    }
  }

  /** Drops the socket and fails every in-flight request; returns how many there were. */
  private teardown(error: KafkaError, final: boolean): number {
    this.epoch++;
    this.caps = null;
    this.reauthDue = false;
    this.reauthenticating = false;
    if (this.reauthTimer !== null) {
      clearTimeout(this.reauthTimer);
      this.reauthTimer = null;
    }
    if (final) {
      this.clearBackoffTimer();
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      this.timerDueMs = Number.POSITIVE_INFINITY;
    }
    this.reader.stop();
    this.writer.attach(null, error);
    const socket = this.socket;
    this.socket = null;
    if (socket !== null) {
      socket.removeAllListeners('data');
      socket.on('error', () => {});
      if (!final) socket.destroy();
    }
    let count = 0;
    this.ring.drain((slot) => {
      const reject = slot.data.reject;
      if (slot.state === SlotState.Waiting) count++;
      clearWaiter(slot.data);
      reject?.(error);
    });
    return count;
  }

  private failQueue(error: KafkaError): void {
    for (let i = this.queueHead; i < this.queue.length; i++) {
      const q = this.queue[i] as Queued;
      if (q.live) {
        q.live = false;
        q.reject(error);
      }
    }
    this.queue = [];
    this.queueHead = 0;
    this.queueLive = 0;
  }

  private clearBackoffTimer(): void {
    if (this.backoffTimer !== null) {
      clearTimeout(this.backoffTimer);
      this.backoffTimer = null;
    }
  }

  private closedError(): KafkaError {
    return (
      this.fatal ??
      new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', this.name, 'connection closed')
    );
  }

  private setState(next: ConnectionState): void {
    const previous = this.currentState;
    if (previous === next) return;
    this.currentState = next;
    this.emit('state', next, previous);
  }

  // ---------------------------------------------------------------- KIP-368 re-authentication

  private scheduleReauth(lifetimeMs: number, epoch: number): void {
    if (!(lifetimeMs > 0)) return;
    // Like Java: somewhere in 85-95% of the session lifetime, so a fleet does not re-auth at once.
    const delay = Math.max(0, Math.floor(lifetimeMs * (0.85 + 0.1 * this.random())));
    this.reauthTimer = setTimeout(() => {
      this.reauthTimer = null;
      if (epoch !== this.epoch || this.currentState !== 'ready') return;
      this.reauthDue = true;
      this.pump();
    }, delay);
    this.reauthTimer.unref?.();
  }

  /** Runs once the ring is empty: new requests wait in the queue until SASL is done again. */
  private runReauth(): void {
    const sasl = this.#sasl;
    const caps = this.caps;
    if (sasl === undefined || caps === null) return;
    this.reauthDue = false;
    this.reauthenticating = true;
    const epoch = this.epoch;
    authenticateSasl(sasl, {
      broker: this.name,
      capabilities: caps,
      exchange: (api, request, version) => this.internalRequest(api, request, version, epoch),
    }).then(
      (lifetimeMs) => {
        if (epoch !== this.epoch) return;
        this.reauthenticating = false;
        this.scheduleReauth(lifetimeMs, epoch);
        this.pump();
      },
      (err: unknown) => {
        if (epoch !== this.epoch) return;
        const error =
          err instanceof AuthenticationError
            ? err
            : new AuthenticationError(
                'ERR_KAFKA_AUTHENTICATION_FAILED',
                this.name,
                `re-authentication failed: ${err instanceof Error ? err.message : String(err)}`,
                { cause: err },
              );
        this.fatal = error;
        const inFlight = this.teardown(error, true);
        this.emit('disconnect', { broker: this.name, nodeId: this.nodeId, error, inFlight });
        this.setState('closed');
        this.failQueue(error);
      },
    );
  }
}
