import {
  type BuilderCompressOptions,
  type CompressionBackend,
  type CompressionCodec,
  decodeRecordBatches,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchBuilder,
} from '@kafkats/codec';
import { type Gate, gate } from '../../internal/gate.js';
import type { PartitionerContext } from '../partitioner.js';
import { ProducerBatch } from './producer-batch.js';

/** The records waiting for one partition, oldest first. */
export interface PartitionQueue {
  readonly topic: string;
  readonly partition: number;
  /**
   * Batches not in flight: retried ones (with sequences, in sequence order) first, then new
   * ones; the last may be open (taking records).
   */
  readonly batches: ProducerBatch[];
  /** Batches of this queue closed and still compressing off the main thread. */
  compressing: number;
}

/** How the accumulator closes a batch. */
export interface BatchEncoding {
  readonly compression: CompressionCodec;
  readonly compressionLevel: number | undefined;
  readonly compressionBackend: CompressionBackend;
  readonly transactional: boolean;
  /**
   * The batch's CRC is written when it is stamped with its sequence at drain (idempotent
   * producers), not when it closes: computed once.
   */
  readonly stampedAtDrain: boolean;
}

/**
 * What the producer knows of one topic: its routing as of one metadata snapshot (partition
 * count, partitions with a leader), its partition queues, and its compression ratio estimate.
 */
export class TopicRoute {
  readonly name: string;
  /** The snapshot the routing fields were read from. */
  snapshot: unknown;
  /** Partitions in that snapshot: -1 when the topic is not in it. */
  partitionCount = -1;
  /** The topic's error code in that snapshot (0 for none). */
  errorCode = 0;
  /** Partitions that have a leader; a new array for every snapshot. */
  available: readonly number[] = [];
  /** What a custom partitioner is told, made on first use for the snapshot. */
  partitionerContext: PartitionerContext | undefined;
  /** Queues by partition (made on first use). */
  readonly queues: (PartitionQueue | undefined)[] = [];
  /** Estimated compressed/uncompressed ratio (compression on only); starts at 1. */
  ratio = 1;
  /** Bytes a new batch of this topic may take uncompressed, header included. */
  capacity: number;

  constructor(name: string, capacity: number) {
    this.name = name;
    this.capacity = capacity;
  }
}

// Kafka's CompressionRatioEstimator: a compressed batch is sized by its uncompressed bytes times
// the topic's estimated ratio times 1.05 (MemoryRecordsBuilder's estimation factor); the estimate
// follows each observed ratio, quickly when compression gets worse, slowly when it gets better.
const COMPRESSION_ESTIMATION_FACTOR = 1.05;
const RATIO_DETERIORATE_STEP = 0.05;
const RATIO_IMPROVING_STEP = 0.005;

/**
 * Recycled batch buffers kept for new batches: enough for the batches a steady stream has in
 * flight and filling, without holding a burst's worth of memory afterwards.
 */
const MAX_FREE_BUFFERS = 32;

/** No batches (shared, never written). */
const NONE: readonly ProducerBatch[] = Object.freeze([]);

/**
 * Batches per partition, as Kafka's RecordAccumulator keeps them. A record is written into the
 * open (last) batch of its partition; when it does not fit there, that batch closes and a new
 * one takes the record. A batch also closes when its `lingerMs` is up, or on flush. Each batch
 * has a buffer of `batchSize` bytes, header included, taken from `bufferMemory` until the batch
 * completes (Kafka's BufferPool), so `bufferMemory` bounds what the producer holds. With
 * compression a batch takes the uncompressed bytes expected to compress to about `batchSize`
 * (the topic's observed ratio, as Kafka estimates it), so it carries as many records as Java's.
 */
