// Sequence bookkeeping of the idempotent producer when partitions fall out of step with the
// producer's epoch. The failure these pin: partition P had batches in flight under epoch 0 when
// another partition's OUT_OF_ORDER_SEQUENCE_NUMBER bumped the producer to epoch 1. P's first
// batch then failed for good, but the state only reacted to failures of the current epoch, so
// nothing renumbered P: its next batch kept a sequence after the failed one, the broker answered
// OUT_OF_ORDER_SEQUENCE_NUMBER, and the retry waited for "an earlier batch" that would never
// come, until the delivery timeout failed it too.
import { ErrorCode } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { IdempotenceState } from '../../../src/producer/internal/idempotence.js';
import { ProducerBatch } from '../../../src/producer/internal/producer-batch.js';

const noop = () => {};

/** A batch of `records` records for `topic`-`partition`, not yet numbered. */
function batch(topic: string, partition: number, records = 1): ProducerBatch {
  const b = new ProducerBatch(topic, partition, 0, Buffer.alloc(1024), 1024);
  for (let i = 0; i < records; i++) {
    b.append(0, null, Buffer.from(`r${i}`), null);
    b.listen(noop);
  }
  return b;
}

/** What the sender does when it drains a batch: number it if new, then send it. */
function send(idem: IdempotenceState, b: ProducerBatch): void {
  expect(idem.canDrain(b)).toBe(true);
  if (b.baseSequence < 0) idem.assignSequence(b);
  b.markSent();
}

const numbering = (b: ProducerBatch) => [b.producerEpoch, b.baseSequence];

/** An idempotent producer (id 7000, epoch 0) whose first batch on t-0 is acknowledged. */
function afterOneAck(): IdempotenceState {
  const idem = new IdempotenceState(false, 5);
  idem.setProducerIdAndEpoch(7000n, 0);
  const a = batch('t', 0);
  send(idem, a);
  idem.onSuccess(a, 0n);
  return idem;
}

/**
 * Partition t-0 acked one batch and has three more out under epoch 0; then t-1's gap bumps the
 * producer to epoch 1, which leaves t-0 on the old epoch.
 */
