// A transactional producer whose abortTransaction() failed (EndTxn(abort) or the epoch bump
// timed out, the coordinator could not be reached) stayed in state `aborting` for good:
// beginTransaction() wanted `ready`, abortTransaction() and commitTransaction() a running
// transaction, so no call got it out and the application had to throw the producer away. A
// commit whose EndTxn timed out turned into an abortable transaction although the commit may
// have happened. Kafka's TransactionManager lets a failed abort be called again (it sends the
// pending EndTxn(abort), or only the epoch bump once that succeeded) and a timed-out commit be
// retried; fencing stays fatal.
import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import { OperationTimeoutError } from '@kafkats/meta';
import { describe, expect, it } from 'vitest';
import {
  Producer,
  ProducerFatalError,
  ProducerFencedError,
  type ProducerOptions,
  TransactionAbortableError,
  TransactionStateError,
} from '../../../src/index.js';
import { type CoordinatorCall, TxnFakeCluster } from './fake-txn-cluster.js';

/** What the cluster throws when a coordinator request found no answer before its deadline. */
const timedOut = (call: CoordinatorCall) =>
  new OperationTimeoutError(
    `${call.api} to the transaction coordinator for "${call.key}": no success within 100 ms`,
    new KafkaError('ERR_KAFKA_CONNECTION_LOST', 'connection lost', { retriable: true }),
  );

// maxBlockMs bounds each coordinator step: a failing one gives up after ~100 ms.
const OPTIONS: ProducerOptions = {
  transactionalId: 'tx',
  lingerMs: 0,
  maxBlockMs: 100,
  retryBackoffMs: 10,
  retryBackoffMaxMs: 10,
};

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** EndTxn requests sent: true for a commit, false for an abort. */
const endTxns = (cluster: TxnFakeCluster) =>
  cluster.callsOf('EndTxn').map((c) => c.request.committed as boolean);

/** The coordinator answers EndTxn (only a commit's, with `commitOnly`) with `code`. */
function refuseEndTxn(cluster: TxnFakeCluster, code: number, commitOnly = false): void {
  cluster.answer = (c) =>
    c.api === 'EndTxn' && (!commitOnly || c.request.committed)
      ? ProtocolError.fromCode(code, 'EndTxn')
      : undefined;
}

/**
 * The commit of a transaction is answered `code`: it must fail abortable, the abort that follows
 * go through, and the producer then commit another transaction.
 */
async function commitRefusedLeavesAbortable(code: number): Promise<void> {
  const cluster = new TxnFakeCluster({ out: 1 });
  const producer = await inTransaction(cluster);
  refuseEndTxn(cluster, code, true);
  await expect(producer.commitTransaction()).rejects.toBeInstanceOf(TransactionAbortableError);
  await producer.abortTransaction();
  expect(endTxns(cluster)).toEqual([true, false]);
  cluster.answer = () => undefined;
  await commitsAnother(producer);
  await producer.close();
}

async function inTransaction(cluster: TxnFakeCluster): Promise<Producer> {
  const producer = new Producer(cluster, OPTIONS);
  await producer.initTransactions();
  producer.beginTransaction();
  await producer.send({ topic: 'out', partition: 0, value: 'a' });
  return producer;
}

/** The producer goes on: a new transaction commits. */
async function commitsAnother(producer: Producer): Promise<void> {
  producer.beginTransaction();
  const sent = producer.send({ topic: 'out', partition: 0, value: 'next' });
  await producer.commitTransaction();
  await expect(sent).resolves.toMatchObject({ partition: 0 });
}

