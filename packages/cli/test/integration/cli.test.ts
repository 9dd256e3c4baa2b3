// The built `kafkats` binary as a child process against the shared 3-node cluster: human and
// --json output of every command, a produce-then-consume round trip checked by Kafka's own
// consumer, and the exit codes of the failures a person meets first (unknown topic,
// unreachable bootstrap, --read-only, a wrong password).
import { randomBytes } from 'node:crypto';
import { Admin, Cluster, Consumer } from '@kafkats/client';
import {
  KafkaMetadataEventLog,
  RemoteLogMetadataManager,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  type TopicIdPartition,
} from '@kafkats/remote-log-metadata';
import { runKafkaTool, sharedCluster, startOAuthServer } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { jsonLines, kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];
let topic: string;

beforeAll(async () => {
  topic = unique('cli');
  await shared.admin.createTopic(topic, {
    partitions: 3,
    replicationFactor: 3,
    configs: { 'retention.ms': '3600000' },
  });
});

describe('kafkats against a real cluster', () => {
  it('cluster: id, controller, every broker with its address and API count, metadata age', async () => {
    const human = await kafkats(['cluster', ...b()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(shared.clusterId);
    expect(human.stdout).toMatch(/metadata\s+as of \d+(\.\d)? (ms|s) ago/);
    for (const broker of shared.brokers)
      expect(human.stdout).toContain(`${broker.host}:${broker.port}`);
    expect(human.stdout).not.toContain('\x1b');

    const json = await kafkats(['cluster', ...b(), '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.clusterId).toBe(shared.clusterId);
    expect(doc.brokers.map((x: { nodeId: number }) => x.nodeId)).toEqual([1, 2, 3]);
    expect(doc.brokers[0].apiCount).toBeGreaterThan(50);
    expect(doc.brokers[0].features['metadata.version']).toBeGreaterThan(0);
    expect(typeof doc.metadataAgeMs).toBe('number');
  });

  it('topics and topic NAME: partitions, leaders, ISR and the configs set on the topic', async () => {
    const list = await kafkats(['topics', ...b(), '--json']);
    expect(list.code).toBe(0);
    const entry = JSON.parse(list.stdout).topics.find((t: { name: string }) => t.name === topic);
    expect(entry).toMatchObject({
      name: topic,
      partitions: 3,
      replicationFactor: 3,
      offline: 0,
      internal: false,
    });
    expect((await kafkats(['topics', ...b()])).stdout).toMatch(
      new RegExp(`${topic}\\s+3\\s+3\\s+0\\s+0`),
    );

    const java = await shared.admin.describeTopic(topic);
    const one = await kafkats(['topic', topic, ...b(), '--json']);
    expect(one.code).toBe(0);
    const doc = JSON.parse(one.stdout);
    expect(doc.topicId).toBe(java.topicId);
    expect(
      doc.partitions.map((p: { partition: number; leader: number }) => [p.partition, p.leader]),
    ).toEqual(java.partitions.map((p) => [p.partition, p.leader]));
    expect(doc.partitions[0].isr).toHaveLength(3);
    expect(doc.configs).toContainEqual({
      name: 'retention.ms',
      value: '3600000',
      source: 'DYNAMIC_TOPIC_CONFIG',
      sensitive: false,
    });
    const human = await kafkats(['topic', topic, ...b()]);
    expect(human.stdout).toMatch(/PARTITION\s+LEADER\s+EPOCH\s+REPLICAS\s+ISR\s+OFFLINE/);
    expect(human.stdout).toMatch(/retention\.ms\s+3600000\s+DYNAMIC_TOPIC_CONFIG/);
  });

  it('api-versions: per broker, the broker range, ours and the version used', async () => {
    const json = await kafkats(['api-versions', ...b(), '--json']);
    expect(json.code).toBe(0);
    const brokers = JSON.parse(json.stdout).brokers;
    expect(brokers).toHaveLength(3);
    const metadata = brokers[0].apis.find((a: { name: string }) => a.name === 'Metadata');
    expect(metadata.negotiated).toBe(Math.min(metadata.broker.max, metadata.client.max));
    const human = await kafkats(['api-versions', ...b()]);
    expect(human.stdout).toMatch(/broker 1 \(/);
    expect(human.stdout).toMatch(/\n3\s+Metadata\s+\d+-\d+\s+\d+-\d+\s+v\d+\n/);
  });

  it('produce then consume: lines and JSON with keys, headers and partitions, as Kafka reads them', async () => {
    const lines = await kafkats(
      ['produce', topic, ...b(), '--key', 'k1', '-H', 'source=test', '--partition', '1'],
      { input: 'one\ntwo\n\nthree\n' },
    );
    expect(lines.code).toBe(0);
    expect(lines.stdout).toContain(`produced 3 records to ${topic}`);
    const json = await kafkats(['produce', topic, ...b(), '--format', 'json', '--json'], {
      input: `${JSON.stringify({ key: 'k2', value: { n: 1 }, headers: { h: 'v' }, partition: 2 })}\n${JSON.stringify({ value: 'bare', partition: 2 })}\n`,
    });
    expect(json.code).toBe(0);
    const produced = JSON.parse(json.stdout);
    expect(produced).toMatchObject({ topic, count: 2 });
    expect(
      produced.records.map((r: { partition: number; offset: string }) => [r.partition, r.offset]),
    ).toEqual([
      [2, '0'],
      [2, '1'],
    ]);

    // Kafka's own consumer sees what we wrote.
    const seen = await shared.admin.consume(topic, {
      partition: 1,
      maxRecords: 3,
      timeoutMs: 30_000,
    });
    expect(
      seen.map((r) => [
        r.key?.toString(),
        r.value?.toString(),
        r.headers[0]?.key,
        r.headers[0]?.value?.toString(),
      ]),
    ).toEqual([
      ['k1', 'one', 'source', 'test'],
      ['k1', 'two', 'source', 'test'],
      ['k1', 'three', 'source', 'test'],
    ]);

    const consumed = await kafkats(['consume', topic, ...b(), '--json']);
    expect(consumed.code).toBe(0);
    const records = jsonLines(consumed) as {
      partition: number;
      offset: string;
      key: string | null;
      value: string;
      headers: unknown[];
    }[];
    expect(records).toHaveLength(5);
    expect(records.filter((r) => r.partition === 2)).toEqual([
      expect.objectContaining({
        topic,
        partition: 2,
        offset: '0',
        key: 'k2',
        value: '{"n":1}',
        headers: [{ key: 'h', value: 'v' }],
      }),
      expect.objectContaining({ partition: 2, offset: '1', key: null, value: 'bare', headers: [] }),
    ]);
    const base64 = await kafkats([
      'consume',
      topic,
      ...b(),
      '--json',
      '--partition',
      '2',
      '--encoding',
      'base64',
      '--count',
      '1',
    ]);
    expect(jsonLines(base64)).toEqual([
      expect.objectContaining({
        key: Buffer.from('k2').toString('base64'),
        value: Buffer.from('{"n":1}').toString('base64'),
      }),
    ]);

    const human = await kafkats(['consume', topic, ...b(), '--partition', '1', '--from', '1']);
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^1@1 \S+Z k1 two \[source=test\]$/),
      expect.stringMatching(/^1@2 \S+Z k1 three \[source=test\]$/),
    ]);
    expect(human.stderr).toContain(`2 records from ${topic}`);

    const offsets = await kafkats(['offsets', topic, ...b(), '--json']);
    expect(JSON.parse(offsets.stdout).partitions.map((p: { latest: string }) => p.latest)).toEqual([
      '0',
      '3',
      '2',
    ]);
    expect((await kafkats(['offsets', topic, ...b()])).stdout).toMatch(
      /\n1\s+0\s+3\s+3\s+\S+Z @\d\n/,
    );
  });

  it('consume --follow returns records written after it started, and stops at --count', async () => {
    const t = unique('cli-follow');
    await shared.admin.createTopic(t, { partitions: 1, replicationFactor: 3 });
    const follower = kafkats([
      'consume',
      t,
      ...b(),
      '--from',
      'latest',
      '--follow',
      '--count',
      '2',
      '--json',
    ]);
    // Records keep coming until the follower has two; it may start after the first ones.
    let done = false;
    void follower.then(() => {
      done = true;
    });
    for (let i = 0; !done && i < 60; i++) {
      await kafkats(['produce', t, ...b(), '--value', `v${i}`]);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const run = await follower;
    expect(run.code).toBe(0);
    expect(jsonLines(run)).toHaveLength(2);
  });

  it('groups: lists a group Kafka made and describes it', async () => {
    const group = unique('cli-group');
    await shared.admin.produce(topic, [{ value: Buffer.from('g'), partition: 0 }]);
    const made = await runKafkaTool(
      'org.apache.kafka.tools.consumer.ConsoleConsumer',
      [
        '--bootstrap-server',
        shared.bootstrap,
        '--topic',
        topic,
        '--group',
        group,
        '--from-beginning',
        '--max-messages',
        '1',
      ],
      { timeoutMs: 120_000 },
    );
    expect(made.status).toBe(0);
    const json = await kafkats(['groups', ...b(), '--json']);
    expect(json.code).toBe(0);
    const g = JSON.parse(json.stdout).groups.find((x: { groupId: string }) => x.groupId === group);
    expect(g).toMatchObject({ groupId: group, state: 'Empty', members: [], error: null });
    const human = await kafkats(['groups', group, ...b()]);
    expect(human.stdout).toMatch(new RegExp(`${group}\\s+\\S+\\s+Empty`));
  });

  it('groups GROUP: describes a live KIP-848 group (ConsumerGroupDescribe), its member and partitions', async () => {
    const group = unique('cli-848');
    const cluster = await Cluster.connect(shared.bootstrap);
    const consumer = new Consumer(cluster, { groupId: group, topics: [topic] });
    try {
      await consumer.start();
      expect(consumer.assignment()).toHaveLength(3);
      const json = await kafkats(['groups', group, ...b(), '--json']);
      expect(json.code).toBe(0);
      const [g] = JSON.parse(json.stdout).groups;
      expect(g).toMatchObject({
        groupId: group,
        type: 'consumer',
        state: 'Stable',
        protocolType: 'consumer',
        error: null,
      });
      expect(g.members).toHaveLength(1);
      expect(g.members[0].memberId).toBe(consumer.groupMetadata().memberId);
      expect(g.members[0].partitions).toHaveLength(3);
      const human = await kafkats(['groups', group, ...b()]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(new RegExp(`${group}\\s+consumer\\s+Stable\\s+\\S+\\s+1\\s+3`));
    } finally {
      await consumer.close();
      await cluster.close();
    }
  });

  it('exits 4 for an unknown topic, naming it, from every command that takes one', async () => {
    for (const argv of [
      ['topic', 'no-such-topic'],
      ['offsets', 'no-such-topic'],
      ['consume', 'no-such-topic'],
      ['produce', 'no-such-topic', '--value', 'x'],
    ]) {
      const r = await kafkats([...argv, ...b()]);
      expect(r.code, argv.join(' ')).toBe(ExitCode.NOT_FOUND);
      expect(r.stderr).toContain('topic no-such-topic does not exist (UNKNOWN_TOPIC_OR_PARTITION)');
      expect(r.stderr).not.toContain('    at ');
    }
    const json = await kafkats(['topic', 'no-such-topic', ...b(), '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      exitCode: 4,
      code: 'ERR_KAFKA_CLI_NOT_FOUND',
    });
  });

  it('exits 2 for an unreachable bootstrap, listing what was tried in IPv4 and IPv6', async () => {
    const r = await kafkats(['cluster', '--bootstrap', 'localhost:1', '--timeout', '5000']);
    expect(r.code).toBe(ExitCode.CONNECTION);
    expect(r.stderr).toContain('error: cannot reach the cluster');
    expect(r.stderr).toContain('tried localhost:1');
    expect(r.stderr).toMatch(/localhost:1: IPv4 \S+; IPv6 \S+/);
    expect(r.stderr).not.toContain('    at ');
  });

  it('--read-only refuses produce and create-topic with exit 6 and a clear message, and still reads', async () => {
    const produce = await kafkats(['produce', topic, ...b(), '--read-only'], { input: 'never\n' });
    expect(produce.code).toBe(ExitCode.READ_ONLY);
    expect(produce.stderr).toContain(
      `error: refused by --read-only: producing to ${topic} writes to the cluster`,
    );
    const create = await kafkats(['create-topic', unique('cli-ro'), ...b(), '--read-only']);
    expect(create.code).toBe(ExitCode.READ_ONLY);
    expect(create.stderr).toContain('CreateTopics (key 19) changes the cluster');
    expect((await kafkats(['topic', topic, ...b(), '--read-only'])).code).toBe(0);
    const offsets = await kafkats(['offsets', topic, ...b(), '--read-only', '--json']);
    expect(JSON.parse(offsets.stdout).partitions[1].latest).toBe('3');
  });

  it('speaks SASL_SSL with SCRAM, and exits 3 with the broker reason for a wrong password', async () => {
    const security = shared.security!;
    const user = security.users[1]!;
    const sasl = [
      '--bootstrap',
      shared.listeners.SASL_SSL!,
      '--tls-ca',
      security.caPemPath,
      '--sasl-mechanism',
      'SCRAM-SHA-256',
      '--sasl-username',
      user.username,
    ];
    const ok = await kafkats(['cluster', ...sasl, '--json'], {
      env: { KAFKATS_SASL_PASSWORD: user.password },
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).clusterId).toBe(shared.clusterId);
    const bad = await kafkats(['cluster', ...sasl], { env: { KAFKATS_SASL_PASSWORD: 'wrong' } });
    expect(bad.code).toBe(ExitCode.AUTHENTICATION);
    expect(bad.stderr).toContain('error: authentication failed');
    expect(bad.stderr).toContain('invalid credentials');
  });

  it('speaks SASL OAUTHBEARER with a token endpoint, and exits 3 when the endpoint refuses the client', async () => {
    const oauth = shared.security!.oauth!;
    const server = await startOAuthServer(oauth, [
      { clientId: 'cli', clientSecret: 'cli-secret-5' },
    ]);
    try {
      const sasl = [
        '--bootstrap',
        shared.listeners.SASL_PLAINTEXT!,
        '--sasl-mechanism',
        'OAUTHBEARER',
        '--sasl-token-endpoint',
        server.tokenEndpointUrl,
        '--sasl-client-id',
        'cli',
      ];
      const ok = await kafkats(['cluster', ...sasl, '--json'], {
        env: { KAFKATS_SASL_CLIENT_SECRET: 'cli-secret-5' },
      });
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout).clusterId).toBe(shared.clusterId);
      expect(server.issued.get('cli')).toBe(1);
      const bad = await kafkats(['cluster', ...sasl], {
        env: { KAFKATS_SASL_CLIENT_SECRET: 'not-it' },
      });
      expect(bad.code).toBe(ExitCode.AUTHENTICATION);
      expect(bad.stderr).toContain('HTTP 401: invalid_client');
    } finally {
      await server.close();
    }
  });
});

describe('kafkats rlmm on a metadata topic of its own', () => {
  const metadataTopic = unique('cli-rlmm');
  let log: KafkaMetadataEventLog;
  let tp: TopicIdPartition;
  const segmentIds = [randomBytes(16).toString('base64url'), randomBytes(16).toString('base64url')];

  beforeAll(async () => {
    const userTopic = unique('cli-tiered');
    await shared.admin.createTopic(userTopic, { partitions: 1, replicationFactor: 3 });
    const admin = await Admin.connect(shared.bootstrap);
    // Every broker knows the topic first: one that does not yet answers the zero topic id.
    await admin.waitForTopics([{ name: userTopic, partitions: 1 }]);
    const [d] = (await admin.describeTopics([userTopic])).topics;
    await admin.close();
    expect(d?.error).toBeUndefined();
    tp = { topicId: d!.topicId, topic: userTopic, partition: 0 };
    log = await KafkaMetadataEventLog.start({
      bootstrap: shared.bootstrap,
      topic: metadataTopic,
      numPartitions: 4,
    });
    const manager = new RemoteLogMetadataManager(log);
    await manager.onPartitionLeadershipChanges([tp]);
    await manager.waitUntilReady([tp]);
    for (const [i, id] of segmentIds.entries()) {
      await manager.addRemoteLogSegmentMetadata(
        remoteLogSegmentMetadata({
          remoteLogSegmentId: { topicIdPartition: tp, id },
          startOffset: BigInt(i * 100),
          endOffset: BigInt(i * 100 + 99),
          brokerId: 2,
          maxTimestampMs: 1_700_000_000_000n,
          eventTimestampMs: 1_700_000_000_000n,
          segmentLeaderEpochs: [{ epoch: 0, startOffset: BigInt(i * 100) }],
          segmentSizeInBytes: 1000,
        }),
      );
    }
    await manager.updateRemoteLogSegmentMetadata(
      remoteLogSegmentMetadataUpdate({
        remoteLogSegmentId: { topicIdPartition: tp, id: segmentIds[0]! },
        eventTimestampMs: 1_700_000_000_001n,
        state: 'COPY_SEGMENT_FINISHED',
        brokerId: 2,
      }),
    );
    await manager.close();
  });
  afterAll(async () => {
    await log?.close();
  });

  it('rlmm segments: the table the manager materialises', async () => {
    const json = await kafkats([
      'rlmm',
      'segments',
      tp.topic,
      '0',
      ...b(),
      '--metadata-topic',
      metadataTopic,
      '--json',
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.topicIdPartition).toEqual(tp);
    expect(
      doc.segments.map((s: { segmentId: string; state: string; startOffset: string }) => [
        s.segmentId,
        s.state,
        s.startOffset,
      ]),
    ).toEqual([
      [segmentIds[0], 'COPY_SEGMENT_FINISHED', '0'],
      [segmentIds[1], 'COPY_SEGMENT_STARTED', '100'],
    ]);
    const human = await kafkats([
      'rlmm',
      'segments',
      tp.topic,
      '0',
      ...b(),
      '--metadata-topic',
      metadataTopic,
    ]);
    expect(human.stdout).toMatch(
      new RegExp(`${segmentIds[0]}\\s+COPY_SEGMENT_FINISHED\\s+0-99\\s+0@0\\s+1000\\s+2`),
    );
  });

  it('rlmm status: end offsets, what the manager read, no lag', async () => {
    const json = await kafkats([
      'rlmm',
      'status',
      ...b(),
      '--metadata-topic',
      metadataTopic,
      '--json',
      '--read-only',
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ topic: metadataTopic, partitions: 4, ready: true });
    expect(doc.nonEmpty).toEqual([
      expect.objectContaining({
        endOffset: '3',
        readOffset: '3',
        lag: '0',
        events: { segment: 2, 'segment-update': 1, 'partition-delete': 0 },
        badRecords: 0,
      }),
    ]);
    const human = await kafkats(['rlmm', 'status', ...b(), '--metadata-topic', metadataTopic]);
    expect(human.stdout).toMatch(/\n\d+\s+3\s+3\s+0\s+2\s+1\s+0\s+0\s+\S+\n/);
  });

  it('rlmm tail: decoded events, one JSON document per line', async () => {
    const json = await kafkats([
      'rlmm',
      'tail',
      ...b(),
      '--metadata-topic',
      metadataTopic,
      '--from-beginning',
      '--count',
      '3',
      '--json',
    ]);
    expect(json.code).toBe(0);
    const events = jsonLines(json) as {
      offset: string;
      event: { kind: string; segmentId: string };
    }[];
    expect(events.map((e) => [e.offset, e.event.kind, e.event.segmentId])).toEqual([
      ['0', 'segment', segmentIds[0]],
      ['1', 'segment', segmentIds[1]],
      ['2', 'segment-update', segmentIds[0]],
    ]);
    const human = await kafkats([
      'rlmm',
      'tail',
      ...b(),
      '--metadata-topic',
      metadataTopic,
      '--from-beginning',
      '--count',
      '1',
    ]);
    expect(human.stdout).toMatch(/@0 \S+Z segment \S+ \S+ COPY_SEGMENT_STARTED offsets 0-99/);
  });

  it('rlmm status exits 4 when the metadata topic does not exist', async () => {
    const r = await kafkats([
      'rlmm',
      'status',
      ...b(),
      '--metadata-topic',
      'no-such-metadata-topic',
    ]);
    expect(r.code).toBe(ExitCode.NOT_FOUND);
    expect(r.stderr).toContain(
      'the tiered-storage metadata topic no-such-metadata-topic does not exist',
    );
  });
});
