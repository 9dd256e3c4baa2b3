// How a transactional producer reads the per-partition errors of AddPartitionsToTxn and
// TxnOffsetCommit answers, after Kafka's AddPartitionsToTxnHandler and TxnOffsetCommitHandler.
// Fencing and authorization errors there were not fatal: TxnOffsetCommit's made the transaction
// abortable, AddPartitionsToTxn's TRANSACTIONAL_ID_AUTHORIZATION_FAILED too, and its
// PRODUCER_FENCED was thrown out of a loop nothing awaited (an unhandled rejection).
// NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE there were retried against the cached
// coordinator, which had moved: the same answer again until the transaction gave up. And
// AddPartitionsToTxn's retries had no deadline of their own: a partition the coordinator kept
// refusing held its records until deliveryTimeoutMs, not maxBlockMs as every other
// coordinator call.
import { ErrorCode, ProtocolError } from '@kafkats/codec';
import { OperationTimeoutError } from '@kafkats/meta';
import { describe, expect, it } from 'vitest';
import {
  Producer,
  ProducerFatalError,
  ProducerFencedError,
  type ProducerOptions,
  TransactionAbortableError,
} from '../../../src/index.js';
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

describe('transactional producer: a moved coordinator named for one partition of an answer', () => {
  // A failure ends within ~3 s (deliveryTimeoutMs, maxBlockMs) rather than at the test timeout.
  const bounded: ProducerOptions = {
    ...OPTIONS,
    maxBlockMs: 2000,
    requestTimeoutMs: 1000,
    deliveryTimeoutMs: 3000,
  };
  const codes = [
    ['NOT_COORDINATOR', ErrorCode.NOT_COORDINATOR],
    ['COORDINATOR_NOT_AVAILABLE', ErrorCode.COORDINATOR_NOT_AVAILABLE],
  ] as const;

  it.each(codes)(
    'AddPartitionsToTxn answering %s looks the transaction coordinator up again',
    async (_, code) => {
      const cluster = new TxnFakeCluster({ out: 2 });
      const producer = await inTransaction(cluster, bounded);
      // Node 1, cached since InitProducerId, is no longer the coordinator: node 2 is.
      let moved = false;
      cluster.coordinatorNode = () => (moved ? 2 : 1);
      cluster.answer = (c) => {
        if (c.api !== 'AddPartitionsToTxn' || c.node !== 1) return undefined;
        moved = true;
        return addPartitionsReply(c, () => code);
      };
      const sent = [0, 1].map((partition) =>
        producer.send({ topic: 'out', partition, value: 'a' }),
      );
      await expect(Promise.all(sent)).resolves.toHaveLength(2);
      await producer.commitTransaction();
      expect(cluster.invalidated).toContain('transaction tx');
      expect(cluster.callsOf('AddPartitionsToTxn').at(-1)!.node).toBe(2);
      expect(cluster.callsOf('EndTxn').map((c) => c.node)).toEqual([2]);
      await producer.close();
    },
  );

  it.each(codes)(
    'TxnOffsetCommit answering %s looks the group coordinator up again',
    async (_, code) => {
      const cluster = new TxnFakeCluster({ out: 1 });
      const producer = await inTransaction(cluster, bounded);
      // The group's coordinator is node 1 at the first lookup, node 3 once it moved.
      let moved = false;
      cluster.coordinatorNode = (kind) => (kind === 'group' && moved ? 3 : 1);
      cluster.answer = (c) => {
        if (c.api !== 'TxnOffsetCommit' || c.node !== 1) return undefined;
        moved = true;
        return txnOffsetCommitReply(c, (_t, p) => (p === 1 ? code : 0));
      };
      const offsets = [0, 1].map((partition) => ({ topic: 'in', partition, offset: 5n }));
      await producer.sendOffsetsToTransaction(offsets, 'group');
      expect(cluster.invalidated).toEqual(['group group']);
      expect(cluster.callsOf('TxnOffsetCommit').map((c) => c.node)).toEqual([1, 3]);
      await producer.commitTransaction();
      expect(cluster.callsOf('EndTxn').map((c) => c.request.committed)).toEqual([true]);
      await producer.close();
    },
  );
});