describe('transactional producer: a failed abort or commit can be called again', () => {
  it('abortTransaction() after a timed-out EndTxn(abort) sends it again, then the producer goes on', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let down = true;
    cluster.answer = (c) => (c.api === 'EndTxn' && down ? timedOut(c) : undefined);
    const failed = await rejection(producer.abortTransaction());
    expect(failed).toBeInstanceOf(OperationTimeoutError);
    expect(() => producer.beginTransaction()).toThrow(/abortTransaction\(\) has not completed/);
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(TransactionStateError);
    const sentBefore = endTxns(cluster).length;
    expect(sentBefore).toBeGreaterThan(0);
    down = false;
    await producer.abortTransaction();
    expect(endTxns(cluster).length).toBe(sentBefore + 1);
    expect(endTxns(cluster).every((committed) => !committed)).toBe(true);
    await commitsAnother(producer);
    await producer.close();
  });

  it('an abort whose EndTxn succeeded but whose epoch bump failed only bumps the epoch when called again', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = new Producer(cluster, OPTIONS);
    await producer.initTransactions();
    producer.beginTransaction();
    // A batch that fails after being sent may leave a gap in its partition's sequences: the
    // abort must bump the epoch (KIP-360).
    cluster.log('out', 0).nextError = ErrorCode.MESSAGE_TOO_LARGE;
    await expect(producer.send({ topic: 'out', partition: 0, value: 'a' })).rejects.toThrow();
    let down = true;
    cluster.answer = (c) => (c.api === 'InitProducerId' && down ? timedOut(c) : undefined);
    await expect(producer.abortTransaction()).rejects.toBeInstanceOf(OperationTimeoutError);
    expect(endTxns(cluster)).toEqual([false]);
    expect(() => producer.beginTransaction()).toThrow(TransactionStateError);
    down = false;
    await producer.abortTransaction();
    expect(endTxns(cluster)).toEqual([false]);
    const bump = cluster.callsOf('InitProducerId').at(-1)!;
    expect(bump.request).toMatchObject({ producerId: 7n, producerEpoch: 0 });
    await commitsAnother(producer);
    expect(cluster.requests.at(-1)!.batches[0]).toMatchObject({
      producerEpoch: 1,
      baseSequence: 0,
    });
    await producer.close();
  });

  it('commitTransaction() after a timed-out EndTxn(commit) sends it again; abort and begin are refused meanwhile', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let down = true;
    cluster.answer = (c) => (c.api === 'EndTxn' && down ? timedOut(c) : undefined);
    const failed = await rejection(producer.commitTransaction());
    // Not TransactionAbortableError: the commit may have happened.
    expect(failed).toBeInstanceOf(OperationTimeoutError);
    expect(failed).toMatchObject({ retriable: true });
    await expect(producer.abortTransaction()).rejects.toThrow(/call commitTransaction\(\) again/);
    expect(() => producer.beginTransaction()).toThrow(TransactionStateError);
    await expect(producer.send({ topic: 'out', value: 'late' })).rejects.toBeInstanceOf(
      TransactionStateError,
    );
    down = false;
    await producer.commitTransaction();
    expect(endTxns(cluster).every((committed) => committed)).toBe(true);
    await commitsAnother(producer);
    await producer.close();
  });

  it('a commit the coordinator refuses (not retriable) is aborted, as before', async () => {
    await commitRefusedLeavesAbortable(ErrorCode.TRANSACTION_ABORTABLE);
  });

  it('a second call while a commit or an abort runs joins it (one EndTxn each)', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let release!: () => void;
    const slow = new Promise<undefined>((r) => {
      release = () => r(undefined);
    });
    cluster.answer = (c) => (c.api === 'EndTxn' ? slow : undefined);
    const commits = [producer.commitTransaction(), producer.commitTransaction()];
    await until(() => endTxns(cluster).length === 1);
    release();
    await Promise.all(commits);
    expect(endTxns(cluster)).toEqual([true]);

    producer.beginTransaction();
    await producer.send({ topic: 'out', partition: 0, value: 'b' });
    let releaseAbort!: () => void;
    const slowAbort = new Promise<undefined>((r) => {
      releaseAbort = () => r(undefined);
    });
    cluster.answer = (c) => (c.api === 'EndTxn' ? slowAbort : undefined);
    const aborts = [producer.abortTransaction(), producer.abortTransaction()];
    await until(() => endTxns(cluster).length === 2);
    releaseAbort();
    await Promise.all(aborts);
    expect(endTxns(cluster)).toEqual([true, false]);
    await producer.close();
  });

  it('abortTransaction() while the commit flushes takes over: no EndTxn(commit) is sent', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = new Producer(cluster, OPTIONS);
    await producer.initTransactions();
    producer.beginTransaction();
    let release!: () => void;
    cluster.gate = new Promise<void>((r) => {
      release = r;
    });
    const sent = producer.send({ topic: 'out', partition: 0, value: 'a' });
    sent.catch(() => {});
    await until(() => cluster.requests.length === 1);
    const committing = producer.commitTransaction();
    committing.catch(() => {});
    const aborting = producer.abortTransaction();
    cluster.gate = undefined;
    release();
    await aborting;
    await expect(committing).rejects.toBeInstanceOf(TransactionAbortableError);
    expect(endTxns(cluster)).toEqual([false]);
    await commitsAnother(producer);
    await producer.close();
  });

  it('close() tries a failed abort again', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let down = true;
    cluster.answer = (c) => (c.api === 'EndTxn' && down ? timedOut(c) : undefined);
    await expect(producer.abortTransaction()).rejects.toBeInstanceOf(OperationTimeoutError);
    const sentBefore = endTxns(cluster).length;
    down = false;
    await producer.close();
    expect(endTxns(cluster).length).toBe(sentBefore + 1);
  });

  it('fencing stays fatal: EndTxn(abort) answered PRODUCER_FENCED is not sent again', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    cluster.answer = (c) =>
      c.api === 'EndTxn' ? ProtocolError.fromCode(ErrorCode.PRODUCER_FENCED, 'EndTxn') : undefined;
    await expect(producer.abortTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
    await expect(producer.abortTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
    expect(() => producer.beginTransaction()).toThrow(ProducerFencedError);
    expect(endTxns(cluster)).toEqual([false]);
    await producer.close();
  });
});

