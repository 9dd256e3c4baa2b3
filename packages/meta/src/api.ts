/**
 * The part of a codec API descriptor (`MetadataApi`, `ProduceApi`, ...) the cluster needs:
 * the key to route by, a name for messages, and the request/response types carried by
 * `createRequest` and `decodeResponse`.
 */
export interface ApiLike {
  readonly apiKey: number;
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: only the return type is read
  createRequest(...args: any[]): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: only the return type is read
  decodeResponse(...args: any[]): unknown;
}

/** The request message type of an API descriptor. */
export type RequestOf<A extends ApiLike> = ReturnType<A['createRequest']>;
/** The response message type of an API descriptor. */
export type ResponseOf<A extends ApiLike> = ReturnType<A['decodeResponse']>;

/** Per-call options for a send. */
export interface SendOptions {
  /** Give up waiting for this one request after this many ms (the connection's default otherwise). */
  readonly timeoutMs?: number;
}

/**
 * What the cluster needs from one broker connection. The real one wraps the wire's
 * `BrokerConnection` (ApiVersions already negotiated when the factory resolves); tests inject
 * fakes.
 */
export interface MetaConnection {
  /** Sends at the negotiated version; rejects with a retriable error when the connection drops. */
  send<A extends ApiLike>(
    api: A,
    request: RequestOf<A>,
    options?: SendOptions,
  ): Promise<ResponseOf<A>>;
  /** The version `send` uses for an API key, or undefined when the broker does not support it. */
  negotiatedVersion(apiKey: number): number | undefined;
  /** True once the connection is closed or lost; the pool then opens a new one. */
  readonly closed: boolean;
  /** Calls `listener` once when the connection drops or closes. Returns an unsubscribe. */
  onClose(listener: (error: Error | undefined) => void): () => void;
  /** Closes the socket; in-flight requests fail. */
  close(): Promise<void>;
}

/** Where a connection goes. `label` names it in errors: `broker 3 (127.0.0.1:9092)`. */
export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  /** Absent for a bootstrap address. */
  readonly nodeId?: number;
  readonly label: string;
}

/** Opens connections. Rejects with a retriable error when the broker cannot be reached. */
export type ConnectionFactory = (target: ConnectTarget) => Promise<MetaConnection>;
