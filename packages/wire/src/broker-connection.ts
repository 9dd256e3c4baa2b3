import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  type ApiDescriptor,
  apiDescriptor,
  decodeResponseFrame,
  encodeRequestFrameChunks,
  KafkaError,
} from '@kafkats/codec';
import type { BrokerCapabilities } from './broker-capabilities.js';
import { ConnectionMetrics } from './connection-metrics.js';
import {
  type ConnectTraceContext,
  connectChannel,
  type RequestTraceContext,
  requestChannel,
} from './diagnostics.js';
import { type BrokerAddress, formatBrokerAddress, type Resolver, systemResolver } from './dns.js';
import {
  AbortedError,
  AuthenticationError,
  BackpressureError,
  ConnectionError,
  type ConnectionErrorCode,
  RequestTimeoutError,
} from './errors.js';
import { FrameReader, FrameSizeError } from './internal/frame-reader.js';
import { CoalescingWriter } from './internal/frame-writer.js';
import { negotiateApiVersions } from './internal/handshake.js';
import { openSocket } from './internal/open-socket.js';
import {
  emptyPending,
  type OnAnswer,
  type OnFailure,
  type PendingRequest,
  SendQueue,
  settle,
} from './internal/pending-request.js';
import { type PipelineSlot, RequestPipeline, SlotState } from './internal/request-pipeline.js';
import { authenticateSasl } from './internal/sasl.js';
import { clientThrottles } from './internal/throttle.js';
import { errorFields, type Logger, silentLogger } from './logger.js';
import type {
  BrokerConnectionEvents,
  BrokerConnectionOptions,
  CloseOptions,
  ConnectionState,
  ConnectionStats,
  SendOptions,
  TlsOptions,
} from './options.js';
import { type SaslMechanism, saslMechanism } from './sasl.js';

const WIRE_VERSION = '0.1.0';
/** `tls: true`: one options object, so every connection shares one secure context. */
const DEFAULT_TLS: TlsOptions = Object.freeze({});
/** TLS alerts a broker sends when it refuses the client's certificate (OpenSSL codes). */
const TLS_REFUSAL_ALERT =
  /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(?:BAD_CERTIFICATE|CERTIFICATE_[A-Z_]+|UNKNOWN_CA|ACCESS_DENIED|UNSUPPORTED_CERTIFICATE|DECRYPT_ERROR|HANDSHAKE_FAILURE)$/;
/** ApiVersionsRequest v3+ software name/version rule (KIP-511, ApiVersionsRequest.isValid). */
const SOFTWARE_FIELD = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** What `submit` and `dispatch` return when the request was taken (else: why not). */
const SUBMITTED = Symbol('submitted');

/**
 * Settles a request with its answer. A `sendCallback` handler that throws is the caller's
 * error: it surfaces as from any Node callback, not inside the connection's reading.
 */
function answer(resolve: OnAnswer, value: unknown, context: unknown, handler: boolean): void {
  if (!handler) {
    resolve(value, context);
    return;
  }
  try {
    resolve(value, context);
  } catch (thrown) {
    process.nextTick(() => {
      throw thrown;
    });
  }
}

/** Settles a request with a failure: a `sendCallback` handler hears it on a microtask. */
function fail(reject: OnFailure, error: unknown, context: unknown, handler: boolean): void {
  if (handler) failLater(reject, error, context);
  else reject(error, context);
}

/** Runs a `sendCallback` error handler on a microtask; what it throws surfaces as in `answer`. */
function failLater(onError: OnFailure, error: unknown, context: unknown): void {
  queueMicrotask(() => answer(onError, error, context, true));
}

/**
 * One connection to one broker, owning its socket. Callers hold the
 * object and call {@link send}; the socket is never touched from outside.
 *
 * Connects once, lazily (or on {@link connect}): resolve every address (IPv4 first), TCP or
 * TLS, ApiVersions (falling back on UNSUPPORTED_VERSION), SASL when configured, then the
 * pipeline opens. It lives exactly as long as that socket: a lost socket, a request timeout
 * or a desynchronised stream fails what was in flight or queued with a retriable
 * ConnectionError, emits `disconnect` and closes the connection for good. Dialling again is
 * the owner's decision (meta's broker pool, with its backoff); authentication failures are
 * fatal and say so.
 */
export class BrokerConnection extends EventEmitter<BrokerConnectionEvents> {
  readonly address: BrokerAddress;
  private currentName: string;
  private currentNodeId: number | undefined;
  private recorder: ConnectionMetrics;
  private readonly counters = {
    framesRead: 0,
    lateResponsesDiscarded: 0,
    requestTimeouts: 0,
    backpressureRejections: 0,
    throttles: 0,
    throttleTimeMs: 0,
  };

  private readonly clientId: string;
  private readonly traceOwner: unknown;
  private readonly softwareName: string;
  private readonly softwareVersion: string;
  private readonly requestTimeoutMs: number;
  private readonly setupTimeoutMs: number;
  private readonly maxQueued: number;
  private readonly rejectWhenFull: boolean;
  private readonly resolver: Resolver;
  // JS-private: util.inspect and JSON never show them, so credentials and keys stay out of logs.
  readonly #tls: TlsOptions | null;
  readonly #sasl: SaslMechanism | undefined;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly ring: RequestPipeline<PendingRequest>;
  private readonly queue = new SendQueue();
  private readonly writer = new CoalescingWriter();
  private readonly reader: FrameReader;
  private readonly closeListeners = new Set<(error: Error | undefined) => void>();