describe("transactional producer: TxnOffsetCommit retries, as Kafka's TxnOffsetCommitHandler", () => {
  it('sends again only the partitions the coordinator did not accept', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let first = true;
    cluster.answer = (c) => {
      if (c.api !== 'TxnOffsetCommit' || !first) return undefined;
      first = false;
      return txnOffsetCommitReply(c, (_t, p) =>
        p === 1 ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : 0,
      );
    };
    const offsets = [0, 1, 2].map((partition) => ({ topic: 'in', partition, offset: 5n }));
    await producer.sendOffsetsToTransaction(offsets, 'group');
    const sent = cluster
      .callsOf('TxnOffsetCommit')
      .map((c) =>
        (c.request.topics as { partitions: { partitionIndex: number }[] }[]).flatMap((t) =>
          t.partitions.map((p) => p.partitionIndex),
        ),
      );
    expect(sent).toEqual([[0, 1, 2], [1]]);
    expect(cluster.invalidated).toEqual([]);
    await producer.commitTransaction();
    await producer.close();
  });

  it('a partition answered REQUEST_TIMED_OUT makes it look the group coordinator up again', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    let moved = false;
    cluster.coordinatorNode = (kind) => (kind === 'group' && moved ? 3 : 1);
    cluster.answer = (c) => {
      if (c.api !== 'TxnOffsetCommit' || c.node !== 1) return undefined;
      moved = true;
      return txnOffsetCommitReply(c, () => ErrorCode.REQUEST_TIMED_OUT);
    };
    await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 5n }], 'group');
    expect(cluster.invalidated).toEqual(['group group']);
    expect(cluster.callsOf('TxnOffsetCommit').map((c) => c.node)).toEqual([1, 3]);
    await producer.commitTransaction();
    await producer.close();
  });
});

describe('transactional producer: TxnOffsetCommit answers it cannot retry', () => {
  it.each([
    ['UNKNOWN_MEMBER_ID', ErrorCode.UNKNOWN_MEMBER_ID],
    ['ILLEGAL_GENERATION', ErrorCode.ILLEGAL_GENERATION],
    ['GROUP_AUTHORIZATION_FAILED', ErrorCode.GROUP_AUTHORIZATION_FAILED],
  ])('%s leaves the transaction abortable', async (_, code) => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    cluster.answer = (c) =>
      c.api === 'TxnOffsetCommit' ? txnOffsetCommitReply(c, () => code) : undefined;
    const offsets = [{ topic: 'in', partition: 0, offset: 5n }];
    await expect(producer.sendOffsetsToTransaction(offsets, 'group')).rejects.toBeInstanceOf(
      TransactionAbortableError,
    );
    await producer.abortTransaction();
    await producer.close();
  });

  it('a code TxnOffsetCommit does not expect (UNKNOWN_SERVER_ERROR) makes the producer fatal', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    const producer = await inTransaction(cluster);
    cluster.answer = (c) =>
      c.api === 'TxnOffsetCommit'
        ? txnOffsetCommitReply(c, () => ErrorCode.UNKNOWN_SERVER_ERROR)
        : undefined;
    const offsets = [{ topic: 'in', partition: 0, offset: 5n }];
    await expect(producer.sendOffsetsToTransaction(offsets, 'group')).rejects.toBeInstanceOf(
      ProducerFatalError,
    );
    expect(() => producer.beginTransaction()).toThrow(ProducerFatalError);
    await producer.close();
  });
});

describe('transactional producer: AddPartitionsToTxn retries end after maxBlockMs', () => {
  it('a partition refused with CONCURRENT_TRANSACTIONS again and again makes the transaction abortable', async () => {
    const cluster = new TxnFakeCluster({ out: 1 });
    // Without a deadline of their own, the records would wait deliveryTimeoutMs (a minute).
    const producer = await inTransaction(cluster, {
      ...OPTIONS,
      maxBlockMs: 300,
      deliveryTimeoutMs: 60_000,
    });
    cluster.answer = (c) =>
      c.api === 'AddPartitionsToTxn'
        ? addPartitionsReply(c, () => ErrorCode.CONCURRENT_TRANSACTIONS)
        : undefined;
    const sent = producer.send({ topic: 'out', partition: 0, value: 'a' });
    const error = await settled(sent, 3000);
    expect(error).toBeInstanceOf(TransactionAbortableError);
    const timeout = (error as Error).cause;
    expect(timeout).toBeInstanceOf(OperationTimeoutError);
    expect((timeout as Error).cause).toBeInstanceOf(ProtocolError);
    expect((timeout as Error).cause).toMatchObject({ errorName: 'CONCURRENT_TRANSACTIONS' });
    expect(cluster.callsOf('AddPartitionsToTxn').length).toBeGreaterThan(1);
    expect(cluster.requests).toHaveLength(0);
    // Abortable, not fatal: the abort succeeds and the next transaction commits.
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(TransactionAbortableError);
    await producer.abortTransaction();
    cluster.answer = () => undefined;
    producer.beginTransaction();
    const next = producer.send({ topic: 'out', partition: 0, value: 'b' });
    await producer.commitTransaction();
    await expect(next).resolves.toMatchObject({ partition: 0 });
    await producer.close();
  });
});

/** The rejection of `p` ('resolved' if it resolved), or 'hung' when it did not settle within `ms`. */
async function settled(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'hung'>((r) => {
    timer = setTimeout(() => r('hung'), ms);
  });
  const outcome = await Promise.race([
    p.then(
      () => 'resolved',
      (e: unknown) => e,
    ),
    hung,
  ]);
  clearTimeout(timer);
  return outcome;
}
