import { ErrorCode } from '@kafkats/codec';
import { incrementSequence, type ProducerBatch } from './producer-batch.js';

/** Sequence bookkeeping of one partition (Kafka's TxnPartitionEntry). */
interface PartitionSequences {
  readonly key: string;
  producerId: bigint;
  producerEpoch: number;
  nextSequence: number;
  lastAckedSequence: number;
  lastAckedOffset: bigint;
  /** Batches with a sequence that are not done (sent, or queued for a retry), by sequence. */
  readonly inflight: ProducerBatch[];
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** Whether sequence `a` is `b` or comes before it, sequences wrapping at 2^31 (half a lap apart at most). */
const atOrBefore = (a: number, b: number) => (b - a + 0x80000000) % 0x80000000 < 0x40000000;

/**
 * How a batch came to fail for good. `'not-written'`: the broker answered it with an error that
 * is not retried, so those bytes are not in the log. `'unknown'`: it ran out of time after being
 * sent, or its send ended without an answer for it, so the broker may hold it.
 */
export type FailedOutcome = 'not-written' | 'unknown';

/**
 * The idempotent producer's state: producer id and epoch, per-partition sequence numbers, and
 * the rules of Kafka's TransactionManager for when a batch may be drained, when a failed one
 * may be retried and when the epoch must be bumped so sequences can start again at 0 (KIP-360).
 * Pure bookkeeping: it sends nothing.
 */
export class IdempotenceState {
  producerId = -1n;
  producerEpoch = -1;
  readonly #transactional: boolean;
  readonly #maxInFlight: number;
  readonly #partitions = new Map<string, PartitionSequences>();
  /**
   * The same entries by topic, then partition: what a drain and an answer look up, with no
   * key string made per batch. Cleared with `#partitions`.
   */
  readonly #byTopic = new Map<string, (PartitionSequences | undefined)[]>();
  /** Partitions whose in-flight batches must be renumbered by the next epoch bump. */
  readonly #toRewrite = new Set<string>();
  /**
   * Partitions where a batch failed with an unknown outcome (Kafka's
   * partitionsWithUnresolvedSequences): the sequence after the last such batch. No new batch of
   * the partition is numbered until its in-flight batches are done and show whether it landed.
   */
  readonly #unresolved = new Map<string, number>();
  /** Partitions where the broker acknowledged a batch of this producer id: it has state for it. */
  readonly #acknowledged = new Set<string>();
  epochBumpRequired = false;
  /**
   * A transactional batch failed after being sent: its sequences may have a gap, so the abort
   * that must follow also bumps the epoch through InitProducerId (KIP-360).
   */
  transactionalBumpRequired = false;

  constructor(transactional: boolean, maxInFlight: number) {
    this.#transactional = transactional;
    this.#maxInFlight = maxInFlight;
  }

  hasProducerId(): boolean {
    return this.producerId >= 0n;
  }

  /** Installs a producer id and epoch from InitProducerId; every partition starts over at 0. */
  setProducerIdAndEpoch(producerId: bigint, producerEpoch: number): void {
    if (producerId !== this.producerId) this.#acknowledged.clear();
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
  }

  /** Forgets every partition's sequences (a transactional producer's new epoch). */
  resetSequences(): void {
    this.#partitions.clear();
    this.#byTopic.clear();
    this.#toRewrite.clear();
    this.#unresolved.clear();
    this.epochBumpRequired = false;
    this.transactionalBumpRequired = false;
  }

  #entry(topic: string, partition: number): PartitionSequences {
    let row = this.#byTopic.get(topic);
    const known = row?.[partition];
    if (known !== undefined) return known;
    const k = key(topic, partition);
    let e = this.#partitions.get(k);
    if (e === undefined) {
      e = {
        key: k,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        nextSequence: 0,
        lastAckedSequence: -1,
        lastAckedOffset: -1n,
        inflight: [],
      };
      this.#partitions.set(k, e);
    }
    if (row === undefined) {
      row = [];
      this.#byTopic.set(topic, row);
    }
    row[partition] = e;
    return e;
  }

