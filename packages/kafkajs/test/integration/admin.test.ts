// kafkajs's admin API on kafkats against the shared 3-node cluster. Each claim is cross-checked
// with kafkajs 2.2.4's own admin, producer or consumer talking to the same brokers, so a shape
// or a value the facade gets wrong shows as a difference from what kafkajs itself sees.
import { randomUUID } from 'node:crypto';
import { ProtocolError } from '@kafkats/client';
import { type KafkaCluster, sharedCluster, startCluster } from '@kafkats/testkit';
import {
  Kafka as KafkaJS,
  type Admin as KafkaJSAdminClient,
  logLevel as kafkajsLogLevel,
} from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AclEntry,
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type Admin,
  ConfigResourceTypes,
  ConfigSource,
  Kafka,
  KafkaJSAggregateError,
  KafkaJSAlterPartitionReassignmentsError,
  KafkaJSBrokerNotFound,
  KafkaJSCreateTopicError,
  KafkaJSDeleteGroupsError,
  KafkaJSDeleteTopicRecordsError,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSProtocolError,
  logLevel,
  ResourcePatternTypes,
} from '../../src/index.js';

const shared = sharedCluster();
const brokers = shared.bootstrap.split(',');
const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

let admin: Admin;
let reference: KafkaJSAdminClient;
const kafkajs = new KafkaJS({
  brokers,
  clientId: 'kafkajs-reference',
  logLevel: kafkajsLogLevel.NOTHING,
});

beforeAll(async () => {
  admin = new Kafka({ brokers, clientId: 'facade-admin', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  reference = kafkajs.admin();
  await reference.connect();
});
afterAll(async () => {
  await admin?.disconnect();
  await reference?.disconnect();
});

/** Polls `read` until `done` holds or 30 s pass; returns the last value for the assertion. */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

async function topicWith(partitions: number, prefix = 'kjs-adm'): Promise<string> {
  const topic = unique(prefix);
  await expect(
    admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }] }),
  ).resolves.toBe(true);
  return topic;
}

