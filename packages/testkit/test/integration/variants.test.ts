import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KafkaCluster, sharedCluster, startCluster } from '../../src/index.js';

const unique = (label: string) => `testkit-${label}-${randomUUID().slice(0, 8)}`;

describe('auto.create.topics.enable through brokerConfig', () => {
  let cluster: KafkaCluster;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 1, brokerConfig: { 'auto.create.topics.enable': true } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('creates a topic a producer asks metadata for', async () => {
    const topic = unique('auto');
    const config = await cluster.admin.describeConfigs('broker', '1');
    expect(config['auto.create.topics.enable']).toBe('true');
    await cluster.admin.produce(topic, [{ value: 'x' }]);
    expect(await cluster.admin.listTopics()).toContain(topic);
  });

  it('is off on the shared cluster: the producer times out and no topic appears', async () => {
    const { admin } = sharedCluster();
    const topic = unique('no-auto');
    await expect(admin.produce(topic, [{ value: 'x' }], { timeoutMs: 3000 })).rejects.toMatchObject(
      {
        javaType: 'TimeoutException',
      },
    );
    expect(await admin.listTopics()).not.toContain(topic);
  });
});

describe('ACLs with StandardAuthorizer over SASL_SSL', () => {
  let cluster: KafkaCluster;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 1, listeners: ['SASL_SSL'], acls: true });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('lets a granted user read and write, and refuses a user without READ', async () => {
    const topic = unique('acl');
    const security = cluster.security;
    if (security === null) throw new Error('expected security material');
    const [admin, alice, bob] = security.users;
    if (admin === undefined || alice === undefined || bob === undefined) throw new Error('users');
    // The admin user is a super user over SASL_SSL, like ANONYMOUS over PLAINTEXT.
    const superAdmin = cluster.javaAdmin({ listener: 'SASL_SSL', user: admin });
    await superAdmin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
    await superAdmin.createAcls(
      ['READ', 'WRITE', 'DESCRIBE'].map((operation) => ({
        name: topic,
        principal: `User:${alice.username}`,
        operation,
      })),
    );
    // CreateAcls commits on the controller; brokers apply the bindings a moment later.
    const deadline = Date.now() + 30_000;
    let granted = await superAdmin.describeAcls({ name: topic });
    while (granted.length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      granted = await superAdmin.describeAcls({ name: topic });
    }
    expect(granted.map((a) => a.operation).sort()).toEqual(['DESCRIBE', 'READ', 'WRITE']);

    const asAlice = cluster.javaAdmin({ listener: 'SASL_SSL', user: alice });
    await asAlice.produce(topic, [{ value: 'allowed' }]);
    const read = await asAlice.consume(topic, { partition: 0, maxRecords: 1, timeoutMs: 20_000 });
    expect(read.map((r) => r.value?.toString())).toEqual(['allowed']);

    const asBob = cluster.javaAdmin({
      listener: 'SASL_SSL',
      user: bob,
      mechanism: 'SCRAM-SHA-256',
    });
    await expect(
      asBob.consume(topic, { partition: 0, maxRecords: 1, timeoutMs: 10_000 }),
    ).rejects.toMatchObject({
      javaType: 'TopicAuthorizationException',
    });
    await expect(
      asBob.produce(topic, [{ value: 'denied' }], { timeoutMs: 10_000 }),
    ).rejects.toMatchObject({
      javaType: 'TopicAuthorizationException',
    });
  });
});

describe('a cluster that cannot start', () => {
  it('throws ERR_KAFKA_TESTKIT_CLUSTER_START_FAILED with the broker log tail', async () => {
    // StorageTool accepts the name (a plain string setting); the broker fails to load the class.
    // A failed start keeps its directory as evidence; this one is expected, so it goes.
    const baseDir = mkdtempSync(join(tmpdir(), 'kafkats-failing-start-'));
    try {
      const failure = startCluster({
        nodes: 1,
        baseDir,
        brokerConfig: { 'authorizer.class.name': 'no.such.Authorizer' },
      });
      await expect(failure).rejects.toMatchObject({
        code: 'ERR_KAFKA_TESTKIT_CLUSTER_START_FAILED',
      });
      await expect(failure).rejects.toThrow(
        /node 1 exited during start-up[\s\S]*node 1 log tail[\s\S]*no\.such\.Authorizer/,
      );
    } finally {
      rmSync(baseDir, { recursive: true, force: true });
    }
  });
});
