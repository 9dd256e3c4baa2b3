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
 * The cluster was closed (`Cluster.close()`, or the broker pool under it): no request is sent
 * after that. Code `ERR_KAFKA_CLUSTER_CLOSED`; not retriable: open a new `Cluster`.
 */
export class ClusterClosedError extends KafkaError {
  constructor(what = 'the cluster is closed') {
    super('ERR_KAFKA_CLUSTER_CLOSED', `${what}: no requests are sent after close()`, {
      retriable: false,
    });
  }
}

/**
 * A read-only cluster refused to send a mutating request: an API of the access table's
 * `write` class (also where an unclassified API falls), or a request of a `read` API that
 * would still change the cluster (`detail` says how, e.g. Metadata allowing auto topic
 * creation). Nothing reaches a broker. Not retriable. Code `ERR_KAFKA_READ_ONLY`.
 */
export class ReadOnlyError extends KafkaError {
  readonly apiKey: number;

  constructor(apiName: string, apiKey: number, detail?: string) {
    super(
      'ERR_KAFKA_READ_ONLY',
      `${apiName} (key ${apiKey}) ${detail === undefined ? 'changes the cluster' : `changes the cluster: ${detail}`}; this cluster was opened read-only`,
      { retriable: false },
    );
    this.apiKey = apiKey;
  }
}
