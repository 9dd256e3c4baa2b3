// A topic whose max.message.bytes is below the producer's batchSize: the broker refuses full
// batches with MESSAGE_TOO_LARGE, the producer splits them and sends the parts (Kafka's
// ProducerBatch.split), and Kafka's Java consumer reads every record once, in order. Java's
// own producer can split forever on such a topic (its split is by batch.size); ours halves.
import { randomBytes, randomUUID } from 'node:crypto';
import type { CompressionCodec } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Producer } from '../../src/index.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const kafka = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

/** A 2-partition topic that takes batches of at most `maxMessageBytes`. */
async function smallTopic(prefix: string, maxMessageBytes: number): Promise<string> {
  const name = unique(prefix);
  await kafka.admin.createTopic(name, {
    partitions: 2,
    replicationFactor: 3,
    configs: { 'max.message.bytes': String(maxMessageBytes) },
  });
  await cluster.refreshTopics([name]);
  return name;
}

/** Values that do not compress, each naming its partition and position. */
const values = (partition: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${partition}:${i}:${randomBytes(60).toString('hex')}`);

async function javaValues(topic: string, partition: number, count: number): Promise<string[]> {
  const read = await kafka.admin.consume(topic, {
    partition,
    maxRecords: count,
    timeoutMs: 30_000,
    isolationLevel: 'read_committed',
  });
  return read.map((r) => r.value?.toString() ?? '');
}

describe('MESSAGE_TOO_LARGE on real brokers: split, sent again, nothing lost or doubled', () => {
  it.each<CompressionCodec>(['none', 'lz4', 'zstd'])(
    'idempotent with %s: Java reads each partition in send order, exactly once',
    async (compression) => {
      const topic = await smallTopic(`split-${compression}`, 2048);
      const producer = new Producer(cluster, { compression, batchSize: 16_384, lingerMs: 5 });
      const sent = [values(0, 300), values(1, 300)];
      const results = await Promise.all(
        [0, 1].flatMap((partition) =>
          (sent[partition] as string[]).map((value) => producer.send({ topic, partition, value })),
        ),
      );
      const metrics = producer.metrics();
      await producer.close();
      expect(metrics.batchesSplit).toBeGreaterThan(0);
      expect(metrics).toMatchObject({ recordsAcked: 600, recordsFailed: 0 });
      for (const partition of [0, 1]) {
        const mine = results.filter((m) => m.partition === partition).map((m) => m.offset);
        expect(mine).toEqual(mine.map((_, i) => BigInt(i)));
        expect(await javaValues(topic, partition, 300)).toEqual(sent[partition]);
      }
    },
  );

  it('in a transaction: the parts commit with it; a read_committed Java consumer sees all', async () => {
    const topic = await smallTopic('split-txn', 2048);
    const producer = new Producer(cluster, {
      transactionalId: unique('split-tx'),
      batchSize: 16_384,
      lingerMs: 5,
    });
    await producer.initTransactions();
    producer.beginTransaction();
    const sent = values(0, 200);
    await Promise.all(sent.map((value) => producer.send({ topic, partition: 0, value })));
    await producer.commitTransaction();
    expect(producer.metrics().batchesSplit).toBeGreaterThan(0);
    await producer.close();
    expect(await javaValues(topic, 0, 200)).toEqual(sent);
  });

  it('a record larger than the topic takes alone fails with MESSAGE_TOO_LARGE; its neighbours land', async () => {
    const topic = await smallTopic('split-big', 2048);
    const producer = new Producer(cluster, { batchSize: 16_384, lingerMs: 5 });
    const small = values(0, 40);
    const big = `big:${randomBytes(2048).toString('hex')}`;
    const outcomes = await Promise.allSettled([
      ...small.slice(0, 20).map((value) => producer.send({ topic, partition: 0, value })),
      producer.send({ topic, partition: 0, value: big }),
      ...small.slice(20).map((value) => producer.send({ topic, partition: 0, value })),
    ]);
    await producer.close();
    expect(outcomes[20]).toMatchObject({
      status: 'rejected',
      reason: { errorName: 'MESSAGE_TOO_LARGE', retriable: false },
    });
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(40);
    expect(await javaValues(topic, 0, 40)).toEqual(small);
  });
});
