import type { ProducerRecord } from './producer-options.js';

/**
 * Kafka's default partitioning: keyed records go to `toPositive(murmur2(keyBytes)) %
 * numPartitions` (the codec's `partitionForKey`, byte for byte Kafka's
 * `BuiltInPartitioner.partitionForKey`); unkeyed records stick to one partition until about
 * `batchSize` bytes went to it (KIP-480, KIP-794), then move on.
 */

/** What a custom {@link Partitioner} is told about the record's topic. */
export interface PartitionerContext {
  readonly topic: string;
  /** The topic's partition count in the producer's metadata. */
  readonly partitionCount: number;
  /**
   * The partitions that have a leader now, ascending (Kafka's
   * `Cluster.availablePartitionsForTopic`); empty when none has.
   */
  readonly availablePartitions: readonly number[];
}

/**
 * Chooses the partition of a record that names none (Kafka's `Partitioner.partition`, the
 * `partitioner.class` setting): called once per such record, on the `send` call, before the
 * record is placed. It returns a partition number from 0, or `undefined` to leave the record
 * to the default partitioning (murmur2 of the key, sticky for unkeyed records). The record
 * is the caller's, as given (key and value as bytes or strings: `partitionForKey` hashes
 * either as Kafka does; with `serializers`, the key and value before serialization).
 *
 * As in Kafka's producer: a negative or non-integer answer fails the record with
 * `ERR_KAFKA_PRODUCER_PARTITION_INVALID`; a partition beyond the topic's count waits for
 * metadata that has it, up to `maxBlockMs`, as a record that names one does; an exception
 * fails that record with the exception.
 */
export type Partitioner<K = Buffer | string, V = Buffer | string> = (
  record: ProducerRecord<K, V>,
  context: PartitionerContext,
) => number | undefined;

/**
 * Sticky partitioning for records without a key or a pinned partition (KIP-480, KIP-794, as
 * Kafka's BuiltInPartitioner does it): every unkeyed record of a topic goes to one partition
 * until `batchSize` bytes have gone to it and its queue holds no open batch (a switch in the
 * middle of a batch would send a fractional one), or until twice `batchSize` went to it
 * anyway; then the next partition is picked among those that have a leader (among all when
 * none has).
 *
 * The pick is uniform, or, with `queueSize` given (adaptive partitioning,
 * `partitioner.adaptive.partitioning.enable`), weighted against each partition's queue of
 * unsent batches: a partition whose leader is slow has more batches queued and gets fewer new
 * records. As in Kafka, the weights are `maxQueue + 1 - queue`, and adaptive picks start once
 * every partition of the topic has had a queue; until then, and for a topic of one partition,
 * the pick is uniform.
 */
export class StickyPartitioner {
  readonly #batchSize: number;
  readonly #random: () => number;
  readonly #queueSize: ((topic: string, partition: number) => number | undefined) | undefined;
  readonly #unavailable: ((topic: string, partition: number) => boolean) | undefined;
  readonly #current = new Map<
    string,
    { partition: number; bytes: number; checked: readonly number[] | undefined }
  >();

  /**
   * @param batchSize bytes after which the sticky partition changes (the producer's `batchSize`)
   * @param random injectable randomness in [0, 1) (tests)
   * @param queueSize for adaptive picks: the number of unsent batches queued for a partition,
   *   undefined when it never had a queue; omit for uniform picks
   * @param unavailable for adaptive picks: partitions to leave out, whose leader has not
   *   taken data for longer than `partitioner.availability.timeout.ms`
   */
  constructor(
    batchSize: number,
    random: () => number = Math.random,
    queueSize?: (topic: string, partition: number) => number | undefined,
    unavailable?: (topic: string, partition: number) => boolean,
  ) {
    this.#batchSize = batchSize;
    this.#random = random;
    this.#queueSize = queueSize;
    this.#unavailable = unavailable;
  }

  /**
   * The partition for the next unkeyed record of `topic`.
   *
   * @param available partitions that have a leader now (may be empty); an array passed again
   *   is taken as unchanged (pass a new one when the leaders change)
   * @param numPartitions the topic's partition count
   * @param allBatchesFull whether the partition's queue holds no open batch (Kafka's
   *   allBatchesFull): a switch held back while a batch was open happens once it is not
   */
  partition(
    topic: string,
    available: readonly number[],
    numPartitions: number,
    allBatchesFull?: (topic: string, partition: number) => boolean,
  ): number {
    const state = this.#current.get(topic);
    if (state !== undefined && state.partition < numPartitions) {
      const due =
        state.bytes >= this.#batchSize && allBatchesFull?.(topic, state.partition) === true;
      if (!due) {
        // The same list as last time (a caller keeps one per metadata snapshot): already checked.
        if (state.checked === available) return state.partition;
        if (available.length === 0 || available.includes(state.partition)) {
          state.checked = available;
          return state.partition;
        }
      }
    }
    return this.#next(topic, available, numPartitions, state?.partition);
  }

  /**
   * Counts `bytes` appended to `partition` of `topic`. Once the sticky partition has taken
   * `batchSize` bytes and `enableSwitch` says its queue holds no open batch, or twice
   * `batchSize` in any case, the next record starts a new one.
   */
  onAppend(topic: string, partition: number, bytes: number, enableSwitch = true): void {
    const state = this.#current.get(topic);
    if (state === undefined || state.partition !== partition) return;
    state.bytes += bytes;
    if ((state.bytes >= this.#batchSize && enableSwitch) || state.bytes >= 2 * this.#batchSize)
      this.#current.delete(topic);
  }

  #next(
    topic: string,
    available: readonly number[],
    numPartitions: number,
    previous: number | undefined,
  ): number {
    const weighted = this.#weighted(topic, available, numPartitions);
    if (weighted !== undefined) {
      this.#current.set(topic, { partition: weighted, bytes: 0, checked: available });
      return weighted;
    }
    const pool = available.length > 0 ? available : undefined;
    const count = pool?.length ?? numPartitions;
    let pick = Math.floor(this.#random() * count);
    // With a choice, do not stay on the partition just left: that is the point of switching.
    if (count > 1 && (pool?.[pick] ?? pick) === previous) pick = (pick + 1) % count;
    const partition = pool?.[pick] ?? pick;
    this.#current.set(topic, { partition, bytes: 0, checked: available });
    return partition;
  }

  /**
   * The adaptive pick (Kafka's BuiltInPartitioner.nextPartition over its cumulative frequency
   * table), or undefined when it does not apply.
   */
  #weighted(
    topic: string,
    available: readonly number[],
    numPartitions: number,
  ): number | undefined {
    const queueSize = this.#queueSize;
    if (queueSize === undefined || numPartitions < 2 || available.length === 0) return undefined;
    // Every partition must have had a queue: one that never had would never be weighed.
    for (let p = 0; p < numPartitions; p++) if (queueSize(topic, p) === undefined) return undefined;
    const unavailable = this.#unavailable;
    const weighed =
      unavailable === undefined ? available : available.filter((p) => !unavailable(topic, p));
    // All left out: no load statistics, so the pick is uniform (as in Kafka).
    if (weighed.length === 0) return undefined;
    let max = 0;
    for (const p of weighed) max = Math.max(max, queueSize(topic, p) as number);
    let total = 0;
    for (const p of weighed) total += max + 1 - (queueSize(topic, p) as number);
    let r = Math.floor(this.#random() * total);
    for (const p of weighed) {
      r -= max + 1 - (queueSize(topic, p) as number);
      if (r < 0) return p;
    }
    return weighed[weighed.length - 1];
  }
}
