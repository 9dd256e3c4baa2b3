// kafkajs's consumer API on kafkats against the shared 3-node cluster. Messages are written by
// kafkajs 2.2.4's own producer, and a kafkajs consumer joins the same group as a facade
// consumer, so the shapes and the group protocol are checked against kafkajs itself.
import { randomUUID } from 'node:crypto';
import { sharedCluster } from '@kafkats/testkit';
import { Kafka as KafkaJS, logLevel as kafkajsLogLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Consumer,
  type ConsumerCrashPayload,
  type ConsumerGroupJoinPayload,
  type EachMessagePayload,
  Kafka,
  logLevel,
} from '../../src/index.js';

const shared = sharedCluster();
const brokers = shared.bootstrap.split(',');
const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

const reference = new KafkaJS({
  brokers,
  clientId: 'kafkajs-reference',
  logLevel: kafkajsLogLevel.NOTHING,
});
const kafka = new Kafka({ brokers, clientId: 'facade-consumer', logLevel: logLevel.NOTHING });
const referenceAdmin = reference.admin();
const producer = reference.producer();
const open: Consumer[] = [];

beforeAll(async () => {
  await referenceAdmin.connect();
  await producer.connect();
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.disconnect().catch(() => undefined)));
  await producer.disconnect();
  await referenceAdmin.disconnect();
});

async function topic(partitions = 1): Promise<string> {
  const name = unique('kjs-consumer');
  await referenceAdmin.createTopics({
    topics: [{ topic: name, numPartitions: partitions, replicationFactor: 3 }],
    waitForLeaders: true,
  });
  return name;
}

async function produce(name: string, count: number, partition = 0, from = 0): Promise<void> {
  await producer.send({
    topic: name,
    messages: Array.from({ length: count }, (_, i) => ({
      partition,
      key: `k${from + i}`,
      value: `v${from + i}`,
    })),
  });
}

function consumer(groupId: string, extra: object = {}): Consumer {
  const c = kafka.consumer({ groupId, sessionTimeout: 10_000, maxWaitTimeInMs: 200, ...extra });
  open.push(c);
  return c;
}

