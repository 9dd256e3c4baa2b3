// How a transactional producer reads the per-partition errors of AddPartitionsToTxn and
// TxnOffsetCommit answers, after Kafka's AddPartitionsToTxnHandler and TxnOffsetCommitHandler.
// Fencing and authorization errors there were not fatal: TxnOffsetCommit's made the transaction
// abortable, AddPartitionsToTxn's TRANSACTIONAL_ID_AUTHORIZATION_FAILED too, and its
// PRODUCER_FENCED was thrown out of a loop nothing awaited (an unhandled rejection).
import { ErrorCode } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  Producer,
  ProducerFatalError,
  ProducerFencedError,
  type ProducerOptions,
} from '../../src/index.js';
import { addPartitionsReply, TxnFakeCluster, txnOffsetCommitReply } from './fake-txn-cluster.js';

const OPTIONS: ProducerOptions = {
  transactionalId: 'tx',
  lingerMs: 0,
  retryBackoffMs: 10,
  retryBackoffMaxMs: 10,
};

async function inTransaction(cluster: TxnFakeCluster, options = OPTIONS): Promise<Producer> {
  const producer = new Producer(cluster, options);
  await producer.initTransactions();
  producer.beginTransaction();
  return producer;
}

describe('transactional producer: fatal errors for one partition of a coordinator answer', () => {
  it.each([
    ['PRODUCER_FENCED', ErrorCode.PRODUCER_FENCED, ProducerFencedError],
    ['INVALID_PRODUCER_EPOCH', ErrorCode.INVALID_PRODUCER_EPOCH, ProducerFencedError],
    [
      'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
      ProducerFatalError,
    ],
  ])('AddPartitionsToTxn answering %s for a partition ends the producer', async (_, code, type) => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    cluster.answer = (c) =>
      c.api === 'AddPartitionsToTxn' ? addPartitionsReply(c, () => code) : undefined;
    await expect(producer.send({ topic: 'out', partition: 0, value: 'a' })).rejects.toBeInstanceOf(
      type,
    );
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(type);
    await expect(producer.abortTransaction()).rejects.toBeInstanceOf(type);
    expect(cluster.requests).toHaveLength(0);
    await producer.close();
  });

  it.each([
    ['PRODUCER_FENCED', ErrorCode.PRODUCER_FENCED, ProducerFencedError],
    ['INVALID_PRODUCER_EPOCH', ErrorCode.INVALID_PRODUCER_EPOCH, ProducerFencedError],
  ])('TxnOffsetCommit answering %s for a partition fences the producer', async (_, code, type) => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    cluster.answer = (c) =>
      c.api === 'TxnOffsetCommit'
        ? txnOffsetCommitReply(c, (_t, p) => (p === 1 ? code : 0))
        : undefined;
    const offsets = [0, 1].map((partition) => ({ topic: 'in', partition, offset: 5n }));
    await expect(producer.sendOffsetsToTransaction(offsets, 'group')).rejects.toBeInstanceOf(type);
    expect(() => producer.beginTransaction()).toThrow(type);
    await producer.close();
  });
});
