// kafkajs's error classes, with the names, `retriable` flags and fields its users' `catch`
// blocks test. Every error a facade call rejects with is one of these; the kafkats error it was
// made from is its `cause`, so the exact code (`ERR_KAFKA_...`) and details stay reachable.

import {
  AuthenticationError,
  ConnectionError,
  DeliveryTimeoutError,
  FetchPartitionError,
  KafkaError,
  OffsetOutOfRangeError,
  OperationTimeoutError,
  ProtocolError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from '@kafkats/client';
import { brokerErrorInfo } from '@kafkats/codec';

interface ErrorOptions {
  retriable?: boolean | undefined;
  cause?: unknown;
}

/**
 * What kafkajs says of a broker error code: Kafka's description of it (kafkajs's messages are
 * Kafka's, without the closing period). The request, topic and partition kats names are in the
 * kats error, the `cause`.
 */
function brokerErrorText(e: ProtocolError): string {
  const text = brokerErrorInfo(e.errorCode)?.message;
  return text === undefined ? e.message : text.replace(/\.$/, '');
}

/** The root of kafkajs's errors. `retriable` defaults to true, as kafkajs's does. */
export class KafkaJSError extends Error {
  retriable: boolean;
  helpUrl?: string;

  constructor(e: string | Error, options: ErrorOptions = {}) {
    const message = typeof e === 'string' ? e : e.message;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KafkaJSError';
    this.retriable = options.retriable ?? true;
  }
}

export class KafkaJSNonRetriableError extends KafkaJSError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, { ...options, retriable: false });
    this.name = 'KafkaJSNonRetriableError';
  }
}

/** A broker's error code: `type` is Kafka's name for it, `code` the number. */
export class KafkaJSProtocolError extends KafkaJSError {
  type: string;
  code: number;

  constructor(
    e: string | Error | { message: string; type: string; code: number; retriable?: boolean },
    options: ErrorOptions = {},
  ) {
    const fields =
      typeof e === 'object' && 'type' in e
        ? e
        : e instanceof ProtocolError
          ? {
              message: brokerErrorText(e),
              type: e.errorName,
              code: e.errorCode,
              retriable: e.retriable,
            }
          : { message: typeof e === 'string' ? e : e.message, type: 'UNKNOWN', code: -1 };
    super(fields.message, {
      retriable: options.retriable ?? fields.retriable,
      cause: options.cause,
    });
    this.name = 'KafkaJSProtocolError';
    this.type = fields.type;
    this.code = fields.code;
  }
}

export class KafkaJSOffsetOutOfRange extends KafkaJSProtocolError {
  topic: string;
  partition: number;

  constructor(
    e: ConstructorParameters<typeof KafkaJSProtocolError>[0],
    where: { topic: string; partition: number },
    options: ErrorOptions = {},
  ) {
    super(e, options);
    this.name = 'KafkaJSOffsetOutOfRange';
    this.topic = where.topic;
    this.partition = where.partition;
  }
}

export class KafkaJSMemberIdRequired extends KafkaJSProtocolError {
  memberId: string;

  constructor(
    e: ConstructorParameters<typeof KafkaJSProtocolError>[0],
    where: { memberId: string },
  ) {
    super(e);
    this.name = 'KafkaJSMemberIdRequired';
    this.memberId = where.memberId;
  }
}

/** An operation that kept failing retriably until its retries (or its time) ran out. */
export class KafkaJSNumberOfRetriesExceeded extends KafkaJSNonRetriableError {
  retryCount: number;
  retryTime: number;

  constructor(
    e: Error,
    details: { retryCount?: number; retryTime?: number; cause?: unknown } = {},
  ) {
    super(e, { cause: details.cause ?? e });
    this.name = 'KafkaJSNumberOfRetriesExceeded';
    this.retryCount = details.retryCount ?? -1;
    this.retryTime = details.retryTime ?? -1;
  }
}

export class KafkaJSConnectionError extends KafkaJSError {
  broker?: string;
  code?: string;

  constructor(
    e: string | Error,
    details: { broker?: string; code?: string; cause?: unknown } = {},
  ) {
    super(e, { cause: details.cause });
    this.name = 'KafkaJSConnectionError';
    if (details.broker !== undefined) this.broker = details.broker;
    if (details.code !== undefined) this.code = details.code;
  }
}

export class KafkaJSConnectionClosedError extends KafkaJSConnectionError {
  host?: string;
  port?: number;

  constructor(e: string | Error, details: { host?: string; port?: number; cause?: unknown } = {}) {
    super(e, { broker: `${details.host}:${details.port}`, cause: details.cause });
    this.name = 'KafkaJSConnectionClosedError';
    if (details.host !== undefined) this.host = details.host;
    if (details.port !== undefined) this.port = details.port;
  }
}

