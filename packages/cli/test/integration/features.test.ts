// `kafkats features` beside Kafka's kafka-features.sh (FeatureCommand) on the shared cluster,
// and a downgrade and upgrade of transaction.version on a private 1-node cluster (a change the
// shared cluster's other tests must not see), read back by Kafka's tool.
import { type KafkaCluster, runKafkaTool, sharedCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { kafkats } from '../support/run-cli.js';

const FEATURE_COMMAND = 'org.apache.kafka.tools.FeatureCommand';
const shared = sharedCluster();
let own: KafkaCluster;

beforeAll(async () => {
  own = await startCluster({ nodes: 1 });
});
afterAll(async () => {
  await own?.stop();
});

/** kafka-features.sh describe: feature -> [min, max, finalized, epoch]. */
async function javaFeatures(bootstrap: string): Promise<Map<string, string[]>> {
  const r = await runKafkaTool(FEATURE_COMMAND, ['--bootstrap-server', bootstrap, 'describe']);
  expect(r.status, r.stderr).toBe(0);
  const out = new Map<string, string[]>();
  for (const line of r.stdout.split('\n')) {
    const m =
      /^Feature: (\S+)\s+SupportedMinVersion: (\S+)\s+SupportedMaxVersion: (\S+)\s+FinalizedVersionLevel: (\S+)\s+Epoch: (\S+)/.exec(
        line,
      );
    if (m !== null) out.set(m[1] as string, m.slice(2));
  }
  return out;
}

interface FeaturesDocument {
  finalizedFeaturesEpoch: string;
  features: {
    name: string;
    finalizedLevel?: number;
    supported?: { minVersion: number; maxVersion: number };
  }[];
}

describe('kafkats features, beside kafka-features.sh', () => {
  it('describes the same features, supported ranges and finalized levels as Kafka’s tool', async () => {
    const [ours, java] = await Promise.all([
      kafkats(['features', '--bootstrap', shared.bootstrap, '--json']),
      javaFeatures(shared.bootstrap),
    ]);
    expect(ours.code, ours.stderr).toBe(0);
    const doc = JSON.parse(ours.stdout) as FeaturesDocument;
    expect(doc.features.map((f) => f.name).sort()).toEqual([...java.keys()].sort());
    // The epoch is the metadata offset the answering broker has read up to (KRaft): it moves
    // with every metadata change, so only its presence is compared.
    expect(BigInt(doc.finalizedFeaturesEpoch)).toBeGreaterThan(0n);
    for (const f of doc.features) {
      const [min, max, finalized] = java.get(f.name) ?? [];
      // The tool prints metadata.version as release names (4.4-IV2); every other as numbers.
      if (f.name === 'metadata.version') {
        expect(f.finalizedLevel).toBeGreaterThan(0);
        continue;
      }
      expect(
        [f.supported?.minVersion, f.supported?.maxVersion, f.finalizedLevel ?? 0].map(String),
      ).toEqual([min, max, finalized]);
    }
  });

  it('downgrades and upgrades transaction.version with --execute; refuses a wrong direction', async () => {
    const bootstrap = own.bootstrap;
    const level = async () => (await javaFeatures(bootstrap)).get('transaction.version')?.[2];
    expect(await level()).toBe('2');

    const plan = await kafkats([
      'features',
      'downgrade',
      '--feature',
      'transaction.version=1',
      '--bootstrap',
      bootstrap,
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/transaction\.version\s+2\s+1/);
    expect(await level()).toBe('2');

    const down = await kafkats([
      'features',
      'downgrade',
      '--feature',
      'transaction.version=1',
      '--execute',
      '--bootstrap',
      bootstrap,
    ]);
    expect(down.code, down.stderr).toBe(0);
    expect(await level()).toBe('1');

    const wrong = await kafkats([
      'features',
      'upgrade',
      '--feature',
      'transaction.version=1',
      '--execute',
      '--bootstrap',
      bootstrap,
    ]);
    expect(wrong.code).toBe(ExitCode.USAGE);

    const up = await kafkats([
      'features',
      'upgrade',
      '--feature',
      'transaction.version=2',
      '--execute',
      '--bootstrap',
      bootstrap,
      '--json',
    ]);
    expect(up.code, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ executed: true, upgradeType: 'upgrade' });
    expect(await level()).toBe('2');

    // Kafka refuses a metadata.version downgrade that may lose metadata: exit 8, its reason shown.
    const refused = await kafkats([
      'features',
      'downgrade',
      '--feature',
      'metadata.version=7',
      '--execute',
      '--bootstrap',
      bootstrap,
    ]);
    expect(refused.code).toBe(ExitCode.BROKER);
    expect(refused.stderr).toContain('INVALID_UPDATE_VERSION');
  });
});
