// The producer against the shared 3-node cluster, checked with Kafka's own Java consumer and
// tools: every compression codec, transactions under both isolation levels, offsets committed
// in a transaction, and fencing by a second producer with the same transactionalId.
import { randomUUID } from 'node:crypto';
import type { CompressionCodec } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Producer, ProducerFencedError, TransactionStateError } from '../../src/index.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe('Producer against Kafka', () => {
  const kafka = sharedCluster();
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.connect(kafka.bootstrap);
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

  it.each<CompressionCodec>(['none', 'gzip', 'snappy', 'lz4', 'zstd'])(
    'records compressed with %s read back through the Java consumer',
    async (compression) => {
      const name = await topic(`codec-${compression}`, 2);
      const producer = new Producer(cluster, { compression, lingerMs: 20 });
      const sent = Array.from({ length: 500 }, (_, i) => ({
        topic: name,
        partition: i % 2,
        key: i % 5 === 0 ? null : `key-${i}`,
        value: `value-${i}-${'abc'.repeat(i % 40)}`,
        headers: [{ key: 'h', value: `header-${i}` }],
        timestamp: 1_700_000_000_000 + i,
      }));
      const results = await Promise.all(sent.map((r) => producer.send(r)));
      await producer.close();
      const consumed = await kafka.admin.consume(name, { maxRecords: 500, timeoutMs: 30_000 });
      expect(consumed).toHaveLength(500);
      const byValue = new Map(consumed.map((r) => [r.value!.toString(), r]));
      sent.forEach((r, i) => {
        const got = byValue.get(r.value);
        expect(got?.key?.toString() ?? null).toBe(r.key);
        expect(got?.headers.map((h) => [h.key, h.value?.toString()])).toEqual([
          ['h', `header-${i}`],
        ]);
        expect(got?.timestamp).toBe(BigInt(r.timestamp));
        expect(got?.partition).toBe(results[i]!.partition);
        expect(got?.offset).toBe(results[i]!.offset);
      });
    },
  );

  // Batches of 4 KiB or more go to the socket by reference (the codec's
  // encodeRequestFrameChunks), and a request above 64 KiB leaves as one writev of its pieces:
  // four partitions of about 190 KB each make every such request one.
  it('requests of several large batches, written by reference, read back byte for byte through the Java consumer', async () => {
    const name = await topic('zero-copy', 4);
    const producer = new Producer(cluster, { batchSize: 512 * 1024, lingerMs: 100 });
    const sent = Array.from({ length: 2400 }, (_, i) => ({
      topic: name,
      partition: i % 4,
      key: `key-${i}`,
      value: `${String(i).padStart(6, '0')}-${'xyz'.repeat(100)}`,
    }));
    const results = await Promise.all(sent.map((r) => producer.send(r)));
    await producer.close();
    const consumed = await kafka.admin.consume(name, { maxRecords: 2400, timeoutMs: 60_000 });
    expect(consumed).toHaveLength(2400);
    const byValue = new Map(consumed.map((r) => [r.value!.toString(), r]));
    sent.forEach((r, i) => {
      const got = byValue.get(r.value);
      expect(got?.key?.toString()).toBe(r.key);
      expect(got?.partition).toBe(r.partition);
      expect(got?.offset).toBe(results[i]!.offset);
    });
  });

  // An application that awaits each send's acceptance runs on microtasks only: a full batch must
  // leave from the call that filled it, or nothing is sent until the whole buffer is full and
  // the loop finally waits for memory (a macrotask).
  it('a tight await send(record, callback) loop over more than bufferMemory puts the first Produce on the socket while the loop is still running on microtasks', async () => {
    const name = await topic('tight-loop', 1);
    const producer = new Producer(cluster, {
      batchSize: 16 * 1024,
      bufferMemory: 256 * 1024,
      lingerMs: 5_000,
    });
    // Producer id and metadata known first: the loop's records need no round trip to go.
    const first = producer.send({ topic: name, partition: 0, value: 'first' });
    await producer.flush();
    await first;
    const records = 1_000;
    const value = Buffer.alloc(1_000, 'v');
    let iteration = -1;
    let macrotaskRan = false;
    const produces: { iteration: number; macrotaskRan: boolean }[] = [];
    const onStart = (message: unknown) => {
      if ((message as RequestTraceContext).api === 'Produce')
        produces.push({ iteration, macrotaskRan });
    };
    requestChannel.start.subscribe(onStart);
    const offsets: bigint[] = [];
    const errors: Error[] = [];
    try {
      setImmediate(() => {
        macrotaskRan = true;
      });
      for (iteration = 0; iteration < records; iteration++) {
        await producer.send({ topic: name, partition: 0, value }, (error, metadata) => {
          if (error !== null) errors.push(error);
          else offsets.push(metadata?.offset ?? -2n);
        });
      }
      await producer.flush();
    } finally {
      requestChannel.start.unsubscribe(onStart);
    }
    await producer.close();
    // 16 KiB holds 16 records of ~1 KB: the 17th (iteration 16) closes the first batch and hands
    // it to the cluster, which writes it a few microtasks later, before a second batch fills.
    const firstProduce = produces[0];
    expect(firstProduce?.macrotaskRan).toBe(false);
    expect(firstProduce?.iteration).toBeGreaterThanOrEqual(16);
    expect(firstProduce?.iteration).toBeLessThan(32);
    // 1 MB went through 256 KiB of buffer: the loop waited for memory, so batches went out
    // while it ran, not all at its end.
    expect(produces.filter((p) => !p.macrotaskRan).length).toBeGreaterThan(1);
    expect(errors).toEqual([]);
    expect(offsets).toEqual(Array.from({ length: records }, (_, i) => BigInt(i + 1)));
  });

  it('a committed transaction is visible under read_committed, an aborted one only under read_uncommitted', async () => {
    const name = await topic('txn', 3);
    const producer = new Producer(cluster, { transactionalId: unique('tx') });
    await producer.initTransactions();
    producer.beginTransaction();
    await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        producer.send({ topic: name, partition: i % 3, value: `commit-${i}` }),
      ),
    );
    await producer.commitTransaction();
    producer.beginTransaction();
    await Promise.all(
      [0, 1, 2].map((i) => producer.send({ topic: name, partition: i, value: `abort-${i}` })),
    );
    await producer.abortTransaction();
    // A third transaction after the abort commits fine (the producer is reusable).
    producer.beginTransaction();
    await producer.send({ topic: name, partition: 0, value: 'commit-again' });
    await producer.commitTransaction();
    await producer.close();

    const values = (records: { value: Buffer | null }[]) =>
      records.map((r) => r.value!.toString()).sort();
    const committed = await kafka.admin.consume(name, {
      isolationLevel: 'read_committed',
      maxRecords: 8,
      timeoutMs: 5_000,
    });
    expect(values(committed)).toEqual(
      [
        'commit-0',
        'commit-1',
        'commit-2',
        'commit-3',
        'commit-4',
        'commit-5',
        'commit-again',
      ].sort(),
    );
    const everything = await kafka.admin.consume(name, {
      isolationLevel: 'read_uncommitted',
      maxRecords: 11,
      timeoutMs: 5_000,
    });
    expect(values(everything)).toEqual(
      [...values(committed), 'abort-0', 'abort-1', 'abort-2'].sort(),
    );
  });

  it('offsets sent to a committed transaction are the group committed offsets', async () => {
    const name = await topic('txn-offsets', 2);
    const group = unique('group');
    const producer = new Producer(cluster, { transactionalId: unique('tx') });
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.send({ topic: name, partition: 0, value: 'x' });
    await producer.sendOffsetsToTransaction(
      [
        { topic: name, partition: 0, offset: 0n },
        { topic: name, partition: 1, offset: 0n },
      ],
      group,
    );
    await producer.commitTransaction();
    await producer.close();
    const run = await runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
      '--bootstrap-server',
      kafka.bootstrap,
      '--describe',
      '--group',
      group,
    ]);
    expect(run.status, run.stderr).toBe(0);
    const rows = run.stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((cols) => cols[1] === name);
    // GROUP TOPIC PARTITION CURRENT-OFFSET ...
    expect(rows.map((c) => [c[2], c[3]]).sort()).toEqual([
      ['0', '0'],
      ['1', '0'],
    ]);
  });

  it('a record whose send() came before commitTransaction() commits with the transaction even while its topic metadata is still being fetched', async () => {
    // The topic is created without telling this cluster, so the producer must look it up
    // first and the record waits outside the accumulator when commitTransaction() is called.
    // The cluster is a private one with no background refresh, and the topic is created after
    // initTransactions(): any full refresh (the 30 s timer, or a coordinator lookup's) would
    // learn the topic early and the late path would go untested.
    const quiet = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    const producer = new Producer(quiet, { transactionalId: unique('tx') });
    const name = unique('txn-late-metadata');
    try {
      await producer.initTransactions();
      const warm = unique('txn-warm');
      await kafka.admin.createTopic(warm, { partitions: 1, replicationFactor: 3 });
      await quiet.refreshTopics([warm]);
      await kafka.admin.createTopic(name, { partitions: 2, replicationFactor: 3 });
      producer.beginTransaction();
      const first = producer.send({ topic: warm, value: 'known-topic' });
      const late = producer.send({ topic: name, partition: 1, value: 'late-metadata' });
      expect(quiet.snapshot().topic(name)).toBeUndefined();
      await producer.commitTransaction();
      expect((await first).offset).toBe(0n);
      expect((await late).partition).toBe(1);
    } finally {
      await producer.close();
      await quiet.close();
    }
    const committed = await kafka.admin.consume(name, {
      isolationLevel: 'read_committed',
      maxRecords: 1,
      timeoutMs: 10_000,
    });
    expect(committed.map((r) => r.value?.toString())).toEqual(['late-metadata']);
  });

  it('a second producer with the same transactionalId fences the first, which fails with a typed fatal error', async () => {
    const name = await topic('fence', 1);
    const id = unique('tx');
    const first = new Producer(cluster, { transactionalId: id });
    await first.initTransactions();
    first.beginTransaction();
    await first.send({ topic: name, value: 'zombie' });

    const second = new Producer(cluster, { transactionalId: id });
    await second.initTransactions();

    const error = await first.commitTransaction().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProducerFencedError);
    expect((error as ProducerFencedError).code).toBe('ERR_KAFKA_PRODUCER_FENCED');
    expect((error as ProducerFencedError).retriable).toBe(false);
    // Fatal: every later call fails the same way.
    await expect(first.send({ topic: name, value: 'more' })).rejects.toBeInstanceOf(
      ProducerFencedError,
    );
    expect(() => first.beginTransaction()).toThrow(ProducerFencedError);

    second.beginTransaction();
    await second.send({ topic: name, value: 'survivor' });
    await second.commitTransaction();
    await first.close();
    await second.close();
    const committed = await kafka.admin.consume(name, {
      isolationLevel: 'read_committed',
      maxRecords: 2,
      timeoutMs: 5_000,
    });
    expect(committed.map((r) => r.value!.toString())).toEqual(['survivor']);
  });

  it('refuses transactional misuse with typed errors', async () => {
    const producer = new Producer(cluster, { transactionalId: unique('tx') });
    expect(() => producer.beginTransaction()).toThrow(TransactionStateError);
    await producer.initTransactions();
    await expect(producer.commitTransaction()).rejects.toBeInstanceOf(TransactionStateError);
    await producer.close();
  });
});
