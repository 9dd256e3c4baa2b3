// Serializers and deserializers on real brokers: what a typed producer writes is exactly the
// bytes its serializers made (read back by Kafka's Java consumer, headers a serializer added
// included), keyed records land where Java's partitioner puts the serialized key, a
// transaction commits records whose async serializer was still running at commit, and a group
// consumer and a partition reader with deserializers read the typed values back in order, a
// record Java wrote that the deserializer cannot read failing alone, typed, with its offset.
import { randomUUID } from 'node:crypto';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Consumer,
  DeserializationError,
  jsonDeserializer,
  jsonSerializer,
  type PartitionBatch,
  PartitionReader,
  Producer,
  partitionForKey,
  SerializationError,
  stringDeserializer,
  stringSerializer,
} from '../../src/index.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const kafka = sharedCluster();
let cluster: Cluster;
let groupProtocol: 'consumer' | 'classic';

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
  groupProtocol =
    ((await cluster.finalizedFeature('group.version')) ?? 0) >= 1 ? 'consumer' : 'classic';
});
afterAll(async () => {
  await cluster?.close();
});

interface Order {
  readonly id: number;
  readonly item: string;
}

async function topic(prefix: string, partitions: number): Promise<string> {
  const name = unique(prefix);
  await kafka.admin.createTopic(name, { partitions, replicationFactor: 3 });
  await cluster.refreshTopics([name]);
  return name;
}

/** An async serializer (a schema registry's shape): JSON after a turn, with a schema-id header. */
const withSchema = async (order: Order, context: { addHeader(k: string, v: string): void }) => {
  await new Promise((r) => setImmediate(r));
  context.addHeader('schema-id', '7');
  return JSON.stringify(order);
};

