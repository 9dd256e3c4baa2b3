// The transaction example awaited nothing: `producer.send(...)` inside a transaction, then
// commitTransaction(). A record that failed (too large, its topic missing past maxBlockMs) left
// an unhandled rejection that ended the process before abortTransaction() could run, and a
// record refused while it waited for metadata was left out of a transaction that then
// committed. As with Java's send(), whose failed Future is also handed to the
// TransactionManager, every failure of a record sent in a transaction now makes the
// transaction abortable: commitTransaction() rejects, and a send nobody awaits is safe.
import { ErrorCode } from '@kafkats/codec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Producer,
  ProducerBlockedError,
  RecordTooLargeError,
  TransactionAbortableError,
} from '../../../src/index.js';
import { TxnFakeCluster } from './fake-txn-cluster.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** Lets every pending rejection be reported (unhandled ones surface after a macrotask). */
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('transactional producer: a send nobody awaits', () => {
  it('a record over maxRequestSize fails the commit, not the process; the abort then succeeds', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = new Producer(cluster, {
      transactionalId: 'tx',
      lingerMs: 0,
      maxRequestSize: 1000,
    });
    await producer.initTransactions();
    producer.beginTransaction();
    producer.send({ topic: 'out', partition: 0, value: 'fits' });
    producer.send({ topic: 'out', partition: 0, value: Buffer.alloc(5000) });
    producer.send({ topic: 'out', partition: 0, value: 'after' });
    const commit = await producer.commitTransaction().catch((e: unknown) => e);
    expect(commit).toBeInstanceOf(TransactionAbortableError);
    expect((commit as Error).cause).toBeInstanceOf(RecordTooLargeError);
    await producer.abortTransaction();
    await settle();
    expect(unhandled).toEqual([]);
    // The producer goes on: the next transaction commits.
    producer.beginTransaction();
    await producer.send({ topic: 'out', partition: 0, value: 'next' });
    await producer.commitTransaction();
    expect(cluster.log('out', 0).values).toEqual(['next']);
    await producer.close();
  });

  it('a record whose topic does not exist within maxBlockMs fails the commit instead of being left out of it', async () => {
    const cluster = new TxnFakeCluster({ out: 1 }, undefined, {
      missing: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    });
    const producer = new Producer(cluster, {
      transactionalId: 'tx',
      lingerMs: 0,
      maxBlockMs: 50,
      retryBackoffMs: 5,
    });
    await producer.initTransactions();
    producer.beginTransaction();
    producer.send({ topic: 'out', partition: 0, value: 'a' });
    const refused = producer.send({ topic: 'missing', value: 'b' });
    const commit = await producer.commitTransaction().catch((e: unknown) => e);
    expect(commit).toBeInstanceOf(TransactionAbortableError);
    expect((commit as Error).cause).toBeInstanceOf(ProducerBlockedError);
    // The record's own promise still says why, to whoever awaits it.
    await expect(refused).rejects.toMatchObject({
      code: 'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
      topic: 'missing',
    });
    await producer.abortTransaction();
    await settle();
    expect(unhandled).toEqual([]);
    await producer.close();
  });
});
