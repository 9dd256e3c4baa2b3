import { RecordBatchBuilder, type RecordHeadersInput, restampRecordBatch } from '@kafkats/codec';
import type { ProduceTraceContext } from '../../client-diagnostics.js';
import {
  BatchOutcome,
  DeliveredRecord,
  type DeliveryListener,
  NO_ENTRIES,
  type PendingRecord,
  SendGroup,
} from './delivery.js';

/** Kafka's sequence numbers wrap from 2^31-1 to 0 (DefaultRecordBatch.incrementSequence). */
export function incrementSequence(sequence: number, by: number): number {
  return sequence > 0x7fffffff - by ? by - (0x7fffffff - sequence) - 1 : sequence + by;
}

/**
 * Records for one partition that travel as one v2 record batch. Each record is written into
 * the batch's bytes as it is appended (the codec's RecordBatchBuilder); the batch is closed
 * (compressed, its header written) once, and its producer id, epoch and base sequence are
 * stamped when it is first drained (sequences are assigned at drain time, as Kafka's
 * RecordAccumulator does) and again if an epoch bump renumbers it.
 *
 * Who hears of the records is kept as runs: consecutive records with the same callback or
 * the same `sendBatch` call share one entry, so a loop of sends with one callback adds nothing
 * per record here.
 */
