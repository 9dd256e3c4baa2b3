// The admin's group calls against a real 3-node cluster. The testkit's JavaAdmin.consume reads
// in assign mode without a group, so the group here is made by Kafka's own console consumer
// (org.apache.kafka.tools.consumer.ConsoleConsumer, a KafkaConsumer subscribed with --group,
// committing on close), and checked with Kafka's ConsumerGroupCommand.
import { ProtocolError } from '@kafkats/codec';
import { kafkaVersionAtLeast, runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, Cluster, Consumer } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';

const shared = sharedCluster();
let admin: Admin;
let topic: string;

const CONSOLE_CONSUMER = 'org.apache.kafka.tools.consumer.ConsoleConsumer';
const GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand';

function consoleConsumer(group: string, extra: readonly string[]) {
  return runKafkaTool(
    CONSOLE_CONSUMER,
    [
      '--bootstrap-server',
      shared.bootstrap,
      '--topic',
      topic,
      '--group',
      group,
      '--from-beginning',
      ...extra,
    ],
    { timeoutMs: 120_000 },
  );
}

/** `partition -> CURRENT-OFFSET` from `ConsumerGroupCommand --describe`. */
async function javaCommitted(group: string): Promise<Map<number, bigint>> {
  const out = await runKafkaTool(GROUP_COMMAND, [
    '--bootstrap-server',
    shared.bootstrap,
    '--describe',
    '--group',
    group,
  ]);
  expect(out.status).toBe(0);
  const committed = new Map<number, bigint>();
  for (const line of out.stdout.split('\n')) {
    const cols = line.trim().split(/\s+/);
    // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    if (cols[0] === group && cols[1] === topic && /^\d+$/.test(cols[3] ?? ''))
      committed.set(Number(cols[2]), BigInt(cols[3]!));
  }
  return committed;
}

beforeAll(async () => {
  admin = await Admin.connect(shared.bootstrap);
  topic = unique('adm-groups');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
  await shared.admin.produce(
    topic,
    Array.from({ length: 10 }, (_, i) => ({ partition: i % 2, value: `v${i}` })),
  );
});
afterAll(async () => {
  await admin?.close();
});

