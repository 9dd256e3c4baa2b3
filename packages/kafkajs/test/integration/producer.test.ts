// The kafkajs producer facade against real brokers: what kafkajs 2.2.4's producer tests check
// (per-partition RecordMetadata, acks, topic consolidation, tombstones, headers, partitioners,
// transactions, events, errors), with the records read back by kafkajs's own consumer or by
// kats's PartitionReader as a cross-check.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  Admin,
  Cluster,
  type ConsumerRecord,
  type IsolationLevelName,
  PartitionReader,
  type ProduceTraceContext,
  produceChannel,
} from '@kafkats/client';
import { type KafkaCluster, sharedCluster, startCluster } from '@kafkats/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CompressionTypes,
  Kafka,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  logLevel,
  type Message,
  Partitioners,
  type Producer,
  type ProducerConfig,
} from '../../src/index.js';

const require = createRequire(import.meta.url);

interface KafkaJSMessage {
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | undefined>;
  offset: string;
  timestamp: string;
}
interface KafkaJSModule {
  Kafka: new (
    config: object,
  ) => {
    consumer(config: object): {
      connect(): Promise<void>;
      subscribe(o: object): Promise<void>;
      run(o: {
        eachMessage: (p: { partition: number; message: KafkaJSMessage }) => Promise<void>;
      }): Promise<void>;
      disconnect(): Promise<void>;
    };
  };
  Partitioners: { LegacyPartitioner: () => (args: unknown) => number };
}
const kafkajs = require('kafkajs') as KafkaJSModule;

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

let bootstrap: string[];
let cluster: Cluster;
let admin: Admin;
const producers: Producer[] = [];

beforeAll(async () => {
  bootstrap = sharedCluster().bootstrap.split(',');
  cluster = await Cluster.connect(bootstrap);
  admin = new Admin(cluster);
});

afterAll(async () => {
  await admin?.close();
  await cluster?.close();
});

afterEach(async () => {
  await Promise.all(producers.splice(0).map((p) => p.disconnect()));
});

async function createTopic(partitions = 1, configs: Record<string, string> = {}): Promise<string> {
  const name = unique('kjs-producer');
  await admin.createTopics([{ name, numPartitions: partitions, replicationFactor: 3, configs }], {
    waitForLeaders: true,
  });
  return name;
}

async function connected(config: ProducerConfig = {}, retry?: object): Promise<Producer> {
  const kafka = new Kafka({
    brokers: bootstrap,
    clientId: 'facade-producer-test',
    logLevel: logLevel.NOTHING,
    ...(retry === undefined ? {} : { retry }),
  });
  const producer = kafka.producer(config);
  producers.push(producer);
  await producer.connect();
  return producer;
}

/** Reads a partition from offset 0 until `done` holds of what was read, or fails at the deadline. */
async function read(
  topic: string,
  partition: number,
  done: (records: ConsumerRecord[]) => boolean,
  isolationLevel: IsolationLevelName = 'read_uncommitted',
): Promise<ConsumerRecord[]> {
  const guard = new AbortController();
  const timer = setTimeout(() => guard.abort(), 30_000);
  const reader = new PartitionReader(cluster, {
    topic,
    partition,
    startOffset: 0n,
    isolationLevel,
    maxWaitMs: 100,
    signal: guard.signal,
  });
  const records: ConsumerRecord[] = [];
  try {
    for await (const batch of reader) {
      records.push(...batch.records);
      if (done(records)) return records;
    }
    throw new Error(`read ${records.length} records of ${topic}-${partition} before the deadline`);
  } finally {
    clearTimeout(timer);
    await reader.close();
  }
}

/** kafkajs's own consumer reads `count` messages of `topic` from the beginning. */
async function readWithKafkajs(
  topic: string,
  count: number,
): Promise<{ partition: number; message: KafkaJSMessage }[]> {
  const kafka = new kafkajs.Kafka({ brokers: bootstrap, logLevel: 0 });
  const consumer = kafka.consumer({ groupId: unique('kjs-reader') });
  const seen: { partition: number; message: KafkaJSMessage }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let resolve!: () => void;
    const all = new Promise<void>((r) => {
      resolve = r;
    });
    await consumer.run({
      eachMessage: async (p) => {
        seen.push(p);
        if (seen.length >= count) resolve();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      all,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`kafkajs read ${seen.length}`)), 60_000);
      }),
    ]);
    clearTimeout(timer);
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

