import { KafkaError } from '@kafkats/codec';

/**
 * The connection to a broker failed or was lost: connect refused, reset, closed by either
 * side, or recycled after a protocol desync. Retriable: the request may be sent again on a
 * new connection (meta invalidates what that broker led).
 *
 * Codes: `ERR_KAFKA_CONNECTION_FAILED` (could not connect), `ERR_KAFKA_CONNECTION_LOST`
 * (dropped with requests in flight, or closed under them by its owner with `retriable`, as
 * when meta's pool leaves a broker that moved), `ERR_KAFKA_CONNECTION_CLOSED` (closed by the
 * caller, final: the one code that is not retriable),
 * `ERR_KAFKA_CONNECTION_DESYNC` (bad frame or correlation id: the stream cannot be trusted),
 * `ERR_KAFKA_CONNECTION_FRAME_TOO_LARGE` (a response over `maxResponseBytes`).
 */
export class ConnectionError extends KafkaError {
  /** `broker <id> (<host:port>)`, the broker this connection talks to. */
  readonly broker: string;

  constructor(
    code: ConnectionErrorCode,
    broker: string,
    message: string,
    options: { retriable?: boolean; cause?: unknown } = {},
  ) {
    super(code, `${broker}: ${message}`, {
      retriable: options.retriable ?? code !== 'ERR_KAFKA_CONNECTION_CLOSED',
      cause: options.cause,
    });
    this.broker = broker;
  }
}

/** The stable codes a {@link ConnectionError} carries. */
export type ConnectionErrorCode =
  | 'ERR_KAFKA_CONNECTION_FAILED'
  | 'ERR_KAFKA_CONNECTION_LOST'
  | 'ERR_KAFKA_CONNECTION_CLOSED'
  | 'ERR_KAFKA_CONNECTION_DESYNC'
  | 'ERR_KAFKA_CONNECTION_FRAME_TOO_LARGE';

/**
 * Every in-flight slot is busy and the bounded wait queue is full (or the policy is
 * `'reject'`). Code `ERR_KAFKA_CONNECTION_BACKPRESSURE`; retriable: try again later.
 */
export class BackpressureError extends KafkaError {
  constructor(broker: string, detail: string) {
    super('ERR_KAFKA_CONNECTION_BACKPRESSURE', `${broker}: ${detail}`, { retriable: true });
  }
}

/**
 * A request got no answer within its timeout (`requestTimeoutMs` or the per-call option),
 * counted from the `send` call, so time spent connecting or backing off counts too.
 * Code `ERR_KAFKA_REQUEST_TIMEOUT`; retriable.
 */
export class RequestTimeoutError extends KafkaError {
  constructor(broker: string, request: string, timeoutMs: number) {
    super('ERR_KAFKA_REQUEST_TIMEOUT', `${broker}: ${request} got no response in ${timeoutMs} ms`, {
      retriable: true,
    });
  }
}

/**
 * The broker cannot take this API at any version we can send, or not at the pinned
 * version. Raised before anything is written. Code `ERR_KAFKA_VERSION_UNSUPPORTED`; not
 * retriable on this connection.
 */
export class UnsupportedVersionError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_VERSION_UNSUPPORTED', message, { retriable: false });
  }
}

/**
 * SASL or TLS authentication failed. Fatal and never retried by the connection: fix the
 * credential or the trust store. The message carries the broker's own reason (SaslAuthenticate
 * `errorMessage`) or the TLS verification error, never the credentials.
 * Codes: `ERR_KAFKA_AUTHENTICATION_FAILED` (SASL), `ERR_KAFKA_AUTHENTICATION_TLS` (TLS),
 * `ERR_KAFKA_AUTHENTICATION_MECHANISM` (the broker does not enable the mechanism).
 */
export class AuthenticationError extends KafkaError {
  readonly broker: string;

  constructor(
    code:
      | 'ERR_KAFKA_AUTHENTICATION_FAILED'
      | 'ERR_KAFKA_AUTHENTICATION_TLS'
      | 'ERR_KAFKA_AUTHENTICATION_MECHANISM',
    broker: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, `${broker}: ${message}`, { retriable: false, cause: options.cause });
    this.broker = broker;
  }
}

/**
 * The caller cancelled the request through its `AbortSignal`. A request already written is
 * left in its slot and its late answer discarded, so the connection stays in step.
 * Code `ERR_KAFKA_ABORTED`; never retriable; `cause` is the signal's reason.
 */
export class AbortedError extends KafkaError {
  constructor(what: string, reason: unknown) {
    super('ERR_KAFKA_ABORTED', `${what}: aborted`, { retriable: false, cause: reason });
  }
}