export class Accumulator {
  readonly #routes = new Map<string, TopicRoute>();
  readonly #queues: PartitionQueue[] = [];
  readonly #batchSize: number;
  readonly #maxBatchBytes: number;
  readonly #lingerMs: number;
  readonly #encoding: BatchEncoding;
  /** How a closing batch is compressed: one object for every batch. */
  readonly #compressOptions: BuilderCompressOptions;
  readonly #onReady: () => void;
  readonly #onRelease: () => void;
  /** Settled when the next batch compressing off the main thread is done (see `compressionWait`). */
  #compressed: Gate | null = null;
  /** Buffers of finished batches, for new ones (at most MAX_FREE_BUFFERS). */
  readonly #free: Buffer[] = [];
  /** Bytes of `bufferMemory` held by batches not yet done. */
  memoryUsed = 0;
  readonly #bufferMemory: number;
  /** Batches not yet done (open, queued or in flight), for flush. */
  readonly incomplete = new Set<ProducerBatch>();
  /** Flushes in progress: while > 0 every batch is ready at once. */
  flushing = 0;
  /**
   * Told when a batch that already has a sequence (a part of a split batch) fails to close: its
   * sequences will never be sent, which the idempotence state must know.
   */
  onSequencedFailure: ((batch: ProducerBatch, error: Error) => void) | null = null;