describe('Admin groups (real brokers, Kafka’s console consumer and group command as second client)', () => {
  it('lists, describes and reads the offsets of a group the Java consumer committed in', async () => {
    const group = unique('adm-g');
    const consumed = await consoleConsumer(group, [
      '--max-messages',
      '10',
      '--timeout-ms',
      '60000',
    ]);
    expect(consumed.stdout.trim().split('\n')).toHaveLength(10);

    const listed = await admin.listGroups();
    expect(listed.errors).toEqual([]);
    expect(listed.groups.find((g) => g.groupId === group)).toEqual({
      groupId: group,
      protocolType: 'consumer',
      state: 'Empty',
      type: 'classic',
    });
    const empty = await admin.listGroups({ states: ['Stable'] });
    expect(empty.groups.some((g) => g.groupId === group)).toBe(false);

    const described = await admin.describeGroups([group]);
    expect(described.groups[0]).toMatchObject({
      groupId: group,
      state: 'Empty',
      protocolType: 'consumer',
      members: [],
    });

    const ours = await admin.listConsumerGroupOffsets(group);
    const java = await javaCommitted(group);
    expect(ours.groupId).toBe(group);
    expect(ours.partitions.map((p) => [p.topic, p.partition, p.offset, p.error])).toEqual([
      [topic, 0, java.get(0), undefined],
      [topic, 1, java.get(1), undefined],
    ]);
    expect(ours.partitions.reduce((sum, p) => sum + p.offset, 0n)).toBe(10n);

    const one = await admin.listConsumerGroupOffsets(group, {
      partitions: [
        { topic, partition: 1 },
        { topic: unique('adm-never'), partition: 0 },
      ],
    });
    expect(one.partitions.map((p) => p.offset)).toContain(java.get(1));
    expect(one.partitions.map((p) => p.offset)).toContain(-1n);
  });

  it('shows an active Java member and its decoded assignment while it is subscribed', async () => {
    const group = unique('adm-live');
    // No --max-messages: it stays subscribed until 20 s pass without a new record.
    const running = consoleConsumer(group, ['--timeout-ms', '20000']);
    const described = await eventually(
      () => admin.describeGroups([group]),
      (r) => r.groups[0]!.state === 'Stable' && r.groups[0]!.members.length === 1,
      60_000,
    );
    const g = described.groups[0]!;
    expect(g).toMatchObject({ state: 'Stable', protocolType: 'consumer' });
    expect(g.protocol).not.toBe('');
    const member = g.members[0]!;
    expect(member.clientId).toMatch(/^console-consumer/);
    expect(
      [...(member.assignedPartitions ?? [])].sort((a, b) => a.partition - b.partition),
    ).toEqual([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);

    const tool = await runKafkaTool(GROUP_COMMAND, [
      '--bootstrap-server',
      shared.bootstrap,
      '--describe',
      '--group',
      group,
      '--members',
    ]);
    expect(tool.stdout).toContain(member.memberId);
    await running;
  });

  it('describes a live group of kafkats consumers on the protocol it runs (KIP-848 from Kafka 4.0), as Kafka’s group command sees it', async () => {
    const kip848 = kafkaVersionAtLeast(shared.description.kafkaVersion, '4.0');
    const group = unique('adm-kafkats');
    const cluster = await Cluster.connect(shared.bootstrap);
    const consumers = [0, 1].map(
      () =>
        new Consumer(cluster, {
          groupId: group,
          topics: [topic],
          groupProtocol: kip848 ? 'consumer' : 'classic',
        }),
    );
    try {
      await Promise.all(consumers.map((c) => c.start()));
      const described = await eventually(
        () => admin.describeGroups([group]),
        (r) =>
          r.groups[0]!.state === 'Stable' &&
          r.groups[0]!.members.length === 2 &&
          r.groups[0]!.members.every((m) => (m.assignedPartitions ?? []).length === 1),
        60_000,
      );
      const g = described.groups[0]!;
      expect(g.error).toBeUndefined();
      expect(g).toMatchObject({
        type: kip848 ? 'consumer' : 'classic',
        protocolType: 'consumer',
      });
      // Each member's partitions are what that consumer says it owns.
      const ours = new Map(
        consumers.map((c) => [
          c.groupMetadata().memberId,
          c.assignment().map((p) => `${p.topic}-${p.partition}`),
        ]),
      );
      expect(
        new Map(
          g.members.map((m) => [
            m.memberId,
            (m.assignedPartitions ?? []).map((p) => `${p.topic}-${p.partition}`),
          ]),
        ),
      ).toEqual(ours);
      if (kip848) {
        for (const m of g.members) {
          expect(m.memberEpoch).toBe(g.groupEpoch);
          expect(m.subscribedTopicNames).toEqual([topic]);
          expect(m.targetAssignment).toEqual(m.assignedPartitions);
        }
      }
      const tool = await runKafkaTool(GROUP_COMMAND, [
        '--bootstrap-server',
        shared.bootstrap,
        '--describe',
        '--group',
        group,
        '--members',
      ]);
      expect(tool.status).toBe(0);
      for (const m of g.members) expect(tool.stdout).toContain(m.memberId);
    } finally {
      await Promise.all(consumers.map((c) => c.close()));
      await cluster.close();
    }
  });

  it('types the error of a group the cluster does not know', async () => {
    const result = await admin.describeGroups([unique('adm-nobody')]);
    const g = result.groups[0]!;
    if (kafkaVersionAtLeast(shared.description.kafkaVersion, '4.0')) {
      // Kafka 4 answers a group it never saw with GROUP_ID_NOT_FOUND (DescribeGroups v6, KIP-1043).
      expect(g.error).toBeInstanceOf(ProtocolError);
      expect((g.error as ProtocolError).errorName).toBe('GROUP_ID_NOT_FOUND');
    } else {
      // Kafka 3.9 has DescribeGroups v5 at most: a group it never saw is no error, only `Dead`.
      expect(g.error).toBeUndefined();
      expect(g.state).toBe('Dead');
    }
    expect(g.members).toEqual([]);
  });

  it('sets, deletes offsets and deletes groups as Kafka’s group command then sees; a live group refuses', async () => {
    const group = unique('adm-del');
    await consoleConsumer(group, ['--max-messages', '10', '--timeout-ms', '60000']);
    expect([...(await javaCommitted(group)).keys()].sort()).toEqual([0, 1]);

    const set = await admin.alterConsumerGroupOffsets(group, [
      { topic, partition: 0, offset: 3n },
      { topic, partition: 1, offset: 1n, metadata: 'reset by kafkats' },
    ]);
    expect(set.partitions).toEqual([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    expect(await javaCommitted(group)).toEqual(
      new Map([
        [0, 3n],
        [1, 1n],
      ]),
    );
    const read = await admin.listConsumerGroupOffsets(group);
    expect(read.partitions.map((p) => [p.partition, p.offset, p.metadata])).toEqual([
      [0, 3n, ''],
      [1, 1n, 'reset by kafkats'],
    ]);

    const deleted = await admin.deleteConsumerGroupOffsets(group, [{ topic, partition: 0 }]);
    expect(deleted).toEqual({ groupId: group, partitions: [{ topic, partition: 0 }] });
    expect([...(await javaCommitted(group)).keys()]).toEqual([1]);

    const nobody = unique('adm-nobody');
    const gone = await admin.deleteGroups([group, nobody]);
    expect(gone.groups[0]).toEqual({ groupId: group });
    expect(gone.groups[1]?.groupId).toBe(nobody);
    expect(gone.groups[1]?.error).toMatchObject({ errorName: 'GROUP_ID_NOT_FOUND' });
    const listed = await runKafkaTool(GROUP_COMMAND, [
      '--bootstrap-server',
      shared.bootstrap,
      '--list',
    ]);
    expect(listed.status).toBe(0);
    expect(listed.stdout.split('\n')).not.toContain(group);

    // A group with a live member: Kafka keeps it, and the offsets of a topic it subscribes to.
    const live = unique('adm-live-del');
    const cluster = await Cluster.connect(shared.bootstrap);
    const consumer = new Consumer(cluster, {
      groupId: live,
      topics: [topic],
      groupProtocol: kafkaVersionAtLeast(shared.description.kafkaVersion, '4.0')
        ? 'consumer'
        : 'classic',
    });
    try {
      await consumer.start();
      await eventually(
        () => admin.describeGroups([live]),
        (r) => r.groups[0]!.state === 'Stable',
        60_000,
      );
      const refused = await admin.deleteGroups([live]);
      expect(refused.groups[0]?.error).toMatchObject({ errorName: 'NON_EMPTY_GROUP' });
      const outside = await admin.alterConsumerGroupOffsets(live, [
        { topic, partition: 0, offset: 0n },
      ]);
      expect(outside.partitions[0]?.error?.errorName).toBe('UNKNOWN_MEMBER_ID');
      const inUse = await admin.deleteConsumerGroupOffsets(live, [{ topic, partition: 0 }]);
      expect(inUse.partitions[0]?.error?.errorName).toBe('GROUP_SUBSCRIBED_TO_TOPIC');
    } finally {
      await consumer.close();
      await cluster.close();
    }
  });

  it('removes a static member that left without leaving (KIP-345), as Kafka’s group command then sees', async () => {
    const group = unique('adm-static');
    const cluster = await Cluster.connect(shared.bootstrap);
    const consumer = new Consumer(cluster, {
      groupId: group,
      groupProtocol: 'classic',
      groupInstanceId: 'static-1',
      topics: [topic],
      enableAutoCommit: false,
    });
    try {
      await consumer.start();
    } finally {
      // A static member sends no LeaveGroup on close: the group keeps it until its session ends.
      await consumer.close();
      await cluster.close();
    }
    const [before] = (await admin.describeGroups([group])).groups;
    expect(before?.members.map((m) => m.groupInstanceId)).toEqual(['static-1']);

    const unknown = await admin.removeMembersFromConsumerGroup(group, {
      members: [{ groupInstanceId: 'no-such-member' }],
    });
    expect(unknown.members).toHaveLength(1);
    expect(unknown.members[0]?.error).toBeInstanceOf(ProtocolError);

    const removed = await admin.removeMembersFromConsumerGroup(group);
    expect(removed.members.map((m) => [m.groupInstanceId, m.error])).toEqual([
      ['static-1', undefined],
    ]);
    const tool = await runKafkaTool(GROUP_COMMAND, [
      '--bootstrap-server',
      shared.bootstrap,
      '--describe',
      '--group',
      group,
      '--members',
    ]);
    expect(tool.status, tool.stderr).toBe(0);
    expect(tool.stdout + tool.stderr).toContain('has no active members');
  });
});
