// Request building and per-item behaviour of the admin's single-destination calls, against a
// scripted cluster: what goes on the wire, where it goes, and which items are sent again.
import { ErrorCode, ProtocolError } from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { buildListOffsetsRequest } from '../../../src/admin/internal/offset-requests.js';
import { Admin, AdminClosedError } from '../../../src/index.js';
import { adminOn, closeAdmins, FakeKafka } from './admin-fake-kafka.js';

const CREATE_TOPICS = 19;
const DESCRIBE_CONFIGS = 32;
const CONSUMER_GROUP_DESCRIBE = 69;
const DESCRIBE_GROUPS = 15;
const FIND_COORDINATOR = 10;
const OFFSET_FETCH = 9;
const OFFSET_COMMIT = 8;
const DELETE_GROUPS = 42;
const OFFSET_DELETE = 47;
const DESCRIBE_CLIENT_QUOTAS = 48;
const ALTER_CLIENT_QUOTAS = 49;

afterEach(closeAdmins);
const start = adminOn;

describe('ListOffsets requests', () => {
  const keys = [
    { topic: 'a', partition: 0, spec: 'earliest' as const },
    { topic: 'a', partition: 1, spec: 'latest' as const },
    { topic: 'b', partition: 0, spec: 'maxTimestamp' as const },
    { topic: 'a', partition: 2, spec: { timestamp: 1_700_000_000_000n } },
  ];

  it('maps each spec to its ListOffsets timestamp, grouped by topic, as a consumer (replica -1)', () => {
    const request = buildListOffsetsRequest(keys, 9, true, 1234);
    expect(request.replicaId).toBe(-1);
    expect(request.isolationLevel).toBe(1);
    expect(request.timeoutMs).toBe(1234);
    expect(
      request.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.timestamp])]),
    ).toEqual([
      [
        'a',
        [
          [0, -2n],
          [1, -1n],
          [2, 1_700_000_000_000n],
        ],
      ],
      ['b', [[0, -3n]]],
    ]);
  });

  it('refuses maxTimestamp below ListOffsets v7 before anything is sent', () => {
    expect(() => buildListOffsetsRequest(keys, 6, false, 1)).toThrow(UnsupportedVersionError);
    expect(buildListOffsetsRequest(keys.slice(0, 2), 6, false, 1).topics).toHaveLength(1);
  });
});

describe('createTopics', () => {
  it('returns one success and one typed error, and sends only the NOT_CONTROLLER topic again', async () => {
    const fake = new FakeKafka(3);
    let round = 0;
    fake.on(CREATE_TOPICS, (_node, req) => {
      round++;
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t: { name: string }) => {
          const code =
            t.name === 'taken'
              ? ErrorCode.TOPIC_ALREADY_EXISTS
              : t.name === 'late' && round === 1
                ? ErrorCode.NOT_CONTROLLER
                : 0;
          return {
            name: t.name,
            topicId: code === 0 ? 'Q2mFSP1MRY6P2NqRZ7Sr3w' : 'AAAAAAAAAAAAAAAAAAAAAA',
            errorCode: code,
            errorMessage: code === 0 ? null : 'no',
            topicConfigErrorCode: 0,
            numPartitions: code === 0 ? 2 : -1,
            replicationFactor: code === 0 ? 3 : -1,
            configs:
              code === 0
                ? [
                    {
                      name: 'retention.ms',
                      value: '1000',
                      readOnly: false,
                      configSource: 1,
                      isSensitive: false,
                    },
                  ]
                : null,
          };
        }),
      };
    });
    const a = await start(fake);
    const result = await a.createTopics([
      { name: 'taken', numPartitions: 1 },
      {
        name: 'late',
        replicaAssignment: [
          [1, 2, 3],
          [2, 3, 1],
        ],
        configs: { 'retention.ms': '1000' },
      },
    ]);

    const sent = fake.sentTo(CREATE_TOPICS);
    expect(sent.map((s) => s.request.topics.map((t: { name: string }) => t.name))).toEqual([
      ['taken', 'late'],
      ['late'],
    ]);
    expect(sent.every((s) => s.node === fake.controllerId)).toBe(true);
    const late = sent[1]!.request.topics[0];
    expect([late.numPartitions, late.replicationFactor]).toEqual([-1, -1]);
    expect(late.assignments).toEqual([
      { partitionIndex: 0, brokerIds: [1, 2, 3] },
      { partitionIndex: 1, brokerIds: [2, 3, 1] },
    ]);
    expect(late.configs).toEqual([{ name: 'retention.ms', value: '1000' }]);

    const [taken, created] = result.topics;
    expect(taken!.error).toBeInstanceOf(ProtocolError);
    expect(taken!.error!.errorName).toBe('TOPIC_ALREADY_EXISTS');
    expect(taken!.topicId).toBeUndefined();
    expect(created).toEqual({
      name: 'late',
      topicId: 'Q2mFSP1MRY6P2NqRZ7Sr3w',
      numPartitions: 2,
      replicationFactor: 3,
      configs: [
        {
          name: 'retention.ms',
          value: '1000',
          readOnly: false,
          isSensitive: false,
          source: 'DYNAMIC_TOPIC_CONFIG',
        },
      ],
    });
  });
});

