import { KafkaError } from '@kafkats/codec';
import type { ClusterConfig } from '@kafkats/meta';

/**
 * How {@link Admin.connect} builds the cluster it owns: every `ClusterConfig` field (TLS and
 * SASL under `connection`, `requestTimeoutMs` default 30000 as Kafka's `request.timeout.ms`,
 * `retry.operationTimeoutMs` default 60000 as Kafka's `default.api.timeout.ms`, retry backoff
 * 100 ms to 1000 ms as `retry.backoff.ms`/`retry.backoff.max.ms`).
 */
export type AdminOptions = ClusterConfig;

/** Options every admin call takes. Every field has a default. */
export interface AdminCallOptions {
  /**
   * The whole call's deadline, ms, retries and metadata lookups included (Kafka's per-call
   * `timeoutMs`). Default: the cluster's `retry.operationTimeoutMs` (60000, as Kafka's
   * `default.api.timeout.ms`). Running out rejects with `OperationTimeoutError`
   * (`ERR_KAFKA_OPERATION_TIMEOUT`), or sets it as the `error` of the items still unanswered
   * when others were answered.
   */
  readonly timeoutMs?: number;
  /** Cancels the call: it rejects at once with `AbortedError` (`ERR_KAFKA_ABORTED`). */
  readonly signal?: AbortSignal;
}

/**
 * A call on an {@link Admin} after `close()`. Code `ERR_KAFKA_ADMIN_CLOSED`; not retriable.
 */
export class AdminClosedError extends KafkaError {
  constructor(what: string) {
    super('ERR_KAFKA_ADMIN_CLOSED', `${what}: the admin client is closed`, { retriable: false });
  }
}
