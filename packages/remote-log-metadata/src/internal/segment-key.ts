import type { RemoteLogSegmentId, TopicIdPartition } from '../events.js';

/** Map key of a user partition: TopicIdPartition.equals compares id, partition and name. */
export function partitionKey(tp: TopicIdPartition): string {
  return `${tp.topicId}:${tp.partition}:${tp.topic}`;
}

/** Map key of a segment id (its partition and uuid). */
export function segmentKey(id: RemoteLogSegmentId): string {
  return `${id.id}@${partitionKey(id.topicIdPartition)}`;
}
