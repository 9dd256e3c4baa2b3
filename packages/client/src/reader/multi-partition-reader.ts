import { KafkaError } from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import type { PartitionBatch } from '../fetch/partition-batch.js';
import { BoundedQueue } from './internal/bounded-queue.js';
import { PartitionReader, type PartitionReaderOptions } from './partition-reader.js';

/** One partition for a {@link MultiPartitionReader}, and where to start reading it. */
export interface PartitionAssignment {
  readonly topic: string;
  readonly partition: number;
  /** An offset (>= 0), or `'earliest'` / `'latest'` resolved with ListOffsets. */
  readonly startOffset: bigint | 'earliest' | 'latest';
}

/** Options of a {@link MultiPartitionReader}: a {@link PartitionReader}'s, for every partition, plus the queue. */
export interface MultiPartitionReaderOptions
  extends Omit<
    PartitionReaderOptions,
    'topic' | 'partition' | 'startOffset' | 'signal' | 'prefetch'
  > {
  /**
   * Batches queued between the partition tasks and the caller. Default 16. When the queue is
   * full, every partition task waits with the one batch it holds and fetches nothing more:
   * a slow caller slows the fetching down.
   */
  readonly capacity?: number;
  /** Ends the iteration (quietly, `done`) and stops every partition task when aborted. */
  readonly signal?: AbortSignal;
}

interface Task {
  readonly assignment: PartitionAssignment;
  readonly reader: PartitionReader;
  readonly controller: AbortController;
  done: Promise<void> | undefined;
  /** The last `nextOffset` handed to the caller. */
  delivered: bigint | undefined;
}

const keyOf = (topic: string, partition: number) => `${partition}:${topic}`;

/**
 * Reads many partitions into one bounded queue, for one caller: `for await (const batch of
 * multi)` yields {@link PartitionBatch}es of every partition, each partition's in offset order,
 * partitions interleaved as their answers arrive.
 *
 * One task per partition, each a {@link PartitionReader} on its own dedicated connection
 * (without prefetch: the queue is the buffer). That costs a connection per partition, and buys
 * partitions that never wait for each other: a partition whose leader moves or whose broker is
 * down is retried on its own while the others go on, and each long poll ends when its own
 * partition has data. Grouping partitions per leader into one Fetch would save connections on
 * large assignments; it is not done here.
 *
 * Memory: at most `capacity` batches queued, plus one batch per partition waiting for room; a
 * batch is at most about `partitionMaxBytes` (one record batch when a single one is larger).
 *
 * The first error a partition cannot retry (see {@link PartitionReader}) stops every task and
 * is thrown by the iteration; batches still queued are dropped (each partition's position is the
 * `nextOffset` of the last batch received, also given by {@link position}).
 */
export class MultiPartitionReader implements AsyncIterable<PartitionBatch> {
  readonly #cluster: Cluster;
  readonly #options: MultiPartitionReaderOptions;
  readonly #queue: BoundedQueue<PartitionBatch>;
  readonly #tasks = new Map<string, Task>();
  readonly #closer = new AbortController();
  #started = false;
  #running = false;
  #error: Error | undefined;

