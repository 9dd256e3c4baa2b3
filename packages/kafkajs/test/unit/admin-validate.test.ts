// The admin's input checks, with the messages kafkajs 2.2.4's admin specs assert. The admin
// points at a port nothing listens on: a check that let the call through would reject with a
// connection error instead, and the message comparison would fail.
import { describe, expect, it } from 'vitest';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type Admin,
  ConfigResourceTypes,
  Kafka,
  KafkaJSNonRetriableError,
  logLevel,
  ResourcePatternTypes,
} from '../../src/index.js';

const admin = (): Admin =>
  new Kafka({
    brokers: ['127.0.0.1:1'],
    connectionTimeout: 50,
    logLevel: logLevel.NOTHING,
  }).admin();

// biome-ignore lint/suspicious/noExplicitAny: the checks exist for callers that ignore the types
type Call = (a: any) => Promise<unknown>;

async function refusal(call: Call): Promise<KafkaJSNonRetriableError> {
  const e = await call(admin()).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KafkaJSNonRetriableError);
  return e as KafkaJSNonRetriableError;
}

const aclEntry = {
  resourceType: AclResourceTypes.TOPIC,
  resourceName: 'foo',
  resourcePatternType: ResourcePatternTypes.LITERAL,
  principal: 'User:foo',
  host: '*',
  operation: AclOperationTypes.ALL,
  permissionType: AclPermissionTypes.DENY,
};

