import { KafkaError } from '@kafkats/codec';

/**
 * Stable codes of {@link RemoteLogMetadataError}:
 * - `ERR_KAFKA_RLMM_EVENT_INVALID`: an event Kafka's constructors or manager refuse (negative
 *   start offset, no leader epochs, a state the call does not take: IllegalArgumentException);
 * - `ERR_KAFKA_RLMM_RECORD_INVALID`: a value on the metadata topic that is not a metadata event
 *   Kafka's serde and consumer accept (Kafka's MetadataParseException, an unknown state id, a
 *   snapshot record);
 * - `ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND`: an unknown user partition or segment (Kafka's
 *   RemoteResourceNotFoundException);
 * - `ERR_KAFKA_RLMM_PARTITION_NOT_READY`: the partition is registered but its metadata is not
 *   caught up yet (Kafka's ReplicaNotAvailableException), retriable;
 * - `ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED`: a write whose metadata partition this manager does
 *   not read, so it cannot wait to read it back (the record is written all the same);
 * - `ERR_KAFKA_RLMM_CONFIG_INVALID`, `ERR_KAFKA_RLMM_TOPIC_INVALID` (zero topic id, partition
 *   count mismatch), `ERR_KAFKA_RLMM_STATE` (not started, closed, read-only),
 *   `ERR_KAFKA_RLMM_SNAPSHOT_INVALID`, `ERR_KAFKA_RLMM_CONSUME_TIMEOUT` (retriable).
 */
export type RemoteLogMetadataErrorCode =
  | 'ERR_KAFKA_RLMM_EVENT_INVALID'
  | 'ERR_KAFKA_RLMM_RECORD_INVALID'
  | 'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND'
  | 'ERR_KAFKA_RLMM_PARTITION_NOT_READY'
  | 'ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED'
  | 'ERR_KAFKA_RLMM_CONFIG_INVALID'
  | 'ERR_KAFKA_RLMM_TOPIC_INVALID'
  | 'ERR_KAFKA_RLMM_STATE'
  | 'ERR_KAFKA_RLMM_SNAPSHOT_INVALID'
  | 'ERR_KAFKA_RLMM_CONSUME_TIMEOUT';

const RETRIABLE: ReadonlySet<RemoteLogMetadataErrorCode> = new Set([
  'ERR_KAFKA_RLMM_PARTITION_NOT_READY',
  'ERR_KAFKA_RLMM_CONSUME_TIMEOUT',
]);

/** Errors of this package; `retriable` only for a partition not ready yet and a consume timeout. */
export class RemoteLogMetadataError extends KafkaError {
  declare readonly code: RemoteLogMetadataErrorCode;

  constructor(
    code: RemoteLogMetadataErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, { retriable: RETRIABLE.has(code), ...options });
  }
}
