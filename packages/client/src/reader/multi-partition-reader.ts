import { KafkaError } from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import { FetchEngine } from '../fetch/fetch-engine.js';
import type { FetcherConfig, FetchPartitionStats } from '../fetch/fetcher.js';
import type { PartitionBatch } from '../fetch/partition-batch.js';
import { deserializeBatch, deserializersInvalid } from '../internal/deserialize.js';
import { requireCluster } from '../internal/require-cluster.js';
import type { Deserializers } from '../serialization.js';
import { engineConfig, invalidOption, isSpec } from './internal/read-options.js';
import type { PartitionReaderOptions } from './partition-reader.js';

/** One partition for a {@link MultiPartitionReader}, and where to start reading it. */
export interface PartitionAssignment {
  readonly topic: string;
  readonly partition: number;
  /** An offset (>= 0), or `'earliest'` / `'latest'` resolved with ListOffsets. */
  readonly startOffset: bigint | 'earliest' | 'latest';
}

/** Options of a {@link MultiPartitionReader}: a {@link PartitionReader}'s, for every partition, plus the queue. */
export interface MultiPartitionReaderOptions<K = Buffer, V = Buffer>
  extends Omit<
    PartitionReaderOptions<K, V>,
    'topic' | 'partition' | 'startOffset' | 'signal' | 'prefetch'
  > {
  /**
   * Answers fetched ahead of the caller, one per partition at most (an answer cut by
   * `maxBatchRecords` counts once). Default 16. Once that many wait, no Fetch goes out until
   * the caller takes one: a slow caller slows the fetching down.
   */
  readonly capacity?: number;
  /**
   * Bound on bytes fetched ahead of the caller (besides `capacity`). Default
   * min(2 x `maxBytes`, 64 MiB), as the group consumer's.
   */
  readonly maxBufferedBytes?: number;
  /** Ends the iteration (quietly, `done`) and stops fetching when aborted. */
  readonly signal?: AbortSignal;
}

interface Assigned {
  readonly assignment: PartitionAssignment;
  /** The last `nextOffset` handed to the caller. */
  delivered: bigint | undefined;
}

const keyOf = (topic: string, partition: number) => `${partition}:${topic}`;

/**
 * Reads many partitions for one caller: `for await (const batch of multi)` yields
 * {@link PartitionBatch}es of every partition, each partition's in offset order, partitions
 * taking turns in the order their answers arrived.
 *
 * It is the fetch engine over the partitions: one connection and one fetch session (KIP-227)
 * per leader broker, every partition a broker leads in one Fetch, so 50 partitions on 3
 * brokers take 3 connections. A partition whose leader moves or whose broker is down is
 * retried on its own while the others go on.
 *
 * Memory: at most `capacity` batches fetched ahead (and no more bytes than `maxBufferedBytes`,
 * passed by at most one answer per broker), plus the batch the caller holds; a batch is at
 * most about `partitionMaxBytes` (one record batch when a single one is larger).
 *
 * The first error a partition cannot retry (see {@link PartitionReader}) stops the reading and
 * is thrown by the iteration; each partition's position is then the `nextOffset` of the last
 * batch the caller received ({@link position}).
 */
