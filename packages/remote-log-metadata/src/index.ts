/** The package's name. */
export const PACKAGE_NAME = '@kafkats/remote-log-metadata';

export type { KafkaMetadataLogConfig } from './config.js';
export {
  DEFAULT_CONSUME_WAIT_MS,
  DEFAULT_METADATA_EVENT_QUEUE_CAPACITY,
  DEFAULT_METADATA_FETCH_MAX_BYTES,
  DEFAULT_METADATA_FETCH_MAX_WAIT,
  DEFAULT_METADATA_FETCH_RETRY_BACKOFF,
  DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT,
  DEFAULT_MIN_ISR,
  DEFAULT_NUM_PARTITIONS,
  DEFAULT_REPLICATION,
  DEFAULT_RETENTION_MS,
  METADATA_TOPIC,
  MetadataEventQueueCapacity,
} from './config.js';
export type { ApplyTraceContext } from './diagnostics.js';
export { APPLY_CHANNEL, applyChannel } from './diagnostics.js';
export type { RemoteLogMetadataErrorCode } from './errors.js';
export { RemoteLogMetadataError } from './errors.js';
export type {
  MetadataEventLog,
  MetadataLogBatch,
  MetadataLogRecord,
  MetadataLogWriteResult,
} from './event-log.js';
export type {
  RemoteLogMetadataEvent,
  RemoteLogSegmentId,
  RemoteLogSegmentMetadata,
  RemoteLogSegmentMetadataInit,
  RemoteLogSegmentMetadataUpdate,
  RemoteLogSegmentState,
  RemotePartitionDeleteMetadata,
  RemotePartitionDeleteState,
  SegmentLeaderEpoch,
  TopicIdPartition,
} from './events.js';
export {
  createWithUpdates,
  partitionName,
  REMOTE_LOG_SEGMENT_STATE_IDS,
  REMOTE_PARTITION_DELETE_STATE_IDS,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  remotePartitionDeleteMetadata,
  topicIdPartitionOf,
} from './events.js';
export { KafkaMetadataEventLog } from './kafka-log.js';
export type {
  MetadataRecordPosition,
  RemoteLogMetadataManagerOptions,
  UserPartitionState,
} from './manager.js';
export { RemoteLogMetadataManager } from './manager.js';
export { InMemoryMetadataEventLog } from './memory-log.js';
export { metadataPartition } from './partitioner.js';
export { deserializeMetadataEvent, metadataLogRecord, serializeMetadataEvent } from './serde.js';