describe('describeConfigs', () => {
  it('asks broker 2 for its own configs and any broker for the rest, answering in request order', async () => {
    const fake = new FakeKafka(3);
    fake.on(DESCRIBE_CONFIGS, (node, req) => ({
      throttleTimeMs: 0,
      results: req.resources.map((r: { resourceType: number; resourceName: string }) => ({
        errorCode: r.resourceName === 'secret' ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : 0,
        errorMessage: null,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        configs: [
          {
            name: 'answered.by',
            value: String(node),
            readOnly: true,
            configSource: 5,
            isSensitive: false,
            synonyms: [],
            configType: 3,
            documentation: null,
          },
        ],
      })),
    }));
    const a = await start(fake);
    const result = await a.describeConfigs([
      { type: 'TOPIC', name: 't' },
      { type: 'BROKER', name: '2' },
      { type: 'TOPIC', name: 'secret' },
    ]);

    const sent = fake.sentTo(DESCRIBE_CONFIGS);
    expect(sent).toHaveLength(2);
    const toTwo = sent.find((s) => s.request.resources[0].resourceType === 4)!;
    expect(toTwo.node).toBe(2);
    expect(toTwo.request.resources).toHaveLength(1);
    expect(result.resources.map((r) => [r.type, r.name])).toEqual([
      ['TOPIC', 't'],
      ['BROKER', '2'],
      ['TOPIC', 'secret'],
    ]);
    expect(result.resources[1]!.configs[0]).toMatchObject({
      name: 'answered.by',
      value: '2',
      source: 'DEFAULT_CONFIG',
      isDefault: true,
      type: 'INT',
    });
    expect((result.resources[2]!.error as ProtocolError).errorName).toBe(
      'TOPIC_AUTHORIZATION_FAILED',
    );
    expect(result.resources[2]!.configs).toEqual([]);
  });
});

/**
 * ConsumerGroupDescribe's answer for a group that is not a KIP-848 consumer group, or (with
 * UNSUPPORTED_VERSION) from a Kafka 3.x broker with KIP-848 off.
 */
function notAConsumerGroup(fake: FakeKafka, errorCode: number = ErrorCode.GROUP_ID_NOT_FOUND) {
  fake.on(CONSUMER_GROUP_DESCRIBE, (_node, req) => ({
    throttleTimeMs: 0,
    groups: [
      {
        errorCode,
        errorMessage: `Group ${req.groupIds[0]} is not a consumer group.`,
        groupId: req.groupIds[0],
        groupState: '',
        groupEpoch: -1,
        assignmentEpoch: -1,
        assignorName: '',
        members: [],
        authorizedOperations: -2147483648,
      },
    ],
  }));
}

const classicExpected = {
  groupId: 'g',
  type: 'classic',
  state: 'Empty',
  protocolType: 'consumer',
  protocol: '',
  members: [],
};

const emptyClassicGroup = (groupId: string) => ({
  throttleTimeMs: 0,
  groups: [
    {
      errorCode: 0,
      errorMessage: null,
      groupId,
      groupState: 'Empty',
      protocolType: 'consumer',
      protocolData: '',
      members: [],
      authorizedOperations: -2147483648,
    },
  ],
});

