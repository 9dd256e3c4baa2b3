import { KafkaError } from '@kafkats/codec';

/**
 * An operation ran out of its `operationTimeoutMs` before any attempt succeeded. `cause` is the
 * last attempt's error (a request timeout, a connection failure, a broker error). Retriable:
 * the operation as a whole may succeed when the caller tries it again later, so a layer above
 * (a producer's delivery timeout, a reader's poll loop) can decide for itself.
 * Code `ERR_KAFKA_OPERATION_TIMEOUT`.
 */
export class OperationTimeoutError extends KafkaError {
  constructor(message: string, cause: unknown) {
    super('ERR_KAFKA_OPERATION_TIMEOUT', message, { retriable: true, cause });
  }
}

/**
 * A node id the metadata does not (yet) give an address for. Retriable after a metadata
 * refresh: a broker that just joined is in the next Metadata answer.
 * Code `ERR_KAFKA_POOL_UNKNOWN_NODE`.
 */
export class UnknownNodeError extends KafkaError {
  readonly nodeId: number;

  constructor(nodeId: number) {
    super('ERR_KAFKA_POOL_UNKNOWN_NODE', `broker ${nodeId} is not in the metadata`, {
      retriable: true,
    });
    this.nodeId = nodeId;
  }
}

/**
 * The pool or cluster is closed, or a connection it opened has no owner any more.
 * Code `ERR_KAFKA_POOL_CLOSED`; retriable only when the pool itself is still open (the
 * connection was superseded by a newer one to the same node).
 */
export class PoolClosedError extends KafkaError {
  constructor(message: string, retriable = false) {
    super('ERR_KAFKA_POOL_CLOSED', message, { retriable });
  }
}
