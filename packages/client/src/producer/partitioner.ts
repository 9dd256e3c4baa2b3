/**
 * Kafka's default partitioning: keyed records go to `toPositive(murmur2(keyBytes)) %
 * numPartitions` (the codec's `partitionForKey`, byte for byte Kafka's
 * `BuiltInPartitioner.partitionForKey`); unkeyed records stick to one partition until about
 * `batchSize` bytes went to it (KIP-480, KIP-794), then move on.
 */

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
  readonly #current = new Map<
    string,
    { partition: number; bytes: number; checked: readonly number[] | undefined }
  >();

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
   * @param available partitions that have a leader now (may be empty); an array passed again
   *   is taken as unchanged (pass a new one when the leaders change)
   * @param numPartitions the topic's partition count
   */
  partition(topic: string, available: readonly number[], numPartitions: number): number {
    const state = this.#current.get(topic);
    if (state !== undefined && state.partition < numPartitions) {
      // The same list as last time (a caller keeps one per metadata snapshot): already checked.
      if (state.checked === available) return state.partition;
      if (available.length === 0 || available.includes(state.partition)) {
        state.checked = available;
        return state.partition;
      }
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
    this.#current.set(topic, { partition, bytes: 0, checked: available });
    return partition;
  }
}