  #stale(e: PartitionSequences): boolean {
    return e.producerId !== this.producerId || e.producerEpoch !== this.producerEpoch;
  }

  /**
   * Whether the head batch of a partition may be sent now (Kafka's
   * RecordAccumulator.shouldStopDrainBatchesForPartition, inverted): a new batch waits while the
   * partition has `maxInFlight` batches out, batches of an older epoch still out, or an
   * unresolved sequence; a retried batch goes only when it is the partition's oldest unfinished
   * one, so retries keep order. Until the broker has acknowledged a batch of this producer id on
   * the partition, one goes at a time: with no state for the producer (a topic just created) it
   * takes any first sequence (Kafka's ProducerAppendInfo.checkSequence), so a second batch could land before
   * a first one refused with NOT_LEADER_OR_FOLLOWER, which then could never be written in order.
   */
  canDrain(batch: ProducerBatch): boolean {
    if (!this.hasProducerId()) return false;
    const e = this.#entry(batch.topic, batch.partition);
    if (batch.baseSequence < 0) {
      if (e.inflight.length > 0 && this.#stale(e)) return false;
      if (this.#unresolved.has(e.key)) return false;
      if (e.inflight.length > 0 && !this.#acknowledged.has(e.key)) return false;
      return e.inflight.length < this.#maxInFlight;
    }
    return e.inflight[0] === batch;
  }

  /** Gives a new batch its producer id, epoch and sequence, and tracks it as in flight. */
  assignSequence(batch: ProducerBatch): void {
    const e = this.#entry(batch.topic, batch.partition);
    if (this.#stale(e) && e.inflight.length === 0) this.#restart(e);
    batch.stamp(this.producerId, this.producerEpoch, e.nextSequence, false);
    e.nextSequence = incrementSequence(e.nextSequence, batch.recordCount);
    e.inflight.push(batch);
  }

  #restart(e: PartitionSequences): void {
    e.producerId = this.producerId;
    e.producerEpoch = this.producerEpoch;
    e.nextSequence = 0;
    e.lastAckedSequence = -1;
    e.lastAckedOffset = -1n;
  }

  /**
   * Whether later sequences of the batch's numbering were acknowledged before it: the broker took
   * them without it (it had no state for the producer: ProducerAppendInfo.checkSequence takes any
   * first sequence then), so it refuses the batch as out of order for good. Had it written the batch, it would answer it as a duplicate: it keeps
   * the last five batches of a producer, and no more than five of a partition are unfinished.
   */
  #overtaken(e: PartitionSequences, batch: ProducerBatch): boolean {
    return (
      e.lastAckedSequence >= 0 &&
      batch.baseSequence >= 0 &&
      batch.producerId === e.producerId &&
      batch.producerEpoch === e.producerEpoch &&
      atOrBefore(batch.baseSequence, e.lastAckedSequence)
    );
  }

  #remove(batch: ProducerBatch): PartitionSequences {
    const e = this.#entry(batch.topic, batch.partition);
    const i = e.inflight.indexOf(batch);
    if (i >= 0) e.inflight.splice(i, 1);
    return e;
  }

  /** A batch was acknowledged (or reported a duplicate) at `baseOffset` (-1n when unknown). */
  onSuccess(batch: ProducerBatch, baseOffset: bigint): void {
    const e = this.#remove(batch);
    if (batch.producerId === this.producerId) this.#acknowledged.add(e.key);
    if (batch.producerId !== e.producerId || batch.producerEpoch !== e.producerEpoch) return;
    if (batch.sentEpoch !== batch.producerEpoch || batch.sentSequence !== batch.baseSequence) {
      // The answer is for the bytes sent before an epoch bump renumbered the batch: the broker
      // took it under the old epoch, so the new epoch has not started there. Renumber the rest
      // of the partition from 0 again, or its next batch would open the new epoch mid-sequence.
      this.#rewrite(e);
      return;
    }
    if (batch.lastSequence > e.lastAckedSequence) e.lastAckedSequence = batch.lastSequence;
    if (baseOffset >= 0n) {
      const last = baseOffset + BigInt(batch.recordCount - 1);
      if (last > e.lastAckedOffset) e.lastAckedOffset = last;
    }
  }

  /**
   * A batch the broker refused as too large (nothing of it written) was split: the parts take
   * its place among the partition's unfinished batches and its run of sequences, in order
   * (Kafka's RecordAccumulator.splitAndReenqueue). A batch never numbered leaves the parts to be
   * numbered when drained.
   *
   * @returns false when the batch belongs to a producer id this state no longer has
   */
  split(batch: ProducerBatch, parts: readonly ProducerBatch[]): boolean {
    if (batch.baseSequence < 0) return true;
    if (batch.producerId !== this.producerId) return false;
    const e = this.#entry(batch.topic, batch.partition);
    const i = e.inflight.indexOf(batch);
    if (i < 0) return false;
    let sequence = batch.baseSequence;
    for (const part of parts) {
      part.stamp(batch.producerId, batch.producerEpoch, sequence, false);
      sequence = incrementSequence(sequence, part.recordCount);
    }
    e.inflight.splice(i, 1, ...parts);
    return true;
  }

  /**
   * Whether a batch that failed with `errorCode` may be sent again (Kafka's
   * TransactionManager.canRetry): UNKNOWN_PRODUCER_ID and OUT_OF_ORDER_SEQUENCE_NUMBER are
   * retried by the idempotent producer, after an epoch bump when the broker really lost the
   * producer's state or a sequence gap is real; otherwise `retriable` (the error table) decides.
   * While the partition is unresolved, only OUT_OF_ORDER_SEQUENCE_NUMBER on the sequence right
   * after the failed batch counts as a real gap. On the partition's oldest unfinished batch it is
   * always final: no earlier batch is left to fill the gap or settle the unresolved sequence, so
   * waiting would spin until the delivery timeout. Such a batch that later sequences overtook
   * fails (it cannot be written in order); any other bumps the epoch.
   *
   * @param logStartOffset from the partition's response, -1n when unknown
   */
  canRetry(
    batch: ProducerBatch,
    errorCode: number,
    retriable: boolean,
    logStartOffset: bigint,
  ): boolean {
    if (batch.producerId !== this.producerId) return false;
    const e = this.#entry(batch.topic, batch.partition);
    if (errorCode === ErrorCode.UNKNOWN_PRODUCER_ID) {
      if (logStartOffset === -1n || batch.sequenceReset) return true;
      // An earlier batch of the partition is still out (maybe written, maybe not): let it land
      // first. Bumping now would renumber it and could write it twice.
      if (e.inflight[0] !== batch) return true;
      if (e.lastAckedOffset < logStartOffset) {
        // Retention removed the producer's last write: expected, start over.
        if (this.#transactional) this.#rewrite(e);
        else this.requestEpochBump(batch.topic, batch.partition);
        return true;
      }
      if (!this.#transactional) {
        this.requestEpochBump(batch.topic, batch.partition);
        return true;
      }
      return false;
    }
    if (errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER) {
      const unresolvedNext = this.#unresolved.get(key(batch.topic, batch.partition));
      // The answer is about the bytes last sent (a renumbered batch's are older).
      const oldest = !batch.sequenceReset && e.inflight[0] === batch;
      if (oldest && this.#overtaken(e, batch)) return false;
      // Not the next sequence: an earlier batch failed and goes again first.
      if (
        unresolvedNext === undefined &&
        (batch.sequenceReset ||
          (!oldest && batch.baseSequence !== incrementSequence(e.lastAckedSequence, 1)))
      )
        return true;
      if (!this.#transactional) {
        // With a batch of unknown outcome before it, only the batch right after that one proves
        // the gap; a later one is retried, unbumped, until the in-flight batches settle it.
        if (oldest || unresolvedNext === undefined || batch.baseSequence === unresolvedNext)
          this.requestEpochBump(batch.topic, batch.partition);
        return true;
      }
      return false;
    }
    if (errorCode === ErrorCode.INVALID_PRODUCER_EPOCH && batch.sequenceReset) return true;
    return retriable;
  }

  /**
   * A batch failed for good after being sent (Kafka's TransactionManager.handleFailedBatch). Not
   * written: the broker holds a gap in the partition's sequences, so an idempotent producer
   * renumbers the partition's remaining batches from 0 under an epoch the partition has not
   * used, whatever epoch the producer has moved to since the batch was numbered. Unknown: the
   * batch may still be in the log, and a later batch with a lost send of its own could still
   * land under its old number, so the partition is marked unresolved instead and settled by
   * `resolveSequences` once its in-flight batches are done (Kafka's markSequenceUnresolved).
   * A transactional producer aborts instead.
   */
  onFailed(batch: ProducerBatch, outcome: FailedOutcome): void {
    const e = this.#remove(batch);
    if (batch.baseSequence < 0 || batch.producerId !== this.producerId) return;
    if (this.#transactional) {
      // Only a batch of this epoch belongs to the transaction that must now abort.
      if (batch.producerEpoch === this.producerEpoch) this.transactionalBumpRequired = true;
      return;
    }
    // Numbered under another epoch than the partition's (forgotten or renumbered): no gap to fix.
    if (batch.producerEpoch !== e.producerEpoch) return;
    if (outcome === 'unknown') {
      const k = key(batch.topic, batch.partition);
      const next = incrementSequence(batch.lastSequence, 1);
      const known = this.#unresolved.get(k);
      this.#unresolved.set(k, known === undefined ? next : Math.max(known, next));
      return;
    }
    // Later sequences were written without it (no producer state on the broker): no gap after them to close.
    if (this.#overtaken(e, batch)) return;
    if (this.#stale(e)) {
      // Another partition's bump moved the producer on while this one still ran on the old
      // epoch, so nothing of it carries the current epoch: that epoch starts afresh here, as in
      // Kafka's maybeUpdateProducerIdAndEpoch. A further bump would stall the partitions on it.
      this.#rewrite(e);
      return;
    }
    this.requestEpochBump(batch.topic, batch.partition);
  }

  /**
   * Settles each unresolved partition whose in-flight batches are all done (Kafka's
   * TransactionManager.maybeResolveSequences; the sender calls it on every pass). Acknowledged up
   * to the last sequence handed out: the failed batch landed, or later ones proved it did, so
   * numbering goes on. Otherwise the gap is real: an epoch bump (for a partition still on the
   * previous epoch, the current epoch's fresh start, with no further bump).
   */
  resolveSequences(): void {
    // Called on every pass: no iterator made when nothing is unresolved.
    if (this.#unresolved.size === 0) return;
    for (const k of this.#unresolved.keys()) {
      const e = this.#partitions.get(k);
      if (e !== undefined && e.inflight.length > 0) continue;
      this.#unresolved.delete(k);
      if (e === undefined || e.nextSequence === incrementSequence(e.lastAckedSequence, 1)) continue;
      if (this.#stale(e)) this.#rewrite(e);
      else {
        this.#toRewrite.add(k);
        this.epochBumpRequired = true;
      }
    }
  }

  /** Whether a partition waits for its in-flight batches to settle a failed one (tests, diagnostics). */
  hasUnresolvedSequence(topic: string, partition: number): boolean {
    return this.#unresolved.has(key(topic, partition));
  }

  /** Asks for an epoch bump that renumbers this partition's in-flight batches. */
  requestEpochBump(topic: string, partition: number): void {
    this.#toRewrite.add(key(topic, partition));
    this.epochBumpRequired = true;
  }

  /**
   * Bumps the epoch locally when asked (the idempotent producer's KIP-360 bump needs no
   * request): the partitions that asked get their unfinished batches renumbered from 0 under
   * the new epoch; the others move to it when their in-flight batches are done.
   *
   * @returns `'new-id'` when the epoch would overflow and a new producer id is needed
   */
  bumpEpochIfRequired(): 'none' | 'bumped' | 'new-id' {
    if (!this.epochBumpRequired) return 'none';
    this.epochBumpRequired = false;
    if (this.producerEpoch >= 0x7fff) {
      this.producerId = -1n;
      this.producerEpoch = -1;
      this.#partitions.clear();
      this.#byTopic.clear();
      this.#toRewrite.clear();
      this.#unresolved.clear();
      this.#acknowledged.clear();
      return 'new-id';
    }
    this.producerEpoch++;
    for (const k of this.#toRewrite) {
      const e = this.#partitions.get(k);
      if (e !== undefined) this.#rewrite(e);
    }
    this.#toRewrite.clear();
    return 'bumped';
  }

  /** Kafka's startSequencesAtBeginning: renumbers unfinished batches from 0 under the current id and epoch. */
  #rewrite(e: PartitionSequences): void {
    let sequence = 0;
    for (const b of e.inflight) {
      b.stamp(this.producerId, this.producerEpoch, sequence, true);
      b.sequenceReset = true;
      sequence = incrementSequence(sequence, b.recordCount);
    }
    e.producerId = this.producerId;
    e.producerEpoch = this.producerEpoch;
    e.nextSequence = sequence;
    e.lastAckedSequence = -1;
    e.lastAckedOffset = -1n;
    // A fresh start under the current epoch: the unresolved sequence belonged to the old numbering.
    this.#unresolved.delete(e.key);
  }

  /** Unfinished sequenced batches of a partition (tests, diagnostics). */
  inflight(topic: string, partition: number): readonly ProducerBatch[] {
    return this.#partitions.get(key(topic, partition))?.inflight ?? [];
  }

  /** The next sequence a partition will hand out (tests, diagnostics). */
  nextSequence(topic: string, partition: number): number {
    return this.#partitions.get(key(topic, partition))?.nextSequence ?? 0;
  }
}
