// The partition reader on a private 3-node cluster: one whose brokers may be killed and
// restarted, with ACLs on and a SASL listener for a user who may describe a topic but not read
// it. Kafka's own Java producer writes, Kafka's own Java consumer confirms.
import { Cluster } from '@kafkats/meta';
import { JavaAdminError, type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartitionReader, ProtocolError } from '../../src/index.js';
import { readWhile, recordsOf, unique } from './support.js';

let kafka: KafkaCluster;

beforeAll(async () => {
  kafka = await startCluster({ nodes: 3, acls: true, listeners: ['SASL_PLAINTEXT'] });
});

afterAll(async () => {
  await kafka?.stop();
});

describe('PartitionReader on a private cluster', () => {
  it('follows the partition off a killed leader and back onto it once restarted, losing and repeating nothing', async () => {
    const topic = unique('reader-kill');
    const created = await kafka.admin.createTopic(topic, { assignments: [[1, 2, 3]] });
    expect(created.partitions[0]?.leader).toBe(1);
    const cluster = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    const guard = new AbortController();
    const reader = new PartitionReader(cluster, {
      topic,
      partition: 0,
      startOffset: 'earliest',
      signal: guard.signal,
    });
    const leadersSeen: number[] = [];
    const reading = readWhile(reader, () => false, {
      guard,
      guardMs: 170_000,
      onBatch: (b) => {
        if (leadersSeen.at(-1) !== b.leaderId) leadersSeen.push(b.leaderId);
      },
    });
    let producing = true;
    let written = 0;
    let failed: unknown;
    const producer = (async () => {
      while (producing) {
        const batch = Array.from({ length: 10 }, (_, i) => ({
          value: `m${written + i}`,
          partition: 0,
        }));
        await kafka.admin.produce(topic, batch, { timeoutMs: 60_000 });
        written += 10;
      }
    })().catch((e: unknown) => {
      failed = e;
    });
    const writtenAtLeast = async (n: number) => {
      while (written < n && failed === undefined) await new Promise((r) => setTimeout(r, 50));
      expect(failed).toBeUndefined();
    };
    try {
      await writtenAtLeast(30);
      await kafka.stopNode(1, { signal: 'SIGKILL' });
      await writtenAtLeast(written + 30);
      const moved = await kafka.admin.describeTopic(topic);
      expect(moved.partitions[0]?.leader).not.toBe(1);
      await kafka.startNode(1);
      // Back in sync, broker 1 is the preferred leader again.
      for (;;) {
        const d = await kafka.admin.describeTopic(topic);
        if (d.partitions[0]?.isr.includes(1)) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(await kafka.admin.electLeaders(topic, { partitions: [0] })).toEqual([
        { partition: 0, error: null },
      ]);
      await writtenAtLeast(written + 30);
    } finally {
      producing = false;
      await producer;
    }
    expect(failed).toBeUndefined();
    const end = (await kafka.admin.listOffsets(topic, 'latest'))[0]?.offset ?? -1n;
    expect(end).toBe(BigInt(written));
    while ((reader.position ?? -1n) < end && !guard.signal.aborted) {
      await new Promise((r) => setTimeout(r, 50));
    }
    guard.abort();
    const read = recordsOf(await reading);
    await cluster.close();
    expect(read.map((r) => r.offset)).toEqual(Array.from({ length: written }, (_, i) => BigInt(i)));
    expect(read.map((r) => r.value?.toString())).toEqual(
      Array.from({ length: written }, (_, i) => `m${i}`),
    );
    // It read from broker 1, then from another broker, then from broker 1 again.
    expect(leadersSeen[0]).toBe(1);
    expect(leadersSeen.at(-1)).toBe(1);
    expect(leadersSeen.some((l) => l !== 1)).toBe(true);
    const java = await kafka.admin.consume(topic, {
      partition: 0,
      maxRecords: written,
      timeoutMs: 30_000,
    });
    expect(java.map((r) => r.value?.toString())).toEqual(read.map((r) => r.value?.toString()));
  });

  it('a topic the SASL user may describe but not read fails with TOPIC_AUTHORIZATION_FAILED, typed', async () => {
    const alice = kafka.security?.users.find((u) => u.username === 'alice');
    expect(alice).toBeDefined();
    if (alice === undefined) return;
    const denied = unique('reader-denied');
    const allowed = unique('reader-allowed');
    for (const topic of [denied, allowed]) {
      await kafka.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
      await kafka.admin.produce(topic, [{ value: 'secret', partition: 0 }]);
    }
    await kafka.admin.createAcls([
      { name: denied, principal: 'User:alice', operation: 'DESCRIBE' },
      { name: allowed, principal: 'User:alice', operation: 'READ' },
    ]);
    // Kafka's own consumer, as alice, is refused the one and reads the other.
    const javaAlice = kafka.javaAdmin({
      listener: 'SASL_PLAINTEXT',
      user: alice,
      mechanism: 'SCRAM-SHA-256',
    });
    const javaError = await javaAlice
      .consume(denied, { partition: 0, maxRecords: 1, timeoutMs: 15_000 })
      .catch((e: unknown) => e);
    expect(javaError).toBeInstanceOf(JavaAdminError);
    expect((javaError as JavaAdminError).javaType).toBe('TopicAuthorizationException');
    expect(
      await javaAlice.consume(allowed, { partition: 0, maxRecords: 1, timeoutMs: 15_000 }),
    ).toHaveLength(1);

    const bootstrap = kafka.describe().listeners.SASL_PLAINTEXT;
    expect(bootstrap).toBeDefined();
    const cluster = await Cluster.connect(bootstrap as string, {
      refreshIntervalMs: 0,
      connection: {
        sasl: { mechanism: 'SCRAM-SHA-256', username: alice.username, password: alice.password },
      },
    });
    try {
      const read = (topic: string) => {
        const guard = new AbortController();
        const reader = new PartitionReader(cluster, {
          topic,
          partition: 0,
          startOffset: 0n,
          signal: guard.signal,
        });
        return readWhile(reader, () => true, { guard, guardMs: 60_000 });
      };
      const error = await read(denied).catch((e: unknown) => e);
      // The fetch engine's partition error: a ProtocolError naming the partition.
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        name: 'FetchPartitionError',
        topic: denied,
        partition: 0,
        errorName: 'TOPIC_AUTHORIZATION_FAILED',
        code: 'ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED',
        retriable: false,
      });
      const ok = await read(allowed);
      expect(ok[0]?.records.map((r) => r.value?.toString())).toEqual(['secret']);
    } finally {
      await cluster.close();
    }
  });
});