/** Polls `check` until it holds, or fails after `ms`. */
async function until(check: () => boolean, ms = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('eachMessage', () => {
  it('reads from the beginning with kafkajs message shapes and a GROUP_JOIN', async () => {
    const name = await topic();
    await producer.send({
      topic: name,
      messages: [
        { key: 'a', value: 'one', headers: { h: 'x', r: ['1', '2'] }, timestamp: '1700000000000' },
        { key: null, value: null },
      ],
    });
    const c = consumer(unique('g'));
    const joins: ConsumerGroupJoinPayload[] = [];
    c.on(c.events.GROUP_JOIN, (e) => joins.push(e.payload as ConsumerGroupJoinPayload));
    const seen: EachMessagePayload[] = [];
    await c.connect();
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({ eachMessage: async (p) => void seen.push(p) });
    await until(() => seen.length === 2, 30_000, 'two messages');
    const [first, second] = seen;
    expect(first!.topic).toBe(name);
    expect(first!.partition).toBe(0);
    expect(first!.message.offset).toBe('0');
    expect(first!.message.timestamp).toBe('1700000000000');
    expect(first!.message.key).toEqual(Buffer.from('a'));
    expect(first!.message.value).toEqual(Buffer.from('one'));
    expect(first!.message.headers).toEqual({
      h: Buffer.from('x'),
      r: [Buffer.from('1'), Buffer.from('2')],
    });
    expect(second!.message.offset).toBe('1');
    expect(second!.message.key).toBeNull();
    expect(second!.message.value).toBeNull();
    expect(joins).toHaveLength(1);
    expect(joins[0]).toMatchObject({
      isLeader: true,
      groupProtocol: 'RoundRobinAssigner',
      memberAssignment: { [name]: [0] },
    });
    expect(joins[0]!.leaderId).toBe(joins[0]!.memberId);
    await c.disconnect();
  });

  it('emits fetch, batch and commit events with kafkajs payloads', async () => {
    const name = await topic();
    await produce(name, 3);
    const group = unique('g');
    const c = consumer(group);
    const events: { type: string; payload: Record<string, unknown> }[] = [];
    for (const type of [
      c.events.FETCH_START,
      c.events.FETCH,
      c.events.START_BATCH_PROCESS,
      c.events.END_BATCH_PROCESS,
      c.events.COMMIT_OFFSETS,
      c.events.CONNECT,
      c.events.STOP,
      c.events.DISCONNECT,
      c.events.REQUEST,
    ])
      c.on(type, (e) =>
        events.push({ type: e.type, payload: e.payload as Record<string, unknown> }),
      );
    await c.connect();
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({ eachMessage: async () => undefined });
    await until(() => events.some((e) => e.type === c.events.COMMIT_OFFSETS));
    const of = (type: string) => events.filter((e) => e.type === type).map((e) => e.payload);
    expect(of(c.events.CONNECT)).toHaveLength(1);
    expect(of(c.events.FETCH_START)[0]).toEqual({ nodeId: expect.any(String) });
    expect(of(c.events.FETCH)[0]).toMatchObject({ numberOfBatches: 0, nodeId: expect.any(String) });
    expect(of(c.events.START_BATCH_PROCESS)[0]).toEqual({
      topic: name,
      partition: 0,
      highWatermark: '3',
      offsetLag: '0',
      offsetLagLow: '2',
      batchSize: 3,
      firstOffset: '0',
      lastOffset: '2',
    });
    expect(of(c.events.END_BATCH_PROCESS)[0]).toMatchObject({
      batchSize: 3,
      duration: expect.any(Number),
    });
    expect(of(c.events.COMMIT_OFFSETS)[0]).toMatchObject({
      groupId: group,
      memberId: expect.any(String),
      groupGenerationId: expect.any(Number),
      // kafkajs's payload carries resolved partitions as strings (keys of an object).
      topics: [{ topic: name, partitions: [{ partition: '0', offset: '3' }] }],
    });
    // This consumer's requests, JoinGroup and Fetch among them, as kafkajs's REQUEST.
    const requests = of(c.events.REQUEST);
    expect(requests.map((r) => r.apiName)).toEqual(expect.arrayContaining(['JoinGroup', 'Fetch']));
    expect(requests.find((r) => r.apiName === 'JoinGroup')).toMatchObject({
      apiKey: 11,
      apiVersion: expect.any(Number),
      broker: expect.any(String),
      clientId: 'facade-consumer',
      correlationId: expect.any(Number),
      duration: expect.any(Number),
    });
    await c.disconnect();
    const last = events.filter((e) => e.type !== c.events.REQUEST).slice(-2);
    expect(last.map((e) => e.type)).toEqual([c.events.STOP, c.events.DISCONNECT]);
  });

  it('emits HEARTBEAT while idle, with the group, member and generation', async () => {
    const name = await topic();
    const group = unique('g');
    const c = consumer(group, { heartbeatInterval: 200 });
    const beats: { payload: Record<string, unknown> }[] = [];
    c.on(c.events.HEARTBEAT, (e) => beats.push({ payload: e.payload as Record<string, unknown> }));
    await c.subscribe({ topic: name });
    await c.run({ eachMessage: async () => undefined });
    await until(() => beats.length >= 3, 10_000, 'three heartbeats');
    expect(beats[0]!.payload).toEqual({
      groupId: group,
      memberId: expect.any(String),
      groupGenerationId: expect.any(Number),
    });
    await c.disconnect();
    // kafkajs takes heartbeatInterval 0; the member still joins and reads.
    const eager = consumer(unique('g'), { heartbeatInterval: 0 });
    const joined: unknown[] = [];
    eager.on(eager.events.GROUP_JOIN, (e) => joined.push(e));
    await eager.subscribe({ topic: name });
    await eager.run({ eachMessage: async () => undefined });
    expect(joined).toHaveLength(1);
    await eager.disconnect();
  });

  it('commits offset + 1 of the last message, and a new member resumes there', async () => {
    const name = await topic();
    await produce(name, 5);
    const group = unique('g');
    const c = consumer(group);
    const seen: string[] = [];
    await c.subscribe({ topics: [name], fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => seen.length === 5);
    await c.disconnect();
    const offsets = await referenceAdmin.fetchOffsets({ groupId: group, topics: [name] });
    expect(offsets[0]!.partitions[0]!.offset).toBe('5');
    await produce(name, 2, 0, 5);
    const next = consumer(group);
    const again: string[] = [];
    await next.subscribe({ topic: name, fromBeginning: true });
    await next.run({ eachMessage: async ({ message }) => void again.push(message.offset) });
    await until(() => again.length === 2);
    expect(again).toEqual(['5', '6']);
    await next.disconnect();
  });

  it('commits every autoCommitThreshold messages within a batch, then at its end', async () => {
    const name = await topic();
    await produce(name, 5);
    const c = consumer(unique('g'));
    const commits: string[] = [];
    const seen: string[] = [];
    c.on(c.events.COMMIT_OFFSETS, (e) => {
      const topics = (e.payload as { topics: { partitions: { offset: string }[] }[] }).topics;
      for (const t of topics) for (const p of t.partitions) commits.push(p.offset);
    });
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      autoCommitThreshold: 2,
      eachMessage: async ({ message }) => void seen.push(message.offset),
    });
    await until(() => commits.includes('5'), 30_000, 'the commit of offset 5');
    expect(seen).toEqual(['0', '1', '2', '3', '4']);
    // Every second resolved message commits, as kafkajs's autoCommitOffsetsIfNecessary does.
    expect(commits).toEqual(['2', '4', '5']);
    await c.disconnect();
  });

  it('reads again from the failed message after a handler throws', async () => {
    const name = await topic();
    await produce(name, 5);
    const c = consumer(unique('g'), { retry: { initialRetryTime: 50, retries: 3 } });
    const seen: string[] = [];
    let failed = false;
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      eachMessage: async ({ message }) => {
        if (message.offset === '2' && !failed) {
          failed = true;
          throw new Error('once');
        }
        seen.push(message.offset);
      },
    });
    await until(() => seen.length === 5);
    expect(seen).toEqual(['0', '1', '2', '3', '4']);
    await c.disconnect();
  });

  it('crashes after its retries with CRASH { error, groupId, restart }', async () => {
    const name = await topic();
    await produce(name, 1);
    const group = unique('g');
    const c = consumer(group, {
      retry: { initialRetryTime: 20, retries: 1, restartOnFailure: async () => false },
    });
    const crashes: ConsumerCrashPayload[] = [];
    c.on(c.events.CRASH, (e) => crashes.push(e.payload as ConsumerCrashPayload));
    let calls = 0;
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      eachMessage: async () => {
        calls++;
        throw new Error('always');
      },
    });
    await until(() => crashes.length === 1);
    expect(calls).toBe(2);
    expect(crashes[0]!.groupId).toBe(group);
    expect(crashes[0]!.restart).toBe(false);
    expect(crashes[0]!.error.name).toBe('KafkaJSNumberOfRetriesExceeded');
    expect(crashes[0]!.error.message).toBe('always');
  });

  it('restarts after a crash when the error allows, and reads the failed message again', async () => {
    const name = await topic();
    await produce(name, 3);
    const c = consumer(unique('g'), { retry: { initialRetryTime: 50, retries: 0 } });
    const crashes: ConsumerCrashPayload[] = [];
    const joins: ConsumerGroupJoinPayload[] = [];
    c.on(c.events.CRASH, (e) => crashes.push(e.payload as ConsumerCrashPayload));
    c.on(c.events.GROUP_JOIN, (e) => joins.push(e.payload as ConsumerGroupJoinPayload));
    const seen: string[] = [];
    let failed = false;
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      eachMessage: async ({ message }) => {
        if (message.offset === '1' && !failed) {
          failed = true;
          throw new Error('first time');
        }
        seen.push(message.offset);
      },
    });
    await until(() => seen.length === 3, 60_000, 'the messages after the restart');
    expect(seen).toEqual(['0', '1', '2']);
    expect(crashes).toHaveLength(1);
    expect(crashes[0]!.restart).toBe(true);
    expect(crashes[0]!.error.name).toBe('KafkaJSNumberOfRetriesExceeded');
    expect(joins.length).toBeGreaterThanOrEqual(2);
    await c.disconnect();
  });

  it('keeps fromBeginning per topic, and subscribes by RegExp', async () => {
    const prefix = unique('kjs-re');
    const names = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
    await referenceAdmin.createTopics({
      topics: names.map((t) => ({ topic: t, numPartitions: 1, replicationFactor: 3 })),
      waitForLeaders: true,
    });
    for (const t of names) await produce(t, 2);
    const c = consumer(unique('g'));
    const joins: ConsumerGroupJoinPayload[] = [];
    c.on(c.events.GROUP_JOIN, (e) => joins.push(e.payload as ConsumerGroupJoinPayload));
    const seen: string[] = [];
    await c.subscribe({ topics: [new RegExp(`^${prefix}-[ab]$`)], fromBeginning: true });
    await c.subscribe({ topic: names[2]!, fromBeginning: false });
    await c.run({
      eachMessage: async ({ topic: t, message }) =>
        void seen.push(`${t.slice(-1)}${message.offset}`),
    });
    expect(Object.keys(joins[0]!.memberAssignment).sort()).toEqual(names);
    for (const t of names) await produce(t, 1, 0, 2);
    await until(() => seen.length === 7, 30_000, 'old a and b, new a, b and c');
    expect(seen.sort()).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'c2']);
    await c.disconnect();
  });

  it('pauses and resumes a partition', async () => {
    const name = await topic();
    await produce(name, 3);
    const c = consumer(unique('g'));
    const seen: string[] = [];
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      eachMessage: async ({ message, pause }) => {
        seen.push(message.offset);
        if (message.offset === '0') pause();
      },
    });
    await until(() => c.paused().length === 1);
    expect(c.paused()).toEqual([{ topic: name, partitions: [0] }]);
    // While paused nothing more arrives; a produce would be read at once otherwise.
    await produce(name, 1, 0, 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(seen).toEqual(['0']);
    c.resume([{ topic: name }]);
    await until(() => seen.length === 4);
    expect(seen).toEqual(['0', '1', '2', '3']);
    await c.disconnect();
  });

  it('seeks: before run it throws kafkajs error, after run it moves the partition', async () => {
    const name = await topic();
    await produce(name, 6);
    const c = consumer(unique('g'));
    expect(() => c.seek({ topic: name, partition: 0, offset: '4' })).toThrow(
      'Consumer group was not initialized, consumer#run must be called first',
    );
    const seen: string[] = [];
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => seen.length === 6);
    c.seek({ topic: name, partition: 0, offset: '4' });
    await until(() => seen.length === 8);
    expect(seen.slice(6)).toEqual(['4', '5']);
    await c.disconnect();
  });

  it('keeps per-partition order with partitionsConsumedConcurrently', async () => {
    const name = await topic(4);
    for (let p = 0; p < 4; p++) await produce(name, 20, p);
    const c = consumer(unique('g'));
    const byPartition = new Map<number, number[]>();
    let active = 0;
    let maxActive = 0;
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      partitionsConsumedConcurrently: 3,
      eachMessage: async ({ partition, message }) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 2));
        const list = byPartition.get(partition) ?? [];
        list.push(Number(message.offset));
        byPartition.set(partition, list);
        active--;
      },
    });
    await until(() => [...byPartition.values()].reduce((n, l) => n + l.length, 0) === 80);
    for (const list of byPartition.values())
      expect(list).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxActive).toBeGreaterThan(1);
    expect(maxActive).toBeLessThanOrEqual(3);
    await c.disconnect();
  });
});

