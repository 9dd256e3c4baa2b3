import { type CompressionCodec, encodeRecordBatch, encodeRecordBatchSync } from '@kafkats/codec';
import { ProducerBatch } from './producer-batch.js';

/** The records waiting for one partition, oldest first. */
export interface PartitionQueue {
  readonly topic: string;
  readonly partition: number;
  /** Batches not in flight: retried ones (with sequences, in sequence order) first, then new ones. */
  readonly batches: ProducerBatch[];
}

/** How the accumulator encodes a closed batch. */
export interface BatchEncoding {
  readonly compression: CompressionCodec;
  readonly compressionLevel: number | undefined;
  readonly transactional: boolean;
}

// Kafka's CompressionRatioEstimator: a compressed batch is sized by its uncompressed bytes times
// the topic's estimated ratio times 1.05 (MemoryRecordsBuilder's estimation factor); the estimate
// follows each observed ratio, quickly when compression gets worse, slowly when it gets better.
const COMPRESSION_ESTIMATION_FACTOR = 1.05;
const RATIO_DETERIORATE_STEP = 0.05;
const RATIO_IMPROVING_STEP = 0.005;

/**
 * Batches per partition, as Kafka's RecordAccumulator keeps them: records go into the open
 * (last) batch of their partition until it reaches `batchSize`; a batch closes when full, when
 * its `lingerMs` is up, or on flush, and is then encoded once. The sender drains closed,
 * encoded batches from the front of each queue. With compression, "full" is measured on the
 * estimated compressed size, as Kafka does, so a batch of compressible records carries as
 * many records as Java's would.
 */
export class Accumulator {
  readonly #queues = new Map<string, PartitionQueue>();
  readonly #batchSize: number;
  readonly #lingerMs: number;
  readonly #encoding: BatchEncoding;
  readonly #onReady: () => void;
  readonly #onRelease: (bytes: number) => void;
  /** Batches not yet done (open, queued or in flight), for flush. */
  readonly incomplete = new Set<ProducerBatch>();
  /** Flushes in progress: while > 0 every batch is ready at once. */
  flushing = 0;
  /** Estimated compressed/uncompressed ratio per topic (compression on only); starts at 1. */
  readonly #ratios = new Map<string, number>();

  /**
   * @param onReady called when a batch becomes drainable (encoded) so the sender can run
   * @param onRelease called with a finished batch's `memoryBytes` (buffer memory accounting)
   */
  constructor(
    batchSize: number,
    lingerMs: number,
    encoding: BatchEncoding,
    onReady: () => void,
    onRelease: (bytes: number) => void,
  ) {
    this.#batchSize = batchSize;
    this.#lingerMs = lingerMs;
    this.#encoding = encoding;
    this.#onReady = onReady;
    this.#onRelease = onRelease;
  }

  /** Every partition queue (live view). */
  queues(): IterableIterator<PartitionQueue> {
    return this.#queues.values();
  }

  queue(topic: string, partition: number): PartitionQueue {
    const key = `${topic}\u0000${partition}`;
    let q = this.#queues.get(key);
    if (q === undefined) {
      q = { topic, partition, batches: [] };
      this.#queues.set(key, q);
    }
    return q;
  }

  /**
   * The open batch of a partition with room for `bytes` more, closing the current one when it
   * has none. A record larger than `batchSize` gets a batch of its own, as in Kafka.
   */
  batchFor(topic: string, partition: number, bytes: number, nowMs: number): ProducerBatch {
    const q = this.queue(topic, partition);
    const last = q.batches[q.batches.length - 1];
    if (last !== undefined && !last.closed) {
      if (this.#estimatedBytes(topic, last.sizeBytes + bytes) <= this.#batchSize) return last;
      this.close(last);
    }
    const batch = new ProducerBatch(topic, partition, nowMs);
    q.batches.push(batch);
    this.incomplete.add(batch);
    return batch;
  }

  /** Closes `batch` if it is full after an append. */
  afterAppend(batch: ProducerBatch): void {
    if (this.#estimatedBytes(batch.topic, batch.sizeBytes) >= this.#batchSize) this.close(batch);
  }

  /** What `uncompressed` bytes of records of `topic` will take in a batch, estimated. */
  #estimatedBytes(topic: string, uncompressed: number): number {
    if (this.#encoding.compression === 'none') return uncompressed;
    const ratio = this.#ratios.get(topic) ?? 1;
    return uncompressed * ratio * COMPRESSION_ESTIMATION_FACTOR;
  }

  /** Moves `topic`'s ratio estimate after a batch compressed to `observed` of its size. */
  #observeRatio(topic: string, observed: number): void {
    const current = this.#ratios.get(topic) ?? 1;
    let next = current;
    if (observed > current) next = Math.max(current + RATIO_DETERIORATE_STEP, observed);
    else if (observed < current) next = Math.max(current - RATIO_IMPROVING_STEP, observed);
    this.#ratios.set(topic, Math.min(1, next));
  }

  /** The compression ratio currently estimated for `topic` (1 without compression). */
  compressionRatio(topic: string): number {
    return this.#encoding.compression === 'none' ? 1 : (this.#ratios.get(topic) ?? 1);
  }

  /**
   * Closes open batches whose linger is over (all of them while flushing) and returns the
   * earliest time an open batch will be due, or Infinity.
   */
  closeDue(nowMs: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const q of this.#queues.values()) {
      const last = q.batches[q.batches.length - 1];
      if (last === undefined || last.closed) continue;
      const due = last.createdMs + this.#lingerMs;
      if (this.flushing > 0 || due <= nowMs) this.close(last);
      else if (due < next) next = due;
    }
    return next;
  }

