// `kafkats topic delete | add-partitions` and `kafkats configs` against the shared cluster,
// each result read back through Kafka's Java Admin: nothing changes without --execute or with
// --dry-run, and what --execute changes is what Kafka then reports.
import { sharedCluster } from '@kafkats/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];
let topic: string;

beforeAll(async () => {
  topic = unique('cli-topic-admin');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
});

describe('kafkats topic and configs commands, read back by Kafka', () => {
  it('topic add-partitions: the plan, then the new count with --execute; never fewer', async () => {
    const plan = await kafkats(['topic', 'add-partitions', topic, '--count', '4', ...b()]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(new RegExp(`${topic}\\s+2\\s+4`));
    expect((await shared.admin.describeTopic(topic)).partitions).toHaveLength(2);

    const done = await kafkats([
      'topic',
      'add-partitions',
      topic,
      '--count',
      '4',
      '--execute',
      ...b(),
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({
      partitions: 2,
      newPartitions: 4,
      executed: true,
    });
    expect((await shared.admin.describeTopic(topic)).partitions).toHaveLength(4);

    const fewer = await kafkats([
      'topic',
      'add-partitions',
      topic,
      '--count',
      '3',
      '--execute',
      ...b(),
    ]);
    expect(fewer.code).toBe(ExitCode.USAGE);
    expect(fewer.stderr).toContain('Kafka cannot remove partitions');
  });

  it('configs topic: lists what is set, sets and resets with --execute, as kafka-configs.sh sees it', async () => {
    const before = (await shared.admin.describeConfigs('topic', topic))['retention.ms'];
    const plan = await kafkats([
      'configs',
      'topic',
      topic,
      '--set',
      'retention.ms=7200000',
      ...b(),
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(new RegExp(`retention\\.ms\\s+${before}\\s+\\w+\\s+7200000`));
    expect((await shared.admin.describeConfigs('topic', topic))['retention.ms']).toBe(before);

    const set = await kafkats([
      'configs',
      'topic',
      topic,
      '--set',
      'retention.ms=7200000',
      '--set',
      'cleanup.policy=compact,delete',
      '--execute',
      ...b(),
    ]);
    expect(set.code, set.stderr).toBe(0);
    const java = await shared.admin.describeConfigs('topic', topic);
    expect(java['retention.ms']).toBe('7200000');
    expect(java['cleanup.policy']).toBe('compact,delete');

    const listed = await kafkats(['configs', 'topic', topic, ...b(), '--json']);
    expect(JSON.parse(listed.stdout).configs).toEqual(
      expect.arrayContaining([
        { name: 'retention.ms', value: '7200000', source: 'DYNAMIC_TOPIC_CONFIG' },
      ]),
    );

    const reset = await kafkats([
      'configs',
      'topic',
      topic,
      '--delete',
      'retention.ms',
      '--execute',
      ...b(),
    ]);
    expect(reset.code, reset.stderr).toBe(0);
    expect((await shared.admin.describeConfigs('topic', topic))['retention.ms']).toBe(before);

    const unknown = await kafkats([
      'configs',
      'topic',
      topic,
      '--set',
      'no.such.config=1',
      '--execute',
      ...b(),
    ]);
    expect(unknown.code).toBe(ExitCode.USAGE);
    expect(unknown.stderr).toContain('has no config no.such.config');
  });

  it('configs broker: a per-broker dynamic config set and reset on broker 1', async () => {
    const name = 'log.cleaner.backoff.ms';
    // In KRaft the controller takes the change and broker 1 applies it when it replays the
    // metadata record: its DescribeConfigs answer shows it a moment later, so read until it does.
    const brokerValue = async (wanted: string | undefined) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const value = (await shared.admin.describeConfigs('broker', '1'))[name];
        if (value === wanted || Date.now() > deadline) return value;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const before = (await shared.admin.describeConfigs('broker', '1'))[name];
    const target = before === '16000' ? '17000' : '16000';
    try {
      const set = await kafkats([
        'configs',
        'broker',
        '1',
        '--set',
        `${name}=${target}`,
        '--execute',
        '--yes',
        ...b(),
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(await brokerValue(target)).toBe(target);
    } finally {
      const reset = await kafkats([
        'configs',
        'broker',
        '1',
        '--delete',
        name,
        '--execute',
        ...b(),
      ]);
      expect(reset.code, reset.stderr).toBe(0);
    }
    expect(await brokerValue('15000')).toBe('15000');
  });

  it('topic delete: a dry run keeps the topic; --execute deletes it', async () => {
    const doomed = unique('cli-doomed');
    await shared.admin.createTopic(doomed, { partitions: 1, replicationFactor: 3 });
    const dry = await kafkats(['topic', 'delete', doomed, '--execute', '--dry-run', ...b()]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(doomed);
    expect(await shared.admin.listTopics()).toContain(doomed);

    const gone = await kafkats(['topic', 'delete', doomed, '--execute', ...b()]);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stderr).toContain(`deleted topic ${doomed}`);
    expect(await shared.admin.listTopics()).not.toContain(doomed);

    const missing = await kafkats(['topic', 'delete', doomed, '--execute', ...b()]);
    expect(missing.code).toBe(ExitCode.NOT_FOUND);
  });
});
