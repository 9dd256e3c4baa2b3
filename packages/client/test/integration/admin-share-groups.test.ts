// The admin's share-group calls (KIP-932) against a real 3-node cluster. The share group is
// read by Kafka's own console share consumer (org.apache.kafka.tools.consumer.ConsoleShareConsumer,
// a KafkaShareConsumer that acknowledges what it printed), or by a kafkats ShareConsumer where a
// member must stay in the group while it is looked at, and every answer is checked against
// Kafka's ShareGroupCommand (kafka-share-groups.sh) on the same group. The file is in the
// version matrix: on Kafka 3.9 and 4.0, which do not offer share groups, every test asserts
// the typed error instead, and that nothing was sent.
import { ApiKey } from '@kafkats/codec';
import { kafkaVersionAtLeast, runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, Cluster, ShareConsumer, UnsupportedVersionError } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';
import { spyFactory } from './support.js';

const shared = sharedCluster();
const SHARE_GROUPS = kafkaVersionAtLeast(shared.description.kafkaVersion, '4.1');
const SHARE_CONSUMER = 'org.apache.kafka.tools.consumer.ConsoleShareConsumer';
const SHARE_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const PER_PARTITION = 5;

let admin: Admin;
let topic: string;

beforeAll(async () => {
  admin = await Admin.connect(shared.bootstrap);
  topic = unique('adm-share');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
  await shared.admin.produce(
    topic,
    Array.from({ length: 2 * PER_PARTITION }, (_, i) => ({ partition: i % 2, value: `v${i}` })),
  );
});
afterAll(async () => {
  await admin?.close();
});

/** Runs ShareGroupCommand on the shared cluster. */
async function shareGroupCommand(args: readonly string[]) {
  return runKafkaTool(SHARE_GROUP_COMMAND, ['--bootstrap-server', shared.bootstrap, ...args]);
}

/** Whitespace-split rows of a ShareGroupCommand table whose first column is `group`. */
function rows(stdout: string, group: string): string[][] {
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c[0] === group);
}

/** Makes `group` read from the start (`share.auto.offset.reset`, a group config). */
async function setEarliest(group: string): Promise<void> {
  const set = await admin.incrementalAlterConfigs([
    {
      type: 'GROUP',
      name: group,
      ops: [{ name: 'share.auto.offset.reset', op: 'SET', value: 'earliest' }],
    },
  ]);
  expect(set.resources[0]?.error).toBeUndefined();
}

/**
 * A share group that reads `topic` from the start (`share.auto.offset.reset=earliest`, a group
 * config) with Kafka's console share consumer, which prints and acknowledges `messages`
 * records and exits after `idleMs` without more.
 */
async function consumeWithKafka(group: string, messages: number, idleMs = 15_000) {
  await setEarliest(group);
  return runKafkaTool(
    SHARE_CONSUMER,
    [
      '--bootstrap-server',
      shared.bootstrap,
      '--topic',
      topic,
      '--group',
      group,
      '--max-messages',
      String(messages),
      '--timeout-ms',
      String(idleMs),
    ],
    { timeoutMs: 120_000 },
  );
}

/**
 * A live member of `group` (a kafkats ShareConsumer reading `topic` from the start) that has
 * read every record; close it to leave the group at once.
 */
async function liveMember(group: string) {
  await setEarliest(group);
  const cluster = await Cluster.connect(shared.bootstrap);
  const consumer = new ShareConsumer(cluster, { groupId: group, topics: [topic] });
  await consumer.start();
  let read = 0;
  const deadline = Date.now() + 60_000;
  while (read < 2 * PER_PARTITION && Date.now() < deadline) read += (await consumer.poll()).length;
  expect(read).toBe(2 * PER_PARTITION);
  return {
    consumer,
    async close() {
      await consumer.close();
      await cluster.close();
    },
  };
}

/** Asserts that `call` rejects with the typed unsupported-version error naming `api`. */
async function expectUnsupported(call: () => Promise<unknown>, api: string): Promise<void> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnsupportedVersionError);
  expect((error as UnsupportedVersionError).code).toBe('ERR_KAFKA_VERSION_UNSUPPORTED');
  expect((error as Error).message).toContain(api);
  expect((error as Error).message).toContain('share.version');
}