const tenMessages = (): Message[] =>
  Array.from({ length: 10 }, (_, i) => ({ key: `key-${i}`, value: `value-${i}` }));

describe('kafkajs producer facade: send and sendBatch', () => {
  it('resolves with one RecordMetadata per partition, baseOffset following the log', async () => {
    const topic = await createTopic();
    const producer = await connected();
    const first = await producer.send({ acks: 1, topic, messages: tenMessages() });
    expect(first).toEqual([
      {
        topicName: topic,
        partition: 0,
        errorCode: 0,
        baseOffset: '0',
        logAppendTime: '-1',
        logStartOffset: '0',
      },
    ]);
    const second = await producer.send({ topic, messages: tenMessages() });
    expect(second).toEqual([expect.objectContaining({ partition: 0, baseOffset: '10' })]);
    await expect(producer.send({ topic, messages: [] })).resolves.toEqual([]);
  });

  it('acks 0 resolves with an empty list, and the messages are written', async () => {
    const topic = await createTopic();
    const producer = await connected();
    expect(await producer.send({ acks: 0, topic, messages: tenMessages() })).toEqual([]);
    const records = await read(topic, 0, (r) => r.length >= 10);
    expect(records.map((r) => r.value?.toString())).toEqual(
      tenMessages().map((m) => String(m.value)),
    );
  });

  it('sendBatch writes several topics and sends a topic named twice as one list', async () => {
    const a = await createTopic();
    const b = await createTopic();
    const producer = await connected();
    const result = await producer.sendBatch({
      topicMessages: [
        { topic: a, messages: [{ value: 'a1' }, { value: 'a2' }] },
        { topic: b, messages: tenMessages() },
        { topic: a, messages: [{ value: 'a3' }] },
      ],
    });
    expect(result).toEqual([
      expect.objectContaining({ topicName: a, partition: 0, baseOffset: '0', errorCode: 0 }),
      expect.objectContaining({ topicName: b, partition: 0, baseOffset: '0', errorCode: 0 }),
    ]);
    const records = await read(a, 0, (r) => r.length >= 3);
    expect(records.map((r) => [String(r.offset), r.value?.toString()])).toEqual([
      ['0', 'a1'],
      ['1', 'a2'],
      ['2', 'a3'],
    ]);
  });

  it("writes keys, tombstones, timestamps and repeated headers that kafkajs's consumer reads back", async () => {
    const topic = await createTopic();
    const producer = await connected();
    await producer.send({
      topic,
      messages: [
        {
          key: 'k1',
          value: Buffer.from([0, 1, 2, 255]),
          timestamp: '1700000000123',
          headers: { one: 'a', many: ['x', Buffer.from('y')] },
        },
        { key: Buffer.from('k2'), value: null },
      ],
    });
    const seen = await readWithKafkajs(topic, 2);
    const [m1, m2] = seen.map((s) => s.message);
    expect(m1?.key?.toString()).toBe('k1');
    expect(m1?.value).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(m1?.timestamp).toBe('1700000000123');
    expect(m1?.headers.one?.toString()).toBe('a');
    expect(((m1?.headers.many ?? []) as Buffer[]).map(String)).toEqual(['x', 'y']);
    expect(m2?.key?.toString()).toBe('k2');
    expect(m2?.value).toBeNull();
  });

  it("reports the broker's time as logAppendTime for a LogAppendTime topic", async () => {
    const topic = await createTopic(1, { 'message.timestamp.type': 'LogAppendTime' });
    const producer = await connected();
    const [result] = await producer.send({
      topic,
      messages: [{ value: 'v', timestamp: '1000' }],
    });
    expect(Number(result?.logAppendTime)).toBeGreaterThan(1_600_000_000_000);
  });

  it('compresses each send with the codec it names', async () => {
    const topic = await createTopic();
    const producer = await connected();
    const sizes = new Map<number, number>();
    let current = -1;
    const onStart = (ctx: ProduceTraceContext) => {
      if (ctx.topic === topic) sizes.set(current, ctx.bytes);
    };
    produceChannel.start.subscribe(onStart as (m: unknown) => void);
    try {
      const value = 'abcdefgh'.repeat(2000);
      const types = [
        CompressionTypes.None,
        CompressionTypes.GZIP,
        CompressionTypes.Snappy,
        CompressionTypes.LZ4,
        CompressionTypes.ZSTD,
      ];
      for (const compression of types) {
        current = compression;
        await producer.send({ topic, compression, messages: [{ value }] });
      }
      expect(sizes.get(CompressionTypes.None)).toBeGreaterThan(16_000);
      for (const compression of types.slice(1)) {
        expect(sizes.get(compression)).toBeLessThan(2_000);
      }
      const records = await read(topic, 0, (r) => r.length >= types.length);
      for (const r of records) expect(r.value?.toString()).toBe(value);
    } finally {
      produceChannel.start.unsubscribe(onStart as (m: unknown) => void);
    }
  });
});

