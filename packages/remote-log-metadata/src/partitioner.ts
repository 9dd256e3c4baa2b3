import { murmur2 } from '@kafkats/codec';
import { RemoteLogMetadataError } from './errors.js';
import type { TopicIdPartition } from './events.js';

/** Kafka's Uuid as its two longs: base64url text, 16 bytes, msb first. */
function uuidBytes(topicId: string): Buffer {
  const bytes = Buffer.from(topicId, 'base64url');
  if (bytes.length !== 16) {
    throw new RemoteLogMetadataError(
      'ERR_KAFKA_RLMM_EVENT_INVALID',
      `topic id ${topicId} is not a 16-byte uuid`,
    );
  }
  return bytes;
}

/**
 * The metadata partition of a user partition, as Kafka's `RemoteLogMetadataTopicPartitioner`
 * computes it: `Objects.hash(lsb, msb, partition)` of the topic id (least significant long
 * first, the topic name not used) as 4 big-endian bytes, murmur2, `& 0x7fffffff` (Kafka's
 * toPositive, not Math.abs), modulo the partition count.
 *
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_EVENT_INVALID` for a topic id that is not a
 *   uuid, `ERR_KAFKA_RLMM_CONFIG_INVALID` for a partition count below 1
 */
export function metadataPartition(tp: TopicIdPartition, numMetadataPartitions: number): number {
  if (!Number.isInteger(numMetadataPartitions) || numMetadataPartitions < 1) {
    throw new RemoteLogMetadataError(
      'ERR_KAFKA_RLMM_CONFIG_INVALID',
      `metadata partition count must be an integer >= 1, got ${numMetadataPartitions}`,
    );
  }
  const id = uuidBytes(tp.topicId);
  // Long.hashCode(v) = (int)(v ^ (v >>> 32)): the xor of the long's two halves.
  const msbHash = id.readInt32BE(0) ^ id.readInt32BE(4);
  const lsbHash = id.readInt32BE(8) ^ id.readInt32BE(12);
  let h = 1;
  h = (Math.imul(31, h) + lsbHash) | 0;
  h = (Math.imul(31, h) + msbHash) | 0;
  h = (Math.imul(31, h) + tp.partition) | 0;
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeInt32BE(h, 0);
  return (murmur2(bytes) & 0x7fffffff) % numMetadataPartitions;
}
