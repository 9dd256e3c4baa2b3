import {
  CodecError,
  decodeRemoteLogMetadataValue,
  encodeRemoteLogMetadataValue,
  type RemoteLogMetadataRecord,
  readRemoteLogMetadataHeader,
} from '@kafkats/codec';
import { RemoteLogMetadataError } from './errors.js';
import type { MetadataLogRecord } from './event-log.js';
import {
  partitionName,
  REMOTE_LOG_SEGMENT_STATE_IDS,
  REMOTE_PARTITION_DELETE_STATE_IDS,
  type RemoteLogMetadataEvent,
  type RemoteLogSegmentId,
  type RemoteLogSegmentState,
  type RemotePartitionDeleteState,
  remoteLogSegmentMetadata,
  type TopicIdPartition,
} from './events.js';

const SEGMENT_STATES = Object.keys(REMOTE_LOG_SEGMENT_STATE_IDS) as RemoteLogSegmentState[];
const DELETE_STATES = Object.keys(
  REMOTE_PARTITION_DELETE_STATE_IDS,
) as RemotePartitionDeleteState[];

const badRecord = (detail: string, cause?: unknown) =>
  new RemoteLogMetadataError(
    'ERR_KAFKA_RLMM_RECORD_INVALID',
    `__remote_log_metadata record: ${detail}`,
    cause === undefined ? {} : { cause },
  );

function segmentState(id: number): RemoteLogSegmentState {
  const state = SEGMENT_STATES[id];
  // Kafka's forId answers null and the event's constructor throws a NullPointerException.
  if (state === undefined) throw badRecord(`unknown RemoteLogSegmentState id ${id}`);
  return state;
}

function deleteState(id: number): RemotePartitionDeleteState {
  const state = DELETE_STATES[id];
  if (state === undefined) throw badRecord(`unknown RemotePartitionDeleteState id ${id}`);
  return state;
}

const tipEntry = (tp: TopicIdPartition) => ({
  name: tp.topic,
  id: tp.topicId,
  partition: tp.partition,
});
const segmentIdEntry = (id: RemoteLogSegmentId) => ({
  topicIdPartition: tipEntry(id.topicIdPartition),
  id: id.id,
});
const fromTipEntry = (e: { name: string; id: string; partition: number }): TopicIdPartition => ({
  topicId: e.id,
  topic: e.name,
  partition: e.partition,
});
const fromSegmentIdEntry = (e: {
  topicIdPartition: { name: string; id: string; partition: number };
  id: string;
}): RemoteLogSegmentId => ({ topicIdPartition: fromTipEntry(e.topicIdPartition), id: e.id });
const copy = (b: Buffer | null) => (b === null ? null : Buffer.from(b));

/**
 * Serialises an event into the value Kafka's `RemoteLogMetadataSerde` writes on
 * `__remote_log_metadata`: unsigned varints frame version 1, record type, version 0, then the
 * record (the key is null). Custom metadata absent is a null field; present (even empty) is
 * written as bytes.
 *
 * @returns a new Buffer
 * @throws CodecError as the codec's record encoders do (a string or array too long)
 */
export function serializeMetadataEvent(event: RemoteLogMetadataEvent): Buffer {
  let record: RemoteLogMetadataRecord;
  switch (event.kind) {
    case 'segment':
      record = {
        apiKey: 0,
        version: 0,
        record: {
          remoteLogSegmentId: segmentIdEntry(event.remoteLogSegmentId),
          startOffset: event.startOffset,
          endOffset: event.endOffset,
          brokerId: event.brokerId,
          maxTimestampMs: event.maxTimestampMs,
          eventTimestampMs: event.eventTimestampMs,
          segmentLeaderEpochs: event.segmentLeaderEpochs.map((e) => ({
            leaderEpoch: e.epoch,
            offset: e.startOffset,
          })),
          segmentSizeInBytes: event.segmentSizeInBytes,
          customMetadata: event.customMetadata,
          remoteLogSegmentState: REMOTE_LOG_SEGMENT_STATE_IDS[event.state],
          txnIndexEmpty: event.txnIndexEmpty,
        },
      };
      break;
    case 'segment-update':
      record = {
        apiKey: 1,
        version: 0,
        record: {
          remoteLogSegmentId: segmentIdEntry(event.remoteLogSegmentId),
          brokerId: event.brokerId,
          eventTimestampMs: event.eventTimestampMs,
          customMetadata: event.customMetadata,
          remoteLogSegmentState: REMOTE_LOG_SEGMENT_STATE_IDS[event.state],
        },
      };
      break;
    case 'partition-delete':
      record = {
        apiKey: 2,
        version: 0,
        record: {
          topicIdPartition: tipEntry(event.topicIdPartition),
          brokerId: event.brokerId,
          eventTimestampMs: event.eventTimestampMs,
          remotePartitionDeleteState: REMOTE_PARTITION_DELETE_STATE_IDS[event.state],
        },
      };
      break;
  }
  return encodeRemoteLogMetadataValue(record);
}