  /**
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` for a bad capacity, a partition named
   *   twice, or a bad partition option
   */
  constructor(
    cluster: Cluster,
    partitions: readonly PartitionAssignment[],
    options: MultiPartitionReaderOptions = {},
  ) {
    const capacity = options.capacity ?? 16;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new KafkaError(
        'ERR_KAFKA_READER_OPTION_INVALID',
        `MultiPartitionReader: capacity must be an integer >= 1, got ${capacity}`,
      );
    }
    this.#cluster = cluster;
    this.#options = options;
    this.#queue = new BoundedQueue(capacity);
    const signal = options.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.#closer.abort();
      else signal.addEventListener('abort', () => void this.close(), { once: true });
    }
    for (const assignment of partitions) this.add(assignment);
  }

  /** Batches waiting in the queue. */
  get queued(): number {
    return this.#queue.size;
  }

  /** The partitions being read. */
  assignments(): PartitionAssignment[] {
    return [...this.#tasks.values()].map((t) => t.assignment);
  }

  /**
   * The next offset of a partition the caller will be given (the last batch's `nextOffset`);
   * undefined before its first batch or for a partition not read.
   */
  position(topic: string, partition: number): bigint | undefined {
    return this.#tasks.get(keyOf(topic, partition))?.delivered;
  }

  /**
   * Starts reading one more partition (at once when the iteration has started).
   *
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` when it is already read or an option is bad
   */
  add(assignment: PartitionAssignment): void {
    const key = keyOf(assignment.topic, assignment.partition);
    if (this.#tasks.has(key)) {
      throw new KafkaError(
        'ERR_KAFKA_READER_OPTION_INVALID',
        `MultiPartitionReader: ${assignment.topic}-${assignment.partition} is already read`,
      );
    }
    const controller = new AbortController();
    const { capacity: _, signal: __, ...readerOptions } = this.#options;
    const reader = new PartitionReader(this.#cluster, {
      ...readerOptions,
      topic: assignment.topic,
      partition: assignment.partition,
      startOffset: assignment.startOffset,
      prefetch: false,
      signal: controller.signal,
    });
    const task: Task = {
      assignment,
      reader,
      controller,
      done: undefined,
      delivered: typeof assignment.startOffset === 'bigint' ? assignment.startOffset : undefined,
    };
    this.#tasks.set(key, task);
    if (this.#started) this.#start(task);
  }

  /**
   * Stops reading a partition and drops its queued batches. Resolves, once its task has ended,
   * with the partition's position (the last delivered `nextOffset`), or undefined if it was
   * not read or had delivered nothing.
   */
  async remove(topic: string, partition: number): Promise<bigint | undefined> {
    const key = keyOf(topic, partition);
    const task = this.#tasks.get(key);
    if (task === undefined) return undefined;
    this.#tasks.delete(key);
    task.controller.abort();
    this.#queue.remove((b) => b.topic === topic && b.partition === partition);
    await task.done;
    return task.delivered;
  }

  [Symbol.asyncIterator](): AsyncIterator<PartitionBatch> {
    return this.#iterate();
  }

  /** Stops every task and ends a running iteration. Idempotent. */
  async close(): Promise<void> {
    this.#closer.abort();
    this.#queue.close();
    const tasks = [...this.#tasks.values()];
    for (const task of tasks) task.controller.abort();
    await Promise.all(tasks.map((t) => t.done));
  }

  #start(task: Task): void {
    task.done = (async () => {
      const signal = task.controller.signal;
      try {
        for await (const batch of task.reader) {
          if (!(await this.#queue.put(batch, signal))) break;
        }
      } catch (error) {
        if (!signal.aborted) this.#fail(error instanceof Error ? error : new Error(String(error)));
      }
    })();
  }

  #fail(error: Error): void {
    this.#error ??= error;
    for (const task of this.#tasks.values()) task.controller.abort();
    this.#queue.close();
  }

  async *#iterate(): AsyncGenerator<PartitionBatch, void, undefined> {
    if (this.#running) {
      throw new KafkaError(
        'ERR_KAFKA_READER_BUSY',
        'MultiPartitionReader: another iteration is running',
      );
    }
    this.#running = true;
    if (!this.#started) {
      this.#started = true;
      if (!this.#closer.signal.aborted) for (const task of this.#tasks.values()) this.#start(task);
    }
    const signal = this.#closer.signal;
    try {
      for (;;) {
        if (this.#error !== undefined) throw this.#error;
        if (signal.aborted) return;
        const batch = await this.#queue.take(signal);
        if (this.#error !== undefined) throw this.#error;
        if (batch === undefined || signal.aborted) return;
        const task = this.#tasks.get(keyOf(batch.topic, batch.partition));
        if (task === undefined) continue;
        task.delivered = batch.nextOffset;
        yield batch;
      }
    } finally {
      this.#running = false;
    }
  }
}
