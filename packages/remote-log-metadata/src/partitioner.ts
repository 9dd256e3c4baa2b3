import { RemoteLogMetadataError } from './errors.js';
import type { TopicIdPartition } from './events.js';

/**
 * Kafka's murmur2 (`Utils.murmur2`, the default producer partitioner's hash): seed 0x9747b28c,
 * little-endian 4-byte blocks, int32 arithmetic with wrap-around.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  let h = (0x9747b28c ^ length) | 0;
  const blocks = length >> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    let k =
      (data[o]! & 0xff) |
      ((data[o + 1]! & 0xff) << 8) |
      ((data[o + 2]! & 0xff) << 16) |
      ((data[o + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = blocks << 2;
  const rest = length & 3;
  if (rest > 0) {
    // Kafka's switch falls through from the highest remaining byte down to the first.
    if (rest === 3) h ^= (data[tail + 2]! & 0xff) << 16;
    if (rest >= 2) h ^= (data[tail + 1]! & 0xff) << 8;
    h ^= data[tail]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

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