async function produce(topic: string, count: number, partition = 0, timestamp?: number) {
  const producer = kafkajs.producer();
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: Array.from({ length: count }, (_, i) => ({
        partition,
        value: `v${i}`,
        ...(timestamp === undefined ? {} : { timestamp: String(timestamp + i) }),
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

describe('kafkajs admin on kafkats (real brokers, kafkajs 2.2.4 as second client)', () => {
  it('emits connect and disconnect, refuses an unknown event name, and connects lazily', async () => {
    const other = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    const seen: string[] = [];
    other.on(other.events.CONNECT, (e) => seen.push(e.type));
    other.on(other.events.DISCONNECT, (e) => seen.push(e.type));
    expect(() => other.on('admin.nope' as 'admin.connect', () => {})).toThrow(
      KafkaJSNonRetriableError,
    );
    // A call before connect() connects, as kafkajs's broker pool does.
    expect((await other.describeCluster()).brokers).toHaveLength(3);
    await other.connect();
    await other.disconnect();
    expect(seen).toEqual(['admin.connect', 'admin.disconnect']);
  });

  it('creates a topic once (true, then false), with configs kafkajs reads back', async () => {
    const topic = unique('kjs-adm-create');
    const request = {
      topics: [
        {
          topic,
          numPartitions: 2,
          replicationFactor: 2,
          configEntries: [{ name: 'retention.ms', value: '123456' }],
        },
      ],
    };
    await expect(admin.createTopics(request)).resolves.toBe(true);
    await expect(admin.createTopics(request)).resolves.toBe(false);
    expect(await reference.listTopics()).toContain(topic);
    expect(await admin.listTopics()).toContain(topic);
    // Internal topics are listed too, as kafkajs's Metadata for all topics lists them.
    const internal = (names: string[]) => names.filter((n) => n.startsWith('__')).sort();
    expect(internal(await admin.listTopics())).toEqual(internal(await reference.listTopics()));
    const { topics } = await reference.fetchTopicMetadata({ topics: [topic] });
    expect(topics[0]?.partitions).toHaveLength(2);
    const described = await reference.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    expect(described.resources[0]?.configEntries[0]).toMatchObject({
      configName: 'retention.ms',
      configValue: '123456',
    });
  });

  it('creates a topic with a replica assignment, and validateOnly creates nothing', async () => {
    const topic = unique('kjs-adm-assign');
    await admin.createTopics({
      topics: [
        {
          topic,
          replicaAssignment: [
            { partition: 1, replicas: [3, 1] },
            { partition: 0, replicas: [2, 3] },
          ],
        },
      ],
    });
    const mine = await admin.fetchTopicMetadata({ topics: [topic] });
    const theirs = await reference.fetchTopicMetadata({ topics: [topic] });
    const replicas = (t: typeof mine) =>
      t.topics[0]?.partitions
        .map((p) => [p.partitionId, p.replicas])
        .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(replicas(mine)).toEqual([
      [0, [2, 3]],
      [1, [3, 1]],
    ]);
    expect(replicas(theirs)).toEqual(replicas(mine));
    for (const p of mine.topics[0]?.partitions ?? []) {
      expect(p).toMatchObject({ partitionErrorCode: 0, leader: expect.any(Number) });
      expect(p.isr.length).toBeGreaterThan(0);
    }

    const dry = unique('kjs-adm-dry');
    await expect(
      admin.createTopics({ validateOnly: true, topics: [{ topic: dry, numPartitions: 1 }] }),
    ).resolves.toBe(true);
    expect(await admin.listTopics()).not.toContain(dry);
  });

  it('rejects a refused topic with a KafkaJSAggregateError of KafkaJSCreateTopicError', async () => {
    const topic = unique('kjs-adm-bad');
    const e = await rejection(
      admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 7 }] }),
    );
    expect(e).toBeInstanceOf(KafkaJSAggregateError);
    const [first] = (e as KafkaJSAggregateError).errors;
    expect(first).toBeInstanceOf(KafkaJSCreateTopicError);
    expect(first).toMatchObject({ type: 'INVALID_REPLICATION_FACTOR', code: 38, topic });
    // The kafkats error it was made from stays reachable.
    expect((first as Error).cause).toBeInstanceOf(ProtocolError);
  });

  it('fetchTopicMetadata rejects an unknown topic (no auto-creation), as kafkajs admin does', async () => {
    const e = await rejection(admin.fetchTopicMetadata({ topics: [unique('kjs-adm-none')] }));
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: true });
  });

  it('adds partitions, and refuses a decrease with INVALID_PARTITIONS', async () => {
    const topic = await topicWith(1);
    await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] });
    const { topics } = await eventually(
      () => reference.fetchTopicMetadata({ topics: [topic] }),
      (m) => m.topics[0]?.partitions.length === 3,
    );
    expect(topics[0]?.partitions).toHaveLength(3);
    const e = await rejection(admin.createPartitions({ topicPartitions: [{ topic, count: 2 }] }));
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e).toMatchObject({ type: 'INVALID_PARTITIONS' });
  });

  it('answers topic offsets and offsets by timestamp as kafkajs does', async () => {
    const topic = await topicWith(2);
    const t0 = Date.now() - 60_000;
    await produce(topic, 10, 0, t0);
    const mine = await admin.fetchTopicOffsets(topic);
    expect(mine).toEqual([
      { partition: 0, offset: '10', high: '10', low: '0' },
      { partition: 1, offset: '0', high: '0', low: '0' },
    ]);
    expect(await reference.fetchTopicOffsets(topic)).toEqual(expect.arrayContaining(mine));
    for (const ts of [t0 + 4, t0 + 60_000, undefined]) {
      const byTs = await admin.fetchTopicOffsetsByTimestamp(topic, ts);
      const theirs = await reference.fetchTopicOffsetsByTimestamp(topic, ts);
      expect(byTs).toEqual([...theirs].sort((a, b) => a.partition - b.partition));
    }
    expect(await admin.fetchTopicOffsetsByTimestamp(topic, t0 + 4)).toEqual([
      { partition: 0, offset: '4' },
      { partition: 1, offset: '0' },
    ]);
  });

  it('deletes records before an offset (and all with -1); a missing partition is refused first', async () => {
    const topic = await topicWith(2);
    await produce(topic, 8, 0);
    await produce(topic, 5, 1);
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '3' }] });
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 1, offset: -1 }] });
    const offsets = await reference.fetchTopicOffsets(topic);
    expect(offsets.sort((a, b) => a.partition - b.partition)).toEqual([
      { partition: 0, offset: '8', high: '8', low: '3' },
      { partition: 1, offset: '5', high: '5', low: '5' },
    ]);

    const e = await rejection(
      admin.deleteTopicRecords({
        topic,
        partitions: [
          { partition: 0, offset: '4' },
          { partition: 7, offset: '1' },
        ],
      }),
    );
    expect(e).toBeInstanceOf(KafkaJSDeleteTopicRecordsError);
    expect((e as KafkaJSDeleteTopicRecordsError).retriable).toBe(false);
    const parts = (e as KafkaJSDeleteTopicRecordsError).partitions;
    expect(parts).toMatchObject([{ partition: 7, offset: '1' }]);
    expect(parts[0]?.error).toBeInstanceOf(KafkaJSBrokerNotFound);
    // Nothing was deleted from partition 0: the check comes before any request.
    expect((await admin.fetchTopicOffsets(topic))[0]?.low).toBe('3');

    const beyond = await rejection(
      admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '100' }] }),
    );
    expect(beyond).toBeInstanceOf(KafkaJSDeleteTopicRecordsError);
    expect((beyond as KafkaJSDeleteTopicRecordsError).partitions[0]?.error).toMatchObject({
      type: 'OFFSET_OUT_OF_RANGE',
    });
  });

  it('sets, fetches, resets and resolves a group offsets, agreeing with kafkajs', async () => {
    const topic = await topicWith(1);
    const other = await topicWith(1);
    const groupId = unique('kjs-adm-group');
    await produce(topic, 5);

    expect(await admin.fetchOffsets({ groupId, topics: [topic] })).toEqual([
      { topic, partitions: [{ partition: 0, offset: '-1', metadata: null }] },
    ]);
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: 3 }] });
    await admin.setOffsets({ groupId, topic: other, partitions: [{ partition: 0, offset: '0' }] });
    const expected = { topic, partitions: [{ partition: 0, offset: '3', metadata: null }] };
    expect(await admin.fetchOffsets({ groupId, topics: [topic] })).toEqual([expected]);
    expect(await reference.fetchOffsets({ groupId, topics: [topic] })).toEqual([expected]);
    const all = await admin.fetchOffsets({ groupId });
    expect(all.map((x) => x.topic).sort()).toEqual([topic, other].sort());

    // kafkats resolves -1/-2 when it resets (as kafka-consumer-groups.sh does), not later.
    await admin.resetOffsets({ groupId, topic, earliest: true });
    expect((await reference.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions).toEqual([
      { partition: 0, offset: '0', metadata: null },
    ]);
    await admin.resetOffsets({ groupId, topic });
    expect((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions).toEqual([
      { partition: 0, offset: '5', metadata: null },
    ]);

    // kafkajs's own resetOffsets commits -2; resolveOffsets turns it into the low watermark.
    await reference.resetOffsets({ groupId, topic, earliest: true });
    expect((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions[0]?.offset).toBe(
      '-2',
    );
    const resolved = await admin.fetchOffsets({ groupId, topics: [topic], resolveOffsets: true });
    expect(resolved[0]?.partitions[0]?.offset).toBe('0');
    expect((await reference.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions[0]).toEqual({
      partition: 0,
      offset: '0',
      metadata: null,
    });
  });

  it('describes, lists and deletes groups; refuses offsets and deletion while a member runs', async () => {
    const topic = await topicWith(1);
    const groupId = unique('kjs-adm-live');
    const consumer = kafkajs.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    const joined = new Promise<void>((resolve) => {
      consumer.on(consumer.events.GROUP_JOIN, () => resolve());
    });
    await consumer.run({ eachMessage: async () => {} });
    await joined;
    try {
      const { groups } = await admin.describeGroups([groupId]);
      expect(groups).toEqual([
        {
          errorCode: 0,
          groupId,
          members: [
            {
              memberId: expect.any(String),
              clientId: 'kafkajs-reference',
              clientHost: expect.any(String),
              memberMetadata: expect.any(Buffer),
              memberAssignment: expect.any(Buffer),
            },
          ],
          protocol: 'RoundRobinAssigner',
          protocolType: 'consumer',
          state: 'Stable',
        },
      ]);
      const theirs = await reference.describeGroups([groupId]);
      expect(theirs.groups[0]?.members[0]?.memberAssignment).toEqual(
        groups[0]?.members[0]?.memberAssignment,
      );
      expect((await admin.listGroups()).groups).toContainEqual({
        groupId,
        protocolType: 'consumer',
      });

      await expect(
        admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '0' }] }),
      ).rejects.toThrow('The consumer group must have no running instances, current state: Stable');
      const e = await rejection(admin.deleteGroups([groupId]));
      expect(e).toBeInstanceOf(KafkaJSDeleteGroupsError);
      const failed = (e as KafkaJSDeleteGroupsError).groups as { groupId: string; error: Error }[];
      expect(failed).toMatchObject([{ groupId, errorCode: 68 }]);
      expect(failed[0]?.error).toBeInstanceOf(KafkaJSProtocolError);
      expect(failed[0]?.error).toMatchObject({ type: 'NON_EMPTY_GROUP' });
    } finally {
      await consumer.disconnect();
    }
    await expect(admin.deleteGroups([groupId])).resolves.toEqual([{ groupId, errorCode: 0 }]);
    await expect(admin.deleteGroups([])).resolves.toEqual([]);
    const gone = unique('kjs-adm-gone');
    expect(await admin.describeGroups([gone])).toEqual({
      groups: [
        { errorCode: 0, groupId: gone, members: [], protocol: '', protocolType: '', state: 'Dead' },
      ],
    });
  });

  it('alters and describes configs, as kafkajs reads them', async () => {
    const topic = await topicWith(1);
    const describe = (a: Admin | KafkaJSAdminClient) =>
      a.describeConfigs({
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] },
        ],
        includeSynonyms: false,
      });
    const before = await describe(admin);
    expect(before.resources).toEqual([
      {
        errorCode: 0,
        errorMessage: null,
        resourceType: ConfigResourceTypes.TOPIC,
        resourceName: topic,
        configEntries: [
          expect.objectContaining({
            configName: 'cleanup.policy',
            configValue: 'delete',
            isDefault: true,
          }),
        ],
      },
    ]);

    await admin.alterConfigs({
      validateOnly: true,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
        },
      ],
    });
    const altered = await admin.alterConfigs({
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
        },
      ],
    });
    expect(altered.resources).toEqual([
      {
        errorCode: 0,
        errorMessage: null,
        resourceType: ConfigResourceTypes.TOPIC,
        resourceName: topic,
      },
    ]);
    const after = await eventually(
      () => describe(admin),
      (r) => r.resources[0]?.configEntries[0]?.configValue === 'compact',
    );
    expect(after.resources[0]?.configEntries[0]).toMatchObject({
      configValue: 'compact',
      configSource: ConfigSource.TOPIC_CONFIG,
      isDefault: false,
    });
    const theirs = await eventually(
      () => describe(reference),
      (r) => r.resources[0]?.configEntries[0]?.configValue === 'compact',
    );
    expect(after.resources[0]?.configEntries).toEqual(theirs.resources[0]?.configEntries);

    const broker = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.BROKER, name: '2' }],
      includeSynonyms: true,
    });
    expect(broker.resources[0]?.resourceName).toBe('2');
    expect(broker.resources[0]?.configEntries.length).toBeGreaterThan(10);

    const e = await rejection(
      admin.alterConfigs({
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: unique('kjs-adm-none'),
            configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
          },
        ],
      }),
    );
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });

  it('deletes topics; an unknown one rejects with UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const topic = await topicWith(1);
    await admin.deleteTopics({ topics: [topic] });
    const left = await eventually(
      () => reference.listTopics(),
      (names) => !names.includes(topic),
    );
    expect(left).not.toContain(topic);
    const e = await rejection(admin.deleteTopics({ topics: [unique('kjs-adm-none')] }));
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });

  it('describes the cluster as kafkajs does', async () => {
    const mine = await admin.describeCluster();
    const theirs = await reference.describeCluster();
    expect(mine.clusterId).toBe(shared.clusterId);
    expect(mine.clusterId).toBe(theirs.clusterId);
    const byId = (b: { nodeId: number }[]) => [...b].sort((x, y) => x.nodeId - y.nodeId);
    expect(byId(mine.brokers)).toEqual(byId(theirs.brokers));
    expect(mine.controller === null || [1, 2, 3].includes(mine.controller)).toBe(true);
  });

  it('moves a partition with alterPartitionReassignments and lists reassignments', async () => {
    const topic = unique('kjs-adm-move');
    await admin.createTopics({
      topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [1, 2] }] }],
    });
    await admin.alterPartitionReassignments({
      topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [3, 2] }] }],
    });
    const listed = await admin.listPartitionReassignments({
      topics: [{ topic, partitions: [0] }],
    });
    for (const t of listed.topics) {
      expect(t).toMatchObject({ topic, name: topic });
    }
    const moved = await eventually(
      () => reference.fetchTopicMetadata({ topics: [topic] }),
      (m) => m.topics[0]?.partitions[0]?.replicas.join() === '3,2',
    );
    expect(moved.topics[0]?.partitions[0]?.replicas).toEqual([3, 2]);

    const e = await rejection(
      admin.alterPartitionReassignments({
        topics: [{ topic: `${topic}x`, partitionAssignment: [{ partition: 0, replicas: [2, 1] }] }],
      }),
    );
    expect(e).toBeInstanceOf(KafkaJSAggregateError);
    expect((e as KafkaJSAggregateError).message).toBe('Errors altering partition reassignments');
    const [first] = (e as KafkaJSAggregateError).errors;
    expect(first).toBeInstanceOf(KafkaJSAlterPartitionReassignmentsError);
    expect(first).toMatchObject({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
      topic: `${topic}x`,
      partition: 0,
    });
    expect((first as Error).cause).toBeInstanceOf(ProtocolError);
  });

  it('reports SECURITY_DISABLED for ACL calls on a cluster without an authorizer', async () => {
    const acl = {
      resourceType: 2 as const,
      resourceName: unique('kjs-adm-acl'),
      resourcePatternType: 3 as const,
      principal: 'User:bob',
      host: '*',
      operation: 2 as const,
      permissionType: 3 as const,
    };
    // Each call made only when the previous one has settled: no rejection left unawaited.
    for (const call of [
      () => admin.createAcls({ acl: [acl] }),
      () => admin.describeAcls(acl),
      () => admin.deleteAcls({ filters: [acl] }),
    ]) {
      const e = await rejection(call());
      expect(e).toBeInstanceOf(KafkaJSError);
      expect(e).toMatchObject({ type: 'SECURITY_DISABLED' });
    }
  });
});