const cases: [string, Call, string][] = [
  ['createTopics null', (a) => a.createTopics({ topics: null }), 'Invalid topics array null'],
  [
    'createTopics not an array',
    (a) => a.createTopics({ topics: 'this-is-not-an-array' }),
    'Invalid topics array this-is-not-an-array',
  ],
  [
    'createTopics topic not a string',
    (a) => a.createTopics({ topics: [{ topic: 123 }] }),
    'Invalid topics array, the topic names have to be a valid string',
  ],
  [
    'createTopics duplicate',
    (a) => a.createTopics({ topics: [{ topic: 'topic-123' }, { topic: 'topic-123' }] }),
    'Invalid topics array, it cannot have multiple entries for the same topic',
  ],
  [
    'createTopics configEntries not an array',
    (a) => a.createTopics({ topics: [{ topic: 'topic-123', configEntries: 'x' }] }),
    'Invalid configEntries for topic "topic-123", must be an array',
  ],
  [
    'createTopics configEntries non-object',
    (a) => a.createTopics({ topics: [{ topic: 'topic-123', configEntries: ['x'] }] }),
    'Invalid configEntries for topic "topic-123". Entry 0 must be an object',
  ],
  [
    'createTopics configEntries without value',
    (a) => a.createTopics({ topics: [{ topic: 'topic-123', configEntries: [{ name: 'n' }] }] }),
    'Invalid configEntries for topic "topic-123". Entry 0 must have a valid "value" property',
  ],
  [
    'createTopics configEntries without name',
    (a) => a.createTopics({ topics: [{ topic: 'topic-123', configEntries: [{ value: 'v' }] }] }),
    'Invalid configEntries for topic "topic-123". Entry 0 must have a valid "name" property',
  ],
  [
    'createPartitions null',
    (a) => a.createPartitions({ topicPartitions: null }),
    'Invalid topic partitions array null',
  ],
  [
    'createPartitions empty',
    (a) => a.createPartitions({ topicPartitions: [] }),
    'Empty topic partitions array',
  ],
  [
    'createPartitions topic not a string',
    (a) => a.createPartitions({ topicPartitions: [{ topic: 1, count: 2 }] }),
    'Invalid topic partitions array, the topic names have to be a valid string',
  ],
  [
    'createPartitions duplicate',
    (a) =>
      a.createPartitions({
        topicPartitions: [
          { topic: 't', count: 2 },
          { topic: 't', count: 3 },
        ],
      }),
    'Invalid topic partitions array, it cannot have multiple entries for the same topic',
  ],
  ['deleteTopics null', (a) => a.deleteTopics({ topics: null }), 'Invalid topics array null'],
  [
    'deleteTopics non-string',
    (a) => a.deleteTopics({ topics: [1] }),
    'Invalid topics array, the names must be a valid string',
  ],
  ['fetchTopicOffsets null', (a) => a.fetchTopicOffsets(null), 'Invalid topic null'],
  [
    'fetchTopicOffsetsByTimestamp null',
    (a) => a.fetchTopicOffsetsByTimestamp(null),
    'Invalid topic null',
  ],
  [
    'fetchTopicMetadata [null]',
    (a) => a.fetchTopicMetadata({ topics: [null] }),
    'Invalid topic null',
  ],
  ['fetchTopicMetadata [0]', (a) => a.fetchTopicMetadata({ topics: [0] }), 'Invalid topic 0'],
  ['fetchOffsets groupId', (a) => a.fetchOffsets({ groupId: null }), 'Invalid groupId null'],
  [
    'fetchOffsets topics not an array',
    (a) => a.fetchOffsets({ groupId: 'g', topics: 'topic' }),
    'Expected topics array to be set',
  ],
  ['setOffsets groupId', (a) => a.setOffsets({ groupId: null }), 'Invalid groupId null'],
  [
    'setOffsets topic',
    (a) => a.setOffsets({ groupId: 'groupId', topic: null }),
    'Invalid topic null',
  ],
  [
    'setOffsets partitions null',
    (a) => a.setOffsets({ groupId: 'groupId', topic: 'topic', partitions: null }),
    'Invalid partitions',
  ],
  [
    'setOffsets partitions empty',
    (a) => a.setOffsets({ groupId: 'groupId', topic: 'topic', partitions: [] }),
    'Invalid partitions',
  ],
  [
    'setOffsets partition not a number',
    (a) =>
      a.setOffsets({ groupId: 'g', topic: 't', partitions: [{ partition: 'x', offset: '1' }] }),
    'Invalid partition, expected a number received x',
  ],
  [
    'setOffsets offset not a long',
    (a) =>
      a.setOffsets({ groupId: 'g', topic: 't', partitions: [{ partition: 0, offset: 'abc' }] }),
    'Invalid offset, expected a long received abc',
  ],
  [
    'setOffsets negative offset',
    (a) => a.setOffsets({ groupId: 'g', topic: 't', partitions: [{ partition: 0, offset: -5 }] }),
    'Offset must not be a negative number',
  ],
  [
    'deleteTopicRecords offset not a long',
    (a) => a.deleteTopicRecords({ topic: 't', partitions: [{ partition: 0, offset: '1.5' }] }),
    'Invalid offset, expected a long received 1.5',
  ],
  ['resetOffsets groupId', (a) => a.resetOffsets({ groupId: null }), 'Invalid groupId null'],
  [
    'resetOffsets topic',
    (a) => a.resetOffsets({ groupId: 'groupId', topic: null }),
    'Invalid topic null',
  ],
  [
    'deleteTopicRecords topic',
    (a) => a.deleteTopicRecords({ topic: null }),
    'Invalid topic "null"',
  ],
  [
    'deleteTopicRecords topic in an array',
    (a) => a.deleteTopicRecords({ topic: ['topic-in-an-array'] }),
    'Invalid topic "topic-in-an-array"',
  ],
  [
    'deleteTopicRecords partitions',
    (a) => a.deleteTopicRecords({ topic: 'topic', partitions: [] }),
    'Invalid partitions',
  ],
  [
    'describeConfigs null',
    (a) => a.describeConfigs({ resources: null }),
    'Invalid resources array null',
  ],
  [
    'describeConfigs empty',
    (a) => a.describeConfigs({ resources: [] }),
    'Resources array cannot be empty',
  ],
  [
    'describeConfigs bad type',
    (a) => a.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC }, { type: 1999 }] }),
    'Invalid resource type 1999: {"type":1999}',
  ],
  [
    'describeConfigs null name',
    (a) =>
      a.describeConfigs({
        resources: [
          { type: 2, name: 'abc' },
          { type: 2, name: null },
        ],
      }),
    'Invalid resource name null: {"type":2,"name":null}',
  ],
  [
    'describeConfigs numeric name',
    (a) =>
      a.describeConfigs({
        resources: [
          { type: 2, name: 'abc' },
          { type: 2, name: 123 },
        ],
      }),
    'Invalid resource name 123: {"type":2,"name":123}',
  ],
  [
    'describeConfigs configNames',
    (a) =>
      a.describeConfigs({
        resources: [
          { type: 2, name: 'abc', configNames: [] },
          { type: 2, name: 'def', configNames: 123 },
        ],
      }),
    'Invalid resource configNames 123: {"type":2,"name":"def","configNames":123}',
  ],
  ['alterConfigs null', (a) => a.alterConfigs({ resources: null }), 'Invalid resources array null'],
  [
    'alterConfigs configEntries',
    (a) =>
      a.alterConfigs({
        resources: [
          { type: 2, name: 'abc', configEntries: [] },
          { type: 2, name: 'def', configEntries: 123 },
        ],
      }),
    'Invalid resource configEntries 123: {"type":2,"name":"def","configEntries":123}',
  ],
  [
    'alterConfigs config value',
    (a) =>
      a.alterConfigs({
        resources: [
          { type: 2, name: 'abc', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
          { type: 2, name: 'def', configEntries: [{}] },
        ],
      }),
    'Invalid resource config value: {"type":2,"name":"def","configEntries":[{}]}',
  ],
  ['deleteGroups null', (a) => a.deleteGroups(null), 'Invalid groupIds array null'],
  ['createAcls null', (a) => a.createAcls({ acl: null }), 'Invalid ACL array null'],
  ['createAcls empty', (a) => a.createAcls({ acl: [] }), 'Empty ACL array'],
  [
    'createAcls principal',
    (a) => a.createAcls({ acl: [{ ...aclEntry, principal: 123 }] }),
    'Invalid ACL array, the principals have to be a valid string',
  ],
  [
    'createAcls host',
    (a) => a.createAcls({ acl: [{ ...aclEntry, host: 123 }] }),
    'Invalid ACL array, the hosts have to be a valid string',
  ],
  [
    'createAcls resource type',
    (a) => a.createAcls({ acl: [{ ...aclEntry, resourceType: 123 }] }),
    `Invalid resource type 123: ${JSON.stringify({ ...aclEntry, resourceType: 123 })}`,
  ],
  [
    'createAcls pattern type',
    (a) => a.createAcls({ acl: [{ ...aclEntry, resourcePatternType: 123 }] }),
    `Invalid resource pattern type 123: ${JSON.stringify({ ...aclEntry, resourcePatternType: 123 })}`,
  ],
  [
    'createAcls permission type',
    (a) => a.createAcls({ acl: [{ ...aclEntry, permissionType: 123 }] }),
    `Invalid permission type 123: ${JSON.stringify({ ...aclEntry, permissionType: 123 })}`,
  ],
  [
    'createAcls operation',
    (a) => a.createAcls({ acl: [{ ...aclEntry, operation: 123 }] }),
    `Invalid operation type 123: ${JSON.stringify({ ...aclEntry, operation: 123 })}`,
  ],
  [
    'describeAcls principal',
    (a) => a.describeAcls({ ...aclEntry, principal: 123 }),
    'Invalid principal, the principal have to be a valid string',
  ],
  [
    'describeAcls host',
    (a) => a.describeAcls({ ...aclEntry, host: 123 }),
    'Invalid host, the host have to be a valid string',
  ],
  [
    'describeAcls resource type',
    (a) => a.describeAcls({ ...aclEntry, resourceType: 123 }),
    'Invalid resource type 123',
  ],
  [
    'describeAcls pattern type',
    (a) => a.describeAcls({ ...aclEntry, resourcePatternType: 123 }),
    'Invalid resource pattern filter type 123',
  ],
  [
    'describeAcls permission type',
    (a) => a.describeAcls({ ...aclEntry, permissionType: 123 }),
    'Invalid permission type 123',
  ],
  [
    'describeAcls operation',
    (a) => a.describeAcls({ ...aclEntry, operation: 123 }),
    'Invalid operation type 123',
  ],
  ['deleteAcls null', (a) => a.deleteAcls({ filters: null }), 'Invalid ACL Filter array null'],
  ['deleteAcls empty', (a) => a.deleteAcls({ filters: [] }), 'Empty ACL Filter array'],
  [
    'deleteAcls host',
    (a) => a.deleteAcls({ filters: [{ ...aclEntry, host: 123 }] }),
    'Invalid ACL Filter array, the hosts have to be a valid string',
  ],
  [
    'deleteAcls operation',
    (a) => a.deleteAcls({ filters: [{ ...aclEntry, operation: 123 }] }),
    `Invalid operation type 123: ${JSON.stringify({ ...aclEntry, operation: 123 })}`,
  ],
  [
    'alterPartitionReassignments null',
    (a) => a.alterPartitionReassignments({ topics: null }),
    'Invalid topics array null',
  ],
  [
    'alterPartitionReassignments topic',
    (a) => a.alterPartitionReassignments({ topics: [{ topic: 123 }] }),
    'Invalid topics array, the topic names have to be a valid string',
  ],
  [
    'alterPartitionReassignments duplicate',
    (a) =>
      a.alterPartitionReassignments({
        topics: [
          { topic: 'topic-123', partitionAssignment: [] },
          { topic: 'topic-123', partitionAssignment: [] },
        ],
      }),
    'Invalid topics array, it cannot have multiple entries for the same topic',
  ],
  [
    'alterPartitionReassignments assignment',
    (a) =>
      a.alterPartitionReassignments({ topics: [{ topic: 'topic-123', partitionAssignment: 'x' }] }),
    'Invalid partitions array: x for topic: topic-123',
  ],
  [
    'alterPartitionReassignments index',
    (a) =>
      a.alterPartitionReassignments({
        topics: [{ topic: 'topic-123', partitionAssignment: [{ partition: -1 }] }],
      }),
    'Invalid partitions index: -1 for topic: topic-123',
  ],
  [
    'alterPartitionReassignments replicas null',
    (a) =>
      a.alterPartitionReassignments({
        topics: [{ topic: 'topic-123', partitionAssignment: [{ partition: 0, replicas: null }] }],
      }),
    'Invalid replica assignment: null for topic: topic-123 on partition: 0',
  ],
  [
    'alterPartitionReassignments replicas',
    (a) =>
      a.alterPartitionReassignments({
        topics: [
          { topic: 'topic-123', partitionAssignment: [{ partition: 0, replicas: [0, 'a'] }] },
        ],
      }),
    'Invalid replica assignment: 0,a for topic: topic-123 on partition: 0. Replicas must be a non negative number',
  ],
  [
    'listPartitionReassignments not an array',
    (a) => a.listPartitionReassignments({ topics: 'this-is-not-an-array' }),
    'Invalid topics array this-is-not-an-array',
  ],
  [
    'listPartitionReassignments partitions null',
    (a) => a.listPartitionReassignments({ topics: [{ topic: 'topic-123', partitions: null }] }),
    'Invalid partition array: null for topic: topic-123',
  ],
  [
    'listPartitionReassignments partitions',
    (a) => a.listPartitionReassignments({ topics: [{ topic: 'topic-123', partitions: [0, 'a'] }] }),
    'Invalid partition array: 0,a for topic: topic-123. The partition indices have to be a valid number greater than 0.',
  ],
];

describe('kafkajs admin input checks (no broker reached)', () => {
  it.each(cases)('%s', async (_, call, message) => {
    expect((await refusal(call)).message).toBe(message);
  });

  it('refuses an unknown event name with the event names it knows', () => {
    expect(() => admin().on('admin.nope' as 'admin.connect', () => {})).toThrow(
      KafkaJSNonRetriableError,
    );
  });

  it('deleteGroups([]) resolves [] without a broker', async () => {
    await expect(admin().deleteGroups([])).resolves.toEqual([]);
  });
});
