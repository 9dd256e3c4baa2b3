// One pass through what an application and an operator do first, over SASL/SCRAM on TLS: connect,
// create a topic, produce idempotently with gzip (and with every codec, read back by Kafka's Java
// consumer), read it back with a group consumer and commit, start a tiered-storage metadata event
// log and let a second manager catch up on it, then list and consume the topic with the `kafkats`
// binary. It runs in the integration suite on Node and, through vitest.smoke.config.ts
// (`node scripts/with-runtime.mjs <bun|deno> --smoke`), on Bun and Deno: there the test worker,
// and the CLI spawned from `process.execPath`, run on that runtime, so TLS, SASL, zlib, native
// addons, sockets and child processes are theirs. Every step asserts what Kafka holds.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Admin, Cluster, Consumer, PartitionReader, Producer } from '@kafkats/client';
import { compressionSupport } from '@kafkats/codec';
import {
  KafkaMetadataEventLog,
  RemoteLogMetadataManager,
  remoteLogSegmentMetadata,
  type TopicIdPartition,
} from '@kafkats/remote-log-metadata';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const MECHANISM = 'SCRAM-SHA-512';
const user = shared.security?.users[1];
const bootstrap = shared.listeners.SASL_SSL;
const caPemPath = shared.security?.caPemPath;
if (user === undefined || bootstrap === undefined || caPemPath === undefined)
  throw new Error('the shared cluster has no SASL_SSL listener, CA or SASL user');
const connection = {
  tls: { ca: readFileSync(caPemPath) },
  sasl: { mechanism: MECHANISM, username: user.username, password: user.password },
} as const;

/** The runtime of this worker, named as scripts/runtime-guard.mjs names it. */
const RUNTIME = (globalThis as { Deno?: unknown }).Deno
  ? 'deno'
  : process.versions.bun
    ? 'bun'
    : 'node';

/**
 * Runs a script with this worker's own executable, as the CLI helper spawns the binary. Deno
 * runs a script given to its own executable this way as `deno run` with every permission
 * granted (seen on Deno 2.9: the child had net and run access), so no Deno flags are needed.
 */
function runScript(path: string): { code: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [path], { encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout };
}

/** Everything opened here, closed in reverse order even when a step fails. */
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of open.reverse()) await c.close();
});

const topic = unique('smoke');
const groupId = unique('smoke-g');
const PARTITIONS = 3;
// Values that gzip shrinks many times over, so the bytes fetched show the batches are compressed.
const sent = Array.from({ length: 60 }, (_, i) => ({
  key: `k${i % 7}`,
  value: `v${i} ${'kafkats '.repeat(40)}`,
}));
const rawBytes = sent.reduce((n, r) => n + r.key.length + r.value.length, 0);
/** What the producer was told per record, in send order. */
const placed: { partition: number; offset: bigint }[] = [];
/** Sent records per partition, in offset order. */
const byPartition = (): Map<number, { offset: bigint; key: string; value: string }[]> => {
  const out = new Map<number, { offset: bigint; key: string; value: string }[]>();
  for (const [i, at] of placed.entries()) {
    const list = out.get(at.partition) ?? [];
    list.push({ offset: at.offset, ...sent[i]! });
    out.set(at.partition, list);
  }
  for (const list of out.values()) list.sort((a, b) => (a.offset < b.offset ? -1 : 1));
  return out;
};

