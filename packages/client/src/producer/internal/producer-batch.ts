import { crc32c, type RecordInput } from '@kafkats/codec';
import type { ProduceTraceContext } from '../../client-diagnostics.js';
import type { RecordMetadata } from '../producer-options.js';

/** One record's completion callbacks and the timestamp it was written with. */
interface Pending {
  readonly resolve: (metadata: RecordMetadata) => void;
  readonly reject: (error: Error) => void;
  readonly timestamp: number;
}

// v2 batch header offsets (KIP-98 layout): the fields a producer sets after encoding.
const CRC_OFFSET = 17; // uint32 CRC-32C over attributes (offset 21) to the end
const ATTRIBUTES_OFFSET = 21;
const PRODUCER_ID_OFFSET = 43;
const PRODUCER_EPOCH_OFFSET = 51;
const BASE_SEQUENCE_OFFSET = 53;

/** Kafka's sequence numbers wrap from 2^31-1 to 0 (DefaultRecordBatch.incrementSequence). */
export function incrementSequence(sequence: number, by: number): number {
  return sequence > 0x7fffffff - by ? by - (0x7fffffff - sequence) - 1 : sequence + by;
}

/**
 * Records for one partition that travel as one v2 record batch. Filled while open, encoded
 * once when closed (compression included); the producer id, epoch and base sequence are
 * written into the encoded header when the batch is first drained (sequences are assigned at
 * drain time, as Kafka's RecordAccumulator does) and again if an epoch bump renumbers it.
 */
export class ProducerBatch {
  readonly topic: string;
  readonly partition: number;
  readonly createdMs: number;
  records: RecordInput[] = [];
  readonly #pending: Pending[] = [];
  /** Uncompressed size estimate of the records, bytes. */
  sizeBytes = 0;
  /** Bytes of `bufferMemory` this batch holds until it completes. */
  memoryBytes = 0;
  closed = false;
  /** The encoded batch, once `closed` and encoding finished. */
  encoded: Buffer | null = null;
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
  readonly #donePromise: Promise<void>;
  #markDone!: () => void;

  constructor(topic: string, partition: number, nowMs: number) {
    this.topic = topic;
    this.partition = partition;
    this.createdMs = nowMs;
    this.#donePromise = new Promise((resolve) => {
      this.#markDone = resolve;
    });
  }

  get recordCount(): number {
    return this.#pending.length;
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
    return this.#donePromise;
  }

  append(record: RecordInput, bytes: number, memory: number, pending: Pending): void {
    this.records.push(record);
    this.#pending.push(pending);
    this.sizeBytes += bytes;
    this.memoryBytes += memory;
  }

  /**
   * Writes the producer id, epoch and base sequence into the encoded header and refreshes the
   * CRC (it covers those fields). `copy` writes into a fresh buffer, for a batch whose old bytes
   * may still be queued in a request.
   */
  stamp(producerId: bigint, producerEpoch: number, baseSequence: number, copy: boolean): void {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    const source = this.encoded;
    if (source === null) return;
    const out = copy ? Buffer.from(source) : source;
    out.writeBigInt64BE(producerId, PRODUCER_ID_OFFSET);
    out.writeInt16BE(producerEpoch, PRODUCER_EPOCH_OFFSET);
    out.writeInt32BE(baseSequence, BASE_SEQUENCE_OFFSET);
    out.writeUInt32BE(crc32c(out, ATTRIBUTES_OFFSET, out.length), CRC_OFFSET);
    this.encoded = out;
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

  /** Resolves every record: offsets count up from `baseOffset` (-1n stays -1n). */
  complete(baseOffset: bigint, logAppendTimeMs: bigint): void {
    if (this.done) return;
    for (let i = 0; i < this.#pending.length; i++) {
      const p = this.#pending[i]!;
      p.resolve({
        topic: this.topic,
        partition: this.partition,
        offset: baseOffset < 0n ? -1n : baseOffset + BigInt(i),
        timestamp: logAppendTimeMs >= 0n ? logAppendTimeMs : BigInt(p.timestamp),
      });
    }
    this.#finish();
  }

  /** Rejects every record with `error`. */
  fail(error: Error): void {
    if (this.done) return;
    for (const p of this.#pending) p.reject(error);
    this.#finish();
  }

  #finish(): void {
    this.done = true;
    this.records = [];
    this.encoded = null;
    this.#markDone();
  }
}
