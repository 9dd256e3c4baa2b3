import { KafkaError, ProtocolError } from '@kafkats/codec';
import {
  type Cluster,
  type ClusterSendOptions,
  OperationTimeoutError,
  retryDelayMs,
  sleep,
} from '@kafkats/meta';
import { AbortedError } from '@kafkats/wire';
import type { AdminCallOptions } from '../admin-options.js';

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * One admin call: its deadline (Kafka's per-call `timeoutMs`, default
 * `default.api.timeout.ms`), its abort signal, and the backoff between the rounds the admin
 * runs itself (per-item retries, coordinator moves). Every cluster send inside the call gets
 * the time left as its `operationTimeoutMs`, so no retry at any level outlives the call.
 */
export class AdminCall {
  readonly cluster: Cluster;
  readonly what: string;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;

  constructor(cluster: Cluster, what: string, options: AdminCallOptions = {}) {
    this.cluster = cluster;
    this.what = what;
    this.deadline = Date.now() + (options.timeoutMs ?? cluster.retryPolicy.operationTimeoutMs);
    this.signal = options.signal;
  }

  remainingMs(): number {
    return this.deadline - Date.now();
  }

  /**
   * Options for one cluster send: the time the call has left and its signal.
   * @throws OperationTimeoutError when no time is left
   */
  sendOptions(extra: ClusterSendOptions = {}): ClusterSendOptions {
    const left = this.remainingMs();
    if (left <= 0) throw this.timedOut(undefined);
    return {
      operationTimeoutMs: left,
      ...(this.signal === undefined ? {} : { signal: this.signal }),
      ...extra,
    };
  }

  /**
   * The broker-side wait for APIs that carry one (CreateTopics, DeleteRecords `timeoutMs`):
   * the time left, capped at the request timeout so the broker answers before our own request
   * gives up on it (a retry after our timeout would find the topic already created).
   */
  serverTimeoutMs(): number {
    return Math.max(1, Math.min(this.remainingMs(), this.cluster.requestTimeoutMs));
  }

  timedOut(cause: unknown): OperationTimeoutError {
    const last = cause === undefined ? '' : `; last error: ${asError(cause).message}`;
    return new OperationTimeoutError(
      `${this.what}: no answer within the call's deadline${last}`,
      cause,
    );
  }

  /**
   * Waits the retry backoff before round `round` (2 = the first retry), as the cluster's
   * policy spaces attempts. Resolves false, without waiting, when the wait would pass the
   * deadline. Rejects with `AbortedError` when the signal fires.
   */
  async backoff(round: number): Promise<boolean> {
    const delay = retryDelayMs(this.cluster.retryPolicy, round);
    if (Date.now() + delay >= this.deadline) return false;
    this.throwIfAborted();
    if (delay > 0) await sleep(delay, this.signal, this.what);
    return true;
  }

  throwIfAborted(): void {
    if (this.signal?.aborted) throw new AbortedError(this.what, this.signal.reason);
  }
}

/** The error for a non-zero code from a response, with the broker's message when it sent one. */
export function brokerError(code: number, context: string, message?: string | null): ProtocolError {
  return ProtocolError.fromCode(code, message ? `${context} (${message})` : context);
}

/** `brokerError` for a non-zero code, undefined for 0 (NONE). */
export function errorOrUndefined(
  code: number,
  context: string,
  message?: string | null,
): ProtocolError | undefined {
  return code === 0 ? undefined : brokerError(code, context, message);
}

/**
 * Partial success is normal, but a call where no item got any answer from a broker failed as
 * a whole: when every item carries an error that is not a broker's verdict on that item (a
 * connection, timeout or authentication failure), that error is thrown instead of returned.
 * A call with no items returns as it is.
 */
export function throwIfNothingAnswered(errors: readonly (Error | undefined)[]): void {
  if (errors.length === 0) return;
  let first: Error | undefined;
  for (const error of errors) {
    if (error === undefined || error instanceof ProtocolError) return;
    first ??= error;
  }
  if (first !== undefined) throw first;
}

/** Rethrows what must end the whole call at once (an abort, a closed cluster); else returns it. */
export function asItemError(error: unknown): KafkaError {
  if (error instanceof AbortedError) throw error;
  if (error instanceof KafkaError) return error;
  throw error;
}
