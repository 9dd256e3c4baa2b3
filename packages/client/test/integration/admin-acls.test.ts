// ACLs and authorization against a private 1-node cluster with StandardAuthorizer
// (`allow.everyone.if.no.acl.found=false`; PLAINTEXT is the super user ANONYMOUS), a
// SASL_PLAINTEXT listener where `alice` signs in with SCRAM and has only the ACLs a test gives
// her, and an SSL listener with `ssl.client.auth=required` where the principal is the client
// certificate's (`User:CN=...`). Kafka's Java admin checks every ACL claim.
import { readFileSync } from 'node:fs';
import { ProtocolError } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import {
  issueClientCertificate,
  type KafkaCluster,
  startCluster,
  startFaultProxy,
} from '@kafkats/testkit';
import { AuthenticationError, type TlsOptions } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, Producer } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';

let cluster: KafkaCluster;
let admin: Admin;
let alice: Admin;
let topic: string;

beforeAll(async () => {
  cluster = await startCluster({
    nodes: 1,
    acls: true,
    listeners: ['SASL_PLAINTEXT', 'SSL'],
    brokerConfig: { 'listener.name.ssl.ssl.client.auth': 'required' },
  });
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

describe('mutual TLS: the client certificate is the principal the ACLs name', () => {
  const ssl = () => cluster.describe().listeners.SSL as string;
  const ca = () => readFileSync(cluster.security!.caPemPath);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as Error,
    );

  it('a PEM certificate reads what its ACLs allow, and is refused a write, typed', async () => {
    const cert = issueClientCertificate(cluster.security!, { commonName: 'carol-mtls' });
    await cluster.admin.createAcls([
      { resourceType: 'TOPIC', name: topic, principal: cert.principal, operation: 'DESCRIBE' },
      { resourceType: 'TOPIC', name: topic, principal: cert.principal, operation: 'READ' },
    ]);
    const tls: TlsOptions = {
      ca: ca(),
      cert: readFileSync(cert.certPemPath),
      key: readFileSync(cert.keyPemPath),
    };
    const carol = await Cluster.connect(ssl(), { connection: { tls } });
    try {
      const admin = new Admin(carol);
      const offsets = await eventually(
        () => admin.listOffsets([{ topic, partition: 0, spec: 'latest' }]),
        (r) => r.partitions[0]?.error === undefined,
      );
      expect(offsets.partitions[0]?.offset).toBe(0n);
      // No WRITE anywhere, so no IDEMPOTENT_WRITE either: the producer id is refused and the
      // producer fails, typed and fatal, as Java's does (ClusterAuthorizationException).
      const producer = new Producer(carol, { maxBlockMs: 5_000 });
      const e = await failure(producer.send({ topic, value: 'x' }));
      expect(e).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_FATAL', retriable: false });
      expect(e.message).toContain('CLUSTER_AUTHORIZATION_FAILED');
      await producer.close();
      // Without idempotence the Produce itself reaches the broker and is refused for the topic.
      const plain = new Producer(carol, { idempotent: false, acks: 1, maxBlockMs: 5_000 });
      const denied = await failure(plain.send({ topic, value: 'y' }));
      expect(denied).toMatchObject({ retriable: false });
      expect(denied.message).toContain('TOPIC_AUTHORIZATION_FAILED');
      await plain.close();
    } finally {
      await carol.close();
    }
  });

  it('a PKCS#12 certificate with a passphrase writes where its ACLs allow; Java reads it back', async () => {
    const cert = issueClientCertificate(cluster.security!, { commonName: 'dave-mtls' });
    await cluster.admin.createAcls([
      { resourceType: 'TOPIC', name: topic, principal: cert.principal, operation: 'WRITE' },
      { resourceType: 'TOPIC', name: topic, principal: cert.principal, operation: 'DESCRIBE' },
      {
        resourceType: 'CLUSTER',
        name: 'kafka-cluster',
        principal: cert.principal,
        operation: 'IDEMPOTENT_WRITE',
      },
    ]);
    const tls: TlsOptions = {
      ca: ca(),
      pfx: readFileSync(cert.p12Path),
      passphrase: cert.p12Passphrase,
    };
    const dave = await Cluster.connect(ssl(), { connection: { tls } });
    try {
      const producer = new Producer(dave);
      const sent = await eventually(
        () => producer.send({ topic, partition: 0, value: 'from-dave' }).catch((e: Error) => e),
        (r) => !(r instanceof Error),
      );
      expect(sent).not.toBeInstanceOf(Error);
      await producer.close();
    } finally {
      await dave.close();
    }
    const records = await cluster.admin.consume(topic, { maxRecords: 1, timeoutMs: 10_000 });
    expect(records.map((r) => String(r.value))).toContain('from-dave');
  });

  const refused: [string, () => TlsOptions][] = [
    [
      'an expired certificate',
      () => {
        const c = issueClientCertificate(cluster.security!, {
          commonName: 'erin-expired',
          expired: true,
        });
        return { ca: ca(), cert: readFileSync(c.certPemPath), key: readFileSync(c.keyPemPath) };
      },
    ],
    [
      'a certificate from a CA the broker does not trust',
      () => {
        const c = issueClientCertificate(cluster.security!, {
          commonName: 'mallory',
          untrusted: true,
        });
        return { ca: ca(), cert: readFileSync(c.certPemPath), key: readFileSync(c.keyPemPath) };
      },
    ],
    ['no certificate at all', () => ({ ca: ca() })],
  ];
  for (const [what, make] of refused) {
    it(`fails fatally, typed, with ${what}`, async () => {
      const [host, port] = ssl().split(':') as [string, string];
      const proxy = await startFaultProxy({ target: { host, port: Number(port) } });
      try {
        const e = await failure(
          Cluster.connect(proxy.address, {
            connection: { tls: make() },
            retry: { operationTimeoutMs: 20_000 },
          }),
        );
        expect(e).toBeInstanceOf(AuthenticationError);
        expect(e).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_TLS', retriable: false });
        // A refusal ends the operation: the broker was dialled once, not until the deadline.
        expect(proxy.connectionsAccepted).toBe(1);
      } finally {
        await proxy.close();
      }
    });
  }

  it('a wrong PKCS#12 passphrase fails before anything is dialled, typed', async () => {
    const cert = issueClientCertificate(cluster.security!, { commonName: 'frank-mtls' });
    const e = await failure(
      Cluster.connect(ssl(), {
        connection: {
          tls: { ca: ca(), pfx: readFileSync(cert.p12Path), passphrase: 'not-it-3141' },
        },
      }),
    );
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_TLS', retriable: false });
    expect(e.message).toContain('the TLS settings cannot be used');
    expect(e.message).not.toContain('not-it-3141');
  });
});
