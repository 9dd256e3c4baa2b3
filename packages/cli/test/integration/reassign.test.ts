// `kafkats reassign` on the shared 3-node cluster: a move started by us from a plan file in
// Kafka's reassignment JSON completes, and kafka-reassign-partitions.sh --verify says so too;
// a plan that is not started changes nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];

describe('kafkats reassign, beside kafka-reassign-partitions.sh', () => {
  it('moves a partition to the plan’s replicas; Kafka’s --verify reports it complete', async () => {
    const topic = unique('cli-reassign');
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 2 });
    const before = (await shared.admin.describeTopic(topic)).partitions[0]?.replicas ?? [];
    // The broker not holding it, then the current leader's follower: a real move.
    const outside = [1, 2, 3].find((n) => !before.includes(n)) as number;
    const target = [outside, before[1] as number];
    const file = join(mkdtempSync(join(tmpdir(), 'kafkats-reassign-')), 'plan.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: target }] }),
    );

    const plan = await kafkats(['reassign', 'start', '--plan', file, ...b()]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      new RegExp(`${topic}\\s+0\\s+${before.join(',')}\\s+${target.join(',')}`),
    );
    expect((await shared.admin.describeTopic(topic)).partitions[0]?.replicas).toEqual(before);

    const started = await kafkats(['reassign', 'start', '--plan', file, '--execute', ...b()]);
    expect(started.code, started.stderr).toBe(0);

    let state = '';
    for (let i = 0; i < 120 && state !== 'complete'; i++) {
      const status = await kafkats(['reassign', 'status', '--plan', file, ...b(), '--json']);
      expect(status.code, status.stderr).toBe(0);
      state = JSON.parse(status.stdout).partitions[0].state;
      if (state !== 'complete') await new Promise((r) => setTimeout(r, 250));
    }
    expect(state).toBe('complete');
    expect((await shared.admin.describeTopic(topic)).partitions[0]?.replicas).toEqual(target);

    const verify = await runKafkaTool('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', [
      '--bootstrap-server',
      shared.bootstrap,
      '--verify',
      '--reassignment-json-file',
      file,
    ]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(`Reassignment of partition ${topic}-0 is completed.`);

    const nothing = await kafkats(['reassign', 'cancel', '--plan', file, '--execute', ...b()]);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stderr).toContain('none of these partitions is moving');
  });
});
