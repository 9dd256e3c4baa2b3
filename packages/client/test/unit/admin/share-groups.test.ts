// The admin's share-group calls (KIP-932) against a scripted cluster: request shapes and
// versions, routing to the coordinator, the retries Kafka's share-group admin handlers make,
// per-item and whole-call errors, and the typed refusal before anything is sent when the
// brokers do not offer the API.
import {
  ApiKey,
  createDescribeShareGroupOffsetsResponse,
  createShareGroupDescribeResponse,
  createShareGroupDescribeResponseDescribedGroup,
  createShareGroupDescribeResponseMember,
  ErrorCode,
  ProtocolError,
} from '@kafkats/codec';
import { Cluster, ReadOnlyError } from '@kafkats/meta';
import { UnsupportedVersionError } from '@kafkats/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { Admin } from '../../../src/index.js';
import { adminOn, closeAdmins, FakeKafka } from './admin-fake-kafka.js';

afterEach(closeAdmins);

const SHARE_APIS = [
  ApiKey.ShareGroupDescribe,
  ApiKey.DescribeShareGroupOffsets,
  ApiKey.AlterShareGroupOffsets,
  ApiKey.DeleteShareGroupOffsets,
];

/** A fake with topic `t` (2 partitions) whose group coordinator is broker 2. */
function fakeWithTopic(): FakeKafka {
  const fake = new FakeKafka(3);
  fake.addTopic('t', 2, 'dDdDdDdDdDdDdDdDdDdDdA');
  return fake;
}

const describedGroup = (groupId: string, init: Record<string, unknown> = {}) =>
  createShareGroupDescribeResponse({
    groups: [
      createShareGroupDescribeResponseDescribedGroup({
        groupId,
        groupState: 'Stable',
        groupEpoch: 4,
        assignmentEpoch: 4,
        assignorName: 'simple',
        ...init,
      }),
    ],
  });

describe('share groups on brokers that do not offer them (Kafka 3.9, 4.0)', () => {
  it('throws UnsupportedVersionError naming the API before sending any group request', async () => {
    const fake = fakeWithTopic();
    for (const key of SHARE_APIS) fake.versions.set(key, undefined);
    const a = await adminOn(fake);
    const calls: [string, () => Promise<unknown>][] = [
      ['ShareGroupDescribe', () => a.listShareGroups()],
      ['ShareGroupDescribe', () => a.describeShareGroups(['g'])],
      ['DescribeShareGroupOffsets', () => a.describeShareGroupOffsets('g')],
      [
        'AlterShareGroupOffsets',
        () => a.alterShareGroupOffsets('g', [{ topic: 't', partition: 0, offset: 1n }]),
      ],
      ['DeleteShareGroupOffsets', () => a.deleteShareGroupOffsets('g', ['t'])],
      ['ShareGroupDescribe', () => a.deleteShareGroups(['g'])],
    ];
    for (const [api, call] of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsupportedVersionError);
      expect((error as UnsupportedVersionError).code).toBe('ERR_KAFKA_VERSION_UNSUPPORTED');
      expect((error as Error).message).toContain(`do not offer ${api}`);
      expect((error as Error).message).toContain('Kafka 4.1');
    }
    // Only the Metadata of the connect: no FindCoordinator, ListGroups or DeleteGroups.
    expect(fake.sent.filter((s) => s.apiKey !== ApiKey.Metadata)).toEqual([]);
  });

  it('refuses a change on a read-only cluster before sending it', async () => {
    const fake = fakeWithTopic();
    const cluster = await Cluster.connect(['127.0.0.1:19001'], {
      connectionFactory: fake.factory,
      refreshIntervalMs: 0,
      readOnly: true,
    });
    const a = new Admin(cluster);
    try {
      await expect(
        a.alterShareGroupOffsets('g', [{ topic: 't', partition: 0, offset: 1n }]),
      ).rejects.toBeInstanceOf(ReadOnlyError);
      await expect(a.deleteShareGroupOffsets('g', ['t'])).rejects.toBeInstanceOf(ReadOnlyError);
      await expect(a.deleteShareGroups(['g'])).rejects.toBeInstanceOf(ReadOnlyError);
      expect(fake.sentTo(ApiKey.AlterShareGroupOffsets)).toEqual([]);
      expect(fake.sentTo(ApiKey.DeleteShareGroupOffsets)).toEqual([]);
      expect(fake.sentTo(ApiKey.DeleteGroups)).toEqual([]);
    } finally {
      await cluster.close();
    }
  });
});

