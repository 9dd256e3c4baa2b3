// The readers' `deserializers` option (Kafka's key.deserializer and value.deserializer): each
// record's key and value bytes become the application's types before the batch is yielded,
// async deserializers are awaited with order kept, null is never given to a deserializer, and a
// deserializer that fails makes reading that field of that one record throw a
// DeserializationError naming the partition and offset (KIP-334), the rest of the batch intact.
import type { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DeserializationError,
  type Deserializer,
  type Deserializers,
  jsonDeserializer,
  MultiPartitionReader,
  type PartitionBatch,
  PartitionReader,
  stringDeserializer,
} from '../../../src/index.js';
import { connectFake, FakeKafka } from '../fetch/fake-kafka.js';

const clusters: Cluster[] = [];
const connect = (kafka: FakeKafka) => connectFake(kafka, clusters);

afterEach(async () => {
  for (const c of clusters.splice(0)) await c.close();
});

const options = { maxWaitMs: 20, retryBackoffMs: 1, retryBackoffMaxMs: 2 } as const;

/** A reader of partition 0 of the fake from offset 0, with `deserializers`. */
async function open<K, V>(kafka: FakeKafka, deserializers: Deserializers<K, V>) {
  return new PartitionReader(await connect(kafka), {
    topic: 'events',
    partition: 0,
    startOffset: 0n,
    ...options,
    deserializers,
  });
}

async function readTo<K, V>(
  reader: AsyncIterable<PartitionBatch<K, V>>,
  records: number,
): Promise<PartitionBatch<K, V>[]> {
  const all: PartitionBatch<K, V>[] = [];
  let n = 0;
  for await (const batch of reader) {
    all.push(batch);
    n += batch.records.length;
    if (n >= records) break;
  }
  return all;
}

describe('reader deserializers', () => {
  it('yields values of the deserializer’s type, in offset order, with async deserializers settling out of order', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 6);
    kafka.append(0, [
      { key: Buffer.from('k'), value: Buffer.from('{"n":6}') },
      { key: Buffer.from('k'), value: null },
    ]);
    const keys: string[] = [];
    // Later records settle first: record at offset o waits (8 - o) turns.
    const slow: Deserializer<string> = async (data, context) => {
      for (let i = 8 - Number(context.record.offset); i > 0; i--)
        await new Promise((r) => setImmediate(r));
      return data.toString().toUpperCase();
    };
    const reader = await open(kafka, {
      key: (data) => {
        keys.push(data.toString());
        return data.toString();
      },
      value: slow,
    });
    const batches = await readTo(reader, 8);
    await reader.close();
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.value)).toEqual([
      'V0',
      'V1',
      'V2',
      'V3',
      'V4',
      'V5',
      '{"N":6}',
      null,
    ]);
    expect(records.map((r) => r.offset)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(records.map((r) => r.key)).toEqual([null, null, null, null, null, null, 'k', 'k']);
    // Null keys were never given to the key deserializer.
    expect(keys).toEqual(['k', 'k']);
    expect(batches.at(-1)?.nextOffset).toBe(8n);
  });

  it('fails only the record whose deserializer throws: reading its value throws, typed, with partition and offset', async () => {
    const kafka = new FakeKafka();
    kafka.append(
      0,
      ['{"a":1}', 'not json', '{"a":3}'].map((v) => ({ key: null, value: Buffer.from(v) })),
    );
    const reader = await open(kafka, { value: jsonDeserializer<{ a: number }>() });
    const [batch] = await readTo(reader, 3);
    await reader.close();
    const [first, bad, third] = batch?.records ?? [];
    expect(first?.value).toEqual({ a: 1 });
    expect(third?.value).toEqual({ a: 3 });
    expect(bad?.offset).toBe(1n);
    expect(bad?.key).toBeNull();
    let thrown: unknown;
    try {
      void bad?.value;
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DeserializationError);
    expect(thrown).toMatchObject({
      code: 'ERR_KAFKA_DESERIALIZATION',
      topic: 'events',
      partition: 0,
      offset: 1n,
      field: 'value',
    });
    expect((thrown as DeserializationError).data.toString()).toBe('not json');
    expect((thrown as DeserializationError).cause).toBeInstanceOf(SyntaxError);
    expect(batch?.nextOffset).toBe(3n);
  });

  it('turns an async rejection into the same per-record error', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 3);
    const reader = await open(kafka, {
      value: async (data) => {
        if (data.toString() === 'v1') throw new Error('schema 9 unknown');
        return data.toString();
      },
    });
    const [batch] = await readTo(reader, 3);
    await reader.close();
    expect(batch?.records[0]?.value).toBe('v0');
    expect(batch?.records[2]?.value).toBe('v2');
    expect(() => batch?.records[1]?.value).toThrow(
      /value deserializer failed for events-0 at offset 1: schema 9 unknown/,
    );
  });

  it('deserializes every partition of a MultiPartitionReader', async () => {
    const kafka = new FakeKafka(3, 3);
    for (const p of [0, 1, 2]) kafka.appendValues(p, 2);
    const multi = new MultiPartitionReader(
      await connect(kafka),
      [0, 1, 2].map((partition) => ({ topic: 'events', partition, startOffset: 0n })),
      { ...options, deserializers: { value: stringDeserializer } },
    );
    const batches = await readTo(multi, 6);
    await multi.close();
    const values = batches.flatMap((b) => b.records.map((r) => `${b.partition}:${r.value}`));
    expect(values.sort()).toEqual(['0:v0', '0:v1', '1:v0', '1:v1', '2:v0', '2:v1']);
    // Strings, not Buffers (a Buffer would print the same in the template above).
    expect(new Set(batches.flatMap((b) => b.records.map((r) => typeof r.value)))).toEqual(
      new Set(['string']),
    );
  });

  it('refuses deserializers that are not functions', async () => {
    const cluster = await connect(new FakeKafka());
    const bad = { value: 'json' as unknown as Deserializer<string> };
    expect(
      () =>
        new PartitionReader(cluster, {
          topic: 'events',
          partition: 0,
          startOffset: 0n,
          deserializers: bad,
        }),
    ).toThrow(/ERR_KAFKA_READER_OPTION_INVALID|deserializers\.value must be a function/);
    expect(() => new MultiPartitionReader(cluster, [], { deserializers: bad })).toThrow(
      /deserializers\.value must be a function/,
    );
  });
});