describe('kafkajs producer facade: idempotence', () => {
  async function producerIdsOf(config: ProducerConfig, acks: number): Promise<bigint[]> {
    const topic = await createTopic();
    const producer = await connected(config);
    const ids: bigint[] = [];
    const onStart = (ctx: ProduceTraceContext) => {
      if (ctx.topic === topic) ids.push(ctx.producerId);
    };
    produceChannel.start.subscribe(onStart as (m: unknown) => void);
    try {
      await producer.send({ topic, acks, messages: [{ value: 'v' }] });
    } finally {
      produceChannel.start.unsubscribe(onStart as (m: unknown) => void);
    }
    return ids;
  }

  it('sends with acks -1 carry a producer id unless idempotent: false; acks 1 never does', async () => {
    const [byDefault] = await producerIdsOf({}, -1);
    expect(byDefault).toBeGreaterThanOrEqual(0n);
    expect(await producerIdsOf({ idempotent: false }, -1)).toEqual([-1n]);
    expect(await producerIdsOf({}, 1)).toEqual([-1n]);
  });
});

describe('kafkajs producer facade: partitioners', () => {
  it('calls a custom partitioner for every message, pinned or not, with kafkajs partition metadata', async () => {
    const topic = await createTopic(3);
    const calls: unknown[] = [];
    const producer = await connected({
      createPartitioner: () => (args) => {
        calls.push(args);
        return args.partitionMetadata.length - 1;
      },
    });
    const result = await producer.send({
      topic,
      messages: [
        { key: 'a', value: '1', partition: 0 },
        { value: '2', headers: { h: 'x' } },
      ],
    });
    expect(result).toEqual([expect.objectContaining({ partition: 2, baseOffset: '0' })]);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual({
      topic,
      message: { key: 'a', value: '1', partition: 0 },
      partitionMetadata: [0, 1, 2].map((p) => ({
        partitionErrorCode: 0,
        partitionId: p,
        leader: expect.any(Number),
        replicas: expect.any(Array),
        isr: expect.any(Array),
        offlineReplicas: [],
      })),
    });
  });

  it("LegacyPartitioner and DefaultPartitioner place keys where kafkajs's do", async () => {
    const topic = await createTopic(7);
    const keys = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    const legacy = await connected({ createPartitioner: Partitioners.LegacyPartitioner });
    const placedLegacy = await Promise.all(
      keys.map((key) => legacy.send({ topic, messages: [{ key, value: 'v' }] })),
    );
    const metadata = Array.from({ length: 7 }, (_, p) => ({ partitionId: p, leader: 1 }));
    const kafkajsLegacy = kafkajs.Partitioners.LegacyPartitioner();
    expect(placedLegacy.map((r) => r[0]?.partition)).toEqual(
      keys.map((key) => kafkajsLegacy({ topic, partitionMetadata: metadata, message: { key } })),
    );
    const java = await connected({ createPartitioner: Partitioners.DefaultPartitioner });
    const placedJava = await Promise.all(
      keys.map((key) => java.send({ topic, messages: [{ key, value: 'v' }] })),
    );
    const mine = Partitioners.DefaultPartitioner();
    expect(placedJava.map((r) => r[0]?.partition)).toEqual(
      keys.map((key) =>
        mine({ topic, partitionMetadata: metadata as never, message: { key, value: 'v' } }),
      ),
    );
    // The two hashes part ways for some of these keys: the test tells them apart.
    expect(placedJava.map((r) => r[0]?.partition)).not.toEqual(
      placedLegacy.map((r) => r[0]?.partition),
    );
  });
});