// The steps build on each other (topic, records, commit): a retry of one alone proves nothing.
describe('a smoke run over SASL_SSL on this runtime', { retry: 0 }, () => {
  let cluster: Cluster;
  let topicId: string;

  it('connects with SCRAM over TLS and creates a topic', async () => {
    cluster = await Cluster.connect(bootstrap, { connection });
    open.push(cluster);
    const admin = new Admin(cluster);
    const [created] = (
      await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 3 }], {
        waitForLeaders: true,
      })
    ).topics;
    expect(created?.error).toBeUndefined();
    topicId = created?.topicId ?? '';
    // Kafka's own admin sees the same topic.
    const java = await shared.admin.describeTopic(topic);
    expect(java.topicId).toBe(topicId);
    expect(java.partitions).toHaveLength(PARTITIONS);
  });

  it('produces idempotently with gzip: consecutive offsets per partition, one producer id', async () => {
    const producer = new Producer(cluster, { idempotent: true, compression: 'gzip' });
    const result = await producer.sendBatch(sent.map((r) => ({ topic, ...r })));
    await producer.close();
    for (const m of result) placed.push({ partition: m.partition, offset: m.offset });
    expect(placed).toHaveLength(sent.length);
    for (const list of byPartition().values())
      expect(list.map((r) => r.offset)).toEqual(list.map((_, i) => BigInt(i)));
    const producers = await shared.admin.describeProducers(topic);
    const ids = new Set(producers.flatMap((p) => p.producers.map((s) => String(s.producerId))));
    expect(ids.size).toBe(1);
  });

  it("every codec: what this runtime compresses, Kafka's Java consumer and our reader read back", async () => {
    // Native addons (snappy, lz4-napi, @mongodb-js/zstd) and the runtime's own node:zlib (zstd
    // on Bun and Deno) are what differ here; `compressionSupport()` names what runs each codec.
    const support = compressionSupport();
    const codecs = ['gzip', 'snappy', 'lz4', 'zstd'] as const;
    const codecTopic = unique('smoke-codecs');
    await shared.admin.createTopic(codecTopic, { partitions: 1, replicationFactor: 3 });
    const values: string[] = [];
    for (const codec of codecs) {
      expect(support[codec].compress, `${codec} compression on ${RUNTIME}`).not.toBeNull();
      const producer = new Producer(cluster, { compression: codec, lingerMs: 0 });
      const batch = Array.from({ length: 5 }, (_, i) => `${codec}-${i} ${'abc '.repeat(50)}`);
      await producer.sendBatch(batch.map((value) => ({ topic: codecTopic, partition: 0, value })));
      await producer.close();
      values.push(...batch);
    }
    const java = await shared.admin.consume(codecTopic, {
      partition: 0,
      maxRecords: values.length,
      timeoutMs: 30_000,
    });
    expect(java.map((r) => r.value?.toString())).toEqual(values);

    const reader = new PartitionReader(cluster, {
      topic: codecTopic,
      partition: 0,
      startOffset: 'earliest',
    });
    const ours: string[] = [];
    for await (const b of reader) {
      for (const r of b.records) ours.push(String(r.value));
      if (ours.length >= values.length) break;
    }
    await reader.close();
    expect(ours).toEqual(values);
  });

  it('a group consumer reads every record back in order and commits; the admin reads the commit', async () => {
    const consumer = new Consumer(cluster, {
      groupId,
      topics: [topic],
      autoOffsetReset: 'earliest',
      enableAutoCommit: false,
    });
    open.push(consumer);
    const read = new Map<number, { offset: bigint; key: string; value: string }[]>();
    let count = 0;
    let fetchedBytes = 0;
    for await (const batch of consumer) {
      fetchedBytes += batch.sizeInBytes;
      const list = read.get(batch.partition) ?? [];
      for (const r of batch.records)
        list.push({ offset: r.offset, key: String(r.key), value: String(r.value) });
      read.set(batch.partition, list);
      count += batch.records.length;
      if (count >= sent.length) break;
    }
    await consumer.commit();
    await consumer.close();
    // Uncompressed, the batches would hold more than the raw keys and values.
    expect(fetchedBytes).toBeLessThan(rawBytes / 4);
    const expected = byPartition();
    expect(new Map([...read].sort((a, b) => a[0] - b[0]))).toEqual(
      new Map([...expected].sort((a, b) => a[0] - b[0])),
    );

    const committed = await new Admin(cluster).listConsumerGroupOffsets(groupId);
    expect(committed.partitions.map((p) => [p.topic, p.partition, p.offset])).toEqual(
      [...expected]
        .sort((a, b) => a[0] - b[0])
        .map(([partition, list]) => [topic, partition, BigInt(list.length)]),
    );
  });

  it('starts a metadata event log, writes segments, and a second manager catches up to its end', async () => {
    const config = {
      bootstrap,
      cluster: { connection },
      topic: unique('smoke-rlmm'),
      numPartitions: 3,
      replicationFactor: 3,
    };
    const log = await KafkaMetadataEventLog.start(config);
    open.push(log);
    expect((await shared.admin.describeTopic(config.topic)).partitions).toHaveLength(3);
    const writer = new RemoteLogMetadataManager(log);
    open.push(writer);
    const partitions: TopicIdPartition[] = Array.from({ length: PARTITIONS }, (_, partition) => ({
      topicId,
      topic,
      partition,
    }));
    await writer.onPartitionLeadershipChanges(partitions);
    await writer.waitUntilReady(partitions);
    for (const tp of partitions) {
      await writer.addRemoteLogSegmentMetadata(
        remoteLogSegmentMetadata({
          remoteLogSegmentId: { topicIdPartition: tp, id: randomBytes(16).toString('base64url') },
          startOffset: 0n,
          endOffset: 9n,
          brokerId: 1,
          maxTimestampMs: 1_700_000_000_000n,
          eventTimestampMs: 1_700_000_000_000n,
          segmentLeaderEpochs: [{ epoch: 0, startOffset: 0n }],
          segmentSizeInBytes: 100,
        }),
      );
    }

    // A fresh reader of the same topic, read-only, catching up from offset 0.
    const reader = await KafkaMetadataEventLog.openReadOnly(config);
    open.push(reader);
    const manager = new RemoteLogMetadataManager(reader);
    open.push(manager);
    await manager.onPartitionLeadershipChanges(partitions);
    await manager.waitUntilReady(partitions, { timeoutMs: 60_000 });
    const reached = await manager.readToEnd({ timeoutMs: 60_000 });
    const ends = await reader.highWaterMarks();
    expect(reached).toEqual(ends);
    expect([...ends.values()].reduce((a, b) => a + b, 0n)).toBe(BigInt(PARTITIONS));
    for (const tp of partitions)
      expect(manager.listRemoteLogSegments(tp).map((s) => s.endOffset)).toEqual([9n]);
  });

  it('the kafkats binary, on this runtime, lists the topic and consumes its records', async () => {
    // The binary is spawned from process.execPath, as this script is: both run where this
    // worker runs (scripts/runtime-guard.mjs checks the worker when KAFKATS_RUNTIME is set).
    const probe = runScript(
      fileURLToPath(new URL('../support/print-runtime.mjs', import.meta.url)),
    );
    expect(probe).toEqual({ code: 0, stdout: RUNTIME });
    const flags = [
      '--bootstrap',
      bootstrap,
      '--tls-ca',
      caPemPath,
      '--sasl-mechanism',
      MECHANISM,
      '--sasl-username',
      user.username,
    ];
    const env = { KAFKATS_SASL_PASSWORD: user.password };
    const topics = await kafkats(['topics', ...flags], { env });
    expect(topics.code, topics.stderr).toBe(0);
    expect(topics.stdout).toMatch(new RegExp(`${topic}\\s+${PARTITIONS}\\s+3\\s`));

    const consumed = await kafkats(['consume', topic, ...flags, '--json'], { env });
    expect(consumed.code, consumed.stderr).toBe(0);
    const lines = jsonLines(consumed) as {
      partition: number;
      offset: string;
      key: string;
      value: string;
    }[];
    const got = new Map<number, { offset: bigint; key: string; value: string }[]>();
    for (const l of lines) {
      const list = got.get(l.partition) ?? [];
      list.push({ offset: BigInt(l.offset), key: l.key, value: l.value });
      got.set(l.partition, list);
    }
    expect(new Map([...got].sort((a, b) => a[0] - b[0]))).toEqual(
      new Map([...byPartition()].sort((a, b) => a[0] - b[0])),
    );
  });
});
