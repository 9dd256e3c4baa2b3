import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runKafkaTool, sharedCluster } from '../../src/index.js';

const topicName = (label: string) => `testkit-${label}-${randomUUID().slice(0, 8)}`;

describe("the shared 3-node cluster, asserted through Kafka's own Java admin", () => {
  it('lists three registered brokers at the advertised bootstrap ports', async () => {
    const cluster = sharedCluster();
    const described = await cluster.admin.describeCluster();
    expect(described.clusterId).toBe(cluster.clusterId);
    expect(described.nodes.map((n) => n.id)).toEqual([1, 2, 3]);
    expect(described.nodes.map((n) => `${n.host}:${n.port}`).join(',')).toBe(cluster.bootstrap);
  });

  it('creates a 6-partition RF=3 topic whose every leader sits inside its replica set', async () => {
    const { admin } = sharedCluster();
    const name = topicName('smoke');
    await admin.createTopic(name, { partitions: 6, replicationFactor: 3 });
    const topic = await admin.describeTopic(name);
    expect(topic.name).toBe(name);
    expect(topic.topicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(topic.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const p of topic.partitions) {
      expect(p.replicas).toHaveLength(3);
      expect(new Set(p.replicas)).toEqual(new Set([1, 2, 3]));
      expect(p.replicas).toContain(p.leader);
      expect(p.isr).toContain(p.leader);
    }
    expect(await admin.listTopics()).toContain(name);
    await admin.deleteTopic(name);
  });

  it('round-trips binary keys, null values and headers through KafkaProducer and KafkaConsumer', async () => {
    const { admin } = sharedCluster();
    const name = topicName('records');
    await admin.createTopic(name, { partitions: 2, replicationFactor: 3 });
    const key = Buffer.from([0x00, 0xff, 0x80, 0x0a]);
    const produced = await admin.produce(
      name,
      [
        {
          key,
          value: 'hello',
          headers: [
            { key: 'h1', value: Buffer.from([1, 2]) },
            { key: 'h2', value: null },
          ],
          partition: 1,
          timestamp: 1_700_000_000_000n,
        },
        { key: null, value: null, partition: 1 },
        { value: Buffer.alloc(0), partition: 0 },
      ],
      { compression: 'zstd' },
    );
    expect(produced.map((p) => [p.partition, p.offset])).toEqual([
      [1, 0n],
      [1, 1n],
      [0, 0n],
    ]);
    const consumed = await admin.consume(name, { partition: 1, maxRecords: 2, timeoutMs: 20_000 });
    expect(consumed).toHaveLength(2);
    const [first, second] = consumed;
    expect(first?.key).toEqual(key);
    expect(first?.value?.toString('utf8')).toBe('hello');
    expect(first?.timestamp).toBe(1_700_000_000_000n);
    expect(first?.headers).toEqual([
      { key: 'h1', value: Buffer.from([1, 2]) },
      { key: 'h2', value: null },
    ]);
    expect(second?.key).toBeNull();
    expect(second?.value).toBeNull();
    const all = await admin.consume(name, { maxRecords: 3, timeoutMs: 20_000 });
    expect(all.map((r) => `${r.partition}:${r.offset}`).sort()).toEqual(['0:0', '1:0', '1:1']);
    const latest = await admin.listOffsets(name, 'latest');
    expect(latest).toEqual([
      { partition: 0, offset: 1n, timestamp: -1n },
      { partition: 1, offset: 2n, timestamp: -1n },
    ]);
  });

  it("runs Kafka's console tools against it (TopicCommand sees the Java admin's topic)", async () => {
    const cluster = sharedCluster();
    const name = topicName('tool');
    await cluster.admin.createTopic(name, { partitions: 2, replicationFactor: 2 });
    const listed = await runKafkaTool('org.apache.kafka.tools.TopicCommand', [
      '--bootstrap-server',
      cluster.bootstrap,
      '--describe',
      '--topic',
      name,
    ]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(`Topic: ${name}`);
    expect(listed.stdout).toContain('PartitionCount: 2');
    expect(listed.stdout).toContain('ReplicationFactor: 2');
  });

  it("reads an idempotent producer's state back with DescribeProducers", async () => {
    const { admin } = sharedCluster();
    const name = topicName('producers');
    await admin.createTopic(name, { partitions: 1, replicationFactor: 3 });
    await admin.produce(name, [{ value: 'a' }, { value: 'b' }, { value: 'c' }], {
      idempotent: true,
    });
    const [partition] = await admin.describeProducers(name);
    expect(partition?.partition).toBe(0);
    expect(partition?.producers).toHaveLength(1);
    const state = partition?.producers[0];
    expect(state?.producerId).toBeGreaterThanOrEqual(0n);
    expect(state?.lastSequence).toBe(2);
    expect(state?.currentTransactionStartOffset).toBeNull();
  });

  it('produces committed and aborted transactions that read_committed tells apart', async () => {
    const { admin } = sharedCluster();
    const name = topicName('txn');
    await admin.createTopic(name, { partitions: 1, replicationFactor: 3 });
    const transactionalId = `${name}-tx`;
    await admin.produce(name, [{ value: 'aborted' }], { transactionalId, abort: true });
    await admin.produce(name, [{ value: 'committed' }], { transactionalId });
    const committed = await admin.consume(name, {
      partition: 0,
      isolationLevel: 'read_committed',
      maxRecords: 1,
      timeoutMs: 20_000,
    });
    expect(committed.map((r) => r.value?.toString())).toEqual(['committed']);
    // Aborted data stays in the log: offsets 0 (aborted), 1 (abort marker), 2, 3 (commit marker).
    const everything = await admin.consume(name, {
      partition: 0,
      maxRecords: 2,
      timeoutMs: 20_000,
    });
    expect(everything.map((r) => `${r.offset}:${r.value?.toString()}`)).toEqual([
      '0:aborted',
      '2:committed',
    ]);
    const [end] = await admin.listOffsets(name, 'latest');
    expect(end?.offset).toBe(4n);
  });

  it('reports a Kafka exception as a typed JavaAdminError', async () => {
    const { admin } = sharedCluster();
    await expect(admin.describeTopic(topicName('missing'))).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_REQUEST_FAILED',
      javaType: 'UnknownTopicOrPartitionException',
    });
  });
});
