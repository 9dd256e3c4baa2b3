import { KafkaError } from '@kafkats/codec';

/**
 * An option of the `Consumer` is out of range or contradicts another. Code
 * `ERR_KAFKA_CONSUMER_CONFIG`; not retriable.
 */
export class ConsumerConfigError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_CONSUMER_CONFIG', message, { retriable: false });
  }
}

/**
 * The consumer was closed (or is closing, or stopped after a fatal error: `cause`). Code
 * `ERR_KAFKA_CONSUMER_CLOSED`; not retriable on this consumer.
 */
export class ConsumerClosedError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super('ERR_KAFKA_CONSUMER_CLOSED', message, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/**
 * The group coordinator refused this member for good: UNRELEASED_INSTANCE_ID (another member
 * holds the `groupInstanceId`), GROUP_MAX_SIZE_REACHED, GROUP_AUTHORIZATION_FAILED,
 * UNSUPPORTED_ASSIGNOR, INVALID_REQUEST, FENCED_INSTANCE_ID, ... `cause` is the broker's
 * `ProtocolError`, `brokerErrorCode` its numeric code. Code `ERR_KAFKA_CONSUMER_GROUP_FATAL`;
 * not retriable: the consumer stops.
 */
export class GroupMembershipError extends KafkaError {
  readonly groupId: string;
  readonly brokerErrorCode: number;

  constructor(groupId: string, brokerErrorCode: number, message: string, cause?: unknown) {
    super('ERR_KAFKA_CONSUMER_GROUP_FATAL', `group ${JSON.stringify(groupId)}: ${message}`, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
    this.groupId = groupId;
    this.brokerErrorCode = brokerErrorCode;
  }
}

/**
 * `groupProtocol: 'consumer'` (KIP-848) needs brokers that support ConsumerGroupHeartbeat
 * (Kafka 4.0+, or 3.7+ with the new group coordinator enabled). Code
 * `ERR_KAFKA_CONSUMER_GROUP_PROTOCOL_UNSUPPORTED`; not retriable: use `groupProtocol: 'classic'`.
 */
export class GroupProtocolUnsupportedError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super(
      'ERR_KAFKA_CONSUMER_GROUP_PROTOCOL_UNSUPPORTED',
      `${message}; use groupProtocol: 'classic' with these brokers`,
      { retriable: false, ...(cause === undefined ? {} : { cause }) },
    );
  }
}

/**
 * A partition was assigned that has no committed offset and `autoOffsetReset` is `'none'`
 * (Kafka's `NoOffsetForPartitionException`). Code `ERR_KAFKA_CONSUMER_NO_OFFSET`; not
 * retriable: `seek` the partition, or use `'earliest'`/`'latest'`.
 */
export class NoOffsetForPartitionError extends KafkaError {
  readonly topic: string;
  readonly partition: number;

  constructor(groupId: string, topic: string, partition: number) {
    super(
      'ERR_KAFKA_CONSUMER_NO_OFFSET',
      `group ${JSON.stringify(groupId)} has no committed offset for ${topic}-${partition} and autoOffsetReset is 'none'`,
      { retriable: false },
    );
    this.topic = topic;
    this.partition = partition;
  }
}

/**
 * An OffsetCommit failed because this member no longer owns what it committed (Kafka's
 * `CommitFailedException`): the group rebalanced (ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS,
 * STALE_MEMBER_EPOCH after the retries), the member was removed (UNKNOWN_MEMBER_ID) or fenced
 * (FENCED_INSTANCE_ID), or a partition-level error that is not retriable. `cause` is the broker's
 * error. Code `ERR_KAFKA_CONSUMER_COMMIT_FAILED`; not retriable: the records since the last
 * successful commit will be delivered again to whoever owns their partitions now.
 */
export class CommitFailedError extends KafkaError {
  constructor(message: string, cause?: unknown) {
    super('ERR_KAFKA_CONSUMER_COMMIT_FAILED', message, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/** The stable codes a {@link ClassicMembershipError} carries. */
export type ClassicMembershipErrorCode =
  /** No assignor configured, or a name that is neither `range` nor `cooperative-sticky`. */
  | 'ERR_KAFKA_GROUP_ASSIGNOR_INVALID'
  /**
   * The coordinator chose a protocol (assignor) this member did not offer, or answered with
   * another protocol type or name than the group's (Kafka's INCONSISTENT_GROUP_PROTOCOL).
   */
  | 'ERR_KAFKA_GROUP_PROTOCOL_MISMATCH'
  /** `start()` was called twice. */
  | 'ERR_KAFKA_GROUP_MEMBERSHIP_STARTED'
  /** The membership was left or abandoned before it had delivered an assignment. */
  | 'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED';

/** The classic group membership cannot go on, for a reason that is not a broker error code. Not retriable. */
export class ClassicMembershipError extends KafkaError {
  readonly groupId: string;

  constructor(code: ClassicMembershipErrorCode, groupId: string, detail: string) {
    super(code, `group ${groupId}: ${detail}`, { retriable: false });
    this.groupId = groupId;
  }
}
