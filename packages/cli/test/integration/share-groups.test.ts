// `kafkats share-groups list | describe | reset-offsets | delete` against the shared cluster,
// beside Kafka's own kafka-share-groups.sh (ShareGroupCommand) on the same share group: the
// same groups and states, the same start offsets, the same reset plan, and nothing changed
// without --execute. The group is made by ShareGroupCommand itself (a reset of a group that
// does not exist creates it, KIP-932), so the setup does not depend on the command under test.
import { kafkaVersionAtLeast, runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats, unique } from '../support/run-cli.js';

const SHARE_GROUP_COMMAND = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const shared = sharedCluster();
const SHARE_GROUPS = kafkaVersionAtLeast(shared.description.kafkaVersion, '4.1');
const b = () => ['--bootstrap', shared.bootstrap];
const PER_PARTITION = 6;
let topic: string;

beforeAll(async () => {
  topic = unique('cli-share');
  await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
  await shared.admin.produce(
    topic,
    Array.from({ length: 2 * PER_PARTITION }, (_, i) => ({ partition: i % 2, value: `v${i}` })),
  );
});

async function kafkaTool(args: readonly string[]) {
  const out = await runKafkaTool(SHARE_GROUP_COMMAND, [
    '--bootstrap-server',
    shared.bootstrap,
    ...args,
  ]);
  expect(out.status, out.stdout + out.stderr).toBe(0);
  return out.stdout;
}

/** Whitespace-split rows of ShareGroupCommand output whose first column is `group`. */
const rows = (stdout: string, group: string) =>
  stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c[0] === group);

/** An empty share group with start offset `offset` on every partition of `topic`, set by Kafka's tool. */
async function emptyGroup(prefix: string, offset: number): Promise<string> {
  const group = unique(prefix);
  await kafkaTool([
    '--reset-offsets',
    '--group',
    group,
    '--topic',
    topic,
    '--to-offset',
    String(offset),
    '--execute',
  ]);
  return group;
}

