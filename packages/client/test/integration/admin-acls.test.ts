// ACLs and authorization against a private 1-node cluster with StandardAuthorizer
// (`allow.everyone.if.no.acl.found=false`; PLAINTEXT is the super user ANONYMOUS) and a
// SASL_PLAINTEXT listener where `alice` signs in with SCRAM and has only the ACLs a test gives
// her. Kafka's Java admin checks every ACL claim.
import { ProtocolError } from '@kafkats/codec';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';

let cluster: KafkaCluster;
let admin: Admin;
let alice: Admin;
let topic: string;

beforeAll(async () => {
  cluster = await startCluster({ nodes: 1, acls: true, listeners: ['SASL_PLAINTEXT'] });
  admin = await Admin.connect(cluster.bootstrap);
  const user = cluster.security!.users.find((u) => u.username === 'alice')!;
  alice = await Admin.connect(cluster.describe().listeners.SASL_PLAINTEXT!, {
    connection: {
      sasl: { mechanism: 'SCRAM-SHA-256', username: user.username, password: user.password },
    },
  });
  topic = unique('adm-acl');
  await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }], {
    waitForLeaders: true,
  });
});
afterAll(async () => {
  await alice?.close();
  await admin?.close();
  await cluster?.stop();
});

describe('Admin ACLs (private ACL cluster, Java admin as second client)', () => {
  it('creates, describes and deletes bindings that Java sees come and go', async () => {
    const created = await admin.createAcls([
      { resourceType: 'TOPIC', resourceName: topic, principal: 'User:carol', operation: 'READ' },
      {
        resourceType: 'GROUP',
        resourceName: 'adm-',
        patternType: 'PREFIXED',
        principal: 'User:carol',
        host: '127.0.0.1',
        operation: 'DESCRIBE',
        permission: 'DENY',
      },
    ]);
    expect(created.results.map((r) => r.error)).toEqual([undefined, undefined]);

    // CreateAcls answers once the controller committed; the broker's authorizer applies the
    // records a moment later, so a read through it may lag.
    const java = await eventually(
      () => cluster.admin.describeAcls({ principal: 'User:carol' }),
      (found) => found.length === 2,
    );
    expect(
      java
        .map((b) => [b.resourceType, b.name, b.patternType, b.host, b.operation, b.permission])
        .sort(),
    ).toEqual(
      [
        ['GROUP', 'adm-', 'PREFIXED', '127.0.0.1', 'DESCRIBE', 'DENY'],
        ['TOPIC', topic, 'LITERAL', '*', 'READ', 'ALLOW'],
      ].sort(),
    );

    await cluster.admin.createAcls([
      { resourceType: 'TOPIC', name: topic, principal: 'User:carol', operation: 'WRITE' },
    ]);
    const { bindings: ours } = await eventually(
      () => admin.describeAcls({ principal: 'User:carol', resourceType: 'TOPIC' }),
      (found) => found.bindings.length === 2,
    );
    expect(ours.map((b) => b.operation).sort()).toEqual(['READ', 'WRITE']);
    expect(ours[0]).toMatchObject({
      resourceName: topic,
      patternType: 'LITERAL',
      permission: 'ALLOW',
    });
    const { bindings: matching } = await admin.describeAcls({
      resourceType: 'GROUP',
      resourceName: 'adm-group',
      patternType: 'MATCH',
    });
    expect(matching.map((b) => [b.resourceName, b.patternType])).toEqual([['adm-', 'PREFIXED']]);

    const deleted = await admin.deleteAcls([
      { principal: 'User:carol', resourceType: 'TOPIC' },
      { principal: 'User:nobody' },
    ]);
    expect(deleted.results[0]!.error).toBeUndefined();
    expect(deleted.results[0]!.deleted.map((d) => d.binding.operation).sort()).toEqual([
      'READ',
      'WRITE',
    ]);
    expect(deleted.results[1]).toEqual({ filter: { principal: 'User:nobody' }, deleted: [] });
    const left = await eventually(
      () => cluster.admin.describeAcls({ principal: 'User:carol' }),
      (found) => found.length === 1,
    );
    expect(left.map((b) => b.resourceType)).toEqual(['GROUP']);
  });

  it('types TOPIC_AUTHORIZATION_FAILED for a principal with no ACLs on the topic, as Java reports it', async () => {
    const configs = await alice.describeConfigs([{ type: 'TOPIC', name: topic }]);
    expect(configs.resources[0]!.error).toBeInstanceOf(ProtocolError);
    expect((configs.resources[0]!.error as ProtocolError).errorName).toBe(
      'TOPIC_AUTHORIZATION_FAILED',
    );

    const offsets = await alice.listOffsets([{ topic, partition: 0, spec: 'latest' }]);
    expect(offsets.partitions[0]!.error).toBeInstanceOf(ProtocolError);
    expect((offsets.partitions[0]!.error as ProtocolError).errorName).toBe(
      'TOPIC_AUTHORIZATION_FAILED',
    );

    const user = cluster.security!.users.find((u) => u.username === 'alice')!;
    const javaAlice = cluster.javaAdmin({
      listener: 'SASL_PLAINTEXT',
      user,
      mechanism: 'SCRAM-SHA-256',
    });
    await expect(javaAlice.describeConfigs('topic', topic)).rejects.toMatchObject({
      javaType: 'TopicAuthorizationException',
    });
  });

  it('answers once the principal is granted DESCRIBE, through the same client', async () => {
    await cluster.admin.createAcls([
      { resourceType: 'TOPIC', name: topic, principal: 'User:alice', operation: 'DESCRIBE' },
    ]);
    let offsets = await alice.listOffsets([{ topic, partition: 0, spec: 'latest' }]);
    for (let i = 0; i < 50 && offsets.partitions[0]!.error !== undefined; i++) {
      await new Promise((r) => setTimeout(r, 200));
      offsets = await alice.listOffsets([{ topic, partition: 0, spec: 'latest' }]);
    }
    expect(offsets.partitions[0]).toEqual({
      topic,
      partition: 0,
      offset: 0n,
      timestamp: -1n,
      leaderEpoch: 0,
    });
  });
});