describe('listShareGroups', () => {
  it('asks every broker for groups of type share, in the given states, and merges them', async () => {
    const fake = fakeWithTopic();
    fake.on(ApiKey.ListGroups, (node) => ({
      throttleTimeMs: 0,
      errorCode: 0,
      groups: [
        {
          groupId: `g${4 - node}`,
          protocolType: 'share',
          groupState: 'Empty',
          groupType: 'share',
        },
      ],
    }));
    const result = await (await adminOn(fake)).listShareGroups({ states: ['Empty'] });

    const sent = fake.sentTo(ApiKey.ListGroups);
    expect(sent.map((s) => s.node).sort()).toEqual([1, 2, 3]);
    for (const s of sent) {
      expect(s.version).toBeGreaterThanOrEqual(5);
      expect(s.request.typesFilter).toEqual(['share']);
      expect(s.request.statesFilter).toEqual(['Empty']);
    }
    expect(result).toEqual({
      groups: [
        { groupId: 'g1', state: 'Empty' },
        { groupId: 'g2', state: 'Empty' },
        { groupId: 'g3', state: 'Empty' },
      ],
      errors: [],
    });
  });
});

describe('describeShareGroups', () => {
  it('describes members and assignments at the coordinator, naming topics the answer left unnamed', async () => {
    const fake = fakeWithTopic();
    fake.on(ApiKey.ShareGroupDescribe, (_node, req) =>
      describedGroup(req.groupIds[0], {
        members: [
          createShareGroupDescribeResponseMember({
            memberId: 'm-b',
            clientId: 'c',
            clientHost: '/10.0.0.2',
            memberEpoch: 4,
            subscribedTopicNames: ['t'],
            assignment: {
              // A coordinator that has not seen the topic's name answers it by id alone.
              topicPartitions: [
                { topicId: 'dDdDdDdDdDdDdDdDdDdDdA', topicName: '', partitions: [1, 0] },
              ],
            },
          }),
          createShareGroupDescribeResponseMember({
            memberId: 'm-a',
            rackId: 'r1',
            clientId: 'c',
            clientHost: '/10.0.0.1',
            memberEpoch: 3,
            subscribedTopicNames: ['t'],
          }),
        ],
        authorizedOperations: 0b1000,
      }),
    );
    const result = await (await adminOn(fake)).describeShareGroups(['sg'], {
      includeAuthorizedOperations: true,
    });

    const [sent] = fake.sentTo(ApiKey.ShareGroupDescribe);
    expect(sent).toMatchObject({
      node: 2,
      version: 1,
      request: { groupIds: ['sg'], includeAuthorizedOperations: true },
    });
    expect(fake.sentTo(ApiKey.FindCoordinator)[0]?.request.keyType).toBe(0); // GROUP
    expect(result.groups).toEqual([
      {
        groupId: 'sg',
        state: 'Stable',
        groupEpoch: 4,
        assignmentEpoch: 4,
        assignor: 'simple',
        coordinator: { nodeId: 2, host: '127.0.0.1', port: 19002 },
        authorizedOperations: 0b1000,
        members: [
          {
            memberId: 'm-a',
            clientId: 'c',
            clientHost: '/10.0.0.1',
            rackId: 'r1',
            memberEpoch: 3,
            subscribedTopicNames: ['t'],
            assignment: [],
          },
          {
            memberId: 'm-b',
            clientId: 'c',
            clientHost: '/10.0.0.2',
            rackId: null,
            memberEpoch: 4,
            subscribedTopicNames: ['t'],
            assignment: [
              { topic: 't', partition: 0 },
              { topic: 't', partition: 1 },
            ],
          },
        ],
      },
    ]);
  });

  it('gives each group its own error, and finds the coordinator again after NOT_COORDINATOR', async () => {
    const fake = fakeWithTopic();
    let first = true;
    fake.on(ApiKey.ShareGroupDescribe, (_node, req) => {
      const groupId: string = req.groupIds[0];
      if (groupId === 'moved' && first) {
        first = false;
        fake.coordinatorId = 3;
        return describedGroup(groupId, { errorCode: ErrorCode.NOT_COORDINATOR });
      }
      if (groupId === 'missing')
        return describedGroup(groupId, {
          errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
          errorMessage: 'Group missing is not a share group.',
        });
      return describedGroup(groupId, { groupState: 'Empty' });
    });
    const result = await (await adminOn(fake)).describeShareGroups(['moved', 'missing']);

    expect(result.groups[0]).toMatchObject({ groupId: 'moved', state: 'Empty' });
    expect(result.groups[0]?.error).toBeUndefined();
    const missing = result.groups[1];
    expect(missing).toMatchObject({ groupId: 'missing', state: '', members: [] });
    expect(missing?.error).toBeInstanceOf(ProtocolError);
    expect(missing?.error).toMatchObject({ errorName: 'GROUP_ID_NOT_FOUND' });
    expect(missing?.error?.message).toContain('is not a share group');
  });
});

