import { RemoteLogMetadataError } from './errors.js';

/**
 * Kafka's `RemoteLogSegmentState` ids (storage-api): the state a segment copy moves through.
 * `forId` of any other id is null in Kafka, and such a record is refused here.
 */
export const REMOTE_LOG_SEGMENT_STATE_IDS = {
  COPY_SEGMENT_STARTED: 0,
  COPY_SEGMENT_FINISHED: 1,
  DELETE_SEGMENT_STARTED: 2,
  DELETE_SEGMENT_FINISHED: 3,
} as const;

/** A segment's state, by Kafka's enum name. */
export type RemoteLogSegmentState = keyof typeof REMOTE_LOG_SEGMENT_STATE_IDS;

/** Kafka's `RemotePartitionDeleteState` ids. */
export const REMOTE_PARTITION_DELETE_STATE_IDS = {
  DELETE_PARTITION_MARKED: 0,
  DELETE_PARTITION_STARTED: 1,
  DELETE_PARTITION_FINISHED: 2,
} as const;

/** A partition deletion's state, by Kafka's enum name. */
export type RemotePartitionDeleteState = keyof typeof REMOTE_PARTITION_DELETE_STATE_IDS;

/** A user topic partition (Kafka's `TopicIdPartition`); `topicId` is Kafka's base64url uuid text. */
export interface TopicIdPartition {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
}

/** A remote segment's id (Kafka's `RemoteLogSegmentId`): its partition and a uuid (base64url). */
export interface RemoteLogSegmentId {
  readonly topicIdPartition: TopicIdPartition;
  readonly id: string;
}

/** A leader epoch of a segment and the first offset written in it. */
export interface SegmentLeaderEpoch {
  readonly epoch: number;
  readonly startOffset: bigint;
}

/**
 * A remote segment (Kafka's `RemoteLogSegmentMetadata`, record type 0). Offsets and
 * timestamps are bigint. `segmentLeaderEpochs` is ascending by epoch (Kafka keeps a TreeMap).
 * `customMetadata` null is Kafka's `Optional.empty()`; bytes are the caller's or, when decoded,
 * a copy.
 */
export interface RemoteLogSegmentMetadata {
  readonly kind: 'segment';
  readonly remoteLogSegmentId: RemoteLogSegmentId;
  readonly startOffset: bigint;
  readonly endOffset: bigint;
  readonly brokerId: number;
  readonly maxTimestampMs: bigint;
  readonly eventTimestampMs: bigint;
  readonly segmentLeaderEpochs: readonly SegmentLeaderEpoch[];
  readonly segmentSizeInBytes: number;
  readonly customMetadata: Buffer | null;
  readonly state: RemoteLogSegmentState;
  /** Whether the segment's transaction index is empty (the record's tagged field 0, default false). */
  readonly txnIndexEmpty: boolean;
}

/** A segment's state change (Kafka's `RemoteLogSegmentMetadataUpdate`, record type 1). */
export interface RemoteLogSegmentMetadataUpdate {
  readonly kind: 'segment-update';
  readonly remoteLogSegmentId: RemoteLogSegmentId;
  readonly eventTimestampMs: bigint;
  readonly customMetadata: Buffer | null;
  readonly state: RemoteLogSegmentState;
  readonly brokerId: number;
}

/** A user partition's deletion step (Kafka's `RemotePartitionDeleteMetadata`, record type 2). */
export interface RemotePartitionDeleteMetadata {
  readonly kind: 'partition-delete';
  readonly topicIdPartition: TopicIdPartition;
  readonly state: RemotePartitionDeleteState;
  readonly eventTimestampMs: bigint;
  readonly brokerId: number;
}

/** An event of the metadata log. Snapshot records (type 3) are never part of it. */
export type RemoteLogMetadataEvent =
  | RemoteLogSegmentMetadata
  | RemoteLogSegmentMetadataUpdate
  | RemotePartitionDeleteMetadata;

/** Fields of {@link remoteLogSegmentMetadata}; `state` defaults to COPY_SEGMENT_STARTED. */
export type RemoteLogSegmentMetadataInit = Omit<
  RemoteLogSegmentMetadata,
  'kind' | 'state' | 'customMetadata' | 'txnIndexEmpty'
> & {
  readonly state?: RemoteLogSegmentState;
  readonly customMetadata?: Buffer | null;
  readonly txnIndexEmpty?: boolean;
};

const invalid = (what: string) => new RemoteLogMetadataError('ERR_KAFKA_RLMM_EVENT_INVALID', what);

/**
 * Builds a segment as Kafka's `RemoteLogSegmentMetadata` constructor does: leader epochs sorted
 * ascending (a repeated epoch keeps its last offset, as TreeMap.put does).
 *
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` when startOffset < 0,
 *   endOffset < startOffset, or there are no leader epochs (Kafka's IllegalArgumentException)
 */
