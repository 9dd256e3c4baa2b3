import { randomBytes } from 'node:crypto';
import {
  type RemoteLogSegmentId,
  type RemoteLogSegmentMetadata,
  type RemoteLogSegmentMetadataUpdate,
  type RemoteLogSegmentState,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  type TopicIdPartition,
} from '../../src/index.js';

/** The topic id of Kafka's own serde tests, which the golden bytes were made with. */
export const GOLDEN_TOPIC_ID = 'Bp9TDduJRGa9Q5rlvCJOxg';

export const randomUuid = (): string => randomBytes(16).toString('base64url');

export const tip = (topic = 'foo', partition = 0, topicId = GOLDEN_TOPIC_ID): TopicIdPartition => ({
  topicId,
  topic,
  partition,
});

export const segId = (tp: TopicIdPartition, id = randomUuid()): RemoteLogSegmentId => ({
  topicIdPartition: tp,
  id,
});

/** A segment as Kafka's lifecycle tests build them: epochs as [epoch, startOffset] pairs. */
export function segment(
  id: RemoteLogSegmentId,
  start: number,
  end: number,
  epochs: readonly (readonly [number, number])[],
  extra: { size?: number; txnIndexEmpty?: boolean; customMetadata?: Buffer | null } = {},
): RemoteLogSegmentMetadata {
  return remoteLogSegmentMetadata({
    remoteLogSegmentId: id,
    startOffset: BigInt(start),
    endOffset: BigInt(end),
    brokerId: 1,
    maxTimestampMs: -1n,
    eventTimestampMs: 123n,
    segmentLeaderEpochs: epochs.map(([epoch, offset]) => ({ epoch, startOffset: BigInt(offset) })),
    segmentSizeInBytes: extra.size ?? 1024,
    ...(extra.customMetadata === undefined ? {} : { customMetadata: extra.customMetadata }),
    ...(extra.txnIndexEmpty === undefined ? {} : { txnIndexEmpty: extra.txnIndexEmpty }),
  });
}

export const update = (
  id: RemoteLogSegmentId,
  state: RemoteLogSegmentState,
  brokerId = 2,
): RemoteLogSegmentMetadataUpdate =>
  remoteLogSegmentMetadataUpdate({
    remoteLogSegmentId: id,
    eventTimestampMs: 456n,
    state,
    brokerId,
  });