describe('kafkajs producer facade: transactions', () => {
  it('commits and aborts; a read_committed reader sees only the committed messages', async () => {
    const topic = await createTopic();
    const producer = await connected({ transactionalId: unique('txn'), maxInFlightRequests: 1 });
    const aborted = await producer.transaction();
    await expect(producer.transaction()).rejects.toEqual(
      new KafkaJSNonRetriableError(
        'There is already an ongoing transaction for this producer. Please end the transaction before beginning another.',
      ),
    );
    await aborted.send({ topic, messages: [{ value: 'aborted-1' }] });
    await aborted.sendBatch({ topicMessages: [{ topic, messages: [{ value: 'aborted-2' }] }] });
    expect(aborted.isActive()).toBe(true);
    await aborted.abort();
    expect(aborted.isActive()).toBe(false);
    const ended = new KafkaJSNonRetriableError('Cannot continue to use transaction once ended');
    await expect(aborted.send({ topic, messages: [{ value: 'late' }] })).rejects.toEqual(ended);
    await expect(aborted.commit()).rejects.toEqual(ended);
    await expect(aborted.abort()).rejects.toEqual(ended);

    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ value: 'committed-1' }] });
    await committed.commit();
    await expect(committed.sendBatch({ topicMessages: [] })).rejects.toEqual(ended);

    const records = await read(
      topic,
      0,
      (r) => r.some((x) => x.value?.toString() === 'committed-1'),
      'read_committed',
    );
    expect(records.map((r) => r.value?.toString())).toEqual(['committed-1']);
  });

  it('sendOffsets commits the group offsets with the transaction', async () => {
    const topic = await createTopic(2);
    const groupId = unique('txn-group');
    const producer = await connected({ transactionalId: unique('txn'), idempotent: true });
    const txn = await producer.transaction();
    await txn.sendOffsets({
      consumerGroupId: groupId,
      topics: [
        {
          topic,
          partitions: [
            { partition: 0, offset: '5' },
            { partition: 1, offset: '10' },
          ],
        },
      ],
    });
    await txn.commit();
    // The commit markers reach the group coordinator after EndTxn is answered: ask (stable
    // offsets only) until both show, within a deadline.
    const deadline = Date.now() + 20_000;
    let committed: unknown[] = [];
    while (Date.now() < deadline) {
      const offsets = await admin.listConsumerGroupOffsets(groupId, {
        requireStable: true,
        partitions: [
          { topic, partition: 0 },
          { topic, partition: 1 },
        ],
      });
      committed = offsets.partitions.map((p) => [p.topic, p.partition, p.offset]);
      if (offsets.partitions.every((p) => p.offset >= 0n)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(committed).toEqual([
      [topic, 0, 5n],
      [topic, 1, 10n],
    ]);
  });

  it('a transactional producer still sends outside a transaction', async () => {
    const topic = await createTopic();
    const producer = await connected({ transactionalId: unique('txn') });
    const txn = await producer.transaction();
    const result = await producer.send({ topic, messages: [{ value: 'outside' }] });
    expect(result).toEqual([expect.objectContaining({ topicName: topic, baseOffset: '0' })]);
    await txn.abort();
    const records = await read(topic, 0, (r) => r.length >= 1, 'read_committed');
    expect(records.map((r) => r.value?.toString())).toEqual(['outside']);
  });

  it('a second producer with the same transactionalId takes over an open transaction', async () => {
    const topic = await createTopic();
    const transactionalId = unique('txn');
    const first = await connected({
      transactionalId,
      idempotent: true,
      transactionTimeout: 10_000,
    });
    const abandoned = await first.transaction();
    await abandoned.send({ topic, messages: [{ value: 'abandoned' }] });
    const second = await connected({ transactionalId, idempotent: true });
    const txn = await second.transaction();
    await txn.send({ topic, messages: [{ value: 'taken-over' }] });
    await txn.commit();
    const records = await read(
      topic,
      0,
      (r) => r.some((x) => x.value?.toString() === 'taken-over'),
      'read_committed',
    );
    expect(records.map((r) => r.value?.toString())).toEqual(['taken-over']);
  });
});