export function remoteLogSegmentMetadata(
  init: RemoteLogSegmentMetadataInit,
): RemoteLogSegmentMetadata {
  const id = init.remoteLogSegmentId;
  if (init.startOffset < 0n) {
    throw invalid(
      `segment ${id.id} of ${partitionName(id.topicIdPartition)}: startOffset ${init.startOffset} is negative`,
    );
  }
  if (init.endOffset < init.startOffset) {
    throw invalid(
      `segment ${id.id} of ${partitionName(id.topicIdPartition)}: endOffset ${init.endOffset} is below startOffset ${init.startOffset}`,
    );
  }
  if (init.segmentLeaderEpochs.length === 0) {
    throw invalid(
      `segment ${id.id} of ${partitionName(id.topicIdPartition)}: segmentLeaderEpochs can not be empty`,
    );
  }
  const byEpoch = new Map<number, bigint>();
  for (const e of init.segmentLeaderEpochs) byEpoch.set(e.epoch, e.startOffset);
  const epochs = [...byEpoch]
    .sort((a, b) => a[0] - b[0])
    .map(([epoch, startOffset]) => ({ epoch, startOffset }));
  return {
    kind: 'segment',
    remoteLogSegmentId: id,
    startOffset: init.startOffset,
    endOffset: init.endOffset,
    brokerId: init.brokerId,
    maxTimestampMs: init.maxTimestampMs,
    eventTimestampMs: init.eventTimestampMs,
    segmentLeaderEpochs: epochs,
    segmentSizeInBytes: init.segmentSizeInBytes,
    customMetadata: init.customMetadata ?? null,
    state: init.state ?? 'COPY_SEGMENT_STARTED',
    txnIndexEmpty: init.txnIndexEmpty ?? false,
  };
}

/** Builds a segment update; `customMetadata` defaults to null (absent). */
export function remoteLogSegmentMetadataUpdate(
  init: Omit<RemoteLogSegmentMetadataUpdate, 'kind' | 'customMetadata'> & {
    readonly customMetadata?: Buffer | null;
  },
): RemoteLogSegmentMetadataUpdate {
  return {
    kind: 'segment-update',
    remoteLogSegmentId: init.remoteLogSegmentId,
    eventTimestampMs: init.eventTimestampMs,
    customMetadata: init.customMetadata ?? null,
    state: init.state,
    brokerId: init.brokerId,
  };
}

/** Builds a partition delete event. */
export function remotePartitionDeleteMetadata(
  init: Omit<RemotePartitionDeleteMetadata, 'kind'>,
): RemotePartitionDeleteMetadata {
  return {
    kind: 'partition-delete',
    topicIdPartition: init.topicIdPartition,
    state: init.state,
    eventTimestampMs: init.eventTimestampMs,
    brokerId: init.brokerId,
  };
}

/**
 * Applies an update as Kafka's `createWithUpdates` does: the update's state, brokerId,
 * eventTimestampMs and customMetadata replace the segment's (an update without custom
 * metadata clears it); offsets, epochs, size and txnIndexEmpty stay.
 *
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` when the ids differ
 */
export function createWithUpdates(
  segment: RemoteLogSegmentMetadata,
  update: RemoteLogSegmentMetadataUpdate,
): RemoteLogSegmentMetadata {
  if (!sameSegmentId(segment.remoteLogSegmentId, update.remoteLogSegmentId)) {
    throw invalid(
      `update of segment ${update.remoteLogSegmentId.id} does not match segment ${segment.remoteLogSegmentId.id}`,
    );
  }
  return {
    ...segment,
    brokerId: update.brokerId,
    eventTimestampMs: update.eventTimestampMs,
    customMetadata: update.customMetadata,
    state: update.state,
  };
}

/** The user partition an event is about. */
export function topicIdPartitionOf(event: RemoteLogMetadataEvent): TopicIdPartition {
  return event.kind === 'partition-delete'
    ? event.topicIdPartition
    : event.remoteLogSegmentId.topicIdPartition;
}

/** `topic-partition` with the topic id, as Kafka's TopicIdPartition prints (`id:topic-0`). */
export function partitionName(tp: TopicIdPartition): string {
  return `${tp.topicId}:${tp.topic}-${tp.partition}`;
}

/**
 * Kafka compares segment ids by topic id, partition and segment uuid, and topic partitions by
 * topic id, name and partition (TopicIdPartition.equals).
 */
export function sameSegmentId(a: RemoteLogSegmentId, b: RemoteLogSegmentId): boolean {
  return a.id === b.id && sameTopicIdPartition(a.topicIdPartition, b.topicIdPartition);
}

/** TopicIdPartition.equals: topic id, partition and topic name. */
export function sameTopicIdPartition(a: TopicIdPartition, b: TopicIdPartition): boolean {
  return a.topicId === b.topicId && a.partition === b.partition && a.topic === b.topic;
}
