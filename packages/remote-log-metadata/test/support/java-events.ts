import type {
  RemoteLogMetadataEvent,
  RemoteLogSegmentMetadata,
  TopicIdPartition,
} from '../../src/index.js';

/** The JSON shape RlmmOracle.java reads and writes (int64 as text, bytes as base64). */
export type JavaEvent = Record<string, unknown>;

const tipJson = (tp: TopicIdPartition) => ({
  topicId: tp.topicId,
  topic: tp.topic,
  partition: tp.partition,
});
const b64 = (b: Buffer | null) => (b === null ? null : b.toString('base64'));

export function toJava(e: RemoteLogMetadataEvent): JavaEvent {
  switch (e.kind) {
    case 'segment':
      return {
        kind: 'segment',
        ...tipJson(e.remoteLogSegmentId.topicIdPartition),
        segmentId: e.remoteLogSegmentId.id,
        startOffset: String(e.startOffset),
        endOffset: String(e.endOffset),
        brokerId: e.brokerId,
        maxTimestampMs: String(e.maxTimestampMs),
        eventTimestampMs: String(e.eventTimestampMs),
        segmentLeaderEpochs: e.segmentLeaderEpochs.map((x) => [x.epoch, String(x.startOffset)]),
        segmentSizeInBytes: e.segmentSizeInBytes,
        customMetadata: b64(e.customMetadata),
        state: e.state,
        txnIndexEmpty: e.txnIndexEmpty,
      };
    case 'segment-update':
      return {
        kind: 'segment-update',
        ...tipJson(e.remoteLogSegmentId.topicIdPartition),
        segmentId: e.remoteLogSegmentId.id,
        eventTimestampMs: String(e.eventTimestampMs),
        customMetadata: b64(e.customMetadata),
        state: e.state,
        brokerId: e.brokerId,
      };
    case 'partition-delete':
      return {
        kind: 'partition-delete',
        ...tipJson(e.topicIdPartition),
        state: e.state,
        eventTimestampMs: String(e.eventTimestampMs),
        brokerId: e.brokerId,
      };
  }
}

/** Our segment as RlmmOracle prints Kafka's, for comparing answers. */
export const segmentJava = (s: RemoteLogSegmentMetadata | undefined): JavaEvent | null =>
  s === undefined ? null : toJava(s);