describe('Admin share groups (real brokers; Kafka’s console share consumer and ShareGroupCommand as second client)', () => {
  it(`${SHARE_GROUPS ? 'offers' : 'refuses'} every share-group call on Kafka ${shared.description.kafkaVersion}; a refusal is typed and sends nothing`, async () => {
    const spy = spyFactory();
    const cluster = await Cluster.connect(shared.bootstrap, { connectionFactory: spy.factory });
    const own = new Admin(cluster);
    try {
      const group = unique('adm-share-none');
      const calls: [string, () => Promise<unknown>][] = [
        ['ShareGroupDescribe', () => own.listShareGroups()],
        ['ShareGroupDescribe', () => own.describeShareGroups([group])],
        ['DescribeShareGroupOffsets', () => own.describeShareGroupOffsets(group)],
        [
          'AlterShareGroupOffsets',
          () => own.alterShareGroupOffsets(group, [{ topic, partition: 0, offset: 0n }]),
        ],
        ['DeleteShareGroupOffsets', () => own.deleteShareGroupOffsets(group, [topic])],
        ['ShareGroupDescribe', () => own.deleteShareGroups([group])],
      ];
      const groupApis = new Set<number>([
        ApiKey.ListGroups,
        ApiKey.DeleteGroups,
        ApiKey.ShareGroupDescribe,
        ApiKey.DescribeShareGroupOffsets,
        ApiKey.AlterShareGroupOffsets,
        ApiKey.DeleteShareGroupOffsets,
        ApiKey.FindCoordinator,
      ]);
      if (!SHARE_GROUPS) {
        for (const [api, call] of calls) await expectUnsupported(call, api);
        expect(spy.sent.filter((s) => groupApis.has(s.apiKey))).toEqual([]);
        return;
      }
      expect(await cluster.negotiatedFor(ApiKey.ShareGroupDescribe)).toBe(1);
      expect(await admin.cluster.finalizedFeature('share.version')).toBeGreaterThanOrEqual(1);
      // A group nobody made: described as GROUP_ID_NOT_FOUND, offsets refused the same way.
      const [none] = (await own.describeShareGroups([group])).groups;
      expect(none?.error?.code).toBe('ERR_KAFKA_BROKER_GROUP_ID_NOT_FOUND');
      // Its offsets: none (the coordinator answers an unknown group with no topics).
      expect((await own.describeShareGroupOffsets(group)).partitions).toEqual([]);
    } finally {
      await cluster.close();
    }
  });

  it('lists and describes a live share group, as ShareGroupCommand does', async () => {
    const group = unique('adm-share');
    if (!SHARE_GROUPS)
      return expectUnsupported(() => admin.describeShareGroups([group]), 'ShareGroupDescribe');
    // A live member first, which has read every record.
    const running = await liveMember(group);
    const live = await eventually(
      () => admin.describeShareGroups([group]),
      (r) =>
        r.groups[0]?.state === 'Stable' &&
        r.groups[0].members.length === 1 &&
        r.groups[0].members[0]?.assignment.length === 2,
      60_000,
    );
    const g = live.groups[0]!;
    expect(g.error).toBeUndefined();
    expect(g.assignor).toBe('simple');
    expect(g.groupEpoch).toBeGreaterThan(0);
    expect(g.coordinator).toBeDefined();
    const member = g.members[0]!;
    expect(member.clientId).toBe('kafkats');
    expect(member.memberId).toBe(running.consumer.memberId);
    expect(member.subscribedTopicNames).toEqual([topic]);
    expect(member.assignment).toEqual([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    const members = await shareGroupCommand([
      '--describe',
      '--group',
      group,
      '--members',
      '--verbose',
    ]);
    expect(members.status, members.stderr).toBe(0);
    // GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS MEMBER-EPOCH ASSIGNMENT
    expect(rows(members.stdout, group)).toEqual([
      [
        group,
        member.memberId,
        member.clientHost,
        member.clientId,
        '2',
        String(member.memberEpoch),
        `${topic}:0,1`,
      ],
    ]);
    const state = await shareGroupCommand(['--describe', '--group', group, '--state', '--verbose']);
    // GROUP COORDINATOR (ID) STATE GROUP-EPOCH ASSIGNMENT-EPOCH #MEMBERS
    const [stateRow] = rows(state.stdout, group);
    expect(stateRow).toEqual([
      group,
      `${g.coordinator?.host}:${g.coordinator?.port}`,
      `(${g.coordinator?.nodeId})`,
      'Stable',
      String(g.groupEpoch),
      String(g.assignmentEpoch),
      '1',
    ]);

    await running.close();
    const listed = await eventually(
      () => admin.listShareGroups(),
      (r) => r.groups.some((x) => x.groupId === group && x.state === 'Empty'),
    );
    expect(listed.errors).toEqual([]);
    expect(listed.groups).toContainEqual({ groupId: group, state: 'Empty' });
    const javaList = await shareGroupCommand(['--list', '--state', 'Empty']);
    expect(rows(javaList.stdout, group)).toEqual([[group, 'Empty']]);
    const empty = await admin.listShareGroups({ states: ['Stable'] });
    expect(empty.groups.map((x) => x.groupId)).not.toContain(group);
  });

  it('reads, sets and deletes start offsets, matching ShareGroupCommand’s view; refuses while members are active', async () => {
    const group = unique('adm-share-off');
    if (!SHARE_GROUPS)
      return expectUnsupported(
        () => admin.describeShareGroupOffsets(group),
        'DescribeShareGroupOffsets',
      );
    const consumed = await consumeWithKafka(group, 2 * PER_PARTITION);
    expect(consumed.stdout.trim().split('\n')).toHaveLength(2 * PER_PARTITION);

    // Every record was acknowledged: nothing is left to deliver (lag 0, DescribeShareGroupOffsets
    // v1), whether or not the coordinator has moved the start offset past them yet.
    const offsets = await eventually(
      () => admin.describeShareGroupOffsets(group),
      (r) => r.partitions.length === 2 && r.partitions.every((p) => p.lag === 0n),
    );
    expect(offsets.partitions.map((p) => [p.topic, p.partition, p.lag])).toEqual([
      [topic, 0, 0n],
      [topic, 1, 0n],
    ]);
    for (const p of offsets.partitions) expect(p.startOffset).not.toBeNull();
    const javaOffsets = async () => {
      const out = await shareGroupCommand([
        '--describe',
        '--group',
        group,
        '--offsets',
        '--verbose',
      ]);
      expect(out.status, out.stderr).toBe(0);
      // GROUP TOPIC PARTITION LEADER-EPOCH START-OFFSET LAG
      return rows(out.stdout, group).map((c) => c.slice(1));
    };
    const ours = (r: Awaited<ReturnType<Admin['describeShareGroupOffsets']>>) =>
      r.partitions.map((p) => [
        p.topic,
        String(p.partition),
        p.leaderEpoch === undefined ? '-' : String(p.leaderEpoch),
        p.startOffset === null ? '-' : String(p.startOffset),
        p.lag === undefined ? '-' : String(p.lag),
      ]);
    expect(ours(offsets)).toEqual(await javaOffsets());
    const only = await admin.describeShareGroupOffsets(group, {
      partitions: [{ topic, partition: 1 }],
    });
    expect(only.partitions.map((p) => p.partition)).toEqual([1]);

    // The group is empty now: its start offsets can be set, and Kafka's tool sees them.
    const altered = await admin.alterShareGroupOffsets(group, [
      { topic, partition: 0, offset: 1n },
      { topic, partition: 1, offset: 3n },
    ]);
    expect(altered.partitions).toEqual([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    const after = await admin.describeShareGroupOffsets(group);
    expect(after.partitions.map((p) => p.startOffset)).toEqual([1n, 3n]);
    expect(ours(after)).toEqual(await javaOffsets());

    // Deleting the topic's state leaves the group with none.
    const deleted = await admin.deleteShareGroupOffsets(group, [topic]);
    expect(deleted.topics).toEqual([{ topic }]);
    expect((await admin.describeShareGroupOffsets(group)).partitions).toEqual([]);
    expect(await javaOffsets()).toEqual([]);

    // A live member: the coordinator refuses to alter the group's offsets.
    const running = await liveMember(group);
    const refused = await admin.alterShareGroupOffsets(group, [
      { topic, partition: 0, offset: 0n },
    ]);
    expect(refused.partitions[0]?.error?.errorName).toBe('NON_EMPTY_GROUP');
    await expect(admin.deleteShareGroupOffsets(group, [topic])).rejects.toMatchObject({
      errorName: 'NON_EMPTY_GROUP',
    });
    const refusedDelete = await admin.deleteShareGroups([group]);
    expect(refusedDelete.groups[0]?.error).toMatchObject({ errorName: 'NON_EMPTY_GROUP' });
    await running.close();
  });

  it('creates a group by setting its offsets, then deletes it; ShareGroupCommand agrees', async () => {
    const group = unique('adm-share-del');
    if (!SHARE_GROUPS)
      return expectUnsupported(() => admin.deleteShareGroups([group]), 'ShareGroupDescribe');
    const set = await admin.alterShareGroupOffsets(group, [{ topic, partition: 0, offset: 2n }]);
    expect(set.partitions).toEqual([{ topic, partition: 0 }]);
    const listed = await shareGroupCommand(['--list']);
    expect(listed.stdout.split('\n')).toContain(group);
    const javaOffsets = await shareGroupCommand(['--describe', '--group', group]);
    // GROUP TOPIC PARTITION START-OFFSET LAG
    expect(rows(javaOffsets.stdout, group).map((c) => c.slice(1, 4))).toEqual([[topic, '0', '2']]);

    const deleted = await admin.deleteShareGroups([group]);
    expect(deleted.groups).toEqual([{ groupId: group }]);
    const [gone] = (await admin.describeShareGroups([group])).groups;
    expect(gone?.error?.code).toBe('ERR_KAFKA_BROKER_GROUP_ID_NOT_FOUND');
    const relisted = await shareGroupCommand(['--list']);
    expect(relisted.stdout.split('\n')).not.toContain(group);
  });
});