describe('kafkats share-groups, beside kafka-share-groups.sh', () => {
  it('lists and describes a share group as Kafka does', async () => {
    if (!SHARE_GROUPS) {
      // Kafka before 4.1: the typed refusal, before anything is sent.
      const r = await kafkats(['share-groups', 'list', ...b()]);
      expect(r.code).not.toBe(ExitCode.OK);
      expect(r.stderr).toContain('share.version');
      return;
    }
    const group = await emptyGroup('cli-share-d', 2);
    const listed = await kafkats(['share-groups', 'list', ...b(), '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const doc = JSON.parse(listed.stdout) as { groups: { groupId: string; state: string }[] };
    expect(doc.groups).toContainEqual({ groupId: group, state: 'Empty' });
    expect(rows(await kafkaTool(['--list', '--state']), group)).toEqual([[group, 'Empty']]);

    const described = await kafkats([
      'share-groups',
      'describe',
      '--group',
      group,
      ...b(),
      '--json',
    ]);
    expect(described.code, described.stderr).toBe(0);
    const [g] = (
      JSON.parse(described.stdout) as {
        groups: {
          state: string;
          coordinator: string;
          members: unknown[];
          offsets: {
            topic: string;
            partition: number;
            leaderEpoch: number | null;
            startOffset: string | null;
            lag: string | null;
          }[];
        }[];
      }
    ).groups;
    expect(g?.state).toBe('Empty');
    expect(g?.members).toEqual([]);
    // GROUP TOPIC PARTITION LEADER-EPOCH START-OFFSET LAG
    const javaOffsets = rows(await kafkaTool(['--describe', '--group', group, '--verbose']), group);
    expect(
      g?.offsets.map((r) => [
        group,
        r.topic,
        String(r.partition),
        r.leaderEpoch === null ? '-' : String(r.leaderEpoch),
        r.startOffset ?? '-',
        r.lag ?? '-',
      ]),
    ).toEqual(javaOffsets);
    expect(g?.offsets.map((r) => r.startOffset)).toEqual(['2', '2']);
    // GROUP COORDINATOR (ID) STATE GROUP-EPOCH ASSIGNMENT-EPOCH #MEMBERS
    const [state] = rows(
      await kafkaTool(['--describe', '--group', group, '--state', '--verbose']),
      group,
    );
    expect(`${state?.[1]} ${state?.[2]}`).toBe(g?.coordinator);

    // The human table has Kafka's columns.
    const human = await kafkats(['share-groups', 'describe', '--group', group, ...b()]);
    expect(human.stdout).toMatch(/GROUP\s+TOPIC\s+PARTITION\s+LEADER-EPOCH\s+START-OFFSET\s+LAG/);
  });

  it('reset-offsets plans as Kafka does for each mode, and sets the offsets only with --execute', async () => {
    if (!SHARE_GROUPS) {
      const r = await kafkats([
        'share-groups',
        'reset-offsets',
        '--group',
        'g',
        '--topic',
        topic,
        '--to-earliest',
        ...b(),
      ]);
      expect(r.code).not.toBe(ExitCode.OK);
      expect(r.stderr).toContain('share.version');
      return;
    }
    const group = await emptyGroup('cli-share-r', 1);
    for (const mode of [
      ['--to-earliest'],
      ['--to-latest'],
      ['--to-offset', '4'],
      ['--to-offset', '99'],
    ]) {
      const ours = await kafkats([
        'share-groups',
        'reset-offsets',
        '--group',
        group,
        '--topic',
        topic,
        ...mode,
        ...b(),
        '--json',
      ]);
      expect(ours.code, ours.stderr).toBe(0);
      const doc = JSON.parse(ours.stdout) as {
        executed: boolean;
        plan: { topic: string; partition: number; newOffset: string }[];
      };
      expect(doc.executed).toBe(false);
      // GROUP TOPIC PARTITION NEW-OFFSET, in Kafka's hash order: sorted here.
      const theirs = rows(
        await kafkaTool([
          '--reset-offsets',
          '--group',
          group,
          '--topic',
          topic,
          ...mode,
          '--dry-run',
        ]),
        group,
      ).sort((x, y) => Number(x[2]) - Number(y[2]));
      expect(
        doc.plan.map((p) => [group, p.topic, String(p.partition), p.newOffset]),
        mode.join(' '),
      ).toEqual(theirs);
    }
    // Nothing changed so far.
    const before = rows(await kafkaTool(['--describe', '--group', group]), group);
    expect(before.map((c) => c[3])).toEqual(['1', '1']);

    const done = await kafkats([
      'share-groups',
      'reset-offsets',
      '--group',
      group,
      '--topic',
      `${topic}:1`,
      '--to-offset',
      '5',
      '--execute',
      ...b(),
    ]);
    expect(done.code, done.stderr).toBe(0);
    const after = rows(await kafkaTool(['--describe', '--group', group]), group);
    expect(after.map((c) => [c[2], c[3]])).toEqual([
      ['0', '1'],
      ['1', '5'],
    ]);
  });

  it('delete refuses what is not a share group, and deletes an empty one only with --execute', async () => {
    if (!SHARE_GROUPS) {
      const r = await kafkats(['share-groups', 'delete', '--group', 'g', ...b()]);
      expect(r.code).not.toBe(ExitCode.OK);
      return;
    }
    const nobody = await kafkats(['share-groups', 'delete', '--group', unique('nobody'), ...b()]);
    expect(nobody.code).toBe(ExitCode.NOT_FOUND);
    expect(nobody.stderr).toContain('is not a share group');

    const group = await emptyGroup('cli-share-x', 0);
    const dry = await kafkats(['share-groups', 'delete', '--group', group, ...b()]);
    expect(dry.code, dry.stderr).toBe(0);
    expect((await kafkaTool(['--list'])).split('\n')).toContain(group);

    const done = await kafkats(['share-groups', 'delete', '--group', group, '--execute', ...b()]);
    expect(done.code, done.stderr).toBe(0);
    expect((await kafkaTool(['--list'])).split('\n')).not.toContain(group);
  });
});
