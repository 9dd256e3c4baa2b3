// KIP-890's second generation of transactions, used where the cluster finalizes
// `transaction.version` 2 (Kafka's TransactionManager.isTransactionV2Enabled): Produce v12+ adds
// its partition and TxnOffsetCommit v5 its group, so no AddPartitionsToTxn or AddOffsetsToTxn
// is sent; EndTxn v5 answers with the next transaction's epoch, which every partition then
// starts at sequence 0 under; no InitProducerId bump follows an abort. The first generation
// stays where the feature is below 2.
import { ErrorCode } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { Producer, type ProducerOptions } from '../../../src/index.js';
import { TxnFakeCluster } from './fake-txn-cluster.js';

const OPTIONS: ProducerOptions = {
  transactionalId: 'tx',
  lingerMs: 0,
  retryBackoffMs: 10,
  retryBackoffMaxMs: 10,
};

/** A fake cluster that finalizes `transaction.version` at `level`, with the versions it needs. */
function cluster(level: number | undefined): TxnFakeCluster {
  const c = new TxnFakeCluster({ out: 2 });
  setLevel(c, level);
  return c;
}

function setLevel(c: TxnFakeCluster, level: number | undefined): void {
  c.transactionVersion = level;
  // Produce 13, EndTxn 5, TxnOffsetCommit 5: what a broker finalizing level 2 serves.
  for (const [key, v] of [
    [0, 13],
    [26, 5],
    [28, 5],
  ] as const)
    c.negotiated.set(key, v);
}

const apis = (c: TxnFakeCluster) => c.calls.map((x) => x.api);