  /** Closes every open batch now (flush, close). */
  closeAll(): void {
    for (const q of this.#queues.values()) {
      const last = q.batches[q.batches.length - 1];
      if (last !== undefined && !last.closed) this.close(last);
    }
  }

  /**
   * Closes a batch and encodes it once: synchronously without compression, off the main
   * thread (the codec's async path) with it. An encoding failure fails the batch.
   */
  close(batch: ProducerBatch): void {
    if (batch.closed) return;
    batch.closed = true;
    const input = {
      records: batch.records,
      compression: this.#encoding.compression,
      transactional: this.#encoding.transactional,
      ...(this.#encoding.compressionLevel === undefined
        ? {}
        : { compressionLevel: this.#encoding.compressionLevel }),
    };
    if (this.#encoding.compression === 'none') {
      try {
        batch.encoded = encodeRecordBatchSync(input);
        batch.records = [];
      } catch (error) {
        this.failQueued(batch, error as Error);
      }
      this.#onReady();
      return;
    }
    encodeRecordBatch(input).then(
      (bytes) => {
        if (batch.sizeBytes > 0) this.#observeRatio(batch.topic, bytes.length / batch.sizeBytes);
        if (batch.done) return;
        batch.encoded = bytes;
        batch.records = [];
        this.#onReady();
      },
      (error: unknown) => {
        this.failQueued(batch, error as Error);
        this.#onReady();
      },
    );
  }

  /** Removes a batch that is not in flight from its queue and fails it. */
  failQueued(batch: ProducerBatch, error: Error): void {
    const q = this.queue(batch.topic, batch.partition);
    const i = q.batches.indexOf(batch);
    if (i >= 0) q.batches.splice(i, 1);
    this.finished(batch);
    batch.fail(error);
  }

  /** Forgets a batch that completed or failed. */
  finished(batch: ProducerBatch): void {
    if (this.incomplete.delete(batch)) this.#onRelease(batch.memoryBytes);
  }

  /**
   * Puts a batch back for another attempt: before every batch without a sequence, and among
   * sequenced ones in sequence order, so a partition's retries go out in their original order
   * (Kafka's RecordAccumulator.insertInSequenceOrder).
   */
  reenqueue(batch: ProducerBatch): void {
    const q = this.queue(batch.topic, batch.partition);
    let i = 0;
    while (i < q.batches.length) {
      const other = q.batches[i]!;
      if (other.baseSequence < 0 || !other.closed) break;
      if (batch.baseSequence >= 0 && compareSequence(other, batch) > 0) break;
      i++;
    }
    q.batches.splice(i, 0, batch);
  }

  /** Removes and returns the batches (not in flight) whose delivery timeout has passed. */
  expired(nowMs: number, deliveryTimeoutMs: number): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    for (const q of this.#queues.values()) {
      for (let i = 0; i < q.batches.length; ) {
        const b = q.batches[i]!;
        if (nowMs - b.createdMs >= deliveryTimeoutMs) {
          q.batches.splice(i, 1);
          if (!b.closed) b.closed = true;
          out.push(b);
        } else i++;
      }
    }
    return out;
  }

  /**
   * The earliest time a batch not in flight will reach its delivery timeout, or Infinity
   * (Kafka's RecordAccumulator.nextExpiryTimeMs): the sender wakes then even when nothing else
   * would, so a batch stuck behind a request that does not come back still fails on time.
   */
  nextExpiryMs(deliveryTimeoutMs: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (const q of this.#queues.values()) {
      for (const b of q.batches) if (b.createdMs < first) first = b.createdMs;
    }
    return first + deliveryTimeoutMs;
  }

  /** Removes and returns every batch not in flight (abort, forced close). */
  takeAll(): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    for (const q of this.#queues.values()) {
      out.push(...q.batches);
      q.batches.length = 0;
    }
    return out;
  }

  /** True when no batch is waiting or in flight. */
  isEmpty(): boolean {
    return this.incomplete.size === 0;
  }
}

/** Orders two sequenced batches of one partition (same epoch: by sequence; else older epoch first). */
function compareSequence(a: ProducerBatch, b: ProducerBatch): number {
  if (a.producerEpoch !== b.producerEpoch) return a.producerEpoch - b.producerEpoch;
  return a.baseSequence - b.baseSequence;
}
