/**
 * Kafka's default partitioning, byte for byte: keyed records go to
 * `toPositive(murmur2(keyBytes)) % numPartitions` (Kafka's `BuiltInPartitioner.partitionForKey`),
 * so a key lands on the same partition as with the Java producer; unkeyed records stick to one
 * partition until about `batchSize` bytes went to it (KIP-480, KIP-794), then move on.
 */

// murmur2's constants as Kafka's Utils.murmur2 uses them (seed 0x9747b28c, m 0x5bd1e995, r 24).
const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/**
 * The 32-bit murmur2 hash of `data` as Kafka computes it (little-endian 4-byte blocks, the
 * tail mixed in Java's switch fall-through order), as a signed int32.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    let k = data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = blocks << 2;
  // The tail, as Java's fall-through switch mixes it: byte 2, then 1, then 0 and a multiply.
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not `Math.abs`, which fails on -2^31). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/**
 * The partition Kafka's default partitioner picks for a key: `toPositive(murmur2(key)) %
 * numPartitions`, over all partitions whether or not they have a leader (as Java does, so a
 * key never moves while a broker is down).
 *
 * @param key the serialized key bytes
 * @param numPartitions the topic's partition count, at least 1
 */
export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  return toPositive(murmur2(key)) % numPartitions;
}

/**
 * Sticky partitioning for records without a key or a pinned partition (KIP-480, with
 * KIP-794's switch rule, simplified): every unkeyed record of a topic goes to one partition
 * until at least `batchSize` bytes have been sent to it, then a new one is picked at random among
 * the partitions that have a leader (among all when none has). Kafka additionally weighs the
 * choice by queue sizes (`partitioner.adaptive.partitioning.enable`); this one does not.
 */
export class StickyPartitioner {
  readonly #batchSize: number;
  readonly #random: () => number;
  readonly #current = new Map<string, { partition: number; bytes: number }>();

  /**
   * @param batchSize bytes after which the sticky partition changes (the producer's `batchSize`)
   * @param random injectable randomness in [0, 1) (tests)
   */
  constructor(batchSize: number, random: () => number = Math.random) {
    this.#batchSize = batchSize;
    this.#random = random;
  }

  /**
   * The partition for the next unkeyed record of `topic`.
   *
   * @param available partitions that have a leader now (may be empty)
   * @param numPartitions the topic's partition count
   */
  partition(topic: string, available: readonly number[], numPartitions: number): number {
    const state = this.#current.get(topic);
    if (
      state !== undefined &&
      state.partition < numPartitions &&
      (available.length === 0 || available.includes(state.partition))
    ) {
      return state.partition;
    }
    return this.#next(topic, available, numPartitions, state?.partition);
  }

  /**
   * Counts `bytes` appended to `partition` of `topic`; once the sticky partition has taken
   * `batchSize` bytes, the next record starts a new one.
   */
  onAppend(topic: string, partition: number, bytes: number): void {
    const state = this.#current.get(topic);
    if (state === undefined || state.partition !== partition) return;
    state.bytes += bytes;
    if (state.bytes >= this.#batchSize) this.#current.delete(topic);
  }

  #next(
    topic: string,
    available: readonly number[],
    numPartitions: number,
    previous: number | undefined,
  ): number {
    const pool = available.length > 0 ? available : undefined;
    const count = pool?.length ?? numPartitions;
    let pick = Math.floor(this.#random() * count);
    // With a choice, do not stay on the partition just left: that is the point of switching.
    if (count > 1 && (pool?.[pick] ?? pick) === previous) pick = (pick + 1) % count;
    const partition = pool?.[pick] ?? pick;
    this.#current.set(topic, { partition, bytes: 0 });
    return partition;
  }
}