describe('serializers on real brokers', () => {
  it('a typed producer writes the serializers’ bytes; Java reads them, partitioned by the serialized key', async () => {
    const name = await topic('serde', 4);
    const producer = new Producer<string, Order>(cluster, {
      serializers: { key: stringSerializer, value: withSchema },
    });
    const orders = Array.from({ length: 40 }, (_, id) => ({ id, item: `item-${id}` }));
    const sent = await Promise.all(
      orders.map((value) =>
        producer.send({
          topic: name,
          key: `customer-${value.id % 7}`,
          value,
          headers: { src: 'test' },
        }),
      ),
    );
    await producer.close();
    const read = await kafka.admin.consume(name, { maxRecords: 40, timeoutMs: 30_000 });
    expect(read).toHaveLength(40);
    for (const [i, order] of orders.entries()) {
      const key = `customer-${order.id % 7}`;
      expect(sent[i]?.partition).toBe(partitionForKey(Buffer.from(key), 4));
      const record = read.find(
        (r) => r.partition === sent[i]?.partition && r.offset === sent[i]?.offset,
      );
      expect(record?.key?.toString()).toBe(key);
      expect(record?.value?.toString()).toBe(JSON.stringify(order));
      expect(record?.headers.map((h) => [h.key, h.value?.toString()])).toEqual([
        ['src', 'test'],
        ['schema-id', '7'],
      ]);
    }
    // Per partition, in send order.
    for (const p of [0, 1, 2, 3]) {
      const mine = orders.filter((_, i) => sent[i]?.partition === p).map((o) => JSON.stringify(o));
      const java = read
        .filter((r) => r.partition === p)
        .sort((a, b) => Number(a.offset - b.offset));
      expect(java.map((r) => r.value?.toString())).toEqual(mine);
    }
  });

  it('a record whose serializer fails is not sent; the rest of the call is', async () => {
    const name = await topic('serde-fail', 1);
    const producer = new Producer<string, unknown>(cluster, {
      serializers: { value: jsonSerializer },
    });
    const outcome = await producer
      .sendBatch([
        { topic: name, value: { n: 1 } },
        { topic: name, value: 10n },
        { topic: name, value: { n: 3 } },
      ])
      .catch((e: unknown) => e);
    await producer.close();
    expect(outcome).toBeInstanceOf(SerializationError);
    expect(outcome).toMatchObject({ field: 'value', topic: name });
    const read = await kafka.admin.consume(name, { maxRecords: 2, timeoutMs: 30_000 });
    expect(read.map((r) => r.value?.toString())).toEqual(['{"n":1}', '{"n":3}']);
  });

  it('commitTransaction includes records whose async serializer was still running; a failed one leaves the transaction committable', async () => {
    const name = await topic('serde-txn', 2);
    const producer = new Producer<string, Order>(cluster, {
      transactionalId: unique('serde-tx'),
      serializers: { key: stringSerializer, value: withSchema },
    });
    await producer.initTransactions();
    producer.beginTransaction();
    const sends = Array.from({ length: 25 }, (_, id) =>
      producer.send({ topic: name, key: String(id), value: { id, item: 'x' } }),
    );
    // A value the async serializer cannot serialize (a cycle): that send fails, the rest commit.
    const cyclic: { id: number; item: string; self?: unknown } = { id: 99, item: 'cycle' };
    cyclic.self = cyclic;
    const failed = producer
      .send({ topic: name, key: '99', value: cyclic })
      .catch((e: unknown) => e);
    await producer.commitTransaction();
    await Promise.all(sends);
    expect(await failed).toBeInstanceOf(SerializationError);
    await producer.close();
    const read = await kafka.admin.consume(name, {
      maxRecords: 25,
      timeoutMs: 30_000,
      isolationLevel: 'read_committed',
    });
    expect(
      read.map((r) => JSON.parse(r.value?.toString() ?? 'null').id).sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('a group consumer and a partition reader read typed values; a record they cannot read fails alone, typed', async () => {
    const name = await topic('deserde', 1);
    // Java writes the records, one of them not JSON.
    const values = [
      '{"id":0,"item":"a"}',
      '{"id":1,"item":"b"}',
      'not json',
      '{"id":3,"item":"d"}',
    ];
    await kafka.admin.produce(
      name,
      values.map((value, i) => ({ key: `k${i}`, value, partition: 0 })),
    );
    const check = (records: PartitionBatch<string, Order>['records']) => {
      expect(records.map((r) => r.key)).toEqual(['k0', 'k1', 'k2', 'k3']);
      expect(records.map((r) => r.offset)).toEqual([0n, 1n, 2n, 3n]);
      expect([0, 1, 3].map((i) => records[i]?.value?.item)).toEqual(['a', 'b', 'd']);
      let thrown: unknown;
      try {
        void records[2]?.value;
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DeserializationError);
      expect(thrown).toMatchObject({ topic: name, partition: 0, offset: 2n, field: 'value' });
      expect((thrown as DeserializationError).data.toString()).toBe('not json');
    };
    const deserializers = { key: stringDeserializer, value: jsonDeserializer<Order>() };

    const reader = new PartitionReader(cluster, {
      topic: name,
      partition: 0,
      startOffset: 0n,
      deserializers,
    });
    const fromReader: PartitionBatch<string, Order>['records'][number][] = [];
    for await (const batch of reader) {
      fromReader.push(...batch.records);
      if (batch.nextOffset >= 4n) break;
    }
    await reader.close();
    check(fromReader);

    const groupId = unique('deserde-group');
    const consumer = new Consumer(cluster, {
      groupId,
      groupProtocol,
      topics: [name],
      autoOffsetReset: 'earliest',
      deserializers,
    });
    const fromConsumer: PartitionBatch<string, Order>['records'][number][] = [];
    for await (const batch of consumer) {
      fromConsumer.push(...batch.records);
      if (batch.nextOffset >= 4n) break;
    }
    await consumer.commit();
    // The failed record did not stop the group: the commit is past it, as past the rest.
    const committed = await consumer.committed([{ topic: name, partition: 0 }]);
    await consumer.close();
    check(fromConsumer);
    expect(committed.get(`${name}-0`)?.offset).toBe(4n);
  });
});