// ACLs need an authorizer: a private 1-node cluster with StandardAuthorizer
// (`allow.everyone.if.no.acl.found=false`), PLAINTEXT as the super user and a SASL_PLAINTEXT
// listener where `alice` signs in with SCRAM-SHA-256 and has only the ACLs a test gives her.
describe('kafkajs admin ACLs (private ACL cluster, kafkajs 2.2.4 as second client)', () => {
  let acls: KafkaCluster;
  let superAdmin: Admin;
  let superReference: KafkaJSAdminClient;

  beforeAll(async () => {
    acls = await startCluster({ nodes: 1, acls: true, listeners: ['SASL_PLAINTEXT'] });
    const plain = acls.bootstrap.split(',');
    superAdmin = new Kafka({ brokers: plain, logLevel: logLevel.NOTHING }).admin();
    superReference = new KafkaJS({ brokers: plain, logLevel: kafkajsLogLevel.NOTHING }).admin();
    await Promise.all([superAdmin.connect(), superReference.connect()]);
  });
  afterAll(async () => {
    await superAdmin?.disconnect();
    await superReference?.disconnect();
    await acls?.stop();
  });

  const entry = (resourceName: string, principal: string, over: Partial<AclEntry> = {}) => ({
    resourceType: AclResourceTypes.TOPIC,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal,
    host: '*',
    operation: AclOperationTypes.DESCRIBE,
    permissionType: AclPermissionTypes.ALLOW,
    ...over,
  });

  it('creates, describes and deletes ACLs that kafkajs sees, and they decide what alice may see', async () => {
    const allowed = unique('kjs-acl-ok');
    const denied = unique('kjs-acl-no');
    await superAdmin.createTopics({
      topics: [allowed, denied].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
    });
    await expect(
      superAdmin.createAcls({
        acl: [
          entry(allowed, 'User:alice'),
          entry('kjs-acl-', 'User:alice', {
            resourceType: AclResourceTypes.GROUP,
            resourcePatternType: ResourcePatternTypes.PREFIXED,
            operation: AclOperationTypes.READ,
            permissionType: AclPermissionTypes.DENY,
          }),
        ],
      }),
    ).resolves.toBe(true);

    const filter = {
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal: 'User:alice',
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    };
    // CreateAcls answers once the controller committed; the authorizer applies it a moment later.
    const mine = await eventually(
      () => superAdmin.describeAcls(filter),
      (r) => r.resources.length === 2,
    );
    const theirs = await superReference.describeAcls(filter);
    const byName = (r: { resources: { resourceName: string }[] }) =>
      [...r.resources].sort((a, b) => a.resourceName.localeCompare(b.resourceName));
    expect(byName(mine)).toEqual(byName(theirs));
    expect(byName(mine)).toEqual([
      {
        resourceType: AclResourceTypes.GROUP,
        resourceName: 'kjs-acl-',
        resourcePatternType: ResourcePatternTypes.PREFIXED,
        acls: [
          {
            principal: 'User:alice',
            host: '*',
            operation: AclOperationTypes.READ,
            permissionType: AclPermissionTypes.DENY,
          },
        ],
      },
      {
        resourceType: AclResourceTypes.TOPIC,
        resourceName: allowed,
        resourcePatternType: ResourcePatternTypes.LITERAL,
        acls: [
          {
            principal: 'User:alice',
            host: '*',
            operation: AclOperationTypes.DESCRIBE,
            permissionType: AclPermissionTypes.ALLOW,
          },
        ],
      },
    ]);

    const user = acls.security?.users.find((u) => u.username === 'alice');
    const alice = new Kafka({
      brokers: (acls.describe().listeners.SASL_PLAINTEXT ?? '').split(','),
      sasl: { mechanism: 'scram-sha-256', username: 'alice', password: user?.password ?? '' },
      logLevel: logLevel.NOTHING,
    }).admin();
    try {
      const seen = await alice.fetchTopicMetadata({ topics: [allowed] });
      expect(seen.topics.map((t) => t.name)).toEqual([allowed]);
      const e = await rejection(alice.fetchTopicMetadata({ topics: [denied] }));
      expect(e).toBeInstanceOf(KafkaJSProtocolError);
      expect(e).toMatchObject({ type: 'TOPIC_AUTHORIZATION_FAILED', retriable: false });
    } finally {
      await alice.disconnect();
    }

    const deleted = await superAdmin.deleteAcls({
      filters: [{ ...filter, resourceType: AclResourceTypes.TOPIC }],
    });
    expect(deleted).toEqual({
      throttleTime: 0,
      filterResponses: [
        {
          errorCode: 0,
          errorMessage: null,
          matchingAcls: [{ errorCode: 0, errorMessage: null, ...entry(allowed, 'User:alice') }],
        },
      ],
    });
    const left = await eventually(
      () => superReference.describeAcls(filter),
      (r) => r.resources.length === 1,
    );
    expect(left.resources.map((r) => r.resourceType)).toEqual([AclResourceTypes.GROUP]);
  });
});
