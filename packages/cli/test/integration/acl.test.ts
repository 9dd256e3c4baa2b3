// Missing ACLs on a private 1-node cluster with StandardAuthorizer: alice signs in with SCRAM
// on SASL_PLAINTEXT and holds only the ACLs the test grants her. The CLI says which operation
// on which resource was denied and exits 5.
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats, unique } from '../support/run-cli.js';

let cluster: KafkaCluster;
let topic: string;
let asAlice: string[];
let password: string;

beforeAll(async () => {
  cluster = await startCluster({ nodes: 1, acls: true, listeners: ['SASL_PLAINTEXT'] });
  const alice = cluster.security!.users.find((u) => u.username === 'alice')!;
  password = alice.password;
  asAlice = [
    '--bootstrap',
    cluster.describe().listeners.SASL_PLAINTEXT!,
    '--sasl-mechanism',
    'SCRAM-SHA-256',
    '--sasl-username',
    'alice',
  ];
  topic = unique('cli-acl');
  await cluster.admin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
});
afterAll(async () => {
  await cluster?.stop();
});

const asAliceRun = (args: string[]) =>
  kafkats([...args, ...asAlice], { env: { KAFKATS_SASL_PASSWORD: password } });

describe('kafkats without the ACLs it needs', () => {
  it('exits 5 naming DESCRIBE on the topic, then WRITE once DESCRIBE is granted', async () => {
    const describe = await asAliceRun(['topic', topic]);
    expect(describe.code, describe.stderr).toBe(ExitCode.AUTHORIZATION);
    expect(describe.stderr).toContain(
      `error: not authorized: DESCRIBE on TOPIC ${topic} was denied (TOPIC_AUTHORIZATION_FAILED)`,
    );
    expect(describe.stderr).toContain(`--operation DESCRIBE --topic ${topic}`);
    expect(describe.stderr).not.toContain('    at ');

    await cluster.admin.createAcls([
      { name: topic, principal: 'User:alice', operation: 'DESCRIBE' },
    ]);
    // The authorizer applies the controller's ACL records a moment after CreateAcls answers.
    let offsets = await asAliceRun(['offsets', topic, '--json']);
    for (let i = 0; offsets.code !== 0 && i < 60; i++) {
      await new Promise((r) => setTimeout(r, 500));
      offsets = await asAliceRun(['offsets', topic, '--json']);
    }
    expect(offsets.code, offsets.stderr).toBe(0);

    const produce = await asAliceRun(['produce', topic, '--value', 'x']);
    expect(produce.code, produce.stderr).toBe(ExitCode.AUTHORIZATION);
    expect(produce.stderr).toMatch(
      new RegExp(
        `error: not authorized: (WRITE on TOPIC ${topic}|IDEMPOTENT_WRITE on the CLUSTER) was denied \\((TOPIC|CLUSTER)_AUTHORIZATION_FAILED\\)`,
      ),
    );
  });
});

describe('kafkats acls, read back by Kafka', () => {
  const asAdmin = (args: string[]) => {
    const admin = cluster.security!.users.find((u) => u.username === 'admin')!;
    return kafkats(
      [
        ...args,
        '--bootstrap',
        cluster.describe().listeners.SASL_PLAINTEXT!,
        '--sasl-mechanism',
        'SCRAM-SHA-256',
        '--sasl-username',
        'admin',
      ],
      { env: { KAFKATS_SASL_PASSWORD: admin.password } },
    );
  };

  it('add, list and remove bindings; nothing changes without --execute', async () => {
    const t = unique('cli-acl-admin');
    const add = [
      'acls',
      'add',
      '--allow-principal',
      'User:bob',
      '--operation',
      'READ',
      '--operation',
      'DESCRIBE',
      '--topic',
      t,
    ];
    const plan = await asAdmin(add);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/User:bob\s+ALLOW\s+READ\s+\*\s+TOPIC\s+LITERAL/);
    expect(await cluster.admin.describeAcls({ name: t })).toEqual([]);

    const added = await asAdmin([...add, '--execute']);
    expect(added.code, added.stderr).toBe(0);
    const java = await cluster.admin.describeAcls({ name: t });
    expect(
      java.map((a) => `${a.principal} ${a.permission} ${a.operation} ${a.patternType}`).sort(),
    ).toEqual(['User:bob ALLOW DESCRIBE LITERAL', 'User:bob ALLOW READ LITERAL']);

    const listed = await asAdmin(['acls', 'list', '--topic', t, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).bindings).toHaveLength(2);

    const everything = await asAdmin(['acls', 'remove', '--execute']);
    expect(everything.code).toBe(ExitCode.USAGE);

    const removed = await asAdmin([
      'acls',
      'remove',
      '--topic',
      t,
      '--operation',
      'READ',
      '--execute',
      '--json',
    ]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({
      executed: true,
      bindings: [{ operation: 'READ' }],
    });
    expect((await cluster.admin.describeAcls({ name: t })).map((a) => a.operation)).toEqual([
      'DESCRIBE',
    ]);
  });
});
