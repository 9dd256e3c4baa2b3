// `kafkats groups describe | reset-offsets | delete-offsets | delete` against the shared
// cluster, beside Kafka's own kafka-consumer-groups.sh (ConsumerGroupCommand) on the same
// group: the same reset plan for several modes, the same lag, and nothing changed without
// --execute or while the group has members.
import { Cluster, Consumer } from '@kafkats/client';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats, unique } from '../support/run-cli.js';

const GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand';
const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];
let cluster: Cluster;
let topic: string;
/** Record i of each partition has timestamp base + i s. */
const base = Date.UTC(2026, 0, 15, 8, 0, 0);
const PER_PARTITION = 10;

beforeAll(async () => {
  cluster = await Cluster.connect(shared.bootstrap);
  topic = unique('cli-groups');
  await shared.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
  await shared.admin.produce(
    topic,
    [0, 1, 2].flatMap((partition) =>
      Array.from({ length: PER_PARTITION }, (_, i) => ({
        value: `${partition}:${i}`,
        partition,
        timestamp: base + i * 1000,
      })),
    ),
  );
});
afterAll(async () => {
  await cluster?.close();
});

/**
 * A group with no members whose committed offsets are `offsets` (per partition of `topic`),
 * set with Kafka's own tool, so that the setup does not depend on the command under test.
 */
async function inactiveGroup(prefix: string, offsets: readonly bigint[]): Promise<string> {
  const group = unique(prefix);
  for (const [partition, offset] of offsets.entries()) {
    const set = await runKafkaTool(GROUP_COMMAND, [
      '--bootstrap-server',
      shared.bootstrap,
      '--reset-offsets',
      '--group',
      group,
      '--topic',
      `${topic}:${partition}`,
      '--to-offset',
      String(offset),
      '--execute',
    ]);
    expect(set.status, set.stderr).toBe(0);
  }
  return group;
}

/** Kafka's plan for the same reset: `topic-partition -> new offset`, from its dry run. */
async function kafkaPlan(group: string, mode: readonly string[]): Promise<Map<string, string>> {
  const out = await runKafkaTool(GROUP_COMMAND, [
    '--bootstrap-server',
    shared.bootstrap,
    '--reset-offsets',
    '--group',
    group,
    '--topic',
    topic,
    ...mode,
    '--dry-run',
  ]);
  expect(out.status, out.stderr).toBe(0);
  return rows(out.stdout, group, (c) => [`${c[1]}-${c[2]}`, c[3] ?? '']);
}

/** Our plan, from --json (`--from-file` names its partitions: no --topic then). */
async function ourPlan(group: string, mode: readonly string[]): Promise<Map<string, string>> {
  const scope = mode[0] === '--from-file' ? [] : ['--topic', topic];
  const r = await kafkats(['groups', 'reset-offsets', group, ...scope, ...mode, ...b(), '--json']);
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as {
    executed: boolean;
    plan: { topic: string; partition: number; newOffset: string }[];
  };
  expect(doc.executed).toBe(false);
  return new Map(doc.plan.map((p) => [`${p.topic}-${p.partition}`, p.newOffset]));
}

/** Table rows of ConsumerGroupCommand output whose first column is `group`. */
function rows(
  stdout: string,
  group: string,
  pick: (cols: string[]) => [string, string],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === group) {
      const [k, v] = pick(cols);
      out.set(k, v);
    }
  }
  return out;
}

/** Kafka's --describe: `topic-partition -> [CURRENT-OFFSET, LOG-END-OFFSET, LAG]`. */
async function kafkaDescribe(group: string): Promise<Map<string, string>> {
  const out = await runKafkaTool(GROUP_COMMAND, [
    '--bootstrap-server',
    shared.bootstrap,
    '--describe',
    '--group',
    group,
  ]);
  expect(out.status, out.stderr).toBe(0);
  return rows(out.stdout, group, (c) => [`${c[1]}-${c[2]}`, `${c[3]} ${c[4]} ${c[5]}`]);
}

