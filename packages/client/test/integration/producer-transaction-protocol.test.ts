// Which generation of the transaction protocol runs against each Kafka release, and what
// KIP-890's second generation is for, on real brokers: the protocol follows the cluster's
// finalized transaction.version (Kafka 4.x finalizes 2: no AddPartitionsToTxn or
// AddOffsetsToTxn, a new epoch at every transaction's end; 3.9 runs the first generation), a
// late Produce of an aborted transaction is fenced by that epoch and never joins the next one,
// and kafkats and Kafka's Java producer share a transactional.id, fencing each other, with
// Kafka's read_committed consumer seeing exactly the committed records.
import { randomUUID } from 'node:crypto';
import {
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  ErrorCode,
  encodeRecordBatchSync,
  ProduceApi,
} from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, Producer, ProducerFencedError } from '../../src/index.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const kafka = sharedCluster();
let cluster: Cluster;
let admin: Admin;
/** The protocol this release should run: from its finalized transaction.version. */
let expected: 1 | 2;
const kafkaVersion = kafka.description.kafkaVersion;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
  admin = new Admin(cluster);
  expected = ((await cluster.finalizedFeature('transaction.version')) ?? 0) >= 2 ? 2 : 1;
});
afterAll(async () => {
  await cluster?.close();
});

async function topic(prefix: string, partitions: number): Promise<string> {
  const name = unique(prefix);
  await kafka.admin.createTopic(name, { partitions, replicationFactor: 3 });
  await cluster.refreshTopics([name]);
  return name;
}

const committed = async (name: string, max: number) =>
  (
    await kafka.admin.consume(name, {
      maxRecords: max,
      timeoutMs: 15_000,
      isolationLevel: 'read_committed',
    })
  ).map((r) => r.value?.toString());