describe('kafkajs producer facade: disconnect with an open transaction', () => {
  let own: KafkaCluster | undefined;
  afterAll(async () => {
    await own?.stop();
  });

  /** Whether `p` settles before `deadlineMs` passes (its outcome is not asked). */
  async function settlesWithin(p: Promise<unknown>, deadlineMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const settled = await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
    clearTimeout(timer);
    return settled;
  }

  it('gives up aborting after the transaction timeout when the coordinator does not answer', async () => {
    // A private broker, frozen below: the coordinator answers nothing, as one still completing a
    // fencing producer's takeover answers only CONCURRENT_TRANSACTIONS. Without the bound the
    // abort's EndTxn waited a request timeout (30 s) per attempt, up to maxBlockMs (60 s).
    own = await startCluster({ nodes: 1 });
    const kafka = new Kafka({
      brokers: own.bootstrap.split(','),
      clientId: 'facade-disconnect-test',
      logLevel: logLevel.NOTHING,
    });
    const topic = unique('kjs-open-txn');
    const topicAdmin = kafka.admin();
    await topicAdmin.connect();
    await topicAdmin.createTopics({ topics: [{ topic }], waitForLeaders: true });
    await topicAdmin.disconnect();
    const producer = kafka.producer({ transactionalId: unique('txn'), transactionTimeout: 2000 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: 'left-open' }] });
    own.pauseNode(1);
    try {
      expect(await settlesWithin(producer.disconnect(), 20_000)).toBe(true);
    } finally {
      own.resumeNode(1);
    }
  });
});

describe('kafkajs producer facade: events and errors', () => {
  it('emits CONNECT and DISCONNECT, and refuses sends while disconnecting and after', async () => {
    const topic = await createTopic();
    const kafka = new Kafka({ brokers: bootstrap, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    const events: string[] = [];
    producer.on(producer.events.CONNECT, (e) => events.push(e.type));
    producer.on(producer.events.DISCONNECT, (e) => events.push(e.type));
    await producer.connect();
    expect(events).toEqual(['producer.connect']);
    await producer.send({ topic, messages: [{ value: 'v' }] });
    const disconnecting = producer.disconnect();
    await expect(producer.send({ topic, messages: [{ value: 'v' }] })).rejects.toThrow(
      /The producer is disconnecting/,
    );
    await disconnecting;
    expect(events).toEqual(['producer.connect', 'producer.disconnect']);
    const e = await producer.send({ topic, messages: [{ value: 'v' }] }).catch((x) => x);
    expect(e).toBeInstanceOf(KafkaJSError);
    expect(e.message).toMatch(/The producer is disconnected/);
  });

  it("emits REQUEST for this producer's own requests, with kafkajs's payload", async () => {
    const topic = await createTopic();
    const kafka = new Kafka({
      brokers: bootstrap,
      clientId: 'req-events',
      logLevel: logLevel.NOTHING,
    });
    const mine = kafka.producer();
    const other = kafka.producer();
    const seen: { apiName: string; broker: string; clientId: string; size: number }[] = [];
    mine.on(mine.events.REQUEST, (e) => seen.push(e.payload as never));
    await Promise.all([mine.connect(), other.connect()]);
    try {
      await other.send({ topic, messages: [{ value: 'other' }] });
      expect(seen.filter((p) => p.apiName === 'Produce')).toEqual([]);
      await mine.send({ topic, messages: [{ value: 'mine' }] });
      const produce = seen.filter((p) => p.apiName === 'Produce');
      expect(produce).toHaveLength(1);
      expect(produce[0]).toMatchObject({ clientId: 'req-events' });
      expect(bootstrap).toContain(produce[0]?.broker);
      expect(produce[0]?.size).toBeGreaterThan(0);
      expect(seen.some((p) => p.apiName === 'Metadata')).toBe(true);
    } finally {
      await Promise.all([mine.disconnect(), other.disconnect()]);
    }
  });

  it('rejects an invalid topic name with a KafkaJSProtocolError, then produces to a valid one', async () => {
    const topic = await createTopic();
    const producer = await connected();
    const e = await producer
      .send({ topic: `${topic}-abc)(*&^%`, messages: [{ value: 'v' }] })
      .catch((x) => x);
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e.type).toBe('INVALID_TOPIC_EXCEPTION');
    expect(e.retriable).toBe(false);
    await expect(producer.send({ topic, messages: [{ value: 'v' }] })).resolves.toHaveLength(1);
  });

  it('a topic that does not exist fails once the retries ran out', async () => {
    const producer = await connected({ retry: { retries: 2, initialRetryTime: 100 } });
    // retries 2 from 100 ms: about 300 ms of waiting (at least kats's 1 s floor; the unit tests
    // check that mapping), then the typed failure.
    const e = await producer
      .send({ topic: unique('kjs-missing'), messages: [{ value: 'v' }] })
      .catch((x) => x);
    expect(e).toBeInstanceOf(KafkaJSNumberOfRetriesExceeded);
    expect(e.retriable).toBe(false);
    expect(e.cause?.cause?.message ?? e.message).toMatch(
      /UNKNOWN_TOPIC_OR_PARTITION|does not host/i,
    );
  });
});