describe('kafkats groups, beside kafka-consumer-groups.sh', () => {
  it('reset-offsets computes the same plan as Kafka for every mode, and changes nothing without --execute', async () => {
    const group = await inactiveGroup('cli-reset', [4n, 7n, 2n]);
    const modes: string[][] = [
      ['--to-earliest'],
      ['--to-latest'],
      ['--to-offset', '8'],
      ['--to-offset', '999'],
      ['--shift-by', '-3'],
      ['--shift-by', '5'],
      ['--to-datetime', new Date(base + 5500).toISOString().replace('Z', '+00:00')],
      ['--to-datetime', new Date(base + 60_000).toISOString()],
      // No zone: UTC, as Kafka reads it.
      ['--to-datetime', new Date(base + 2500).toISOString().slice(0, -1)],
      ['--to-current'],
      ['--by-duration', 'P3650D'],
    ];
    for (const mode of modes) {
      const [ours, kafka] = await Promise.all([ourPlan(group, mode), kafkaPlan(group, mode)]);
      expect([...ours].sort(), mode.join(' ')).toEqual([...kafka].sort());
    }
    // --from-file (Kafka's 3-column form for one group), an offset past the end clamped.
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'kafkats-reset-')), 'plan.csv');
    writeFileSync(file, `${topic},0,3\n${topic},1,50\n${topic},2,0\n`);
    const [fromFile, kafkaFromFile] = await Promise.all([
      ourPlan(group, ['--from-file', file]),
      kafkaPlan(group, ['--from-file', file]),
    ]);
    expect([...fromFile].sort()).toEqual([...kafkaFromFile].sort());
    expect([...fromFile.values()]).toEqual(['3', '10', '0']);
    // The datetime case is checked against what it should be, not only against Kafka.
    const at = await ourPlan(group, ['--to-datetime', new Date(base + 5500).toISOString()]);
    expect([...at.values()]).toEqual(['6', '6', '6']);
    // --read-only shows the plan and refuses the change (meta's gate), exit 6.
    const gated = await kafkats([
      'groups',
      'reset-offsets',
      group,
      '--topic',
      topic,
      '--to-earliest',
      '--execute',
      '--read-only',
      ...b(),
    ]);
    expect(gated.code).toBe(ExitCode.READ_ONLY);
    expect(gated.stdout).toMatch(/NEW-OFFSET/);
    // None of those runs moved anything.
    expect([...(await kafkaDescribe(group)).values()].map((v) => v.split(' ')[0])).toEqual([
      '4',
      '7',
      '2',
    ]);
  });

  it('reset-offsets --execute commits the plan; describe shows the lag Kafka shows', async () => {
    const group = await inactiveGroup('cli-exec', [1n, 1n, 1n]);
    const r = await kafkats([
      'groups',
      'reset-offsets',
      group,
      '--topic',
      `${topic}:0,2`,
      '--to-offset',
      '6',
      '--execute',
      ...b(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/GROUP\s+TOPIC\s+PARTITION\s+NEW-OFFSET/);
    const kafka = await kafkaDescribe(group);
    expect(kafka.get(`${topic}-0`)).toBe(`6 ${PER_PARTITION} ${PER_PARTITION - 6}`);
    expect(kafka.get(`${topic}-1`)).toBe(`1 ${PER_PARTITION} ${PER_PARTITION - 1}`);
    expect(kafka.get(`${topic}-2`)).toBe(`6 ${PER_PARTITION} ${PER_PARTITION - 6}`);

    const ours = await kafkats(['groups', 'describe', group, ...b(), '--json']);
    expect(ours.code, ours.stderr).toBe(0);
    const doc = JSON.parse(ours.stdout) as {
      groups: {
        offsets: {
          topic: string;
          partition: number;
          currentOffset: string;
          logEndOffset: string;
          lag: string;
        }[];
      }[];
    };
    const mine = new Map(
      doc.groups[0]?.offsets.map((o) => [
        `${o.topic}-${o.partition}`,
        `${o.currentOffset} ${o.logEndOffset} ${o.lag}`,
      ]),
    );
    expect(mine).toEqual(kafka);
    const human = await kafkats(['groups', 'describe', group, ...b()]);
    expect(human.stdout).toMatch(/CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG/);
  });

  it('refuses to reset a group with members, as Kafka does, and nothing changes', async () => {
    const group = await inactiveGroup('cli-active', [3n, 3n, 3n]);
    const consumer = new Consumer(cluster, {
      groupId: group,
      groupProtocol: 'classic',
      topics: [topic],
      enableAutoCommit: false,
    });
    try {
      await consumer.start();
      const r = await kafkats([
        'groups',
        'reset-offsets',
        group,
        '--all-topics',
        '--to-earliest',
        '--execute',
        ...b(),
      ]);
      expect(r.code).toBe(ExitCode.USAGE);
      expect(r.stderr).toMatch(/can only be reset while it is inactive, but its state is \w+/);
      const described = await kafkats(['groups', 'describe', group, ...b()]);
      expect(described.stdout).toMatch(/CONSUMER-ID\s+GROUP-INSTANCE-ID\s+HOST/);
    } finally {
      await consumer.close();
    }
    expect([...(await kafkaDescribe(group)).values()].map((v) => v.split(' ')[0])).toEqual([
      '3',
      '3',
      '3',
    ]);
  });

  it('delete-offsets and delete: a dry run changes nothing; --execute does what Kafka then sees', async () => {
    const group = await inactiveGroup('cli-delete', [2n, 2n, 2n]);
    const dry = await kafkats([
      'groups',
      'delete-offsets',
      group,
      '--topic',
      `${topic}:1`,
      '--dry-run',
      '--execute',
      ...b(),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('dry run: nothing changed');
    expect((await kafkaDescribe(group)).size).toBe(3);

    const del = await kafkats([
      'groups',
      'delete-offsets',
      group,
      '--topic',
      `${topic}:1`,
      '--execute',
      ...b(),
    ]);
    expect(del.code, del.stderr).toBe(0);
    expect([...(await kafkaDescribe(group)).keys()].sort()).toEqual([`${topic}-0`, `${topic}-2`]);

    const notYet = await kafkats(['groups', 'delete', group, ...b()]);
    expect(notYet.code).toBe(0);
    expect(notYet.stderr).toContain('nothing changed: add --execute');
    const gone = await kafkats(['groups', 'delete', group, '--execute', ...b(), '--json']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)).toMatchObject({
      executed: true,
      groups: [{ group, deleted: true }],
    });
    const listed = await runKafkaTool(GROUP_COMMAND, [
      '--bootstrap-server',
      shared.bootstrap,
      '--list',
    ]);
    expect(listed.stdout.split('\n')).not.toContain(group);
  });
});
