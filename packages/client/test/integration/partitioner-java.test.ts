// Keyed records land where Kafka's Java producer puts them: murmur2 checked against Kafka's own
// Utils.murmur2 for random keys (fast-check), and real records produced by both clients compared
// partition by partition on the shared cluster; a custom partitioner's placement is checked
// with Kafka's consumer.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Cluster } from '@kafkats/meta';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { murmur2, Producer, partitionForKey } from '../../src/index.js';

const JAVA_SOURCE = join(import.meta.dirname, '..', 'support', 'Murmur2Vectors.java');

async function javaHashes(keys: readonly Buffer[], partitions: number) {
  const input = keys.map((k) => k.toString('hex')).join('\n') + '\n';
  const run = await runKafkaTool(JAVA_SOURCE, [String(partitions)], { input });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .trimEnd()
    .split('\n')
    .map((line) => {
      // "<hex> <hash> <partition>"; the hex of an empty key is empty.
      const parts = line.split(' ');
      return { hash: Number(parts.at(-2)), partition: Number(parts.at(-1)) };
    });
}

describe('default partitioner against Kafka', () => {
  const kafka = sharedCluster();
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.connect(kafka.bootstrap);
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('murmur2 and partitionForKey match Kafka for 2000 random keys', async () => {
    const keys = fc
      .sample(fc.uint8Array({ minLength: 0, maxLength: 64 }), { numRuns: 2000, seed: 4242 })
      .map((k) => Buffer.from(k));
    const java = await javaHashes(keys, 13);
    expect(java).toHaveLength(keys.length);
    keys.forEach((key, i) => {
      expect(murmur2(key)).toBe(java[i]!.hash);
      expect(partitionForKey(key, 13)).toBe(java[i]!.partition);
    });
  });

  it('puts keyed records on the same partitions as the Java producer', async () => {
    const topic = `keyed-${randomUUID().slice(0, 8)}`;
    await kafka.admin.createTopic(topic, { partitions: 7, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    const keys = Array.from({ length: 300 }, (_, i) => `user-${i}-${'é'.repeat(i % 4)}`);
    const producer = new Producer(cluster);
    const ours = await Promise.all(keys.map((key) => producer.send({ topic, key, value: 'ts' })));
    await producer.close();
    const theirs = await kafka.admin.produce(
      topic,
      keys.map((key) => ({ key: Buffer.from(key), value: Buffer.from('java') })),
    );
    expect(ours.map((m) => m.partition)).toEqual(theirs.map((m) => m.partition));
    // Both clients spread the keys: every partition got some.
    expect(new Set(ours.map((m) => m.partition)).size).toBe(7);
  });

  it("places records where a custom partitioner says; Kafka's consumer finds each there", async () => {
    const topic = `custom-part-${randomUUID().slice(0, 8)}`;
    await kafka.admin.createTopic(topic, { partitions: 4, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    // Region-prefixed keys go to their region's partition; the rest keep Kafka's placement.
    const regions: Record<string, number> = { eu: 0, us: 1, ap: 2 };
    const producer = new Producer(cluster, {
      partitioner: (record, { partitionCount }) => {
        const region = String(record.key).split(':')[0] as string;
        return regions[region] ?? partitionForKey(Buffer.from(String(record.key)), partitionCount);
      },
    });
    const keys = Array.from({ length: 120 }, (_, i) => `${['eu', 'us', 'ap', 'xx'][i % 4]}:${i}`);
    const sent = await Promise.all(keys.map((key) => producer.send({ topic, key, value: key })));
    await producer.close();
    const expected = (key: string) =>
      regions[key.split(':')[0] as string] ?? partitionForKey(Buffer.from(key), 4);
    expect(sent.map((m) => m.partition)).toEqual(keys.map(expected));
    const java = await kafka.admin.consume(topic, { maxRecords: keys.length, timeoutMs: 30_000 });
    expect(java).toHaveLength(keys.length);
    for (const r of java) expect(r.partition).toBe(expected(String(r.key)));
  });
});
