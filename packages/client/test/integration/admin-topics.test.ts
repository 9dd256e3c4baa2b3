// The admin's topic, config, partition and election calls against a real 3-node cluster,
// each claim checked through Kafka's own Java AdminClient (testkit JavaAdmin).
import { ProtocolError } from '@kafkats/codec';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';

const shared = sharedCluster();
let admin: Admin;

beforeAll(async () => {
  admin = await Admin.connect(shared.bootstrap);
});
afterAll(async () => {
  await admin?.close();
});

const sortedNums = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);

describe('Admin topics (real brokers, Java admin as second client)', () => {
  it('creates a topic with configs and an explicit replica assignment that Java describes the same way', async () => {
    const name = unique('adm-create');
    const assignment = [
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
    ];
    const created = await admin.createTopics(
      [
        {
          name,
          replicaAssignment: assignment,
          configs: { 'retention.ms': '123456', 'cleanup.policy': 'compact' },
        },
      ],
      { waitForLeaders: true },
    );
    const topic = created.topics[0]!;
    expect(topic.error).toBeUndefined();
    expect(topic.numPartitions).toBe(3);
    expect(topic.replicationFactor).toBe(3);
    expect(topic.configs?.find((c) => c.name === 'retention.ms')?.value).toBe('123456');

    const java = await shared.admin.describeTopic(name);
    const ours = (await admin.describeTopics([name])).topics[0]!;
    expect(ours.error).toBeUndefined();
    expect(ours.topicId).toBe(java.topicId);
    expect(topic.topicId).toBe(java.topicId);
    expect(ours.partitions.map((p) => p.partition)).toEqual(
      java.partitions.map((p) => p.partition),
    );
    for (const jp of java.partitions) {
      const op = ours.partitions[jp.partition]!;
      expect(op.leader).toBe(jp.leader);
      expect(op.replicas).toEqual(jp.replicas);
      expect(sortedNums(op.isr)).toEqual(sortedNums(jp.isr));
      expect(op.replicas).toEqual(assignment[jp.partition]);
      expect(op.leaderEpoch).toBeGreaterThanOrEqual(0);
      expect(op.offlineReplicas).toEqual([]);
    }
    const javaConfigs = await shared.admin.describeConfigs('topic', name);
    expect(javaConfigs['retention.ms']).toBe('123456');
    expect(javaConfigs['cleanup.policy']).toBe('compact');

    const { topics: listed } = await admin.listTopics();
    expect(listed.find((t) => t.name === name)?.topicId).toBe(java.topicId);
  });

  it('answers a batch with one valid and one invalid topic with one success and one typed error', async () => {
    const good = unique('adm-good');
    const bad = unique('adm-bad');
    const result = await admin.createTopics([
      { name: good, numPartitions: 1, replicationFactor: 1 },
      { name: bad, numPartitions: 1, replicationFactor: 5 },
    ]);

    expect(result.topics.map((t) => t.name)).toEqual([good, bad]);
    expect(result.topics[0]!.error).toBeUndefined();
    expect(result.topics[0]!.topicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const error = result.topics[1]!.error;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error?.errorName).toBe('INVALID_REPLICATION_FACTOR');
    expect(error?.code).toBe('ERR_KAFKA_BROKER_INVALID_REPLICATION_FACTOR');
    // Java's listTopics may reach a broker that has not learned the new topic yet.
    const javaTopics = await eventually(
      () => shared.admin.listTopics(),
      (names) => names.includes(good),
    );
    expect(javaTopics).toContain(good);
    expect(javaTopics).not.toContain(bad);
  });

  it('round-trips configs: our incremental changes seen by Java, Java’s seen by us', async () => {
    const name = unique('adm-cfg');
    await shared.admin.createTopic(name, {
      partitions: 1,
      replicationFactor: 3,
      configs: { 'segment.ms': '600000' },
    });

    const altered = await admin.incrementalAlterConfigs([
      {
        type: 'TOPIC',
        name,
        ops: [
          { name: 'retention.ms', op: 'SET', value: '7777777' },
          { name: 'segment.ms', op: 'DELETE' },
          { name: 'cleanup.policy', op: 'APPEND', value: 'compact' },
        ],
      },
    ]);
    expect(altered.resources).toEqual([{ type: 'TOPIC', name }]);
    const java = await eventually(
      () => shared.admin.describeConfigs('topic', name),
      (c) => c['retention.ms'] === '7777777',
    );
    expect(java['retention.ms']).toBe('7777777');
    expect(java['segment.ms']).toBe('604800000');
    expect(java['cleanup.policy']?.split(',').sort()).toEqual(['compact', 'delete']);

    await shared.admin.alterConfigs('topic', name, { 'max.message.bytes': '65536' });
    const ours = await eventually(
      () => admin.describeConfigs([{ type: 'TOPIC', name }], { includeSynonyms: true }),
      (r) =>
        r.resources[0]!.configs.some((c) => c.name === 'max.message.bytes' && c.value === '65536'),
    );
    const byName = new Map(ours.resources[0]!.configs.map((c) => [c.name, c]));
    expect(byName.get('max.message.bytes')).toMatchObject({
      value: '65536',
      source: 'DYNAMIC_TOPIC_CONFIG',
      isDefault: false,
      type: 'INT',
    });
    expect(byName.get('retention.ms')?.value).toBe('7777777');
    expect(byName.get('segment.ms')).toMatchObject({ value: '604800000', isDefault: true });
    expect(byName.get('retention.ms')?.synonyms[0]).toEqual({
      name: 'retention.ms',
      value: '7777777',
      source: 'DYNAMIC_TOPIC_CONFIG',
    });
    const keys = await admin.describeConfigs([{ type: 'TOPIC', name, keys: ['retention.ms'] }]);
    expect(keys.resources[0]!.configs.map((c) => c.name)).toEqual(['retention.ms']);
  });

  it('describes a broker’s own configs from that broker, agreeing with Java', async () => {
    const result = await admin.describeConfigs([
      { type: 'BROKER', name: '2' },
      { type: 'TOPIC', name: unique('adm-no-such') },
    ]);
    const java = await shared.admin.describeConfigs('broker', '2');
    const ours = new Map(result.resources[0]!.configs.map((c) => [c.name, c.value]));
    expect(result.resources[0]!.error).toBeUndefined();
    expect(ours.get('node.id')).toBe('2');
    for (const key of ['node.id', 'num.network.threads', 'log.dirs', 'auto.create.topics.enable'])
      expect(ours.get(key)).toBe(java[key]);
    expect((result.resources[1]!.error as ProtocolError).errorName).toBe(
      'UNKNOWN_TOPIC_OR_PARTITION',
    );
  });

  it('raises a partition count that Java sees, and refuses a decrease with INVALID_PARTITIONS', async () => {
    const name = unique('adm-parts');
    await shared.admin.createTopic(name, { partitions: 2, replicationFactor: 2 });

    const result = await admin.createPartitions([
      { topic: name, totalCount: 4 },
      { topic: unique('adm-absent'), totalCount: 3 },
    ]);
    expect(result.topics[0]).toEqual({ topic: name });
    expect(result.topics[1]!.error?.errorName).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    await admin.waitForTopics([{ name, partitions: 4 }]);
    const java = await shared.admin.describeTopic(name);
    expect(java.partitions.length).toBe(4);
    expect(java.partitions.every((p) => p.leader >= 1)).toBe(true);

    const decrease = await admin.createPartitions([{ topic: name, totalCount: 2 }]);
    expect(decrease.topics[0]!.error?.errorName).toBe('INVALID_PARTITIONS');
  });

  it('deletes a topic that Java then no longer lists, and types the error for an absent one', async () => {
    const name = unique('adm-del');
    await shared.admin.createTopic(name, { partitions: 1, replicationFactor: 1 });
    const absent = unique('adm-del-absent');

    const result = await admin.deleteTopics([name, absent]);
    expect(result.topics[0]).toEqual({ name });
    expect(result.topics[1]!.error?.errorName).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    const javaTopics = await eventually(
      () => shared.admin.listTopics(),
      (names) => !names.includes(name),
    );
    expect(javaTopics).not.toContain(name);
  });

  it('describes the cluster as Java does', async () => {
    const ours = await admin.describeCluster();
    const java = await shared.admin.describeCluster();
    expect(ours.clusterId).toBe(java.clusterId);
    expect(ours.brokers.map((b) => [b.nodeId, b.host, b.port])).toEqual(
      java.nodes.map((n) => [n.id, n.host, n.port]),
    );
    expect(ours.controllerId).toBeGreaterThanOrEqual(1);
  });

  it('moves leadership back to the preferred replica after a reassignment reordered the replicas', async () => {
    const name = unique('adm-elect');
    await admin.createTopics([{ name, replicaAssignment: [[1, 2, 3]] }], { waitForLeaders: true });
    expect((await shared.admin.describeTopic(name)).partitions[0]!.leader).toBe(1);

    // Same replicas, broker 2 first: it becomes the preferred leader, but 1 keeps leading.
    await shared.admin.reassignPartitions(name, { 0: [2, 1, 3] });
    await eventually(
      () => shared.admin.listReassignments(),
      (list) => !list.some((r) => r.topic === name),
    );
    const before = await eventually(
      () => shared.admin.describeTopic(name),
      (d) => d.partitions[0]!.replicas[0] === 2,
    );
    expect(before.partitions[0]).toMatchObject({ leader: 1, replicas: [2, 1, 3] });

    const elected = await admin.electLeaders([{ topic: name, partition: 0 }], {
      type: 'PREFERRED',
    });
    expect(elected.partitions).toEqual([{ topic: name, partition: 0 }]);
    const after = await eventually(
      () => shared.admin.describeTopic(name),
      (d) => d.partitions[0]!.leader === 2,
    );
    expect(after.partitions[0]!.leader).toBe(2);

    const again = await admin.electLeaders([{ topic: name, partition: 0 }]);
    expect(again.partitions[0]!.error).toBeInstanceOf(ProtocolError);
    expect(again.partitions[0]!.error?.errorName).toBe('ELECTION_NOT_NEEDED');
  });
});