describe('group calls', () => {
  it('describes a KIP-848 group by ConsumerGroupDescribe: member epochs, subscriptions, assignment and target', async () => {
    const fake = new FakeKafka(3);
    const topicPartitions = (partitions: number[]) => ({
      topicPartitions: [{ topicId: 'T1T1T1T1T1T1T1T1T1T1Tw', topicName: 'orders', partitions }],
    });
    fake.on(CONSUMER_GROUP_DESCRIBE, (_node, req) => ({
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 0,
          errorMessage: null,
          groupId: req.groupIds[0],
          groupState: 'Reconciling',
          groupEpoch: 7,
          assignmentEpoch: 7,
          assignorName: 'uniform',
          members: [
            {
              memberId: 'm-1',
              instanceId: 'i-1',
              rackId: 'r1',
              memberEpoch: 6,
              clientId: 'c',
              clientHost: '/127.0.0.1',
              subscribedTopicNames: ['orders'],
              subscribedTopicRegex: '',
              assignment: topicPartitions([0, 1]),
              targetAssignment: topicPartitions([0]),
              memberType: 1,
            },
          ],
          authorizedOperations: -2147483648,
        },
      ],
    }));
    const result = await (await start(fake)).describeGroups(['g']);

    expect(fake.sentTo(DESCRIBE_GROUPS)).toEqual([]);
    expect(result.groups).toEqual([
      {
        groupId: 'g',
        type: 'consumer',
        state: 'Reconciling',
        protocolType: 'consumer',
        protocol: 'uniform',
        groupEpoch: 7,
        assignmentEpoch: 7,
        members: [
          {
            memberId: 'm-1',
            groupInstanceId: 'i-1',
            clientId: 'c',
            clientHost: '/127.0.0.1',
            metadata: Buffer.alloc(0),
            assignment: Buffer.alloc(0),
            assignedPartitions: [
              { topic: 'orders', partition: 0 },
              { topic: 'orders', partition: 1 },
            ],
            memberEpoch: 6,
            rackId: 'r1',
            subscribedTopicNames: ['orders'],
            subscribedTopicRegex: null,
            targetAssignment: [{ topic: 'orders', partition: 0 }],
            memberType: 'consumer',
          },
        ],
      },
    ]);
  });

  it.each([
    ['GROUP_ID_NOT_FOUND (not a consumer group)', ErrorCode.GROUP_ID_NOT_FOUND],
    ['UNSUPPORTED_VERSION (Kafka 3.x, KIP-848 off)', ErrorCode.UNSUPPORTED_VERSION],
  ])(
    'describes a group by DescribeGroups when ConsumerGroupDescribe answers %s',
    async (_, code) => {
      const fake = new FakeKafka(1);
      fake.coordinatorId = 1;
      notAConsumerGroup(fake, code);
      fake.on(DESCRIBE_GROUPS, (_node, req) => emptyClassicGroup(req.groups[0]));
      expect((await (await start(fake)).describeGroups(['g'])).groups).toEqual([classicExpected]);
      expect(fake.sentTo(CONSUMER_GROUP_DESCRIBE)).toHaveLength(1);
    },
  );

  it('describes a group by DescribeGroups alone when the coordinator does not offer ConsumerGroupDescribe', async () => {
    const older = new FakeKafka(1);
    older.coordinatorId = 1;
    older.versions.set(CONSUMER_GROUP_DESCRIBE, undefined);
    older.on(DESCRIBE_GROUPS, (_node, req) => emptyClassicGroup(req.groups[0]));
    expect((await (await start(older)).describeGroups(['g'])).groups).toEqual([classicExpected]);
    expect(older.sentTo(CONSUMER_GROUP_DESCRIBE)).toEqual([]);
  });

  it('asks again while the coordinator loads, and finds it again after NOT_COORDINATOR', async () => {
    const fake = new FakeKafka(3);
    notAConsumerGroup(fake);
    const answers = [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR, 0];
    fake.on(DESCRIBE_GROUPS, (_node, req) => {
      const code = answers.shift() ?? 0;
      if (code === ErrorCode.NOT_COORDINATOR) fake.coordinatorId = 3;
      return {
        throttleTimeMs: 0,
        groups: [
          {
            errorCode: code,
            errorMessage: null,
            groupId: req.groups[0],
            groupState: code === 0 ? 'Empty' : '',
            protocolType: 'consumer',
            protocolData: '',
            members: [],
            authorizedOperations: -2147483648,
          },
        ],
      };
    });
    const result = await (await start(fake)).describeGroups(['g']);

    expect(fake.sentTo(DESCRIBE_GROUPS).map((s) => s.node)).toEqual([2, 2, 3]);
    expect(fake.sentTo(FIND_COORDINATOR)).toHaveLength(2);
    expect(result.groups).toEqual([
      {
        groupId: 'g',
        type: 'classic',
        state: 'Empty',
        protocolType: 'consumer',
        protocol: '',
        members: [],
      },
    ]);
  });

  it('caps OffsetFetch at v9 (topics by name) and throws the group’s own error', async () => {
    const fake = new FakeKafka(1);
    fake.coordinatorId = 1;
    fake.on(OFFSET_FETCH, (_node, req) => ({
      throttleTimeMs: 0,
      topics: [],
      errorCode: 0,
      groups: [
        {
          groupId: req.groups[0].groupId,
          errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
          topics: [],
        },
      ],
    }));
    const a = await start(fake);
    const error = await a.listConsumerGroupOffsets('g').catch((e: unknown) => e);

    expect(fake.sentTo(OFFSET_FETCH).map((s) => s.version)).toEqual([9]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).errorName).toBe('GROUP_AUTHORIZATION_FAILED');
  });
});