export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdMs: number;
  /** Writes the records while the batch is open; null once closed. */
  builder: RecordBatchBuilder | null;
  #count = 0;
  /** Listeners and, for each, the index after the last record it covers. */
  #listeners: DeliveryListener[] = NO_ENTRIES as never[];
  #ends: number[] = NO_ENTRIES as never[];
  /** `[firstIndex, timestamp]` pairs: a new pair each time a record's timestamp differs. */
  #timestamps: number[] = NO_ENTRIES as never[];
  /** Bytes of `bufferMemory` this batch holds until it completes. */
  memoryBytes: number;
  /** Bytes of the records, uncompressed, header included (set while open and at close). */
  uncompressedBytes = 0;
  closed = false;
  /**
   * The batch's bytes once closed: header written, CRC-32C too unless the producer stamps it
   * at drain (idempotent producers).
   */
  encoded: Buffer | null = null;
  /** Set once the broker acknowledged it: what record results are made from. */
  outcome: BatchOutcome | null = null;
  producerId = -1n;
  producerEpoch = -1;
  /** -1 until the batch is first drained (idempotent producers only). */
  baseSequence = -1;
  /** Produce attempts so far. */
  attempts = 0;
  /** Not drained again before this time (retry backoff), ms. */
  retryAtMs = 0;
  inFlight = false;
  /**
   * True from an epoch bump's renumbering until the batch is sent again: an answer meanwhile is
   * about the bytes of the old numbering (Kafka's ProducerBatch.sequenceHasBeenReset).
   */
  sequenceReset = false;
  /** The epoch and sequence of the bytes last sent (an answer is about those, not a later rewrite). */
  sentEpoch = -1;
  sentSequence = -1;
  /** The last error a send of this batch met (reported as a delivery timeout's cause). */
  lastError: Error | undefined;
  /** The `kafkats:produce` context of the send in flight, while someone subscribes. */
  trace: ProduceTraceContext | null = null;
  done = false;
  /** The buffer the records were written into, while it may be reused once the batch is done. */
  #recyclable: Buffer | null;
  #donePromise: Promise<void> | undefined;
  #markDone: (() => void) | undefined;

  /**
   * @param buffer where the records are written (its length is the batch's capacity)
   * @param memoryBytes bytes of `bufferMemory` it takes
   */
  constructor(
    topic: string,
    partition: number,
    nowMs: number,
    buffer: Buffer,
    memoryBytes: number,
  ) {
    this.topic = topic;
    this.partition = partition;
    this.createdMs = nowMs;
    this.#recyclable = buffer;
    // The builder's capacity is the buffer's length: a larger recycled buffer is cut to size.
    this.builder = new RecordBatchBuilder(
      buffer.length === memoryBytes ? buffer : buffer.subarray(0, memoryBytes),
    );
    this.memoryBytes = memoryBytes;
  }

  get recordCount(): number {
    return this.#count;
  }

  /** The sequence of the last record, or -1 without a sequence. */
  get lastSequence(): number {
    return this.baseSequence < 0 ? -1 : incrementSequence(this.baseSequence, this.recordCount - 1);
  }

  /** `topic-partition`, for messages. */
  get label(): string {
    return `${this.topic}-${this.partition}`;
  }

  /** Settles when every record of the batch has been resolved or rejected. */
  get whenDone(): Promise<void> {
    if (this.done) return Promise.resolve();
    this.#donePromise ??= new Promise((resolve) => {
      this.#markDone = resolve;
    });
    return this.#donePromise;
  }

  /**
   * Writes a record into the batch; returns its bytes, or -1 when it does not fit (nothing
   * written: the batch is full for it).
   */
  append(
    timestamp: number,
    key: Uint8Array | string | null,
    value: Uint8Array | string | null,
    headers: RecordHeadersInput | null,
  ): number {
    const builder = this.builder as RecordBatchBuilder;
    const size = builder.append(timestamp, key, value, headers);
    if (size < 0) return size;
    const index = this.#count++;
    const ts = this.#timestamps;
    if (ts.length === 0) this.#timestamps = [index, timestamp];
    else if (ts[ts.length - 1] !== timestamp) ts.push(index, timestamp);
    this.uncompressedBytes = builder.sizeInBytes;
    return size;
  }

  /**
   * The last record appended goes to `listener`: the run of the previous record when that has
   * the same callback or `sendBatch` call (a promise per record is never shared).
   */
  listen(listener: DeliveryListener): void {
    const last = this.#listeners.length - 1;
    if (last >= 0 && this.#listeners[last] === listener) {
      this.#ends[last] = this.#count;
      return;
    }
    this.#addRun(listener, this.#count);
  }

  /** A new run: `listener` hears of the records from the previous run's end to `end`. */
  #addRun(listener: DeliveryListener, end: number): void {
    if (this.#listeners.length === 0) {
      this.#listeners = [listener];
      this.#ends = [end];
      return;
    }
    this.#listeners.push(listener);
    this.#ends.push(end);
  }

  /**
   * Writes the producer id, epoch and base sequence into the closed batch and refreshes the
   * CRC (it covers those fields). `copy` writes into a fresh buffer, for a batch whose old
   * bytes may still be queued in a request.
   */
  stamp(producerId: bigint, producerEpoch: number, baseSequence: number, copy: boolean): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    const source = this.encoded;
    if (source === null) return;
    // The old bytes may still sit in a socket's queue: their buffer is never reused.
    if (copy) this.#recyclable = null;
    const out = copy ? Buffer.from(source) : source;
    restampRecordBatch(out, producerId, producerEpoch, baseSequence);
    this.encoded = out;
  }

  /** The batch's buffer, once, for reuse by a new batch (null when it may not be reused). */
  takeRecyclable(): Buffer | null {
    const b = this.#recyclable;
    this.#recyclable = null;
    return b;
  }

  /** Records the epoch and sequence of the bytes about to go out (called on every drain). */
  markSent(): void {
    this.sentEpoch = this.producerEpoch;
    this.sentSequence = this.baseSequence;
    // The next answer is about these bytes: judged as any batch's, so a real gap found by the
    // renumbered bytes bumps again rather than retrying until the delivery timeout (Kafka's
    // ProducerBatch clears `reopened` when it is drained again).
    this.sequenceReset = false;
  }

  /**
   * Completes every record: offsets count up from `baseOffset` (-1n stays -1n). Results are
   * made for the listeners that take one per record; none is made for a `sendBatch` call
   * until it is read.
   */
  complete(baseOffset: bigint, logAppendTimeMs: bigint, logStartOffset: bigint): void {
    if (this.done) return;
    const outcome = new BatchOutcome(
      this.topic,
      this.partition,
      baseOffset,
      logAppendTimeMs,
      logStartOffset,
      this.#timestamps,
    );
    this.outcome = outcome;
    this.#settle(outcome, null);
  }

  /**
   * Hands the records to the batches split from this one (MESSAGE_TOO_LARGE): `parts[k]` took
   * records `[starts[k], starts[k + 1])`, in order. Their listeners move with them; this batch
   * tells no one anything more, and is done once every part is.
   */
  handOver(parts: readonly ProducerBatch[], starts: readonly number[]): void {
    let l = 0;
    let first = 0;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k] as ProducerBatch;
      const start = starts[k] as number;
      const end = k + 1 < parts.length ? (starts[k + 1] as number) : this.#count;
      // Every listener run that overlaps [start, end), cut to it.
      while (l < this.#listeners.length) {
        const listener = this.#listeners[l] as DeliveryListener;
        const runEnd = this.#ends[l] as number;
        const from = Math.max(first, start);
        const to = Math.min(runEnd, end);
        if (to > from) {
          part.#addRun(listener, to - start);
          if (listener instanceof SendGroup) listener.moved(this, part, from, to, start);
        }
        if (runEnd > end) break;
        first = runEnd;
        l++;
      }
    }
    this.#listeners = NO_ENTRIES as never[];
    this.#ends = NO_ENTRIES as never[];
    this.builder = null;
    this.encoded = null;
    Promise.all(parts.map((p) => p.whenDone)).then(() => this.#finish(undefined));
  }

  /** Fails every record with `error`. */
  fail(error: Error): void {
    if (this.done) return;
    this.#settle(null, error);
  }

  /** Tells every listener its records' outcome: delivered (`outcome`) or failed (`error`). */
  #settle(outcome: BatchOutcome | null, error: Error | null): void {
    let thrown: unknown;
    let first = 0;
    for (let l = 0; l < this.#listeners.length; l++) {
      const listener = this.#listeners[l] as DeliveryListener;
      const end = this.#ends[l] as number;
      if (typeof listener === 'function') {
        for (let i = first; i < end; i++) {
          try {
            if (outcome === null) listener(error);
            else listener(null, new DeliveredRecord(outcome, i));
          } catch (e) {
            thrown ??= e;
          }
        }
      } else if (listener instanceof SendGroup) {
        listener.settled(end - first, error ?? undefined);
      } else if (outcome === null) {
        (listener as PendingRecord).reject(error as Error);
      } else {
        (listener as PendingRecord).resolve(new DeliveredRecord(outcome, first));
      }
      first = end;
    }
    this.#finish(thrown);
  }

  #finish(thrown: unknown): void {
    this.done = true;
    this.builder = null;
    this.encoded = null;
    this.#listeners = NO_ENTRIES as never[];
    this.#ends = NO_ENTRIES as never[];
    this.#markDone?.();
    // A callback that threw is the application's error: every record was still told, and the
    // error surfaces as any exception thrown from a Node callback does.
    if (thrown !== undefined)
      process.nextTick(() => {
        throw thrown;
      });
  }
}
