import { KafkaError } from '@kafkats/codec';

/**
 * The producer was closed (or is closing) before the record could be accepted or delivered.
 * Code `ERR_KAFKA_PRODUCER_CLOSED`; not retriable on this producer.
 */
export class ProducerClosedError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_PRODUCER_CLOSED', message, { retriable: false });
  }
}

/**
 * `send` waited `maxBlockMs` for room in the producer's buffer (`bufferMemory`) or for a topic's
 * metadata and got neither. Code `ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED` or
 * `ERR_KAFKA_PRODUCER_METADATA_TIMEOUT` (the topic does not exist, has no such partition, or no
 * broker answered for it: the message says which; `cause` the broker's error, when one came);
 * retriable (later, with less load or once the topic exists).
 */
export class ProducerBlockedError extends KafkaError {
  /** The topic of the record that waited. */
  readonly topic: string;

  constructor(
    code: 'ERR_KAFKA_PRODUCER_BUFFER_EXHAUSTED' | 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
    message: string,
    topic: string,
    cause?: unknown,
  ) {
    super(code, message, { retriable: true, ...(cause === undefined ? {} : { cause }) });
    this.topic = topic;
  }
}

/**
 * A record was not acknowledged within `deliveryTimeoutMs` of its `send`. `cause` is the last
 * error its batch met, if any. Code `ERR_KAFKA_PRODUCER_DELIVERY_TIMEOUT`; retriable (the
 * record may or may not have been written).
 */
export class DeliveryTimeoutError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super('ERR_KAFKA_PRODUCER_DELIVERY_TIMEOUT', message, {
      retriable: true,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * A record larger than `maxRequestSize` or `bufferMemory` (serialized estimate). Code
 * `ERR_KAFKA_PRODUCER_RECORD_TOO_LARGE`; not retriable.
 */
export class RecordTooLargeError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_PRODUCER_RECORD_TOO_LARGE', message, { retriable: false });
  }
}

/**
 * The producer can no longer be used: every pending and later call fails with this error.
 * `cause` is the broker or connection error behind it (CLUSTER_AUTHORIZATION_FAILED,
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED, an unsupported version, ...). Code
 * `ERR_KAFKA_PRODUCER_FATAL`; not retriable: close the producer and make a new one.
 */
export class ProducerFatalError extends KafkaError {
  constructor(message: string, cause?: unknown, code = 'ERR_KAFKA_PRODUCER_FATAL') {
    super(code, message, { retriable: false, ...(cause === undefined ? {} : { cause }) });
  }
}

/**
 * Another producer with the same `transactionalId` has initialized (PRODUCER_FENCED, or
 * INVALID_PRODUCER_EPOCH from the transaction coordinator): this one is a zombie and fatal from
 * now on. Code `ERR_KAFKA_PRODUCER_FENCED`; not retriable.
 */
export class ProducerFencedError extends ProducerFatalError {
  constructor(message: string, cause?: unknown) {
    super(message, cause, 'ERR_KAFKA_PRODUCER_FENCED');
  }
}

/**
 * A transactional call out of order (`send` outside a transaction, `commitTransaction` without
 * `beginTransaction`, `initTransactions` twice, a transactional call on a producer without
 * `transactionalId`). Code `ERR_KAFKA_TRANSACTION_INVALID_STATE`; not retriable.
 */
export class TransactionStateError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_TRANSACTION_INVALID_STATE', message, { retriable: false });
  }
}

/**
 * The current transaction cannot commit (a record of it failed, or the coordinator refused a
 * step): call `abortTransaction()`, then start again. `cause` is the first error. Code
 * `ERR_KAFKA_TRANSACTION_ABORTABLE`; not retriable as such (the abort is the recovery).
 */
export class TransactionAbortableError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super('ERR_KAFKA_TRANSACTION_ABORTABLE', message, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * Invalid producer options (for example `idempotent: true` with `acks: 1`, or
 * `deliveryTimeoutMs` below `lingerMs + requestTimeoutMs`). Code
 * `ERR_KAFKA_PRODUCER_CONFIG_INVALID`; not retriable.
 */
export class ProducerConfigError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_PRODUCER_CONFIG_INVALID', message, { retriable: false });
  }
}