export class KafkaJSRequestTimeoutError extends KafkaJSError {
  broker?: string;
  clientId?: string;
  correlationId?: number;
  createdAt?: number;
  sentAt?: number;
  pendingDuration?: number;

  constructor(
    e: string | Error,
    details: {
      broker?: string;
      clientId?: string;
      correlationId?: number;
      createdAt?: number;
      sentAt?: number;
      pendingDuration?: number;
      cause?: unknown;
    } = {},
  ) {
    super(e, { cause: details.cause });
    this.name = 'KafkaJSRequestTimeoutError';
    if (details.broker !== undefined) this.broker = details.broker;
    if (details.clientId !== undefined) this.clientId = details.clientId;
    if (details.correlationId !== undefined) this.correlationId = details.correlationId;
    if (details.createdAt !== undefined) this.createdAt = details.createdAt;
    if (details.sentAt !== undefined) this.sentAt = details.sentAt;
    if (details.pendingDuration !== undefined) this.pendingDuration = details.pendingDuration;
  }
}

export class KafkaJSMetadataNotLoaded extends KafkaJSError {
  constructor(e: string | Error, options: ErrorOptions = {}) {
    super(e, options);
    this.name = 'KafkaJSMetadataNotLoaded';
  }
}

export class KafkaJSTopicMetadataNotLoaded extends KafkaJSMetadataNotLoaded {
  topic?: string;

  constructor(e: string | Error, details: { topic?: string } = {}) {
    super(e);
    this.name = 'KafkaJSTopicMetadataNotLoaded';
    if (details.topic !== undefined) this.topic = details.topic;
  }
}

export class KafkaJSStaleTopicMetadataAssignment extends KafkaJSError {
  topic?: string;
  /** The partitions' metadata, as kafkajs gives them (its type: `PartitionMetadata[]`). */
  unknownPartitions?: unknown[];

  constructor(e: string | Error, details: { topic?: string; unknownPartitions?: unknown[] } = {}) {
    super(e);
    this.name = 'KafkaJSStaleTopicMetadataAssignment';
    if (details.topic !== undefined) this.topic = details.topic;
    if (details.unknownPartitions !== undefined) this.unknownPartitions = details.unknownPartitions;
  }
}

export class KafkaJSDeleteGroupsError extends KafkaJSError {
  groups: unknown[];

  constructor(e: string | Error, groups: unknown[] = []) {
    super(e);
    this.name = 'KafkaJSDeleteGroupsError';
    this.groups = groups;
  }
}

export class KafkaJSServerDoesNotSupportApiKey extends KafkaJSNonRetriableError {
  apiKey?: number;
  apiName?: string;

  constructor(
    e: string | Error,
    details: { apiKey?: number; apiName?: string; cause?: unknown } = {},
  ) {
    super(e, { cause: details.cause });
    this.name = 'KafkaJSServerDoesNotSupportApiKey';
    if (details.apiKey !== undefined) this.apiKey = details.apiKey;
    if (details.apiName !== undefined) this.apiName = details.apiName;
  }
}

export class KafkaJSBrokerNotFound extends KafkaJSError {
  constructor(e: string | Error, options: ErrorOptions = {}) {
    super(e, options);
    this.name = 'KafkaJSBrokerNotFound';
  }
}

export class KafkaJSPartialMessageError extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSPartialMessageError';
  }
}

export class KafkaJSSASLAuthenticationError extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSSASLAuthenticationError';
  }
}

export class KafkaJSGroupCoordinatorNotFound extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSGroupCoordinatorNotFound';
  }
}

/** A kafkajs feature the facade does not offer; the message says which and what to use. */
export class KafkaJSNotImplemented extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSNotImplemented';
  }
}

export class KafkaJSTimeout extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSTimeout';
  }
}

export class KafkaJSLockTimeout extends KafkaJSTimeout {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSLockTimeout';
  }
}

export class KafkaJSUnsupportedMagicByteInMessageSet extends KafkaJSNonRetriableError {
  constructor(e: string | Error, options: { cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSUnsupportedMagicByteInMessageSet';
  }
}

/** DeleteRecords failed for some partitions; retriable when every failure is. */
export class KafkaJSDeleteTopicRecordsError extends KafkaJSError {
  partitions: { partition: number; offset: string; error: KafkaJSError | null }[];