/**
 * A metadata topic record as a log hands it out: the value with the record type and version its
 * frame names (null for a null value or a frame that cannot be read).
 */
export function metadataLogRecord(
  offset: bigint,
  value: Buffer | null,
  timestamp: bigint,
): MetadataLogRecord {
  let recordType: number | null = null;
  let recordVersion: number | null = null;
  if (value !== null) {
    try {
      const header = readRemoteLogMetadataHeader(value);
      recordType = header.recordType;
      recordVersion = header.version;
    } catch (error) {
      if (!(error instanceof CodecError)) throw error;
    }
  }
  return { offset, value, timestamp, recordType, recordVersion };
}

/**
 * Reads a value of `__remote_log_metadata` as Kafka's `RemoteLogMetadataSerde` and its
 * consumer do. A type-0 record may carry any state (Kafka builds the segment, then applies the
 * record's state as an update). Byte fields are copied out of `value`.
 *
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_RECORD_INVALID` (cause: the codec's
 *   `CodecError`) for a null value, a frame version other than 1, an unknown record type or
 *   version, trailing bytes, an unknown state id, a segment Kafka's constructor refuses, or a
 *   snapshot record (type 3: it names no topic partition, and Kafka's consumer fails on it)
 */
export function deserializeMetadataEvent(value: Buffer | null): RemoteLogMetadataEvent {
  if (value === null) throw badRecord('null value');
  let decoded: RemoteLogMetadataRecord;
  try {
    decoded = decodeRemoteLogMetadataValue(value);
  } catch (error) {
    if (error instanceof CodecError) throw badRecord(error.message, error);
    throw error;
  }
  switch (decoded.apiKey) {
    case 0: {
      const r = decoded.record;
      const remoteLogSegmentId = fromSegmentIdEntry(r.remoteLogSegmentId);
      const state = segmentState(r.remoteLogSegmentState);
      try {
        return remoteLogSegmentMetadata({
          remoteLogSegmentId,
          startOffset: r.startOffset,
          endOffset: r.endOffset,
          brokerId: r.brokerId,
          maxTimestampMs: r.maxTimestampMs,
          eventTimestampMs: r.eventTimestampMs,
          segmentLeaderEpochs: r.segmentLeaderEpochs.map((e) => ({
            epoch: e.leaderEpoch,
            startOffset: e.offset,
          })),
          segmentSizeInBytes: r.segmentSizeInBytes,
          customMetadata: copy(r.customMetadata),
          state,
          txnIndexEmpty: r.txnIndexEmpty,
        });
      } catch (error) {
        throw badRecord(
          `segment ${remoteLogSegmentId.id} of ${partitionName(remoteLogSegmentId.topicIdPartition)} is invalid`,
          error,
        );
      }
    }
    case 1: {
      const r = decoded.record;
      return {
        kind: 'segment-update',
        remoteLogSegmentId: fromSegmentIdEntry(r.remoteLogSegmentId),
        eventTimestampMs: r.eventTimestampMs,
        customMetadata: copy(r.customMetadata),
        state: segmentState(r.remoteLogSegmentState),
        brokerId: r.brokerId,
      };
    }
    case 2: {
      const r = decoded.record;
      return {
        kind: 'partition-delete',
        topicIdPartition: fromTipEntry(r.topicIdPartition),
        state: deleteState(r.remotePartitionDeleteState),
        eventTimestampMs: r.eventTimestampMs,
        brokerId: r.brokerId,
      };
    }
    case 3:
      throw badRecord(
        `snapshot record of segment ${decoded.record.segmentId} (type 3) names no topic partition and is never part of the log`,
      );
  }
}