describe('eachBatch', () => {
  it('resolveOffset and commitOffsetsIfNecessary mark progress; unresolved messages come again', async () => {
    const name = await topic();
    await produce(name, 4);
    const group = unique('g');
    const c = consumer(group);
    const batches: string[][] = [];
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, uncommittedOffsets }) => {
        batches.push(batch.messages.map((m) => m.offset));
        expect(batch.highWatermark).toBe('4');
        expect(batch.lastOffset()).toBe('3');
        if (batches.length === 1) {
          resolveOffset(batch.messages[1]!.offset);
          expect(uncommittedOffsets()).toEqual({
            topics: [{ topic: name, partitions: [{ partition: 0, offset: '2' }] }],
          });
          await commitOffsetsIfNecessary();
        } else for (const m of batch.messages) resolveOffset(m.offset);
      },
    });
    await until(() => batches.length >= 2);
    expect(batches[0]![0]).toBe('0');
    expect(batches[1]![0]).toBe('2');
    await c.disconnect();
    const offsets = await referenceAdmin.fetchOffsets({ groupId: group, topics: [name] });
    expect(offsets[0]!.partitions[0]!.offset).toBe('4');
  });

  it('commitOffsets commits exactly what is given, and a new member starts there', async () => {
    const name = await topic();
    await produce(name, 5);
    const group = unique('g');
    const c = consumer(group);
    let read = 0;
    await c.subscribe({ topic: name, fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        read += batch.messages.length;
      },
    });
    await until(() => read === 5);
    await c.commitOffsets([{ topic: name, partition: 0, offset: '3' }]);
    await c.disconnect();
    const next = consumer(group);
    const seen: string[] = [];
    await next.subscribe({ topic: name, fromBeginning: true });
    await next.run({ eachMessage: async ({ message }) => void seen.push(message.offset) });
    await until(() => seen.length === 2);
    expect(seen).toEqual(['3', '4']);
    await next.disconnect();
  });
});