  private currentState: ConnectionState = 'idle';
  private socket: Socket | null = null;
  private caps: BrokerCapabilities | null = null;
  /** Why the connection closed; every later call rejects with it. */
  private endError: KafkaError | null = null;
  private closedByCaller = false;
  private connectAbort: AbortController | null = null;
  private connectPromise: Promise<BrokerCapabilities> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private reauthTimer: NodeJS.Timeout | null = null;
  private reauthDue = false;
  private reauthenticating = false;
  /**
   * Set while the broker throttles this connection (KIP-219): nothing is written until it
   * fires. `throttleEndAt` is its end on `performance.now()`'s clock, `throttleEndMs` on the
   * wall clock that request deadlines use.
   */
  private throttleTimer: NodeJS.Timeout | null = null;
  private throttleEndAt = 0;
  private throttleEndMs = 0;
  private readonly onThrottleEndBound = () => this.onThrottleEnd();
  private activityMs = Date.now();
  private readonly onTimerBound = () => this.onTimer();
  private readonly onFrameBound = (frame: Buffer) => this.onFrame(frame);

  constructor(options: BrokerConnectionOptions) {
    super();
    this.address = { host: options.host, port: options.port };
    this.currentNodeId = options.nodeId;
    const where = formatBrokerAddress(this.address);
    this.currentName =
      options.nodeId === undefined ? `bootstrap (${where})` : `broker ${options.nodeId} (${where})`;
    this.clientId = options.clientId ?? 'kafkats';
    this.traceOwner = options.traceOwner;
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
    this.#tls = options.tls === true ? DEFAULT_TLS : options.tls ? options.tls : null;
    this.#sasl = options.sasl === undefined ? undefined : saslMechanism(options.sasl);
    this.random = options.random ?? Math.random;
    this.log = options.logger ?? silentLogger;
    this.recorder = options.metrics ?? new ConnectionMetrics();
    this.ring = new RequestPipeline<PendingRequest>(options.maxInFlight ?? 5, emptyPending);
    this.reader = new FrameReader(options.maxResponseBytes ?? 104_857_600, this.onFrameBound);
  }

  /** `broker <id> (<host:port>)` or `bootstrap (<host:port>)`. */
  get name(): string {
    return this.currentName;
  }

  /** The broker's node id: from the options, or from {@link identify}; undefined for bootstrap. */
  get nodeId(): number | undefined {
    return this.currentNodeId;
  }

  /** Where this connection counts requests, bytes and latencies (shared when given in the options). */
  get metrics(): ConnectionMetrics {
    return this.recorder;
  }

  /**
   * Names the broker a bootstrap connection turned out to reach, once metadata says which node
   * listens at its address: later names, logs, traces and (with `metrics`) counts are that
   * node's. A connection that already has a node id keeps it.
   */
  identify(nodeId: number, metrics?: ConnectionMetrics): void {
    if (this.currentNodeId !== undefined) return;
    this.currentNodeId = nodeId;
    this.currentName = `broker ${nodeId} (${formatBrokerAddress(this.address)})`;
    if (metrics !== undefined && metrics !== this.recorder) {
      // The connect that made this connection moves to the node's figures with it.
      if (this.currentState === 'ready' && this.recorder.connects > 0) {
        this.recorder.connects--;
        metrics.connects++;
      }
      this.recorder = metrics;
    }
  }

  /** Where the connection is in its lifecycle. */
  get state(): ConnectionState {
    return this.currentState;
  }

  /** True once closed, by the caller or by a lost socket; final. */
  get closed(): boolean {
    return this.currentState === 'closed';
  }

  /** What the broker supports on this connection; null until negotiated and after close. */
  get capabilities(): BrokerCapabilities | null {
    return this.caps;
  }

  /** A snapshot of the connection's counters (for metrics and tests). */
  get stats(): ConnectionStats {
    return { writes: this.writer.writes, bytesWritten: this.writer.bytes, ...this.counters };
  }

  /** Requests on the wire (aborted ones still awaiting their answer included). */
  get inFlight(): number {
    return this.ring.size;
  }

  /**
   * Until when (epoch ms) the broker throttles this connection (KIP-219): requests sent before
   * then wait in the queue. 0 when it does not.
   */
  get throttledUntilMs(): number {
    return this.throttleTimer === null ? 0 : this.throttleEndMs;
  }

  /** Requests waiting for a slot or for the connection. */
  get queued(): number {
    return this.queue.live;
  }

  /** Requests in flight or queued. */
  get pending(): number {
    return this.ring.size + this.queue.live;
  }