function staleAfterAnotherPartitionsBump() {
  const idem = afterOneAck();
  const p = [batch('t', 0, 2), batch('t', 0, 3), batch('t', 0, 1)];
  for (const b of p) send(idem, b);
  const q0 = batch('t', 1);
  send(idem, q0);
  idem.onSuccess(q0, 0n);
  const q1 = batch('t', 1);
  send(idem, q1);
  // q1 is the next sequence and the broker still says OUT_OF_ORDER: a real gap, bump.
  expect(idem.canRetry(q1, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
  expect(idem.bumpEpochIfRequired()).toBe('bumped');
  expect(idem.producerEpoch).toBe(1);
  expect(numbering(q1)).toEqual([1, 0]);
  send(idem, q1);
  expect(p.map(numbering)).toEqual([
    [0, 1],
    [0, 3],
    [0, 6],
  ]);
  return { idem, p, q1 };
}

describe('IdempotenceState: a batch of a partition still on the previous epoch fails for good', () => {
  it('renumbers the partition from 0 under the current epoch, without a further bump', () => {
    const { idem, p } = staleAfterAnotherPartitionsBump();
    const [b1, b2, b3] = p as [ProducerBatch, ProducerBatch, ProducerBatch];
    idem.onFailed(b1, 'not-written');
    expect(numbering(b2)).toEqual([1, 0]);
    expect(numbering(b3)).toEqual([1, 3]);
    expect(b2.sequenceReset && b3.sequenceReset).toBe(true);
    expect(idem.inflight('t', 0)).toEqual([b2, b3]);
    expect(idem.nextSequence('t', 0)).toBe(4);
    expect(idem.epochBumpRequired).toBe(false);
    expect(idem.bumpEpochIfRequired()).toBe('none');
    expect(idem.producerEpoch).toBe(1);
  });

  it('retries the answers to the old bytes, then the renumbered batches land in order', () => {
    const { idem, p } = staleAfterAnotherPartitionsBump();
    const [b1, b2, b3] = p as [ProducerBatch, ProducerBatch, ProducerBatch];
    idem.onFailed(b1, 'not-written');
    // The broker still holds epoch 0 up to sequence 0, so the old bytes of b2 and b3 are out of order.
    expect(idem.canRetry(b2, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.canRetry(b3, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.epochBumpRequired).toBe(false);
    // Resent in order under epoch 1 from 0: the broker takes them as that epoch's start.
    expect(idem.canDrain(b3)).toBe(false);
    send(idem, b2);
    idem.onSuccess(b2, 1n);
    send(idem, b3);
    idem.onSuccess(b3, 3n);
    expect(idem.inflight('t', 0)).toEqual([]);
    const next = batch('t', 0);
    send(idem, next);
    expect(numbering(next)).toEqual([1, 4]);
  });

  it('leaves the partitions already on the current epoch numbering on', () => {
    const { idem, p, q1 } = staleAfterAnotherPartitionsBump();
    idem.onSuccess(q1, 1n);
    idem.onFailed(p[0]!, 'not-written');
    const q2 = batch('t', 1);
    send(idem, q2);
    expect(numbering(q2)).toEqual([1, 1]);
  });

  it('waits for its in-flight batches when the failed batch may have been written, then moves to the current epoch', () => {
    const { idem, p } = staleAfterAnotherPartitionsBump();
    const [b1, b2, b3] = p as [ProducerBatch, ProducerBatch, ProducerBatch];
    // b1 expired after a lost answer: nothing is renumbered while b2 and b3 may still land.
    idem.onFailed(b1, 'unknown');
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(true);
    expect([b2, b3].map(numbering)).toEqual([
      [0, 3],
      [0, 6],
    ]);
    // The broker did write b1, so b2's epoch 0 bytes land, then b3's: the acks prove b1.
    idem.onSuccess(b2, 3n);
    idem.resolveSequences();
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(true);
    idem.onSuccess(b3, 6n);
    idem.resolveSequences();
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(false);
    expect(idem.epochBumpRequired).toBe(false);
    // Nothing of epoch 0 is out any more: the partition starts epoch 1 at 0, no further bump.
    const next = batch('t', 0);
    send(idem, next);
    expect(numbering(next)).toEqual([1, 0]);
    expect(idem.producerEpoch).toBe(1);
  });

  it('still bumps the epoch for a failed batch of a partition on the current epoch', () => {
    const { idem, q1 } = staleAfterAnotherPartitionsBump();
    const q2 = batch('t', 1);
    send(idem, q2);
    idem.onFailed(q1, 'not-written');
    expect(idem.epochBumpRequired).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect(numbering(q2)).toEqual([2, 0]);
  });

  it('ignores a failed batch of an earlier producer id', () => {
    const idem = new IdempotenceState(false, 5);
    idem.setProducerIdAndEpoch(7000n, 0);
    const old = batch('t', 0);
    send(idem, old);
    idem.setProducerIdAndEpoch(7001n, 0);
    idem.onFailed(old, 'not-written');
    expect(idem.epochBumpRequired).toBe(false);
  });
});

describe('IdempotenceState: transactional producers abort instead', () => {
  it('asks for the abort bump only for a failed batch of the current epoch', () => {
    const idem = new IdempotenceState(true, 5);
    idem.setProducerIdAndEpoch(7000n, 3);
    const old = batch('t', 0);
    send(idem, old);
    idem.setProducerIdAndEpoch(7000n, 4);
    idem.resetSequences();
    idem.onFailed(old, 'not-written');
    expect(idem.transactionalBumpRequired).toBe(false);
    const current = batch('t', 0);
    send(idem, current);
    idem.onFailed(current, 'unknown');
    expect(idem.transactionalBumpRequired).toBe(true);
    expect(idem.epochBumpRequired).toBe(false);
  });
});

describe('IdempotenceState: a renumbered batch that has been sent again', () => {
  /** a and b out under epoch 0; a's real gap bumps to epoch 1; a is resent and acknowledged. */
  function renumberedAndResent() {
    const idem = afterOneAck();
    const a = batch('t', 0);
    const b = batch('t', 0, 2);
    send(idem, a);
    send(idem, b);
    expect(idem.canRetry(a, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect([a, b].map(numbering)).toEqual([
      [1, 0],
      [1, 1],
    ]);
    // The answer to b's epoch 0 bytes is about the old numbering: retried, no further bump.
    expect(idem.canRetry(b, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.epochBumpRequired).toBe(false);
    send(idem, a);
    idem.onSuccess(a, 0n);
    send(idem, b);
    expect(b.sequenceReset).toBe(false);
    return { idem, b };
  }

  // The broker lost a's write (an unclean leader election): b is next, yet refused.
  it.each([
    ['OUT_OF_ORDER on the next sequence', ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER],
    ['UNKNOWN_PRODUCER_ID', ErrorCode.UNKNOWN_PRODUCER_ID],
  ])('bumps again when its new bytes meet a real gap (%s)', (_, code) => {
    const { idem, b } = renumberedAndResent();
    expect(idem.canRetry(b, code, false, 0n)).toBe(true);
    expect(idem.epochBumpRequired).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect(numbering(b)).toEqual([2, 0]);
  });
});

describe('IdempotenceState: a batch that fails with an unknown outcome', () => {
  /** a acked; b1, b2, b3 out under epoch 0; b1 then runs out of time after a lost answer. */
  function b1Unresolved() {
    const idem = afterOneAck();
    const [b1, b2, b3] = [batch('t', 0, 2), batch('t', 0), batch('t', 0)] as const;
    for (const b of [b1, b2, b3]) send(idem, b);
    idem.onFailed(b1, 'unknown');
    return { idem, b1, b2, b3 };
  }

  it('renumbers nothing and numbers no new batch while the in-flight batches may still land', () => {
    const { idem, b2, b3 } = b1Unresolved();
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(true);
    expect(idem.epochBumpRequired).toBe(false);
    idem.resolveSequences();
    expect(idem.bumpEpochIfRequired()).toBe('none');
    expect([b2, b3].map(numbering)).toEqual([
      [0, 3],
      [0, 4],
    ]);
    expect(idem.canDrain(batch('t', 0))).toBe(false);
    // Another partition is not held back.
    expect(idem.canDrain(batch('t', 1))).toBe(true);
  });

  it('retries OUT_OF_ORDER_SEQUENCE_NUMBER unbumped, except on the sequence right after the failed batch', () => {
    const { idem, b2, b3 } = b1Unresolved();
    expect(idem.canRetry(b3, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.epochBumpRequired).toBe(false);
    expect(idem.canRetry(b2, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.epochBumpRequired).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect([b2, b3].map(numbering)).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(false);
  });

  it('goes on without a bump once later acknowledgements prove the failed batch', () => {
    const { idem, b2, b3 } = b1Unresolved();
    idem.onSuccess(b2, 3n);
    idem.onSuccess(b3, 4n);
    idem.resolveSequences();
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(false);
    expect(idem.bumpEpochIfRequired()).toBe('none');
    const next = batch('t', 0);
    send(idem, next);
    expect(numbering(next)).toEqual([0, 5]);
  });

  it('bumps when the in-flight batches are done and the acknowledgements fall short', () => {
    const { idem, b2, b3 } = b1Unresolved();
    const queued = batch('t', 0);
    idem.onFailed(b2, 'unknown');
    idem.resolveSequences();
    expect(idem.epochBumpRequired).toBe(false);
    idem.onFailed(b3, 'unknown');
    idem.resolveSequences();
    expect(idem.epochBumpRequired).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect(idem.hasUnresolvedSequence('t', 0)).toBe(false);
    send(idem, queued);
    expect(numbering(queued)).toEqual([1, 0]);
  });

  it('bumps for its oldest unfinished batch refused out of order: no other batch is left to settle it', () => {
    const idem = afterOneAck();
    const [b1, b2, c] = [batch('t', 0), batch('t', 0), batch('t', 0)] as const;
    for (const b of [b1, b2, c]) send(idem, b);
    idem.onFailed(b1, 'unknown');
    idem.onSuccess(b2, 2n);
    // c is the next sequence and the only batch out: waiting for the partition to settle would
    // retry it until its delivery timeout.
    expect(idem.canRetry(c, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, false, 0n)).toBe(true);
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect(numbering(c)).toEqual([1, 0]);
  });

  it('still bumps at once for a batch the broker refused (not written)', () => {
    const idem = afterOneAck();
    const [b1, b2] = [batch('t', 0), batch('t', 0)] as const;
    send(idem, b1);
    send(idem, b2);
    idem.onFailed(b1, 'not-written');
    expect(idem.bumpEpochIfRequired()).toBe('bumped');
    expect(numbering(b2)).toEqual([1, 0]);
  });
});
