import type { FeatureUpgradeType } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };

/** `kafkats features`: each feature's finalized level and the levels a broker supports. */
export async function featuresCommand(ctx: CommandContext): Promise<void> {
  const { term } = ctx;
  const result = await withCluster(ctx, (_cluster, admin) =>
    admin
      .describeFeatures({ timeoutMs: ctx.settings.timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER)),
  );
  if (term.json) {
    term.document(result);
    return;
  }
  term.table(
    ['FEATURE', 'SUPPORTED-MIN', 'SUPPORTED-MAX', 'FINALIZED'],
    result.features.map((f) => [
      f.name,
      f.supported === undefined ? '-' : String(f.supported.minVersion),
      f.supported === undefined ? '-' : String(f.supported.maxVersion),
      String(f.finalizedLevel ?? 0),
    ]),
  );
  term.note(`finalized features epoch ${result.finalizedFeaturesEpoch}`);
}

/**
 * `--feature name=level` values.
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for anything else, or a feature named twice
 */
export function parseFeatureLevels(
  values: readonly string[],
): { feature: string; level: number }[] {
  const seen = new Set<string>();
  return values.map((v) => {
    const m = /^([^=]+)=(\d+)$/.exec(v);
    if (m === null)
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `--feature takes name=level, got ${JSON.stringify(v)}`,
      );
    const feature = m[1] as string;
    if (seen.has(feature))
      throw new CliError('ERR_KAFKA_CLI_USAGE', `feature ${feature} is named twice`);
    seen.add(feature);
    return { feature, level: Number(m[2]) };
  });
}

/**
 * `kafkats features upgrade|downgrade --feature name=level...`: each feature's level now and
 * after, then, with `--execute`, UpdateFeatures (as `kafka-features.sh upgrade|downgrade`).
 * An upgrade must raise each level and a downgrade lower it; `--unsafe` makes a downgrade
 * that may lose metadata.
 */
export async function featuresUpdateCommand(
  ctx: CommandContext,
  direction: 'upgrade' | 'downgrade',
  options: ChangeFlags & { readonly feature: readonly string[]; readonly unsafe?: boolean },
): Promise<void> {
  const { term } = ctx;
  const timeoutMs = ctx.settings.timeoutMs;
  const wanted = parseFeatureLevels(options.feature);
  if (wanted.length === 0) throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --feature name=level');
  const upgradeType: FeatureUpgradeType =
    direction === 'upgrade'
      ? 'upgrade'
      : options.unsafe === true
        ? 'unsafe-downgrade'
        : 'safe-downgrade';
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const now = await admin
      .describeFeatures({ timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER));
    const plan = wanted.map((w) => {
      const f = now.features.find((x) => x.name === w.feature);
      if (f === undefined)
        throw new CliError('ERR_KAFKA_CLI_USAGE', `the cluster has no feature ${w.feature}`, {
          hint: 'list them with: kafkats features',
        });
      const level = f.finalizedLevel ?? 0;
      if (direction === 'upgrade' ? w.level <= level : w.level >= level)
        throw new CliError(
          'ERR_KAFKA_CLI_USAGE',
          `${w.feature} is at level ${level}: ${direction} needs a level ${direction === 'upgrade' ? 'above' : 'below'} it, got ${w.level}`,
        );
      return { feature: w.feature, level, newLevel: w.level };
    });
    if (!term.json)
      term.table(
        ['FEATURE', 'FINALIZED', 'NEW-LEVEL'],
        plan.map((p) => [p.feature, String(p.level), String(p.newLevel)]),
      );
    if (!(await mayChange(ctx, options, `${direction} ${plan.length} feature(s)`)))
      return { features: plan, upgradeType, executed: false };
    const answer = await admin.updateFeatures(
      plan.map((p) => ({ feature: p.feature, level: p.newLevel, upgradeType })),
      { timeoutMs },
    );
    const failed = answer.features.find((f) => f.error !== undefined);
    if (failed !== undefined) rethrowActionable(failed.error, 'ALTER', CLUSTER);
    term.note(`${direction}d ${plan.length} feature(s)`);
    return { features: plan, upgradeType, executed: true };
  });
  if (term.json) term.document(result);
}