describe("transactional producer: EndTxn answers, as Kafka's EndTxnHandler reads them", () => {
  for (const committed of [true, false]) {
    const call = committed ? 'commitTransaction()' : 'abortTransaction()';
    it(`${call} answered INVALID_TXN_STATE makes the producer fatal`, async () => {
      const cluster = new TxnFakeCluster({ out: 1 });
      const producer = await inTransaction(cluster);
      refuseEndTxn(cluster, ErrorCode.INVALID_TXN_STATE);
      const end = () => (committed ? producer.commitTransaction() : producer.abortTransaction());
      const error = await rejection(end());
      expect(error).toBeInstanceOf(ProducerFatalError);
      expect((error as ProducerFatalError).cause).toMatchObject({
        errorCode: ErrorCode.INVALID_TXN_STATE,
      });
      await expect(producer.abortTransaction()).rejects.toBeInstanceOf(ProducerFatalError);
      expect(() => producer.beginTransaction()).toThrow(ProducerFatalError);
      expect(endTxns(cluster)).toEqual([committed]);
      await producer.close();
    });
  }

  it('an answer EndTxn does not expect (UNKNOWN_SERVER_ERROR) is fatal too', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    refuseEndTxn(cluster, ErrorCode.UNKNOWN_SERVER_ERROR);
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(ProducerFatalError);
    expect(() => producer.beginTransaction()).toThrow(ProducerFatalError);
    await producer.close();
  });

  it('UNKNOWN_PRODUCER_ID on commit leaves the transaction abortable, and the producer goes on', async () => {
    await commitRefusedLeavesAbortable(ErrorCode.UNKNOWN_PRODUCER_ID);
  });
});

/** Waits (a macrotask turn at a time, at most ~5 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}