describe('group deletion and offsets set from outside the group', () => {
  it('sets offsets at OffsetCommit v9 as no member (generation -1) and reads each partition’s answer', async () => {
    const fake = new FakeKafka(1);
    fake.coordinatorId = 1;
    fake.on(OFFSET_COMMIT, (_node, req) => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t: { name: string; partitions: { partitionIndex: number }[] }) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.partitionIndex === 1 ? ErrorCode.UNKNOWN_MEMBER_ID : 0,
        })),
      })),
    }));
    const a = await start(fake);
    const result = await a.alterConsumerGroupOffsets('g', [
      { topic: 't', partition: 0, offset: 5n },
      { topic: 't', partition: 1, offset: 7n, leaderEpoch: 3, metadata: 'm' },
    ]);
    const [sent] = fake.sentTo(OFFSET_COMMIT);
    expect(sent?.version).toBe(9);
    expect(sent?.request).toMatchObject({
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [
            {
              partitionIndex: 0,
              committedOffset: 5n,
              committedLeaderEpoch: -1,
              committedMetadata: '',
            },
            {
              partitionIndex: 1,
              committedOffset: 7n,
              committedLeaderEpoch: 3,
              committedMetadata: 'm',
            },
          ],
        },
      ],
    });
    expect(result.partitions[0]).toEqual({ topic: 't', partition: 0 });
    expect(result.partitions[1]?.error?.errorName).toBe('UNKNOWN_MEMBER_ID');
  });

  it('deletes groups one request each, a refusal per group; deletes offsets per partition', async () => {
    const fake = new FakeKafka(1);
    fake.coordinatorId = 1;
    fake.on(DELETE_GROUPS, (_node, req) => ({
      throttleTimeMs: 0,
      results: req.groupsNames.map((groupId: string) => ({
        groupId,
        errorCode: groupId === 'busy' ? ErrorCode.NON_EMPTY_GROUP : 0,
        errorMessage: null,
      })),
    }));
    fake.on(OFFSET_DELETE, () => ({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, errorCode: 0 },
            { partitionIndex: 1, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC },
          ],
        },
      ],
    }));
    const a = await start(fake);
    const deleted = await a.deleteGroups(['idle', 'busy']);
    expect(deleted.groups[0]).toEqual({ groupId: 'idle' });
    expect(deleted.groups[1]?.error).toMatchObject({ errorName: 'NON_EMPTY_GROUP' });
    expect(fake.sentTo(DELETE_GROUPS).map((s) => s.request.groupsNames)).toEqual(
      expect.arrayContaining([['idle'], ['busy']]),
    );
    const offsets = await a.deleteConsumerGroupOffsets('g', [
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
      { topic: 't', partition: 1 },
    ]);
    // Asked once per partition, answered for each entry asked for.
    expect(fake.sentTo(OFFSET_DELETE)[0]?.request.topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] },
    ]);
    expect(offsets.partitions.map((p) => p.error?.errorName)).toEqual([
      undefined,
      'GROUP_SUBSCRIBED_TO_TOPIC',
      'GROUP_SUBSCRIBED_TO_TOPIC',
    ]);
  });

  it('throws OffsetDelete’s group-level refusal', async () => {
    const fake = new FakeKafka(1);
    fake.coordinatorId = 1;
    fake.on(OFFSET_DELETE, () => ({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      throttleTimeMs: 0,
      topics: [],
    }));
    const a = await start(fake);
    await expect(
      a.deleteConsumerGroupOffsets('nobody', [{ topic: 't', partition: 0 }]),
    ).rejects.toMatchObject({ errorName: 'GROUP_ID_NOT_FOUND' });
  });
});

