// kafkajs's two partitioners, written for the facade: the default one places keys as Java's
// producer does (kats's own `partitionForKey`), the legacy one as kafkajs 1.x did. Both place
// unkeyed messages round-robin over the partitions that have a leader, from a random start.
import { randomBytes } from 'node:crypto';
import { partitionForKey } from '@kafkats/client';
import type { MetadataSnapshot } from '@kafkats/meta';

/** One partition as kafkajs's partitioners see it (kafkajs's `PartitionMetadata`). */
export interface PartitionMetadataShape {
  partitionErrorCode: number;
  partitionId: number;
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas?: number[];
}

/** What a kafkajs partitioner function is called with. */
export interface PartitionerInput {
  topic: string;
  partitionMetadata: PartitionMetadataShape[];
  message: { key?: unknown; partition?: unknown };
}

export type PartitionerFunction = (args: PartitionerInput) => number;

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

function keyBytes(key: unknown): Buffer {
  return Buffer.isBuffer(key) ? key : Buffer.from(String(key));
}

/**
 * kafkajs 1.x's murmur2, kept bit for bit because the partitions of existing keyed data depend
 * on it. It multiplies in doubles, so products above 2^53 lose their low bits before the 32-bit
 * xor truncates them, and its block loop runs while `i < length / 4` unfloored: a tail of 1 to
 * 3 bytes is first mixed in as one more block padded with zeros (then again as the tail). Both
 * depart from Java's murmur2 for some keys; `LegacyPartitioner` exists to keep them.
 */
export function legacyMurmur2(key: unknown): number {
  const data = keyBytes(key);
  const length = data.length;
  let h: number = SEED ^ length;
  for (let block = 0; block < length / 4; block++) {
    const at = block * 4;
    // A byte past the end reads as 0 (kafkajs: `undefined & 0xff`).
    let k: number =
      ((data[at] ?? 0) & 0xff) +
      (((data[at + 1] ?? 0) & 0xff) << 8) +
      (((data[at + 2] ?? 0) & 0xff) << 16) +
      (((data[at + 3] ?? 0) & 0xff) << 24);
    k = k * M;
    k = k ^ (k >>> 24);
    k = k * M;
    h = h * M;
    h = h ^ k;
  }
  const tail = length & ~3;
  const rest = length % 4;
  if (rest === 3) h = h ^ (((data[tail + 2] ?? 0) & 0xff) << 16);
  if (rest >= 2) h = h ^ (((data[tail + 1] ?? 0) & 0xff) << 8);
  if (rest >= 1) {
    h = h ^ ((data[tail] ?? 0) & 0xff);
    h = h * M;
  }
  h = h ^ (h >>> 13);
  h = h * M;
  h = h ^ (h >>> 15);
  return h;
}

/** Kafka's `Utils.toPositive`: the sign bit cleared (not the absolute value). */
function toPositive(x: number): number {
  return x & 0x7fffffff;
}

/**
 * A kafkajs partitioner factory: a partition pinned by the message wins, a key is hashed with
 * `hashKey`, and unkeyed messages go round-robin over the partitions with a leader (over all of
 * them when none has), from a random point per topic.
 */
function roundRobinFactory(
  hashKey: (key: unknown, count: number) => number,
): () => PartitionerFunction {
  return () => {
    const counters = new Map<string, number>();
    return ({ topic, partitionMetadata, message }) => {
      let counter = counters.get(topic);
      if (counter === undefined) counter = randomBytes(4).readUInt32BE(0);
      const count = partitionMetadata.length;
      if (message.partition !== null && message.partition !== undefined) {
        counters.set(topic, counter);
        return message.partition as number;
      }
      if (message.key !== null && message.key !== undefined) {
        counters.set(topic, counter);
        return hashKey(message.key, count);
      }
      counter++;
      counters.set(topic, counter);
      const available = partitionMetadata.filter((p) => p.leader >= 0);
      if (available.length > 0) {
        return (available[toPositive(counter) % available.length] as PartitionMetadataShape)
          .partitionId;
      }
      return toPositive(counter) % count;
    };
  };
}

/** kafkajs 2's `DefaultPartitioner`: keys placed as Java's producer places them. */
export const defaultPartitioner = roundRobinFactory((key, count) =>
  partitionForKey(Buffer.isBuffer(key) ? key : String(key), count),
);

/** kafkajs 1.x's partitioner (kafkajs 2's `LegacyPartitioner`). */
export const legacyPartitioner = roundRobinFactory(
  (key, count) => toPositive(legacyMurmur2(key)) % count,
);

const byTopic = new WeakMap<MetadataSnapshot, Map<string, PartitionMetadataShape[]>>();

/**
 * A topic's partitions in kafkajs's shape, from a kats metadata snapshot, in partition order;
 * made once per snapshot and topic (a partitioner is called once per message). A partition
 * without a leader has leader -1, as in Kafka's Metadata answer.
 */
export function partitionMetadataOf(
  snapshot: MetadataSnapshot,
  topic: string,
): PartitionMetadataShape[] {
  let topics = byTopic.get(snapshot);
  if (topics === undefined) {
    topics = new Map();
    byTopic.set(snapshot, topics);
  }
  let list = topics.get(topic);
  if (list === undefined) {
    const partitions = [...(snapshot.topic(topic)?.partitions ?? [])];
    partitions.sort((a, b) => a.partition - b.partition);
    list = partitions.map((p) => ({
      partitionErrorCode: p.errorCode,
      partitionId: p.partition,
      leader: p.leader ?? -1,
      replicas: [...p.replicas],
      isr: [...p.isr],
      offlineReplicas: [...p.offlineReplicas],
    }));
    topics.set(topic, list);
  }
  return list;
}