describe('transaction protocol generations on this release', () => {
  it('runs the generation the cluster finalizes; counts the coordinator requests of a transaction', async () => {
    if (kafkaVersion.startsWith('4.4')) expect(expected).toBe(2);
    if (kafkaVersion.startsWith('3.9')) expect(expected).toBe(1);
    const out = await topic('txn-proto', 3);
    const seen: RequestTraceContext[] = [];
    const handlers = { start: (ctx: RequestTraceContext) => void seen.push(ctx) };
    requestChannel.subscribe(handlers as never);
    const producer = new Producer(cluster, { transactionalId: unique('tx-count'), lingerMs: 0 });
    try {
      await producer.initTransactions();
      expect(producer.transactionProtocol).toBe(expected);
      const perTransaction: Record<string, number>[] = [];
      for (let t = 0; t < 3; t++) {
        const from = seen.length;
        producer.beginTransaction();
        await Promise.all(
          [0, 1, 2].map((partition) => producer.send({ topic: out, partition, value: `t${t}` })),
        );
        await producer.sendOffsetsToTransaction(
          [{ topic: out, partition: 0, offset: BigInt(t) }],
          unique('g-proto'),
        );
        await producer.commitTransaction();
        const counts: Record<string, number> = {};
        for (const r of seen.slice(from)) {
          if (r.api === 'Produce' || r.api === 'Metadata' || r.api === 'FindCoordinator') continue;
          counts[r.api] = (counts[r.api] ?? 0) + 1;
        }
        perTransaction.push(counts);
      }
      console.info(
        `Kafka ${kafkaVersion}: transaction protocol ${producer.transactionProtocol}; coordinator requests per transaction (3 partitions, offsets of one group): ${JSON.stringify(perTransaction.at(-1))}`,
      );
      const last = perTransaction.at(-1) as Record<string, number>;
      if (expected === 2) {
        expect(last).toEqual({ TxnOffsetCommit: 1, EndTxn: 1 });
      } else {
        // A partition joins before its first batch: one AddPartitionsToTxn per round of new
        // partitions, and again after CONCURRENT_TRANSACTIONS while the previous transaction's
        // markers are written.
        const { AddPartitionsToTxn: adds, ...rest } = last;
        expect(adds).toBeGreaterThanOrEqual(1);
        expect(rest).toEqual({ AddOffsetsToTxn: 1, TxnOffsetCommit: 1, EndTxn: 1 });
      }
      const versions = (api: string) => [
        ...new Set(seen.filter((r) => r.api === api).map((r) => r.version)),
      ];
      if (expected === 2) {
        expect(Math.min(...versions('Produce'))).toBeGreaterThanOrEqual(12);
        expect(versions('EndTxn').every((v) => v >= 5)).toBe(true);
      } else {
        expect(versions('Produce')).toEqual([11]);
        expect(versions('EndTxn').every((v) => v <= 4)).toBe(true);
      }
      expect(await committed(out, 9)).toHaveLength(9);
    } finally {
      requestChannel.unsubscribe(handlers as never);
      await producer.close();
    }
  });

  it("a late Produce of an aborted transaction never joins the next one (KIP-890's epoch fence)", async () => {
    const out = await topic('txn-late', 1);
    const id = unique('tx-late');
    const producer = new Producer(cluster, { transactionalId: id, lingerMs: 0 });
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.send({ topic: out, partition: 0, value: 'aborted' });
    const [before] = (await admin.describeProducers([{ topic: out, partition: 0 }])).partitions;
    const old = before?.activeProducers[0];
    if (old === undefined) throw new Error('no producer state after the first transaction wrote');
    await producer.abortTransaction();
    producer.beginTransaction();
    await producer.send({ topic: out, partition: 0, value: 'next' });

    // A Produce of the aborted transaction that arrives only now: its epoch and the next
    // sequence of that transaction, from a connection of its own.
    const leader = cluster.snapshot().leaderFor(out, 0) as number;
    const late = encodeRecordBatchSync({
      producerId: old.producerId,
      producerEpoch: old.producerEpoch,
      baseSequence: old.lastSequence + 1,
      transactional: true,
      records: [{ value: Buffer.from('late') }],
    });
    const answer = await cluster.sendToNode(
      leader,
      ProduceApi,
      () =>
        ProduceApi.createRequest({
          transactionalId: id,
          acks: -1,
          timeoutMs: 10_000,
          topicData: [
            createProduceRequestTopicProduceData({
              name: out,
              topicId: cluster.snapshot().topic(out)?.topicId ?? '',
              partitionData: [
                createProduceRequestPartitionProduceData({ index: 0, records: late }),
              ],
            }),
          ],
        }),
      { maxAttempts: 1 },
    );
    const code = answer.responses[0]?.partitionResponses[0]?.errorCode;
    await producer.commitTransaction();
    // A committed record after: reading up to it shows everything committed before it.
    producer.beginTransaction();
    await producer.send({ topic: out, partition: 0, value: 'end' });
    await producer.commitTransaction();
    await producer.close();

    if (expected === 2) {
      // The abort's EndTxn moved the producer to a new epoch: the old one is fenced.
      expect(code).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect(await committed(out, 2)).toEqual(['next', 'end']);
    } else {
      // The first generation keeps the epoch across transactions: there is no epoch to fence
      // with, which is what KIP-890 changed.
      const [after] = (await admin.describeProducers([{ topic: out, partition: 0 }])).partitions;
      expect(after?.activeProducers[0]?.producerEpoch).toBe(old.producerEpoch);
    }
  });

  it('kafkats and Java producers share a transactional.id: each fences the other, read_committed sees the commits', async () => {
    const out = await topic('txn-mixed', 1);
    const id = unique('tx-mixed');
    const first = new Producer(cluster, { transactionalId: id, lingerMs: 0 });
    await first.initTransactions();
    first.beginTransaction();
    await first.send({ topic: out, partition: 0, value: 'kafkats-1' });
    await first.commitTransaction();
    first.beginTransaction();
    await first.send({ topic: out, partition: 0, value: 'kafkats-aborted' });
    await first.abortTransaction();

    // Kafka's producer takes the id over (InitProducerId fences the kafkats one) and commits.
    await kafka.admin.produce(out, [{ value: 'java-1', partition: 0 }], { transactionalId: id });
    first.beginTransaction();
    // Its Produce is refused under the old epoch (INVALID_PRODUCER_EPOCH with the second
    // generation, abortable as in Java; fenced at once with the first); the coordinator then
    // fences it for good.
    await expect(first.send({ topic: out, partition: 0, value: 'fenced' })).rejects.toThrow();
    await expect(first.abortTransaction()).rejects.toBeInstanceOf(ProducerFencedError);
    await first.close();

    // A new kafkats producer takes it back, and Java aborts a transaction of its own id after.
    const second = new Producer(cluster, { transactionalId: id, lingerMs: 0 });
    await second.initTransactions();
    expect(second.transactionProtocol).toBe(expected);
    second.beginTransaction();
    await second.send({ topic: out, partition: 0, value: 'kafkats-2' });
    await second.commitTransaction();
    await second.close();
    await kafka.admin.produce(out, [{ value: 'java-aborted', partition: 0 }], {
      transactionalId: unique('tx-java'),
      abort: true,
    });
    await kafka.admin.produce(out, [{ value: 'java-2', partition: 0 }], { transactionalId: id });

    expect(await committed(out, 4)).toEqual(['kafkats-1', 'java-1', 'kafkats-2', 'java-2']);
  });
});