describe('describeShareGroupOffsets', () => {
  it('asks for every partition (topics null) or the given ones; reads start offsets, epochs and v1 lag', async () => {
    const fake = fakeWithTopic();
    fake.on(ApiKey.DescribeShareGroupOffsets, (_node, req) =>
      createDescribeShareGroupOffsetsResponse({
        groups: [
          {
            groupId: req.groups[0].groupId,
            errorCode: 0,
            errorMessage: null,
            topics: [
              {
                topicName: 't',
                topicId: 'dDdDdDdDdDdDdDdDdDdDdA',
                partitions: [
                  {
                    partitionIndex: 1,
                    startOffset: -1n,
                    leaderEpoch: -1,
                    lag: -1n,
                    errorCode: 0,
                    errorMessage: null,
                  },
                  {
                    partitionIndex: 0,
                    startOffset: 7n,
                    leaderEpoch: 2,
                    lag: 3n,
                    errorCode: 0,
                    errorMessage: null,
                  },
                ],
              },
              {
                topicName: 'gone',
                topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
                partitions: [
                  {
                    partitionIndex: 0,
                    startOffset: -1n,
                    leaderEpoch: -1,
                    lag: -1n,
                    errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    errorMessage: null,
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const a = await adminOn(fake);
    const all = await a.describeShareGroupOffsets('sg');
    await a.describeShareGroupOffsets('sg', {
      partitions: [
        { topic: 't', partition: 1 },
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
    });

    const sent = fake.sentTo(ApiKey.DescribeShareGroupOffsets);
    expect(sent.map((s) => [s.node, s.version])).toEqual([
      [2, 1],
      [2, 1],
    ]);
    expect(sent[0]?.request.groups).toEqual([{ groupId: 'sg', topics: null }]);
    expect(sent[1]?.request.groups).toEqual([
      { groupId: 'sg', topics: [{ topicName: 't', partitions: [1, 0] }] },
    ]);
    expect(all.partitions[0]).toMatchObject({ topic: 'gone', partition: 0, startOffset: null });
    expect(all.partitions[0]?.error).toMatchObject({ errorName: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(all.partitions.slice(1)).toEqual([
      { topic: 't', partition: 0, startOffset: 7n, leaderEpoch: 2, lag: 3n },
      { topic: 't', partition: 1, startOffset: null },
    ]);
  });

  it('has no lag at v0, and throws the group’s own error', async () => {
    const fake = fakeWithTopic();
    fake.versions.set(ApiKey.DescribeShareGroupOffsets, 0);
    let code = 0;
    fake.on(ApiKey.DescribeShareGroupOffsets, (_node, req) =>
      createDescribeShareGroupOffsetsResponse({
        groups: [
          {
            groupId: req.groups[0].groupId,
            errorCode: code,
            errorMessage: null,
            topics: [
              {
                topicName: 't',
                topicId: 'dDdDdDdDdDdDdDdDdDdDdA',
                partitions: [
                  {
                    partitionIndex: 0,
                    startOffset: 4n,
                    leaderEpoch: 0,
                    lag: -1n,
                    errorCode: 0,
                    errorMessage: null,
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const a = await adminOn(fake);
    expect((await a.describeShareGroupOffsets('sg')).partitions).toEqual([
      { topic: 't', partition: 0, startOffset: 4n, leaderEpoch: 0 },
    ]);
    code = ErrorCode.GROUP_AUTHORIZATION_FAILED;
    const error = await a.describeShareGroupOffsets('sg').catch((e: unknown) => e);
    expect((error as ProtocolError).errorName).toBe('GROUP_AUTHORIZATION_FAILED');
    expect(fake.sentTo(ApiKey.DescribeShareGroupOffsets).map((s) => s.version)).toEqual([0, 0]);
  });
});

describe('alterShareGroupOffsets', () => {
  const alterAnswer = (topLevel: number, partitionCode = 0) => ({
    throttleTimeMs: 0,
    errorCode: topLevel,
    errorMessage: topLevel === 0 ? null : 'The group is not empty.',
    responses:
      topLevel === 0
        ? [
            {
              topicName: 't',
              topicId: 'dDdDdDdDdDdDdDdDdDdDdA',
              partitions: [
                { partitionIndex: 0, errorCode: 0, errorMessage: null },
                { partitionIndex: 1, errorCode: partitionCode, errorMessage: null },
              ],
            },
          ]
        : [],
  });

  it('sends start offsets grouped by topic and reads each partition’s answer; waits out a rebalance', async () => {
    const fake = fakeWithTopic();
    const answers = [ErrorCode.REBALANCE_IN_PROGRESS, 0];
    fake.on(ApiKey.AlterShareGroupOffsets, () =>
      alterAnswer(answers.shift() ?? 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
    );
    const result = await (await adminOn(fake)).alterShareGroupOffsets('sg', [
      { topic: 't', partition: 0, offset: 5n },
      { topic: 't', partition: 1, offset: 0n },
    ]);

    const sent = fake.sentTo(ApiKey.AlterShareGroupOffsets);
    expect(sent.map((s) => [s.node, s.version])).toEqual([
      [2, 0],
      [2, 0],
    ]);
    expect(sent[0]?.request).toEqual({
      groupId: 'sg',
      topics: [
        {
          topicName: 't',
          partitions: [
            { partitionIndex: 0, startOffset: 5n },
            { partitionIndex: 1, startOffset: 0n },
          ],
        },
      ],
    });
    expect(result.partitions[0]).toEqual({ topic: 't', partition: 0 });
    expect(result.partitions[1]?.error).toMatchObject({ errorName: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });

  it('makes a refusal of the whole request every partition’s error (NON_EMPTY_GROUP)', async () => {
    const fake = fakeWithTopic();
    fake.on(ApiKey.AlterShareGroupOffsets, () => alterAnswer(ErrorCode.NON_EMPTY_GROUP));
    const result = await (await adminOn(fake)).alterShareGroupOffsets('sg', [
      { topic: 't', partition: 0, offset: 5n },
      { topic: 't', partition: 1, offset: 0n },
    ]);
    expect(result.partitions.map((p) => [p.partition, p.error?.errorName])).toEqual([
      [0, 'NON_EMPTY_GROUP'],
      [1, 'NON_EMPTY_GROUP'],
    ]);
    expect(result.partitions[0]?.error?.message).toContain('The group is not empty.');
    expect(fake.sentTo(ApiKey.AlterShareGroupOffsets)).toHaveLength(1);
  });
});

describe('deleteShareGroupOffsets and deleteShareGroups', () => {
  it('deletes whole topics’ state; per-topic errors; the group’s refusal thrown', async () => {
    const fake = fakeWithTopic();
    let topLevel = 0;
    fake.on(ApiKey.DeleteShareGroupOffsets, () => ({
      throttleTimeMs: 0,
      errorCode: topLevel,
      errorMessage: null,
      responses:
        topLevel !== 0
          ? []
          : [
              {
                topicName: 't',
                topicId: 'dDdDdDdDdDdDdDdDdDdDdA',
                errorCode: 0,
                errorMessage: null,
              },
              {
                topicName: 'nope',
                topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
                errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                errorMessage: null,
              },
            ],
    }));
    const a = await adminOn(fake);
    const result = await a.deleteShareGroupOffsets('sg', ['t', 'nope', 't']);
    expect(fake.sentTo(ApiKey.DeleteShareGroupOffsets)[0]).toMatchObject({
      node: 2,
      version: 0,
      request: { groupId: 'sg', topics: [{ topicName: 't' }, { topicName: 'nope' }] },
    });
    expect(result.topics[0]).toEqual({ topic: 't' });
    expect(result.topics[1]?.error?.errorName).toBe('UNKNOWN_TOPIC_OR_PARTITION');

    topLevel = ErrorCode.GROUP_ID_NOT_FOUND;
    const error = await a.deleteShareGroupOffsets('sg', ['t']).catch((e: unknown) => e);
    expect((error as ProtocolError).errorName).toBe('GROUP_ID_NOT_FOUND');
  });

  it('deletes share groups with DeleteGroups at each coordinator', async () => {
    const fake = fakeWithTopic();
    fake.on(ApiKey.DeleteGroups, (_node, req) => ({
      throttleTimeMs: 0,
      results: req.groupsNames.map((groupId: string) => ({
        groupId,
        errorCode: groupId === 'busy' ? ErrorCode.NON_EMPTY_GROUP : 0,
        errorMessage: null,
      })),
    }));
    const result = await (await adminOn(fake)).deleteShareGroups(['sg', 'busy']);
    expect(fake.sentTo(ApiKey.DeleteGroups).map((s) => [s.node, s.request.groupsNames])).toEqual(
      expect.arrayContaining([
        [2, ['sg']],
        [2, ['busy']],
      ]),
    );
    expect(result.groups[0]).toEqual({ groupId: 'sg' });
    expect(result.groups[1]?.error).toMatchObject({ errorName: 'NON_EMPTY_GROUP' });
  });
});