export class MultiPartitionReader<K = Buffer, V = Buffer>
  implements AsyncIterable<PartitionBatch<K, V>>
{
  readonly #config: FetcherConfig;
  readonly #deserializers: Deserializers<K, V> | undefined;
  readonly #assigned = new Map<string, Assigned>();
  readonly #closer = new AbortController();
  #engine: FetchEngine | undefined;
  /** Batches polled and not yet yielded: the rest of an answer cut by `maxBatchRecords`. */
  #pending: PartitionBatch[] = [];
  #running = false;
  #error: Error | undefined;

  /**
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` for a bad capacity, a partition named
   *   twice, or a bad partition option
   */
  constructor(
    cluster: Cluster,
    partitions: readonly PartitionAssignment[],
    options: MultiPartitionReaderOptions<K, V> = {},
  ) {
    requireCluster('MultiPartitionReader', cluster);
    const capacity = options.capacity ?? 16;
    if (!Number.isInteger(capacity) || capacity < 1)
      throw invalidOption(
        'MultiPartitionReader',
        `capacity must be an integer >= 1, got ${capacity}`,
      );
    const deserializers = deserializersInvalid(options.deserializers);
    if (deserializers !== undefined) throw invalidOption('MultiPartitionReader', deserializers);
    this.#deserializers = options.deserializers;
    const config = engineConfig(cluster, options, 'MultiPartitionReader');
    const maxBufferedBytes = options.maxBufferedBytes ?? Math.min(2 * config.maxBytes, 67_108_864);
    if (!Number.isInteger(maxBufferedBytes) || maxBufferedBytes < 1)
      throw invalidOption(
        'MultiPartitionReader',
        `maxBufferedBytes must be an integer >= 1, got ${maxBufferedBytes}`,
      );
    this.#config = { ...config, maxBufferedBytes, maxBufferedBatches: capacity };
    const signal = options.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.#closer.abort();
      else signal.addEventListener('abort', () => void this.close(), { once: true });
    }
    for (const assignment of partitions) this.add(assignment);
  }

  /** Batches fetched and waiting for the caller. */
  get queued(): number {
    return (this.#engine?.bufferedBatches ?? 0) + this.#pending.length;
  }

  /** The partitions being read. */
  assignments(): PartitionAssignment[] {
    return [...this.#assigned.values()].map((a) => a.assignment);
  }

  /**
   * The next offset of a partition the caller will be given (the last batch's `nextOffset`);
   * undefined before its first batch or for a partition not read.
   */
  position(topic: string, partition: number): bigint | undefined {
    return this.#assigned.get(keyOf(topic, partition))?.delivered;
  }

  /** What the engine knows of a partition's reading (high-water mark, counters, leader). */
  partitionStats(topic: string, partition: number): FetchPartitionStats | undefined {
    return this.#engine?.partitionStats({ topic, partition });
  }

  /**
   * Starts reading one more partition (at once when the iteration has started).
   *
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` when it is already read or its start is bad
   */
  add(assignment: PartitionAssignment): void {
    const { topic, partition, startOffset } = assignment;
    const key = keyOf(topic, partition);
    const invalid = (what: string) =>
      invalidOption('MultiPartitionReader', `${topic}-${partition}: ${what}`);
    if (this.#assigned.has(key)) throw invalid('is already read');
    if (typeof topic !== 'string' || topic === '') throw invalid('topic must be a name');
    if (!Number.isInteger(partition) || partition < 0)
      throw invalid('partition must be an integer >= 0');
    if (typeof startOffset === 'bigint' ? startOffset < 0n : !isSpec(startOffset))
      throw invalid(`startOffset must be an offset >= 0, 'earliest' or 'latest'`);
    this.#assigned.set(key, {
      assignment,
      delivered: typeof startOffset === 'bigint' ? startOffset : undefined,
    });
    this.#engine?.assign([{ topic, partition, start: startOf(startOffset) }]);
  }

  /**
   * Stops reading a partition and drops what was fetched of it. Resolves with the partition's
   * position (the last delivered `nextOffset`), or undefined if it was not read or had
   * delivered nothing.
   */
  async remove(topic: string, partition: number): Promise<bigint | undefined> {
    const key = keyOf(topic, partition);
    const assigned = this.#assigned.get(key);
    if (assigned === undefined) return undefined;
    this.#assigned.delete(key);
    this.#pending = this.#pending.filter((b) => b.topic !== topic || b.partition !== partition);
    this.#engine?.unassign([{ topic, partition }]);
    return assigned.delivered;
  }

  [Symbol.asyncIterator](): AsyncIterator<PartitionBatch<K, V>> {
    return this.#iterate();
  }

  /** Stops fetching, closes the connections and ends a running iteration. Idempotent. */
  async close(): Promise<void> {
    this.#closer.abort();
    await this.#engine?.close();
  }

  async *#iterate(): AsyncGenerator<PartitionBatch<K, V>, void, undefined> {
    if (this.#running) {
      throw new KafkaError(
        'ERR_KAFKA_READER_BUSY',
        'MultiPartitionReader: another iteration is running',
      );
    }
    this.#running = true;
    const signal = this.#closer.signal;
    if (this.#engine === undefined && !signal.aborted) {
      // One engine for the reader's life: the partitions' fetch sessions outlive an iteration
      // the caller breaks out of, and the next one goes on where the last left off.
      const engine = new FetchEngine(this.#config);
      this.#engine = engine;
      engine.assign(
        [...this.#assigned.values()].map(({ assignment: a, delivered }) => ({
          topic: a.topic,
          partition: a.partition,
          start: delivered === undefined ? startOf(a.startOffset) : { offset: delivered },
        })),
      );
    }
    const engine = this.#engine;
    try {
      for (;;) {
        if (this.#error !== undefined) throw this.#error;
        if (signal.aborted || engine === undefined) return;
        if (this.#pending.length === 0) {
          try {
            this.#pending = await engine.poll(signal, 1);
          } catch (error) {
            // The first error no retry can fix ends the reading, for this and later iterations.
            this.#error = error instanceof Error ? error : new Error(String(error));
            this.#closer.abort();
            await engine.close();
            throw this.#error;
          }
        }
        // An answer may be several batches (maxBatchRecords): the engine's position is past
        // all of them, so those not yet yielded wait here, for this or the next iteration.
        // Each leaves the array as it is yielded, so its records can be collected after use.
        const batch = this.#pending.shift();
        if (batch === undefined || signal.aborted) return;
        const assigned = this.#assigned.get(keyOf(batch.topic, batch.partition));
        if (assigned === undefined) continue;
        assigned.delivered = batch.nextOffset;
        const out = deserializeBatch(batch, this.#deserializers);
        yield out instanceof Promise ? await out : out;
      }
    } finally {
      this.#running = false;
    }
  }
}

function startOf(start: bigint | 'earliest' | 'latest') {
  return typeof start === 'bigint' ? { offset: start } : start;
}