  /** When a request was last written or a response last read, epoch ms. */
  get lastActivityMs(): number {
    return this.activityMs;
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
   * The finalized level of a cluster feature (`transaction.version`) as the broker stated it in
   * ApiVersions on this connection, or undefined when not connected or not finalized.
   */
  finalizedFeature(name: string): number | undefined {
    return this.caps?.finalizedFeature(name);
  }

  /**
   * Calls `listener` once when the connection closes: with the error when the socket was lost,
   * with undefined when the caller closed it. Returns an unsubscribe.
   */
  onClose(listener: (error: Error | undefined) => void): () => void {
    if (this.currentState === 'closed') {
      const error = this.closedByCaller ? undefined : (this.endError ?? undefined);
      queueMicrotask(() => listener(error));
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Connects now (sends connect lazily anyway) and resolves with the broker's capabilities.
   *
   * @throws ConnectionError (retriable) when the connect fails, after which the connection is
   *   closed; AuthenticationError when SASL or TLS authentication fails (fatal)
   */
  connect(): Promise<BrokerCapabilities> {
    if (this.currentState === 'closed') return Promise.reject(this.endError);
    if (this.currentState === 'ready' && this.caps !== null) return Promise.resolve(this.caps);
    return this.connectPromise ?? this.startConnect();
  }

  /**
   * Sends one request and resolves with the typed response. The version is the highest both
   * sides support unless `options.version` pins one. Produce with `acks: 0` gets no response
   * from Kafka: it resolves with an empty ProduceResponse once handed to the socket.
   *
   * @throws (rejects) UnsupportedVersionError before anything is written when the broker
   *   cannot take the API or pinned version; BackpressureError when the queue is full (or all
   *   slots are busy with `queuePolicy: 'reject'`); RequestTimeoutError (the connection is then
   *   closed); ConnectionError (retriable when the request may be sent again); AbortedError;
   *   AuthenticationError; CodecError when the request cannot be encoded or the response
   *   cannot be decoded
   */
  send<Req, Res>(api: ApiDescriptor<Req, Res>, request: Req, options?: SendOptions): Promise<Res> {
    if (requestChannel.hasSubscribers) return this.tracedSend(api, request, options);
    return this.sendWith(api, request, options, null);
  }

  /** `send` under a `kafkats:request` trace; only taken while someone subscribes. */
  private tracedSend<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: SendOptions | undefined,
  ): Promise<Res> {
    const context: RequestTraceContext = {
      broker: this.name,
      nodeId: this.nodeId ?? -1,
      host: this.address.host,
      port: this.address.port,
      clientId: this.clientId,
      owner: this.traceOwner,
      apiKey: api.apiKey,
      api: api.name,
      version: -1,
      correlationId: -1,
      bytesOut: 0,
      bytesIn: 0,
      errorCode: -1,
      writtenAt: -1,
      throttleTimeMs: -1,
      throttledUntil: -1,
      outcome: 'pending',
      durationMs: 0,
    };
    const started = performance.now();
    return requestChannel.tracePromise(
      () =>
        this.sendWith(api, request, options, context).then(
          (response) => {
            context.outcome = 'ok';
            context.durationMs = performance.now() - started;
            return response;
          },
          (error: unknown) => {
            context.outcome = 'error';
            context.durationMs = performance.now() - started;
            throw error;
          },
        ),
      context,
    );
  }

  private sendWith<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: SendOptions | undefined,
    trace: RequestTraceContext | null,
  ): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const refused = this.submit(
        api as ApiDescriptor<unknown, unknown>,
        request,
        options,
        trace,
        resolve as OnAnswer,
        reject,
        null,
        false,
      );
      if (refused !== SUBMITTED) reject(refused);
    });
  }

  /**
   * `send` with a pair of handlers instead of a promise, for a caller that sends a request per
   * batch and keeps one pair for all of them: exactly one of `onResponse(response, context)`
   * and `onError(error, context)` runs, with the `context` given here, and the errors and
   * typed responses are those `send` settles with.
   * - `onResponse` runs as the answer is read, before the next answer on this connection.
   *   An exception it throws is rethrown on the next tick, as from any Node callback.
   * - `onError` always runs on a microtask: never inside this call, and never inside the
   *   connection's own teardown.
   * While someone subscribes to `kafkats:request` the request is traced as `send` traces it.
   */
  sendCallback<Req, Res, C>(
    api: ApiDescriptor<Req, Res>,
    request: Req,
    options: SendOptions | undefined,
    onResponse: (response: Res, context: C) => void,
    onError: (error: unknown, context: C) => void,
    context: C,
  ): void {
    if (requestChannel.hasSubscribers) {
      this.tracedSend(api, request, options).then(
        (response) => onResponse(response, context),
        (error: unknown) => onError(error, context),
      );
      return;
    }
    const refused = this.submit(
      api as ApiDescriptor<unknown, unknown>,
      request,
      options,
      null,
      onResponse as OnAnswer,
      onError as OnFailure,
      context,
      true,
    );
    if (refused !== SUBMITTED) failLater(onError as OnFailure, refused, context);
  }

  /**
   * Writes one request into a free slot, or queues it; returns SUBMITTED, or the error that
   * refuses it before anything is written (closed, aborted, backpressure, version, encoding)
   * for the caller to report: nothing was settled then.
   */
  private submit(
    api: ApiDescriptor<unknown, unknown>,
    request: unknown,
    options: SendOptions | undefined,
    trace: RequestTraceContext | null,
    resolve: OnAnswer,
    reject: OnFailure,
    context: unknown,
    handler: boolean,
  ): unknown {
    if (this.currentState === 'closed') return this.endError;
    const signal = options?.signal ?? null;
    if (signal?.aborted) return new AbortedError(this.label(api), signal.reason);
    const timeoutMs = options?.timeoutMs ?? this.requestTimeoutMs;
    const version = options?.version ?? -1;
    if (this.currentState === 'ready' && this.queue.live === 0 && !this.paused()) {
      if (!this.ring.isFull || isOneWay(api, request)) {
        return this.dispatch(
          api,
          request,
          version,
          Date.now() + timeoutMs,
          timeoutMs,
          signal,
          resolve,
          reject,
          context,
          handler,
          trace,
        );
      }
      if (this.rejectWhenFull) {
        this.counters.backpressureRejections++;
        this.recorder.backpressureRejections++;
        return new BackpressureError(
          this.name,
          `all ${this.ring.maxInFlight} in-flight slots are busy`,
        );
      }
    }
    if (this.queue.live >= this.maxQueued) {
      this.counters.backpressureRejections++;
      this.recorder.backpressureRejections++;
      return new BackpressureError(
        this.name,
        `${this.ring.size} requests in flight and ${this.queue.live} queued (maxQueuedRequests ${this.maxQueued})`,
      );
    }
    const p = emptyPending();
    p.api = api;
    p.request = request;
    p.version = version;
    p.timeoutMs = timeoutMs;
    // Held by a throttle, the request's clock starts when the broker lets us send again.
    p.deadlineMs =
      (this.throttleTimer === null ? Date.now() : Math.max(Date.now(), this.throttleEndMs)) +
      timeoutMs;
    p.live = true;
    p.resolve = resolve;
    p.reject = reject;
    p.context = context;
    p.handler = handler;
    p.trace = trace;
    if (signal !== null) {
      p.signal = signal;
      p.onAbort = () => {
        if (!p.live) return;
        const label = this.label(api);
        settle(p);
        this.queue.dropped();
        fail(reject, new AbortedError(label, signal.reason), context, handler);
      };
      signal.addEventListener('abort', p.onAbort, { once: true });
    }
    this.queue.push(p);
    this.armTimer(p.deadlineMs);
    if (this.currentState === 'idle') {
      this.startConnect().catch(() => {
        // The connect error reaches every queued request through shutdown().
      });
    }
    return SUBMITTED;
  }

  /**
   * Closes the connection for good: everything in flight or queued fails with a
   * non-retriable ConnectionError `ERR_KAFKA_CONNECTION_CLOSED`, or, with
   * `options.retriable` (the owner closes the connection, not the work on it), with a
   * retriable `ERR_KAFKA_CONNECTION_LOST` that says so, as Kafka's NetworkClient completes such
   * requests with a DisconnectException. Either way it is a close by the caller: no
   * `disconnect` event, and the `onClose` listeners get undefined. Resolves once the socket
   * is gone.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.currentState === 'closed') return;
    const socket = this.socket;
    this.closedByCaller = true;
    const reason = options.reason ?? 'connection closed';
    this.shutdown(
      options.retriable === true
        ? new ConnectionError(
            'ERR_KAFKA_CONNECTION_LOST',
            this.name,
            `closed by its owner: ${reason}`,
          )
        : new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', this.name, reason),
    );
    if (socket !== null && !socket.destroyed) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      });
    }
  }

  // ---------------------------------------------------------------- connect sequence

  private startConnect(): Promise<BrokerCapabilities> {
    const attempt = connectChannel.hasSubscribers ? this.tracedConnect() : this.runConnect(null);
    this.connectPromise = attempt;
    const clear = () => {
      if (this.connectPromise === attempt) this.connectPromise = null;
    };
    attempt.then(clear, clear);
    return attempt;
  }

  /** A connect under a `kafkats:connect` trace; only taken while someone subscribes. */
  private tracedConnect(): Promise<BrokerCapabilities> {
    const context: ConnectTraceContext = {
      broker: this.name,
      nodeId: this.nodeId ?? -1,
      host: this.address.host,
      port: this.address.port,
      owner: this.traceOwner,
      tls: this.#tls !== null,
      saslMechanism: this.#sasl?.mechanism ?? null,
      address: null,
      outcome: 'pending',
      durationMs: 0,
    };
    const started = performance.now();
    return connectChannel.tracePromise(
      () =>
        this.runConnect(context).then(
          (caps) => {
            context.outcome = 'ok';
            context.durationMs = performance.now() - started;
            return caps;
          },
          (error: unknown) => {
            context.outcome = 'error';
            context.durationMs = performance.now() - started;
            throw error;
          },
        ),
      context,
    );
  }

  private async runConnect(trace: ConnectTraceContext | null): Promise<BrokerCapabilities> {
    const started = performance.now();
    this.setState('connecting');
    const abort = new AbortController();
    this.connectAbort = abort;
    try {
      const socket = await openSocket(
        {
          name: this.name,
          address: this.address,
          resolver: this.resolver,
          tls: this.#tls,
          setupTimeoutMs: this.setupTimeoutMs,
        },
        abort.signal,
      );
      if (this.currentState === 'closed') {
        socket.destroy();
        throw this.endError;
      }
      this.attachSocket(socket);
      if (trace !== null) trace.address = remoteAddress(socket);
      this.setState('negotiating');
      const caps = await negotiateApiVersions(
        (api, request, version) =>
          this.internalRequest(api as ApiDescriptor<unknown, unknown>, request, version, true),
        this.name,
        this.softwareName,
        this.softwareVersion,
      );
      this.caps = caps;
      if (this.#sasl !== undefined) {
        const lifetimeMs = await authenticateSasl(this.#sasl, {
          broker: this.name,
          host: this.address.host,
          capabilities: caps,
          exchange: (api, request, version) =>
            this.internalRequest(api as ApiDescriptor<unknown, unknown>, request, version, false),
        });
        this.scheduleReauth(lifetimeMs);
      }
      if (this.closed) throw this.endError;
      this.connectAbort = null;
      this.recorder.connects++;
      this.setState('ready');
      this.log.info(
        {
          broker: this.name,
          nodeId: this.nodeId,
          address: this.socket === null ? null : remoteAddress(this.socket),
          tls: this.#tls !== null,
          sasl: this.#sasl?.mechanism ?? null,
          durationMs: Math.round(performance.now() - started),
        },
        'connected',
      );
      this.emit('ready', caps);
      this.pump();
      return caps;
    } catch (err) {
      this.connectAbort = null;
      if (this.currentState === 'closed') throw this.endError ?? err;
      const error = this.connectFailure(err);
      this.recorder.connectFailures++;
      if (error instanceof AuthenticationError) {
        this.log.error(
          { broker: this.name, nodeId: this.nodeId, ...errorFields(error) },
          'authentication failed: the connection will not be retried',
        );
      } else {
        this.log.info(
          { broker: this.name, nodeId: this.nodeId, ...errorFields(error) },
          'connect failed',
        );
      }
      this.shutdown(error);
      throw error;
    }
  }

  /** What a failed connect reports: authentication failures as they are, the rest retriable. */
  private connectFailure(err: unknown): KafkaError {
    if (err instanceof AuthenticationError || err instanceof ConnectionError) return err;
    const message = err instanceof Error ? err.message : String(err);
    // A protocol error during the handshake (e.g. a broken ApiVersions answer) is not a
    // credential problem: the owner may dial again.
    return new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      this.name,
      err instanceof KafkaError ? `handshake failed: ${message}` : `could not connect: ${message}`,
      { cause: err },
    );
  }

  private attachSocket(socket: Socket): void {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    this.reader.reset();
    this.writer.attach(socket);
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      try {
        this.reader.push(chunk);
      } catch (err) {
        if (this.socket !== socket) return;
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
      if (this.socket !== socket) return;
      // With TLS 1.3 the client finishes its handshake before the broker has checked the
      // client certificate: a refusal arrives as an alert on the first read. It is a
      // credential problem, fatal like any other, not a connection to dial again.
      if (this.#tls !== null && TLS_REFUSAL_ALERT.test((err as NodeJS.ErrnoException).code ?? '')) {
        this.shutdown(
          new AuthenticationError(
            'ERR_KAFKA_AUTHENTICATION_TLS',
            this.name,
            `the broker refused the TLS session: ${err.message} (check that the broker trusts the client certificate and that it is valid)`,
            { cause: err },
          ),
        );
        return;
      }
      this.connectionLost('ERR_KAFKA_CONNECTION_LOST', `socket error: ${err.message}`, err);
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.connectionLost('ERR_KAFKA_CONNECTION_LOST', 'connection closed by the broker');
    });
  }

  /** A request of the connect sequence (or re-authentication), sent whatever the state. */
  private internalRequest(
    api: ApiDescriptor<unknown, unknown>,
    request: unknown,
    version: number,
    raw: boolean,
  ): Promise<never> {
    if (this.socket === null) return Promise.reject(this.endError);
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
      let frame: Buffer[];
      try {
        frame = encodeRequestFrameChunks(api, version, slot.correlationId, this.clientId, request);
      } catch (err) {
        this.ring.unacquire(slot);
        reject(err);
        return;
      }
      this.occupy(slot, api, version, raw, this.requestTimeoutMs, resolve as never, reject);
      this.writer.enqueue(frame);
    });
  }

  // ---------------------------------------------------------------- hot path

  /**
   * New requests wait while SASL re-authentication is due or running (KIP-368), and while the
   * broker throttles the connection (KIP-219).
   */
  private paused(): boolean {
    return this.reauthDue || this.reauthenticating || this.throttleTimer !== null;
  }

  /**
   * An answer asked us to send nothing for `ms` (KIP-219; Kafka's NetworkClient marks the
   * node throttled, and `ready` is false until then): later requests wait in the queue, and
   * the time they wait is not charged to their timeout.
   */
  private throttle(ms: number, trace: RequestTraceContext | null): void {
    const endAt = performance.now() + ms;
    this.counters.throttles++;
    this.counters.throttleTimeMs += ms;
    this.recorder.throttles++;
    this.recorder.throttleTimeMs += ms;
    if (trace !== null) trace.throttledUntil = endAt;
    if (endAt <= this.throttleEndAt && this.throttleTimer !== null) return;
    const nowMs = Date.now();
    const endMs = nowMs + ms;
    const added = endMs - Math.max(nowMs, this.throttleTimer === null ? nowMs : this.throttleEndMs);
    this.throttleEndAt = endAt;
    this.throttleEndMs = endMs;
    this.queue.forEach((p) => {
      p.deadlineMs += added;
    });
    if (this.throttleTimer !== null) clearTimeout(this.throttleTimer);
    this.throttleTimer = setTimeout(this.onThrottleEndBound, ms);
    this.throttleTimer.unref?.();
    this.log.debug(
      { broker: this.name, nodeId: this.nodeId, throttleTimeMs: ms },
      'throttled by the broker',
    );
  }

  private onThrottleEnd(): void {
    // A timer may fire a fraction of a millisecond early: never write before the end.
    const left = this.throttleEndAt - performance.now();
    if (left > 0) {
      this.throttleTimer = setTimeout(this.onThrottleEndBound, Math.ceil(left));
      this.throttleTimer.unref?.();
      return;
    }
    this.throttleTimer = null;
    this.pump();
  }

  private label(api: ApiDescriptor<unknown, unknown>): string {
    return `${this.name}: ${api.name}`;
  }

  /** Fills a just-acquired slot and starts its clock. */
  private occupy(
    slot: PipelineSlot<PendingRequest>,
    api: ApiDescriptor<unknown, unknown>,
    version: number,
    raw: boolean,
    timeoutMs: number,
    resolve: OnAnswer,
    reject: OnFailure,
    context: unknown = null,
    handler = false,
  ): void {
    const w = slot.data;
    w.api = api;
    w.version = version;
    w.raw = raw;
    w.timeoutMs = timeoutMs;
    w.live = true;
    w.resolve = resolve;
    w.reject = reject;
    w.context = context;
    w.handler = handler;
    const now = Date.now();
    slot.deadlineMs = now + timeoutMs;
    w.deadlineMs = slot.deadlineMs;
    w.sentAtMs = performance.now();
    this.activityMs = now;
    this.armTimer(slot.deadlineMs);
  }

  /**
   * Encodes and writes one request into a free slot (the caller checked there is one).
   * Returns SUBMITTED, or the error that kept it from being written (nothing settled then).
   */
  private dispatch(
    api: ApiDescriptor<unknown, unknown>,
    request: unknown,
    pinned: number,
    deadlineMs: number,
    timeoutMs: number,
    signal: AbortSignal | null,
    resolve: OnAnswer,
    reject: OnFailure,
    context: unknown,
    handler: boolean,
    trace: RequestTraceContext | null,
  ): unknown {
    const caps = this.caps as BrokerCapabilities;
    let version: number;
    try {
      version = caps.requireVersion(api, this.name, pinned < 0 ? undefined : pinned);
    } catch (err) {
      return err;
    }
    if (isOneWay(api, request)) {
      let frame: Buffer[];
      const correlationId = this.ring.nextId();
      try {
        frame = encodeRequestFrameChunks(api, version, correlationId, this.clientId, request);
      } catch (err) {
        return err;
      }
      this.activityMs = Date.now();
      const bytes = frameBytes(frame);
      this.recorder.requests++;
      this.recorder.bytesOut += bytes;
      if (trace !== null) {
        trace.version = version;
        trace.correlationId = correlationId;
        trace.bytesOut = bytes;
        trace.writtenAt = performance.now();
      }
      // Settles either way: written (resolve) or dropped with the socket (the teardown error).
      this.writer.enqueue(frame, (dropped) => {
        if (dropped === null) answer(resolve, api.createResponse(), context, handler);
        else fail(reject, dropped, context, handler);
      });
      return SUBMITTED;
    }
    const slot = this.ring.acquire() as PipelineSlot<PendingRequest>;
    let frame: Buffer[];
    try {
      frame = encodeRequestFrameChunks(api, version, slot.correlationId, this.clientId, request);
    } catch (err) {
      this.ring.unacquire(slot);
      return err;
    }
    // The remaining time of a request that waited in the queue, not a fresh timeout.
    const left = Math.max(1, deadlineMs - Date.now());
    this.occupy(slot, api, version, false, left, resolve, reject, context, handler);
    slot.data.timeoutMs = timeoutMs;
    this.recorder.requests++;
    const bytes = frameBytes(frame);
    this.recorder.bytesOut += bytes;
    if (trace !== null) {
      slot.data.trace = trace;
      trace.version = version;
      trace.correlationId = slot.correlationId;
      trace.bytesOut = bytes;
      trace.writtenAt = performance.now();
    }
    if (signal !== null) {
      const id = slot.correlationId;
      const w = slot.data;
      w.signal = signal;
      w.onAbort = () => {
        if (slot.correlationId !== id || slot.state !== SlotState.Waiting) return;
        const rejectAborted = w.reject;
        const label = this.label(api);
        settle(w);
        // Still on the wire: its answer will come and must be read and dropped.
        slot.state = SlotState.Tombstone;
        if (rejectAborted !== null)
          fail(rejectAborted, new AbortedError(label, signal.reason), context, handler);
      };
      signal.addEventListener('abort', w.onAbort, { once: true });
    }
    this.writer.enqueue(frame);
    return SUBMITTED;
  }

  private onFrame(frame: Buffer): void {
    this.counters.framesRead++;
    this.activityMs = Date.now();
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
    const tombstone = slot.state === SlotState.Tombstone;
    const api = w.api;
    const version = w.version;
    const raw = w.raw;
    const resolve = w.resolve;
    const reject = w.reject;
    const context = w.context;
    const handler = w.handler;
    const trace = w.trace;
    const metrics = this.recorder;
    metrics.responses++;
    metrics.bytesIn += frame.length + 4;
    if (api !== null && !raw) {
      metrics.recordLatency(api.apiKey, (performance.now() - w.sentAtMs) * 1000);
    }
    settle(w);
    this.ring.release(slot);
    if (tombstone || api === null || resolve === null || reject === null) {
      this.counters.lateResponsesDiscarded++;
    } else if (raw) {
      resolve(frame, null);
    } else {
      let body: unknown;
      let failed: unknown = null;
      try {
        body = decodeResponseFrame(api, version, frame).body;
      } catch (err) {
        failed = err;
      }
      let throttleMs = 0;
      if (failed === null) {
        const t = (body as { throttleTimeMs?: unknown }).throttleTimeMs;
        if (typeof t === 'number' && t > 0) throttleMs = t;
      }
      if (trace !== null) {
        trace.bytesIn = frame.length + 4;
        const code = (body as { errorCode?: unknown } | undefined)?.errorCode;
        trace.errorCode = typeof code === 'number' ? code : 0;
        trace.throttleTimeMs = throttleMs;
      }
      if (throttleMs > 0 && clientThrottles(api.apiKey, version)) this.throttle(throttleMs, trace);
      // The frame was read whole, so the stream is still in step: only this request fails.
      if (failed === null) answer(resolve, body, context, handler);
      else fail(reject, failed, context, handler);
    }
    this.pump();
  }

  /** Moves queued requests into free slots while the connection is ready. */
  private pump(): void {
    if (this.currentState !== 'ready' || this.throttleTimer !== null) return;
    if (this.reauthDue) {
      if (this.ring.size === 0) this.runReauth();
      return;
    }
    if (this.reauthenticating) return;
    while (this.queue.live > 0 && !this.ring.isFull) {
      const p = this.queue.shift() as PendingRequest;
      const { api, request, version, deadlineMs, timeoutMs, signal, resolve, reject } = p;
      const { context, handler, trace } = p;
      settle(p);
      const refused = this.dispatch(
        api as ApiDescriptor<unknown, unknown>,
        request,
        version,
        deadlineMs,
        timeoutMs,
        signal,
        resolve as OnAnswer,
        reject as OnFailure,
        context,
        handler,
        trace,
      );
      if (refused !== SUBMITTED) fail(reject as OnFailure, refused, context, handler);
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

  /**
   * A request on the wire past its deadline closes the connection (Kafka's NetworkClient
   * disconnects on a request timeout too): the broker answers in order, so everything behind
   * the late answer would wait for it, and a new connection serves the next call at once.
   * A queued request past its deadline fails alone: it never reached the broker.
   */
  private onTimer(): void {
    this.timer = null;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    let expired: PendingRequest | null = null;
    let expiredTombstone = false;
    this.ring.forEach((slot) => {
      if (slot.deadlineMs <= now) {
        if (slot.state === SlotState.Waiting) expired ??= slot.data;
        else expiredTombstone = true;
      }
      next = Math.min(next, slot.deadlineMs);
    });
    if (expired !== null || expiredTombstone) {
      let message = 'an aborted request got no answer in time: closing the connection';
      if (expired !== null) {
        const w: PendingRequest = expired;
        const reject = w.reject;
        const { context, handler } = w;
        const what = `${w.api?.name ?? 'request'} v${w.version}`;
        const timeoutMs = w.timeoutMs;
        settle(w);
        this.counters.requestTimeouts++;
        this.recorder.requestTimeouts++;
        this.log.warn(
          { broker: this.name, nodeId: this.nodeId, request: what, timeoutMs },
          'request timed out: closing the connection',
        );
        if (reject !== null)
          fail(reject, new RequestTimeoutError(this.name, what, timeoutMs), context, handler);
        message = `closed after ${what} got no response in ${timeoutMs} ms`;
      }
      this.connectionLost('ERR_KAFKA_CONNECTION_LOST', message);
      return;
    }
    this.queue.forEach((p) => {
      if (p.deadlineMs <= now) {
        const reject = p.reject;
        const { context, handler } = p;
        const label = `${p.api?.name ?? 'request'} (queued, ${this.currentState})`;
        const timeoutMs = p.timeoutMs;
        settle(p);
        this.queue.dropped();
        if (reject !== null)
          fail(reject, new RequestTimeoutError(this.name, label, timeoutMs), context, handler);
      } else {
        next = Math.min(next, p.deadlineMs);
      }
    });
    if (next !== Number.POSITIVE_INFINITY) this.armTimer(next);
  }

  // ---------------------------------------------------------------- the end

  /** The socket is gone or cannot be trusted: close for good with a retriable error. */
  private connectionLost(code: ConnectionErrorCode, message: string, cause?: unknown): void {
    if (this.currentState === 'closed') return;
    // A socket lost before the handshake finished is a connect that failed.
    const reported =
      code === 'ERR_KAFKA_CONNECTION_LOST' && this.currentState !== 'ready'
        ? 'ERR_KAFKA_CONNECTION_FAILED'
        : code;
    this.shutdown(
      new ConnectionError(reported, this.name, message, cause === undefined ? {} : { cause }),
    );
  }

  /**
   * The one way a connection ends: drops the socket, fails everything in flight or queued with
   * `error`, and tells the listeners. Emits `disconnect` when a ready connection was lost
   * (not closed by the caller).
   */
  private shutdown(error: KafkaError): void {
    if (this.currentState === 'closed') return;
    const wasReady = this.currentState === 'ready';
    this.endError = error;
    this.connectAbort?.abort(error);
    this.connectAbort = null;
    for (const t of [this.timer, this.reauthTimer, this.throttleTimer]) {
      if (t !== null) clearTimeout(t);
    }
    this.timer = null;
    this.throttleTimer = null;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    this.reauthTimer = null;
    this.reauthDue = false;
    this.reauthenticating = false;
    this.caps = null;
    this.reader.stop();
    this.writer.attach(null, error);
    const socket = this.socket;
    this.socket = null;
    if (socket !== null) {
      socket.removeAllListeners('data');
      socket.on('error', () => {});
      if (!this.closedByCaller) socket.destroy();
    }
    let inFlight = 0;
    this.ring.drain((slot) => {
      const { reject, context, handler } = slot.data;
      if (slot.state === SlotState.Waiting) inFlight++;
      settle(slot.data);
      if (reject !== null) fail(reject, error, context, handler);
    });
    this.queue.drain((p) => {
      const { reject, context, handler } = p;
      settle(p);
      if (reject !== null) fail(reject, error, context, handler);
    });
    this.setState('closed');
    if (wasReady) {
      this.log.info(
        this.closedByCaller
          ? { broker: this.name, nodeId: this.nodeId }
          : { broker: this.name, nodeId: this.nodeId, inFlight, ...errorFields(error) },
        this.closedByCaller ? 'connection closed' : 'connection lost',
      );
    }
    if (wasReady && !this.closedByCaller) {
      this.emit('disconnect', { broker: this.name, nodeId: this.nodeId, error, inFlight });
    }
    const reported = this.closedByCaller ? undefined : error;
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) listener(reported);
  }

  private setState(next: ConnectionState): void {
    const previous = this.currentState;
    if (previous === next) return;
    this.currentState = next;
    this.emit('state', next, previous);
  }

  // ---------------------------------------------------------------- KIP-368 re-authentication

  private scheduleReauth(lifetimeMs: number): void {
    if (!(lifetimeMs > 0)) return;
    // Like Java: somewhere in 85-95% of the session lifetime, so a fleet does not re-auth at once.
    const delay = Math.max(0, Math.floor(lifetimeMs * (0.85 + 0.1 * this.random())));
    const socket = this.socket;
    this.reauthTimer = setTimeout(() => {
      this.reauthTimer = null;
      if (this.socket !== socket || this.currentState !== 'ready') return;
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
    const socket = this.socket;
    authenticateSasl(sasl, {
      broker: this.name,
      host: this.address.host,
      capabilities: caps,
      exchange: (api, request, version) =>
        this.internalRequest(api as ApiDescriptor<unknown, unknown>, request, version, false),
    }).then(
      (lifetimeMs) => {
        if (this.socket !== socket || this.currentState !== 'ready') return;
        this.log.debug({ broker: this.name, nodeId: this.nodeId, lifetimeMs }, 're-authenticated');
        this.reauthenticating = false;
        this.scheduleReauth(lifetimeMs);
        this.pump();
      },
      (err: unknown) => {
        if (this.socket !== socket || this.currentState === 'closed') return;
        this.log.error(
          { broker: this.name, nodeId: this.nodeId, ...errorFields(err) },
          're-authentication failed: closing the connection',
        );
        // A refusal is fatal; anything else (the connection lost, a token endpoint that could
        // not be reached) closes this connection only: its owner may dial again.
        this.shutdown(
          err instanceof AuthenticationError
            ? err
            : new ConnectionError(
                'ERR_KAFKA_CONNECTION_LOST',
                this.name,
                `re-authentication failed: ${err instanceof Error ? err.message : String(err)}`,
                { cause: err },
              ),
        );
      },
    );
  }
}

/** Produce (key 0) with acks=0: Kafka sends no response at all. */
function isOneWay(api: ApiDescriptor<unknown, unknown>, request: unknown): boolean {
  return api.apiKey === 0 && (request as { acks?: number }).acks === 0;
}

/** `ip:port` of the broker end of a socket (`[v6]:port` for IPv6). */
function remoteAddress(socket: Socket): string {
  const host = socket.remoteAddress ?? '?';
  return `${host.includes(':') ? `[${host}]` : host}:${socket.remotePort ?? '?'}`;
}

/** A frame's length, size prefix included, from its pieces. */
function frameBytes(pieces: readonly Buffer[]): number {
  let n = 0;
  for (let i = 0; i < pieces.length; i++) n += (pieces[i] as Buffer).length;
  return n;
}