  /**
   * @param maxBatchBytes the most a batch's buffer may take (`maxRequestSize`, `bufferMemory`)
   * @param onReady called when a batch closed asynchronously (compressed off the main thread)
   *   or failed to close, so the sender can run
   * @param onRelease called when a finished batch gave its memory back
   */
  constructor(
    batchSize: number,
    maxBatchBytes: number,
    bufferMemory: number,
    lingerMs: number,
    encoding: BatchEncoding,
    onReady: () => void,
    onRelease: () => void,
  ) {
    this.#batchSize = batchSize;
    this.#maxBatchBytes = maxBatchBytes;
    this.#bufferMemory = bufferMemory;
    this.#lingerMs = lingerMs;
    this.#encoding = encoding;
    this.#compressOptions = {
      backend: encoding.compressionBackend,
      ...(encoding.compressionLevel === undefined ? {} : { level: encoding.compressionLevel }),
    };
    this.#onReady = onReady;
    this.#onRelease = onRelease;
  }

  /**
   * What a caller whose last record went into `q` waits for while two of `q`'s batches are
   * still compressing off the main thread: undefined to go on, or a promise (shared) settled
   * when the next compression anywhere ends. A loop that awaits only settled promises never
   * lets a compression's answer in (it arrives as a macrotask); without this it would fill the
   * buffer while every batch waits to be sealed. Holding at two, not one, lets the caller fill
   * the next batch while the last one compresses.
   */
  compressionWait(q: PartitionQueue | undefined): Promise<void> | undefined {
    if (q === undefined || q.compressing < 2) return undefined;
    this.#compressed ??= gate();
    return this.#compressed.promise;
  }

  /** Every partition queue (live). */
  queues(): readonly PartitionQueue[] {
    return this.#queues;
  }

  /** The topic's routing state (made on first use; its routing fields are the caller's). */
  route(topic: string): TopicRoute {
    let r = this.#routes.get(topic);
    if (r === undefined) {
      r = new TopicRoute(topic, this.#capacity(1));
      this.#routes.set(topic, r);
    }
    return r;
  }

  /** The topic's routing state, when it has one. */
  knownRoute(topic: string): TopicRoute | undefined {
    return this.#routes.get(topic);
  }

  queue(topic: string, partition: number): PartitionQueue {
    const route = this.route(topic);
    let q = route.queues[partition];
    if (q === undefined) {
      q = { topic, partition, batches: [], compressing: 0 };
      route.queues[partition] = q;
      this.#queues.push(q);
    }
    return q;
  }

  /** The batch of `q` taking records now, or null. */
  openBatch(q: PartitionQueue): ProducerBatch | null {
    const last = q.batches[q.batches.length - 1];
    return last !== undefined && !last.closed ? last : null;
  }

  /**
   * A new open batch for `q` over a buffer of `capacity` bytes (default: the topic's batch
   * capacity), or null when `bufferMemory` has no room for it now.
   */
  newBatch(q: PartitionQueue, nowMs: number, capacity?: number): ProducerBatch | null {
    const bytes = capacity ?? this.route(q.topic).capacity;
    if (this.memoryUsed + bytes > this.#bufferMemory) return null;
    this.memoryUsed += bytes;
    const batch = new ProducerBatch(q.topic, q.partition, nowMs, this.#takeBuffer(bytes), bytes);
    q.batches.push(batch);
    this.incomplete.add(batch);
    return batch;
  }

  /**
   * A buffer of at least `bytes` for a new batch: a recycled one when the last given back is
   * large enough (Kafka's BufferPool keeps batch-size buffers the same way), else a new one.
   */
  #takeBuffer(bytes: number): Buffer {
    const free = this.#free;
    while (free.length > 0) {
      const b = free.pop() as Buffer;
      if (b.length >= bytes) return b;
    }
    return Buffer.allocUnsafeSlow(bytes);
  }

  /**
   * Takes back a batch's buffer once no write can still read it: its records were compressed
   * into other bytes, or its only Produce attempt was answered. A buffer any socket may still
   * hold (a retried batch, bytes copied at a renumbering) is left to the collector.
   */
  recycle(batch: ProducerBatch): void {
    const b = batch.takeRecyclable();
    if (b !== null && this.#free.length < MAX_FREE_BUFFERS) this.#free.push(b);
  }

  /** Removes an open batch that took no record (its record was refused) and frees its memory. */
  discardEmpty(q: PartitionQueue, batch: ProducerBatch): void {
    const i = q.batches.indexOf(batch);
    if (i >= 0) q.batches.splice(i, 1);
    batch.closed = true;
    this.finished(batch);
    batch.fail(new Error('discarded'));
  }

  /** Moves `topic`'s ratio estimate after a batch compressed to `observed` of its size. */
  #observeRatio(route: TopicRoute, observed: number): void {
    const current = route.ratio;
    let next = current;
    if (observed > current) next = Math.max(current + RATIO_DETERIORATE_STEP, observed);
    else if (observed < current) next = Math.max(current - RATIO_IMPROVING_STEP, observed);
    route.ratio = Math.min(1, next);
    route.capacity = this.#capacity(route.ratio);
  }

  /**
   * The buffer of a new batch: `batchSize`, header included; with compression, the uncompressed
   * bytes whose estimated compressed size is `batchSize` (Kafka's MemoryRecordsBuilder.hasRoomFor
   * with the topic's ratio and its 1.05 factor; the header is not compressed).
   */
  #capacity(ratio: number): number {
    let bytes = this.#batchSize;
    if (this.#encoding.compression !== 'none') {
      const records = (bytes - RECORD_BATCH_OVERHEAD) / (ratio * COMPRESSION_ESTIMATION_FACTOR);
      bytes = RECORD_BATCH_OVERHEAD + Math.max(0, Math.floor(records));
    }
    // A batch smaller than its header takes no record: each gets a batch of its own size then.
    return Math.max(RECORD_BATCH_OVERHEAD, Math.min(this.#maxBatchBytes, bytes));
  }

  /** The compression ratio currently estimated for `topic` (1 without compression). */
  compressionRatio(topic: string): number {
    return this.#encoding.compression === 'none' ? 1 : (this.#routes.get(topic)?.ratio ?? 1);
  }

  /**
   * Closes open batches whose linger is over (all of them while flushing) and returns the
   * earliest time an open batch will be due, or Infinity.
   */
  closeDue(nowMs: number): number {
    let next = Number.POSITIVE_INFINITY;
    const queues = this.#queues;
    for (let i = 0; i < queues.length; i++) {
      const q = queues[i] as PartitionQueue;
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
    for (const q of this.#queues) {
      const last = q.batches[q.batches.length - 1];
      if (last !== undefined && !last.closed) this.close(last);
    }
  }

  /**
   * Closes a batch: compresses it (lz4 and snappy here, gzip and zstd off the main thread) and
   * writes its header. A failure fails the batch.
   *
   * @returns true when the batch can be drained now; false when it is still compressing or
   *   failed (`onReady` runs when that ends)
   */
  close(batch: ProducerBatch): boolean {
    if (batch.closed) return false;
    batch.closed = true;
    const builder = batch.builder as RecordBatchBuilder;
    const codec = this.#encoding.compression;
    const options = this.#compressOptions;
    if (codec === 'none' || codec === 'lz4' || codec === 'snappy') {
      try {
        if (codec !== 'none') builder.compress(codec, options);
        this.#seal(batch, builder);
        return true;
      } catch (error) {
        this.failQueued(batch, error as Error);
        this.#onReady();
        return false;
      }
    }
    const q = this.queue(batch.topic, batch.partition);
    q.compressing++;
    builder.compressAsync(codec, options).then(
      () => {
        this.#compressionDone(q);
        if (batch.done) return;
        try {
          this.#seal(batch, builder);
        } catch (error) {
          this.failQueued(batch, error as Error);
        }
        this.#onReady();
      },
      (error: unknown) => {
        this.#compressionDone(q);
        this.failQueued(batch, error as Error);
        this.#onReady();
      },
    );
    return false;
  }

  /** A batch of `q` is done compressing: callers held by `compressionWait` go on. */
  #compressionDone(q: PartitionQueue): void {
    q.compressing--;
    const c = this.#compressed;
    if (c === null) return;
    this.#compressed = null;
    c.resolve();
  }

  /** Writes the closed batch's header (its CRC too unless stamped at drain). */
  #seal(batch: ProducerBatch, builder: RecordBatchBuilder): void {
    const e = this.#encoding;
    const encoded = builder.build({ transactional: e.transactional }, !e.stampedAtDrain);
    batch.encoded = encoded;
    batch.builder = null;
    // A part of a split batch took its sequence before its bytes existed: write it in now.
    if (batch.baseSequence >= 0) {
      batch.stamp(batch.producerId, batch.producerEpoch, batch.baseSequence, false);
    }
    if (e.compression !== 'none') {
      // The records were compressed into a buffer of their own.
      this.recycle(batch);
      const records = batch.uncompressedBytes - RECORD_BATCH_OVERHEAD;
      if (records > 0) this.#observeRatio(this.route(batch.topic), encoded.length / records);
      // The uncompressed buffer is gone: the batch holds its compressed bytes only.
      const freed = batch.memoryBytes - encoded.length;
      if (freed > 0) {
        batch.memoryBytes = encoded.length;
        this.memoryUsed -= freed;
        this.#onRelease();
      }
    }
  }

  /** Removes a batch that is not in flight from its queue and fails it. */
  failQueued(batch: ProducerBatch, error: Error): void {
    const q = this.queue(batch.topic, batch.partition);
    const i = q.batches.indexOf(batch);
    if (i >= 0) q.batches.splice(i, 1);
    batch.closed = true;
    this.finished(batch);
    if (batch.baseSequence >= 0) this.onSequencedFailure?.(batch, error);
    batch.fail(error);
  }

  /**
   * Writes the records of a batch the broker refused as too large into smaller open batches
   * (Kafka's ProducerBatch.split), in order, each of at most half the refused batch's
   * uncompressed bytes: every split at least halves what a batch carries, so a topic whose
   * `max.message.bytes` is below `batchSize` is still reached (Java's split by `batchSize`
   * can refuse forever there). A record that alone fills more than half gets a batch of its
   * own. The parts keep the batch's creation time (its delivery timeout) and take no
   * `bufferMemory`, as Java allocates them outside its pool. The topic's compression ratio
   * estimate goes back to 1, as Kafka resets it after a split.
   *
   * @returns the parts, open, and where each starts among the batch's records
   * @throws RecordBatchError when the batch's own bytes cannot be read back
   */
  split(batch: ProducerBatch): { parts: ProducerBatch[]; starts: number[] } {
    const encoded = batch.encoded as Buffer;
    const whole = batch.uncompressedBytes;
    const half = RECORD_BATCH_OVERHEAD + Math.ceil((whole - RECORD_BATCH_OVERHEAD) / 2);
    const parts: ProducerBatch[] = [];
    const starts: number[] = [];
    const open = (capacity: number): ProducerBatch => {
      const part = new ProducerBatch(
        batch.topic,
        batch.partition,
        batch.createdMs,
        Buffer.allocUnsafeSlow(capacity),
        capacity,
      );
      part.memoryBytes = 0;
      parts.push(part);
      return part;
    };
    let index = 0;
    let part: ProducerBatch | null = null;
    for (const b of decodeRecordBatches(encoded, {
      verifyCrc: false,
      compressionBackend: this.#encoding.compressionBackend,
    })) {
      for (const r of b.records()) {
        const timestamp = Number(r.timestamp);
        const headers = r.headerCount === 0 ? null : r.headers;
        if (part === null || part.append(timestamp, r.key, r.value, headers) < 0) {
          starts.push(index);
          part = open(half);
          if (part.append(timestamp, r.key, r.value, headers) < 0) {
            // Alone: a part that went on taking records could be as large as the batch.
            parts.pop();
            open(whole).append(timestamp, r.key, r.value, headers);
            part = null;
          }
        }
        index++;
      }
    }
    if (index !== batch.recordCount) {
      throw new Error(
        `splitting ${batch.label}: read ${index} records back, the batch has ${batch.recordCount}`,
      );
    }
    const route = this.#routes.get(batch.topic);
    if (route !== undefined && this.#encoding.compression !== 'none') {
      route.ratio = 1;
      route.capacity = this.#capacity(1);
    }
    for (const p of parts) this.incomplete.add(p);
    return { parts, starts };
  }

  /** Forgets a batch that completed or failed, and gives its memory back. */
  finished(batch: ProducerBatch): void {
    if (this.incomplete.delete(batch)) {
      this.memoryUsed -= batch.memoryBytes;
      this.#onRelease();
    }
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

  /**
   * Removes and returns the batches (not in flight) whose delivery timeout has passed. A queue
   * is oldest first (retries go back before newer batches), so only its head is looked at until
   * one has time left, as Kafka's RecordAccumulator.expiredBatches does: a pass costs one look
   * per partition, not one per batch, however full the buffer is.
   */
  expired(nowMs: number, deliveryTimeoutMs: number): readonly ProducerBatch[] {
    // Called on every sender pass: nothing is allocated when nothing expired.
    let out: ProducerBatch[] | undefined;
    const queues = this.#queues;
    for (let i = 0; i < queues.length; i++) {
      const batches = (queues[i] as PartitionQueue).batches;
      let n = 0;
      while (n < batches.length && nowMs - batches[n]!.createdMs >= deliveryTimeoutMs) n++;
      if (n === 0) continue;
      out ??= [];
      for (const b of batches.splice(0, n)) {
        b.closed = true;
        out.push(b);
      }
    }
    return out ?? NONE;
  }

  /**
   * The earliest time a batch not in flight will reach its delivery timeout, or Infinity
   * (Kafka's RecordAccumulator.nextExpiryTimeMs, read from each queue's head): the sender wakes
   * then even when nothing else would, so a batch stuck behind a request that does not come
   * back still fails on time.
   */
  nextExpiryMs(deliveryTimeoutMs: number): number {
    let first = Number.POSITIVE_INFINITY;
    const queues = this.#queues;
    for (let i = 0; i < queues.length; i++) {
      const head = (queues[i] as PartitionQueue).batches[0];
      if (head !== undefined && head.createdMs < first) first = head.createdMs;
    }
    return first + deliveryTimeoutMs;
  }

  /** Removes and returns every batch not in flight (abort, forced close). */
  takeAll(): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    for (const q of this.#queues) {
      for (const b of q.batches) {
        b.closed = true;
        out.push(b);
      }
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