describe('transactions, second generation (KIP-890)', () => {
  it('sends no AddPartitionsToTxn or AddOffsetsToTxn; EndTxn v5 moves every transaction to a new epoch', async () => {
    const c = cluster(2);
    const producer = new Producer(c, OPTIONS);
    await producer.initTransactions();
    expect(producer.transactionProtocol).toBe(2);
    const epochs: number[] = [];
    for (let t = 0; t < 3; t++) {
      producer.beginTransaction();
      await Promise.all([
        producer.send({ topic: 'out', partition: 0, value: `a${t}` }),
        producer.send({ topic: 'out', partition: 1, value: `b${t}` }),
      ]);
      await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 5n }], 'g');
      await producer.commitTransaction();
    }
    for (const r of c.requests) {
      // Produce at the latest version (v12+ adds the partition): no v11 cap.
      expect(r.versionCap).toBeUndefined();
      expect(r.transactionalId).toBe('tx');
      for (const b of r.batches) {
        epochs.push(b.producerEpoch);
        // Each transaction's epoch starts every partition again at 0.
        expect(b.baseSequence).toBe(0);
      }
    }
    // InitProducerId gave epoch 0; each EndTxn v5 named the next one.
    expect([...new Set(epochs)]).toEqual([0, 1, 2]);
    expect(apis(c)).toEqual([
      'InitProducerId',
      ...Array(3).fill(['TxnOffsetCommit', 'EndTxn']).flat(),
    ]);
    expect(c.callsOf('TxnOffsetCommit').map((x) => x.version)).toEqual([5, 5, 5]);
    expect(c.callsOf('EndTxn').map((x) => x.version)).toEqual([5, 5, 5]);
    expect(c.log('out', 0).values).toEqual(['a0', 'a1', 'a2']);
    await producer.close();
  });

  it('an abort after a failed batch takes the epoch EndTxn names; no InitProducerId bump', async () => {
    const c = cluster(2);
    const producer = new Producer(c, {
      ...OPTIONS,
      deliveryTimeoutMs: 5000,
      requestTimeoutMs: 1000,
    });
    await producer.initTransactions();
    producer.beginTransaction();
    c.log('out', 0).nextError = ErrorCode.INVALID_RECORD;
    await expect(producer.send({ topic: 'out', partition: 0, value: 'lost' })).rejects.toThrow();
    await producer.abortTransaction();
    producer.beginTransaction();
    await producer.send({ topic: 'out', partition: 0, value: 'kept' });
    await producer.commitTransaction();
    expect(c.callsOf('InitProducerId')).toHaveLength(1);
    expect(c.requests.at(-1)?.batches[0]).toMatchObject({ producerEpoch: 1, baseSequence: 0 });
    expect(c.log('out', 0).values).toEqual(['kept']);
    await producer.close();
  });

  it('a transaction that sent nothing ends without EndTxn', async () => {
    const c = cluster(2);
    const producer = new Producer(c, OPTIONS);
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.commitTransaction();
    producer.beginTransaction();
    await producer.abortTransaction();
    expect(apis(c)).toEqual(['InitProducerId']);
    await producer.close();
  });

  it.each([undefined, 0, 1])(
    'transaction.version %s: the first generation, Produce capped at v11',
    async (level) => {
      const c = cluster(level);
      const producer = new Producer(c, OPTIONS);
      await producer.initTransactions();
      expect(producer.transactionProtocol).toBe(1);
      producer.beginTransaction();
      await producer.send({ topic: 'out', partition: 0, value: 'a' });
      await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 5n }], 'g');
      await producer.commitTransaction();
      expect(apis(c)).toEqual([
        'InitProducerId',
        'AddPartitionsToTxn',
        'AddOffsetsToTxn',
        'TxnOffsetCommit',
        'EndTxn',
      ]);
      expect(c.callsOf('EndTxn')[0]?.version).toBe(4);
      expect(c.callsOf('TxnOffsetCommit')[0]?.version).toBe(4);
      expect(c.requests[0]?.versionCap).toBe(11);
      await producer.close();
    },
  );

  it('follows an upgrade between transactions: an InitProducerId bump, then the second generation', async () => {
    const c = cluster(1);
    const producer = new Producer(c, OPTIONS);
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.send({ topic: 'out', partition: 0, value: 'v1' });
    setLevel(c, 2);
    await producer.commitTransaction();
    expect(producer.transactionProtocol).toBe(2);
    producer.beginTransaction();
    await producer.send({ topic: 'out', partition: 0, value: 'v2' });
    await producer.commitTransaction();
    expect(apis(c)).toEqual([
      'InitProducerId',
      'AddPartitionsToTxn',
      'EndTxn',
      // The bump that ends the first generation for this producer.
      'InitProducerId',
      'EndTxn',
    ]);
    const [first, second] = c.requests;
    expect(first).toMatchObject({ versionCap: 11, batches: [{ producerEpoch: 0 }] });
    expect(second).toMatchObject({
      versionCap: undefined,
      batches: [{ producerEpoch: 1, baseSequence: 0 }],
    });
    await producer.close();
  });

  it('TxnOffsetCommit stays at v5 where the broker offers v6 (topic ids, KIP-1319)', async () => {
    const c = cluster(2);
    c.negotiated.set(28, 6);
    const producer = new Producer(c, OPTIONS);
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 5n }], 'g');
    await producer.commitTransaction();
    expect(c.callsOf('TxnOffsetCommit').map((x) => x.version)).toEqual([5]);
    await producer.close();
  });
});

describe('TxnOffsetCommit: an answer that leaves a partition out', () => {
  it.each([1, 2])(
    'protocol %s: the partition left out is sent again, not taken as committed',
    async (protocol) => {
      const c = cluster(protocol);
      let first = true;
      c.answer = (call) => {
        if (call.api !== 'TxnOffsetCommit' || !first) return undefined;
        first = false;
        // Only partition 0 of the two is answered.
        return {
          topics: [{ name: 'in', partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
        };
      };
      const producer = new Producer(c, OPTIONS);
      await producer.initTransactions();
      producer.beginTransaction();
      await producer.sendOffsetsToTransaction(
        [0, 1].map((partition) => ({ topic: 'in', partition, offset: 5n })),
        'g',
      );
      await producer.commitTransaction();
      const sent = c
        .callsOf('TxnOffsetCommit')
        .map((x) =>
          x.request.topics.flatMap((t: { partitions: { partitionIndex: number }[] }) =>
            t.partitions.map((p) => p.partitionIndex),
          ),
        );
      expect(sent).toEqual([[0, 1], [1]]);
      await producer.close();
    },
  );
});
