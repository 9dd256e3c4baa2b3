// The producer's `serializers` option (Kafka's key.serializer and value.serializer): keys and
// values of the application's types become the bytes a record carries on the send call, keyed
// records are partitioned by the serialized key, headers a serializer adds go out after the
// record's own, async serializers keep send order, and a serializer that fails (throws, rejects,
// returns something else than bytes, or never settles within maxBlockMs) fails its record alone
// with a SerializationError.
import { describe, expect, it } from 'vitest';
import {
  jsonSerializer,
  Producer,
  ProducerConfigError,
  partitionForKey,
  type RecordMetadata,
  rawSerializer,
  SerializationError,
  type Serializer,
  stringSerializer,
} from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

interface Order {
  readonly id: number;
  readonly item: string;
}

/** A serializer that answers after `turns` macrotask turns, per call, as given. */
function later<T>(inner: Serializer<T>, turns: (data: T) => number): Serializer<T> {
  return async (data, context) => {
    for (let i = turns(data); i > 0; i--) await new Promise((r) => setImmediate(r));
    return inner(data, context);
  };
}

describe('Producer serializers', () => {
  it('sends what the serializers make, and partitions keyed records by the serialized key', async () => {
    const fake = new FakeProduceCluster({ orders: 6 });
    const producer = new Producer<string, Order>(fake, {
      serializers: { key: stringSerializer, value: jsonSerializer },
    });
    const orders: Order[] = [
      { id: 1, item: 'pen' },
      { id: 2, item: 'ink' },
      { id: 3, item: 'nib' },
    ];
    const sent = await Promise.all(
      orders.map((value) => producer.send({ topic: 'orders', key: `order-${value.id}`, value })),
    );
    await producer.close();
    orders.forEach((order, i) => {
      const partition = partitionForKey(Buffer.from(`order-${order.id}`), 6);
      expect(sent[i]?.partition).toBe(partition);
      expect(fake.log('orders', partition).values).toContain(JSON.stringify(order));
    });
  });

  it('never gives null to a serializer: no key stays no key, a null value stays a tombstone', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const seen: unknown[] = [];
    const producer = new Producer<string, string>(fake, {
      serializers: {
        key: (k) => {
          seen.push(k);
          return k;
        },
        value: (v) => {
          seen.push(v);
          return v.toUpperCase();
        },
      },
    });
    await producer.send({ topic: 't', value: null });
    await producer.send({ topic: 't', key: 'k', value: 'v' });
    await producer.close();
    expect(seen).toEqual(['k', 'v']);
    // The fake log keeps a null value as ''.
    expect(fake.log('t', 0).values).toEqual(['', 'V']);
  });

  it('sends the headers a serializer adds after the record’s own, in order', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer<string, Order>(fake, {
      serializers: {
        key: (k, context) => {
          context.addHeader('key-schema', 'string');
          return k;
        },
        value: (v, context) => {
          expect(context.topic).toBe('t');
          expect(context.headers).toEqual([
            { key: 'trace', value: 'abc' },
            { key: 'key-schema', value: 'string' },
          ]);
          context.addHeader('value-schema', Buffer.from([0, 0, 0, 7]).toString('latin1'));
          return JSON.stringify(v);
        },
      },
    });
    await producer.send({
      topic: 't',
      key: 'a',
      value: { id: 1, item: 'pen' },
      headers: { trace: 'abc' },
    });
    await producer.close();
    expect(fake.log('t', 0).headers[0]).toEqual([
      ['trace', 'abc'],
      ['key-schema', 'string'],
      ['value-schema', '\u0000\u0000\u0000\u0007'],
    ]);
  });

  it('appends records in send order when async serializers settle out of order', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    // Record i answers after (7 - i % 7) turns: later records often settle first.
    const producer = new Producer<string, number>(fake, {
      serializers: {
        value: later(
          (n: number) => String(n),
          (n) => 7 - (n % 7),
        ),
      },
      lingerMs: 0,
    });
    const results: Promise<RecordMetadata>[] = [];
    for (let i = 0; i < 40; i++)
      results.push(producer.send({ topic: 't', partition: i % 2, value: i }));
    // A synchronous-looking send in the middle still queues behind the pending ones.
    const batch = producer.sendBatch(
      Array.from({ length: 10 }, (_, i) => ({ topic: 't', partition: i % 2, value: 40 + i })),
    );
    await Promise.all(results);
    await batch;
    await producer.close();
    const all = Array.from({ length: 50 }, (_, i) => i);
    expect(fake.log('t', 0).values).toEqual(all.filter((i) => i % 2 === 0).map(String));
    expect(fake.log('t', 1).values).toEqual(all.filter((i) => i % 2 === 1).map(String));
  });

  it('runs async serializers of queued records side by side, a bounded number at a time', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    let running = 0;
    let most = 0;
    const producer = new Producer<string, number>(fake, {
      serializers: {
        value: async (n) => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 1));
          running--;
          return String(n);
        },
      },
    });
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => producer.send({ topic: 't', value: i })),
    );
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(Array.from({ length: 200 }, (_, i) => String(i)));
    // The head and the 64 queued behind it.
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(65);
  });

  it('fails only the record whose serializer throws, rejects or returns something else', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const boom = new Error('no schema for this value');
    const producer = new Producer<string, string>(fake, {
      serializers: {
        value: (v) => {
          if (v === 'throw') throw boom;
          if (v === 'reject') return Promise.reject(new Error('registry unreachable'));
          if (v === 'number') return 42 as unknown as string;
          return v;
        },
      },
    });
    const values = ['a', 'throw', 'b', 'reject', 'c', 'number', 'd'];
    const outcomes = await Promise.allSettled(
      values.map((value) => producer.send({ topic: 't', value })),
    );
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'b', 'c', 'd']);
    const failed = outcomes.flatMap((o, i) =>
      o.status === 'rejected' ? [{ value: values[i], reason: o.reason as SerializationError }] : [],
    );
    expect(failed.map((f) => f.value)).toEqual(['throw', 'reject', 'number']);
    for (const { reason } of failed) {
      expect(reason).toBeInstanceOf(SerializationError);
      expect(reason).toMatchObject({ code: 'ERR_KAFKA_SERIALIZATION', topic: 't', field: 'value' });
    }
    const [thrown, rejected, wrongType] = failed.map((f) => f.reason);
    expect(thrown?.cause).toBe(boom);
    expect(rejected?.message).toContain('registry unreachable');
    expect(wrongType?.message).toContain('returned number');
  });

  it('reports a failed record of a sendBatch call, and delivers the rest of the call', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer<Uint8Array, string>(fake, {
      serializers: { key: rawSerializer, value: stringSerializer },
    });
    const records = [
      { topic: 't', key: Buffer.from('k1'), value: 'one' },
      { topic: 't', key: 'not bytes' as unknown as Uint8Array, value: 'two' },
      { topic: 't', key: Buffer.from('k3'), value: 'three' },
    ];
    const outcome = await new Promise<Error | null>((resolve) => {
      void producer.sendBatch(records, (error) => resolve(error));
    });
    await producer.close();
    expect(outcome).toBeInstanceOf(SerializationError);
    expect(outcome).toMatchObject({ field: 'key' });
    expect(fake.log('t', 0).values).toEqual(['one', 'three']);
  });

  it('fails a record whose serializer does not settle within maxBlockMs, then goes on', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer<string, string>(fake, {
      maxBlockMs: 30,
      serializers: {
        value: (v) => (v === 'stuck' ? new Promise<string>(() => {}) : v),
      },
    });
    const stuck = producer.send({ topic: 't', value: 'stuck' });
    const next = producer.send({ topic: 't', value: 'after' });
    await expect(stuck).rejects.toMatchObject({
      code: 'ERR_KAFKA_SERIALIZATION',
      field: 'value',
      message: expect.stringContaining('did not settle within maxBlockMs (30 ms)'),
    });
    await expect(next).resolves.toMatchObject({ partition: 0, offset: 0n });
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['after']);
  });

  it('makes flush wait for records whose async serializer is still running', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer<string, string>(fake, {
      lingerMs: 60_000,
      serializers: {
        value: later(
          (v: string) => v,
          () => 3,
        ),
      },
    });
    const done: string[] = [];
    for (const v of ['x', 'y'])
      void producer.send({ topic: 't', value: v }).then(() => done.push(v));
    await producer.flush();
    expect(done).toEqual(['x', 'y']);
    await producer.close();
  });

  it('refuses serializers that are not functions', () => {
    const fake = new FakeProduceCluster({ t: 1 });
    expect(
      () => new Producer(fake, { serializers: { value: 'json' as unknown as Serializer<string> } }),
    ).toThrow(ProducerConfigError);
  });
});