describe('client quotas', () => {
  it('builds DescribeClientQuotas filters: a name, the default entity, any named entity', async () => {
    const fake = new FakeKafka(1);
    fake.on(DESCRIBE_CLIENT_QUOTAS, () => ({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      entries: [
        {
          entity: [
            { entityType: 'user', entityName: 'alice' },
            { entityType: 'client-id', entityName: null },
          ],
          values: [{ key: 'producer_byte_rate', value: 1024 }],
        },
      ],
    }));
    const a = await start(fake);
    const found = await a.describeClientQuotas({
      components: [
        { entityType: 'user', name: 'alice' },
        { entityType: 'client-id', name: null },
        { entityType: 'ip' },
      ],
      strict: true,
    });
    expect(fake.sentTo(DESCRIBE_CLIENT_QUOTAS)[0]?.request).toEqual({
      components: [
        { entityType: 'user', matchType: 0, match: 'alice' },
        { entityType: 'client-id', matchType: 1, match: null },
        { entityType: 'ip', matchType: 2, match: null },
      ],
      strict: true,
    });
    expect(found.entries).toEqual([
      { entity: { user: 'alice', 'client-id': null }, quotas: { producer_byte_rate: 1024 } },
    ]);
  });

  it('matches AlterClientQuotas answers to entities whatever their part order; null removes', async () => {
    const fake = new FakeKafka(1);
    fake.on(ALTER_CLIENT_QUOTAS, () => ({
      throttleTimeMs: 0,
      entries: [
        {
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: 'bad key',
          entity: [{ entityType: 'client-id', entityName: 'b' }],
        },
        {
          errorCode: 0,
          errorMessage: null,
          entity: [
            { entityType: 'client-id', entityName: null },
            { entityType: 'user', entityName: 'a' },
          ],
        },
      ],
    }));
    const a = await start(fake);
    const result = await a.alterClientQuotas([
      {
        entity: { user: 'a', 'client-id': null },
        ops: [{ key: 'producer_byte_rate', value: null }],
      },
      { entity: { 'client-id': 'b' }, ops: [{ key: 'nope', value: 1 }] },
    ]);
    expect(fake.sentTo(ALTER_CLIENT_QUOTAS)[0]?.request.entries[0].ops).toEqual([
      { key: 'producer_byte_rate', value: 0, remove: true },
    ]);
    expect(result.results[0]).toEqual({ entity: { user: 'a', 'client-id': null } });
    expect(result.results[1]?.error).toMatchObject({ errorName: 'INVALID_REQUEST' });
  });
});

describe('Admin lifecycle', () => {
  it('leaves a borrowed cluster open on close, and refuses calls afterwards', async () => {
    const fake = new FakeKafka(1);
    const a = await start(fake);
    await a.close();

    await expect(a.listTopics()).rejects.toBeInstanceOf(AdminClosedError);
    await expect(a.cluster.refresh()).resolves.toBeDefined();
  });

  it('closes the cluster it made itself', async () => {
    const fake = new FakeKafka(1);
    const a = await Admin.connect('127.0.0.1:19001', {
      connectionFactory: fake.factory,
      refreshIntervalMs: 0,
    });
    await a.close();

    expect(a.closed).toBe(true);
    await expect(a.cluster.refresh()).rejects.toThrow();
  });
});
