/** The package's name. */
export const PACKAGE_NAME = '@kafkats/remote-log-metadata';

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
export type {
  MetadataRecordPosition,
  RemoteLogMetadataManagerOptions,
} from './manager.js';
export { RemoteLogMetadataManager } from './manager.js';
export { InMemoryMetadataEventLog } from './memory-log.js';
export { metadataPartition, murmur2 } from './partitioner.js';
export { deserializeMetadataEvent, serializeMetadataEvent } from './serde.js';