  constructor(details: {
    partitions: { partition: number; offset: string; error: KafkaJSError | null }[];
  }) {
    const failed = details.partitions.filter((p) => p.error !== null);
    super('Error while deleting records', {
      retriable: failed.every((p) => p.error?.retriable === true),
    });
    this.name = 'KafkaJSDeleteTopicRecordsError';
    this.partitions = details.partitions;
  }
}

export class KafkaJSInvariantViolation extends KafkaJSNonRetriableError {
  constructor(e: string | Error) {
    super(
      `Invariant violated: ${typeof e === 'string' ? e : e.message}. This is likely a bug and should be reported.`,
    );
    this.name = 'KafkaJSInvariantViolation';
  }
}

export class KafkaJSInvalidVarIntError extends KafkaJSNonRetriableError {
  constructor(e: string | Error) {
    super(e);
    this.name = 'KafkaJSNonRetriableError';
  }
}

export class KafkaJSInvalidLongError extends KafkaJSNonRetriableError {
  constructor(e: string | Error) {
    super(e);
    this.name = 'KafkaJSNonRetriableError';
  }
}

export class KafkaJSCreateTopicError extends KafkaJSProtocolError {
  topic: string;

  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], topicName: string) {
    super(e);
    this.name = 'KafkaJSCreateTopicError';
    this.topic = topicName;
  }
}

export class KafkaJSAlterPartitionReassignmentsError extends KafkaJSProtocolError {
  topic?: string;
  partition?: number;

  constructor(
    e: ConstructorParameters<typeof KafkaJSProtocolError>[0],
    topicName?: string,
    partition?: number,
  ) {
    super(e);
    this.name = 'KafkaJSAlterPartitionReassignmentsError';
    if (topicName !== undefined) this.topic = topicName;
    if (partition !== undefined) this.partition = partition;
  }
}

/** Several errors at once (one per topic of a createTopics call, for instance). */
export class KafkaJSAggregateError extends Error {
  errors: Error[];

  constructor(message: string, errors: Error[]) {
    super(message);
    this.name = 'KafkaJSAggregateError';
    this.errors = errors;
  }
}

export class KafkaJSFetcherRebalanceError extends Error {}

export class KafkaJSNoBrokerAvailableError extends KafkaJSError {
  constructor() {
    super('No broker available');
    this.name = 'KafkaJSNoBrokerAvailableError';
  }
}

/** An error in the middle of a rebalance: kafkajs's consumer retries these quietly. */
export function isRebalancing(e: { type?: string }): boolean {
  return (
    e.type === 'REBALANCE_IN_PROGRESS' ||
    e.type === 'NOT_COORDINATOR_FOR_GROUP' ||
    e.type === 'NOT_COORDINATOR' ||
    e.type === 'ILLEGAL_GENERATION'
  );
}

export function isKafkaJSError(e: unknown): e is KafkaJSError {
  return e instanceof KafkaJSError;
}

/**
 * The kafkajs error for what a kafkats call threw: the same failure under the class a kafkajs
 * user catches (the original is its `cause`). A KafkaJS error, or an error that is not a
 * KafkaError (a TypeError from bad input, an application's own error from a handler), passes
 * through unchanged.
 */
export function toKafkaJSError(error: unknown): unknown {
  if (error instanceof KafkaJSError || error instanceof KafkaJSAggregateError) return error;
  if (!(error instanceof KafkaError)) return error;
  const cause = error;
  if (error instanceof OffsetOutOfRangeError) {
    return new KafkaJSOffsetOutOfRange(
      error,
      { topic: error.topic, partition: error.partition },
      { cause },
    );
  }
  if (error instanceof FetchPartitionError || error instanceof ProtocolError) {
    return new KafkaJSProtocolError(error, { cause });
  }
  if (error instanceof DeliveryTimeoutError || error instanceof OperationTimeoutError) {
    const last = error.cause;
    const mapped = last instanceof Error ? toKafkaJSError(last) : undefined;
    return new KafkaJSNumberOfRetriesExceeded(mapped instanceof Error ? mapped : error, { cause });
  }
  if (error instanceof AuthenticationError)
    return new KafkaJSSASLAuthenticationError(error, { cause });
  if (error instanceof RequestTimeoutError) return new KafkaJSRequestTimeoutError(error, { cause });
  if (error instanceof ConnectionError) {
    return error.code === 'ERR_KAFKA_CONNECTION_CLOSED'
      ? new KafkaJSConnectionClosedError(error, { cause })
      : new KafkaJSConnectionError(error, { broker: error.broker, code: error.code, cause });
  }
  if (error instanceof UnsupportedVersionError)
    return new KafkaJSServerDoesNotSupportApiKey(error, { cause });
  return error.retriable
    ? new KafkaJSError(error, { retriable: true, cause })
    : new KafkaJSNonRetriableError(error, { cause });
}

/** Runs `call`, rethrowing what it throws as kafkajs's error for it. */
export async function kafkajsErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toKafkaJSError(error);
  }
}