describe('groups', () => {
  it('two facade members split the partitions, and stop leaves the group', async () => {
    const name = await topic(4);
    const group = unique('g');
    const a = consumer(group);
    const b = consumer(group);
    const owned = new Map<Consumer, ConsumerGroupJoinPayload>();
    for (const c of [a, b]) {
      c.on(c.events.GROUP_JOIN, (e) => owned.set(c, e.payload as ConsumerGroupJoinPayload));
      await c.subscribe({ topic: name });
      await c.run({ eachMessage: async () => undefined });
    }
    const partitionsOf = (c: Consumer) => owned.get(c)?.memberAssignment[name] ?? [];
    await until(() => partitionsOf(a).length === 2 && partitionsOf(b).length === 2);
    expect([...partitionsOf(a), ...partitionsOf(b)].sort()).toEqual([0, 1, 2, 3]);
    const described = await a.describeGroup();
    expect(described).toMatchObject({
      groupId: group,
      protocol: 'RoundRobinAssigner',
      state: 'Stable',
    });
    expect(described.members).toHaveLength(2);
    await b.stop();
    await until(() => partitionsOf(a).length === 4, 30_000, 'a to own all partitions');
    await a.disconnect();
    const after = await referenceAdmin.describeGroups([group]);
    expect(after.groups[0]!.state).toBe('Empty');
  });

  it('rebalances when partitions are added, after metadataMaxAge', async () => {
    const name = await topic(1);
    const group = unique('g');
    const options = { heartbeatInterval: 100, maxWaitTimeInMs: 100 };
    const a = consumer(group, { ...options, metadataMaxAge: 50 });
    const b = consumer(group, { ...options, metadataMaxAge: 3000 });
    const owned = new Map<Consumer, number>();
    const seen = new Set<number>();
    for (const c of [a, b]) {
      c.on(c.events.GROUP_JOIN, (e) =>
        owned.set(c, (e.payload as ConsumerGroupJoinPayload).memberAssignment[name]?.length ?? 0),
      );
      await c.subscribe({ topic: name, fromBeginning: true });
      await c.run({ eachMessage: async ({ partition }) => void seen.add(partition) });
    }
    await until(() => owned.size === 2, 30_000, 'both members to join');
    await referenceAdmin.createPartitions({ topicPartitions: [{ topic: name, count: 4 }] });
    await until(
      () => (owned.get(a) ?? 0) + (owned.get(b) ?? 0) === 4 && owned.get(a) === 2,
      30_000,
      'the four partitions split between the members',
    );
    for (let p = 0; p < 4; p++) await produce(name, 1, p);
    await until(() => seen.size === 4, 30_000, 'a message from each partition');
    await a.disconnect();
    await b.disconnect();
  });

  it.each(['kafkajs', 'facade'] as const)(
    'a kafkajs member and a facade member share one group (%s leads)',
    async (leader) => {
      const name = await topic(4);
      for (let p = 0; p < 4; p++) await produce(name, 5, p);
      const group = unique('g');
      const seen = new Set<string>();
      const facadeParts = new Set<number>();
      const nativeParts = new Set<number>();
      const joins: ConsumerGroupJoinPayload[] = [];
      const native = reference.consumer({
        groupId: group,
        sessionTimeout: 10_000,
        maxWaitTimeInMs: 200,
      });
      const startNative = async () => {
        await native.connect();
        await native.subscribe({ topic: name, fromBeginning: true });
        await native.run({
          eachMessage: async ({ partition, message }) => {
            nativeParts.add(partition);
            seen.add(`${partition}:${message.offset}`);
          },
        });
      };
      const c = consumer(group);
      c.on(c.events.GROUP_JOIN, (e) => joins.push(e.payload as ConsumerGroupJoinPayload));
      const startFacade = async () => {
        await c.subscribe({ topic: name, fromBeginning: true });
        await c.run({
          eachMessage: async ({ partition, message }) => {
            facadeParts.add(partition);
            seen.add(`${partition}:${message.offset}`);
          },
        });
      };
      if (leader === 'kafkajs') {
        await startNative();
        await startFacade();
      } else {
        await startFacade();
        await until(() => joins.length === 1);
        await startNative();
      }
      // Both in the group, each with two partitions, under kafkajs's protocol.
      await until(
        () => joins.at(-1)?.memberAssignment[name]?.length === 2,
        60_000,
        'the facade member to own two partitions',
      );
      const described = await c.describeGroup();
      expect(described.protocol).toBe('RoundRobinAssigner');
      expect(described.members).toHaveLength(2);
      expect(joins.at(-1)!.isLeader).toBe(leader === 'facade');
      await until(() => seen.size === 20, 60_000, 'all 20 messages');
      // Messages written now go to the owner of their partition, on either client.
      facadeParts.clear();
      nativeParts.clear();
      for (let p = 0; p < 4; p++) await produce(name, 1, p, 5);
      await until(() => facadeParts.size + nativeParts.size === 4, 60_000, 'new messages');
      expect([...facadeParts].sort()).toEqual(joins.at(-1)!.memberAssignment[name]);
      expect(nativeParts.size).toBe(2);
      await native.disconnect();
      await c.disconnect();
    },
  );
});
