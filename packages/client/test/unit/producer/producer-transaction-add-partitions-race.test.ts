// abortTransaction() while an AddPartitionsToTxn is in flight: the abort decided whether
// EndTxn(abort) was needed (whether a partition had been added) without waiting for that
// answer. When the coordinator then added the partition, no EndTxn(abort) was sent and the
// coordinator kept the transaction open (until transaction.timeout.ms, or the producer's next
// transaction ran into it). Kafka's TransactionManager sends one transactional request at a
// time, so its EndTxn always follows the AddPartitionsToTxn in flight. An answer arriving after
// the abort also landed in the next transaction: a failure made that one abortable.
import { KafkaError } from '@kafkats/codec';
import { describe, expect, it, vi } from 'vitest';
import { Producer, type ProducerOptions, TransactionAbortableError } from '../../../src/index.js';
import { type CoordinatorCall, type CoordinatorReply, TxnFakeCluster } from './fake-txn-cluster.js';

const OPTIONS: ProducerOptions = {
  transactionalId: 'tx',
  lingerMs: 0,
  maxBlockMs: 1000,
  retryBackoffMs: 10,
  retryBackoffMaxMs: 10,
};

/** EndTxn requests sent: true for a commit, false for an abort. */
const endTxns = (cluster: TxnFakeCluster) =>
  cluster.callsOf('EndTxn').map((c) => c.request.committed as boolean);

/** Every pending callback and microtask runs once: the abort, unless it waits, finishes. */
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * A producer in a transaction whose first AddPartitionsToTxn is out and unanswered; the
 * returned function answers it (the default answer, or `reply`).
 */
async function addPartitionsHeld(cluster: TxnFakeCluster) {
  let release!: (reply?: CoordinatorReply) => void;
  const held = new Promise<CoordinatorReply | undefined>((r) => {
    release = r;
  });
  let first = true;
  cluster.answer = (c: CoordinatorCall) => {
    if (c.api !== 'AddPartitionsToTxn' || !first) return undefined;
    first = false;
    return held;
  };
  const producer = new Producer(cluster, OPTIONS);
  await producer.initTransactions();
  producer.beginTransaction();
  const sent = producer.send({ topic: 'out', partition: 0, value: 'a' });
  await vi.waitFor(() => expect(cluster.callsOf('AddPartitionsToTxn')).toHaveLength(1));
  return { producer, sent, release };
}

describe('transactional producer: abort with an AddPartitionsToTxn in flight', () => {
  it('waits for its answer; a partition added sends EndTxn(abort), and the next transaction commits', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const { producer, sent, release } = await addPartitionsHeld(cluster);
    const aborted = producer.abortTransaction();
    await expect(sent).rejects.toBeInstanceOf(TransactionAbortableError);
    await turn();
    // The coordinator adds the partition only now, after the abort began.
    release();
    await aborted;
    expect(endTxns(cluster)).toEqual([false]);
    // No further round for the partition whose record was aborted.
    expect(cluster.callsOf('AddPartitionsToTxn')).toHaveLength(1);
    expect(cluster.requests).toHaveLength(0);

    producer.beginTransaction();
    const next = producer.send({ topic: 'out', partition: 0, value: 'b' });
    await producer.commitTransaction();
    await expect(next).resolves.toMatchObject({ partition: 0 });
    // The next transaction adds its partition itself, and ends with EndTxn(commit).
    expect(cluster.callsOf('AddPartitionsToTxn')).toHaveLength(2);
    expect(endTxns(cluster)).toEqual([false, true]);
    await producer.close();
  });

  it('waits for its answer; a round that failed (nothing added) sends no EndTxn and leaves the next transaction alone', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const { producer, sent, release } = await addPartitionsHeld(cluster);
    const aborted = producer.abortTransaction();
    await expect(sent).rejects.toBeInstanceOf(TransactionAbortableError);
    await turn();
    // Failed for good (not retried): the coordinator added nothing.
    release(
      new KafkaError('ERR_KAFKA_REFUSED', 'AddPartitionsToTxn refused', { retriable: false }),
    );
    await aborted;
    expect(endTxns(cluster)).toEqual([]);

    producer.beginTransaction();
    const next = producer.send({ topic: 'out', partition: 0, value: 'b' });
    await producer.commitTransaction();
    await expect(next).resolves.toMatchObject({ partition: 0 });
    expect(endTxns(cluster)).toEqual([true]);
    await producer.close();
  });

  it('a commit waits for its answer (its flush waits for the batch) and sends EndTxn(commit)', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const { producer, sent, release } = await addPartitionsHeld(cluster);
    const committed = producer.commitTransaction();
    await turn();
    release();
    await committed;
    await expect(sent).resolves.toMatchObject({ partition: 0 });
    expect(endTxns(cluster)).toEqual([true]);
    await producer.close();
  });
});
