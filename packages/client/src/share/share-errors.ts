import { KafkaError } from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';

/**
 * The brokers do not offer share groups (KIP-932): ApiVersions lacks `api` (Kafka before 4.1,
 * or a cluster whose `share.version` feature is not finalized). Raised by `ShareConsumer.start()`
 * and the Admin's share-group calls before anything of the share group is sent. An
 * `UnsupportedVersionError`: code `ERR_KAFKA_VERSION_UNSUPPORTED`; not retriable.
 */
export class ShareGroupsUnsupportedError extends UnsupportedVersionError {
  /** The API the brokers lack, e.g. `ShareGroupHeartbeat`. */
  readonly api: string;

  /** @param context what was attempted, and what the cluster said (its `share.version`) */
  constructor(api: string, context?: string) {
    super(
      `${context === undefined ? '' : `${context}: `}the brokers do not offer ${api}: share groups (KIP-932) need Kafka 4.1 or later with the share.version feature finalized`,
    );
    this.api = api;
  }
}

/**
 * The group coordinator refused this share-group member for good (GROUP_MAX_SIZE_REACHED,
 * GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST, ...). `cause` is
 * the broker's `ProtocolError`; `brokerErrorCode` its code (-1 when it was not a broker
 * answer). Code `ERR_KAFKA_SHARE_GROUP_FATAL`; not retriable: the consumer stops.
 */
export class ShareGroupError extends KafkaError {
  readonly groupId: string;
  readonly brokerErrorCode: number;

  constructor(groupId: string, brokerErrorCode: number, message: string, cause?: unknown) {
    super('ERR_KAFKA_SHARE_GROUP_FATAL', `share group ${JSON.stringify(groupId)}: ${message}`, {
      retriable: false,
      ...(cause === undefined ? {} : { cause }),
    });
    this.groupId = groupId;
    this.brokerErrorCode = brokerErrorCode;
  }
}

/**
 * In explicit acknowledgement mode, `poll()` was called while records of the last poll were
 * still unacknowledged (Kafka's `KafkaShareConsumer` throws `IllegalStateException` then), or
 * a record was acknowledged that this consumer did not deliver in its last poll, or twice.
 * Code `ERR_KAFKA_SHARE_ACKNOWLEDGE`; not retriable.
 */
export class ShareAcknowledgeError extends KafkaError {
  constructor(message: string) {
    super('ERR_KAFKA_SHARE_ACKNOWLEDGE', message, { retriable: false });
  }
}
