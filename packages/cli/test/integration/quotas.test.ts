// `kafkats quotas` against the shared cluster, read back with Kafka's own kafka-configs.sh
// (ConfigCommand): quotas set and removed for a user of this test only, nothing changed without
// --execute.
import { sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { describeUserWithKafka, kafkats, unique } from '../support/run-cli.js';

const shared = sharedCluster();
const b = () => ['--bootstrap', shared.bootstrap];

/** A user's quotas as ConfigCommand prints them. */
async function javaUserQuotas(user: string): Promise<Record<string, number>> {
  const out = await describeUserWithKafka(shared.bootstrap, user);
  const line = out.split('\n').find((l) => l.includes(`'${user}'`)) ?? '';
  const found: Record<string, number> = {};
  for (const m of line.matchAll(/([a-z_]+)=([0-9.]+)/g)) found[m[1] as string] = Number(m[2]);
  return found;
}

describe('kafkats quotas, read back by kafka-configs.sh', () => {
  it('sets, lists and removes a user’s quotas; nothing changes without --execute', async () => {
    const user = unique('quota-user');
    const set = [
      'quotas',
      '--user',
      user,
      '--set',
      'producer_byte_rate=1024',
      '--set',
      'consumer_byte_rate=2048',
    ];
    const plan = await kafkats([...set, ...b()]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/producer_byte_rate\s+-\s+1024/);
    expect(await javaUserQuotas(user)).toEqual({});

    const done = await kafkats([...set, '--execute', ...b()]);
    expect(done.code, done.stderr).toBe(0);
    expect(await javaUserQuotas(user)).toEqual({
      producer_byte_rate: 1024,
      consumer_byte_rate: 2048,
    });

    const listed = await kafkats(['quotas', '--user', user, ...b(), '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).entries).toEqual([
      { entity: { user }, quotas: { producer_byte_rate: 1024, consumer_byte_rate: 2048 } },
    ]);

    const removed = await kafkats([
      'quotas',
      '--user',
      user,
      '--delete',
      'consumer_byte_rate',
      '--execute',
      ...b(),
    ]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await javaUserQuotas(user)).toEqual({ producer_byte_rate: 1024 });

    // Clean up: the user's last quota removed.
    const gone = await kafkats([
      'quotas',
      '--user',
      user,
      '--delete',
      'producer_byte_rate',
      '--execute',
      ...b(),
    ]);
    expect(gone.code, gone.stderr).toBe(0);
    expect(await javaUserQuotas(user)).toEqual({});
  });
});
