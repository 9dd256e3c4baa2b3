import type { ClientQuotaEntity, ClientQuotaFilterComponent } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/** The entity flags of `kafkats quotas` (kafka-configs.sh's entity types). */
export interface QuotaEntityFlags {
  /** A user name, or `<default>` (or '') for the default user. */
  readonly user?: string;
  readonly clientId?: string;
  readonly ip?: string;
}

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };
const DEFAULT = '<default>';
const nameOf = (v: string) => (v === DEFAULT || v === '' ? null : v);
const show = (v: string | null | undefined) => (v === null ? DEFAULT : (v ?? '-'));

/** The entity the flags name (at least one type). */
export function quotaEntity(flags: QuotaEntityFlags): ClientQuotaEntity {
  const entity: Record<string, string | null> = {};
  if (flags.user !== undefined) entity.user = nameOf(flags.user);
  if (flags.clientId !== undefined) entity['client-id'] = nameOf(flags.clientId);
  if (flags.ip !== undefined) entity.ip = nameOf(flags.ip);
  return entity;
}

/**
 * `--set key=value` / `--delete key` as quota ops.
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for a value that is not a number, or a key named twice
 */
export function quotaOps(
  set: readonly string[],
  remove: readonly string[],
): { key: string; value: number | null }[] {
  const seen = new Set<string>();
  const once = (key: string) => {
    if (key === '' || seen.has(key))
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `quota ${JSON.stringify(key)} is named twice or empty`,
      );
    seen.add(key);
    return key;
  };
  return [
    ...set.map((entry) => {
      const m = /^([^=]+)=(\d+(?:\.\d+)?)$/.exec(entry);
      if (m === null)
        throw new CliError(
          'ERR_KAFKA_CLI_USAGE',
          `--set takes key=number, got ${JSON.stringify(entry)}`,
        );
      return { key: once(m[1] as string), value: Number(m[2]) };
    }),
    ...remove.map((key) => ({ key: once(key), value: null })),
  ];
}

/**
 * `kafkats quotas [--user U] [--client-id C] [--ip I]`: the client quotas of the entities
 * matching (every entity without flags), as `kafka-configs.sh --describe --entity-type users`
 * shows them. With `--set` / `--delete`: the entity's quotas now and after, altered with
 * `--execute` (AlterClientQuotas).
 */
export async function quotasCommand(
  ctx: CommandContext,
  options: QuotaEntityFlags &
    ChangeFlags & { readonly set: readonly string[]; readonly delete: readonly string[] },
): Promise<void> {
  const { term } = ctx;
  const timeoutMs = ctx.settings.timeoutMs;
  const ops = quotaOps(options.set, options.delete);
  const entity = quotaEntity(options);
  const components: ClientQuotaFilterComponent[] = Object.entries(entity).map(
    ([entityType, name]) => ({
      entityType,
      name,
    }),
  );
  const label = (e: ClientQuotaEntity) =>
    Object.entries(e)
      .map(([type, name]) => `${type}=${show(name)}`)
      .join(',');
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const describe = () =>
      admin
        .describeClientQuotas({ components, strict: ops.length > 0 }, { timeoutMs })
        .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE_CONFIGS', CLUSTER));
    const now = await describe();
    if (ops.length === 0) {
      const entries = now.entries.map((e) => ({ entity: e.entity, quotas: e.quotas }));
      if (!term.json) {
        if (entries.length === 0) term.note('no client quotas match');
        else
          term.table(
            ['ENTITY', 'QUOTA', 'VALUE'],
            entries.flatMap((e) =>
              Object.entries(e.quotas).map(([k, v]) => [label(e.entity), k, String(v)]),
            ),
          );
      }
      return { entries, executed: false };
    }
    if (components.length === 0)
      throw new CliError('ERR_KAFKA_CLI_USAGE', 'name the entity: --user, --client-id or --ip');
    const current = now.entries[0]?.quotas ?? {};
    const plan = ops.map((op) => ({
      key: op.key,
      value: current[op.key] ?? null,
      newValue: op.value,
    }));
    if (!term.json)
      term.table(
        ['ENTITY', 'QUOTA', 'VALUE', 'NEW-VALUE'],
        plan.map((p) => [
          label(entity),
          p.key,
          show(p.value === null ? undefined : String(p.value)),
          p.newValue === null ? '(removed)' : String(p.newValue),
        ]),
      );
    if (!(await mayChange(ctx, options, `change ${plan.length} quota(s) of ${label(entity)}`)))
      return { entity, quotas: plan, executed: false };
    const answer = await admin.alterClientQuotas([{ entity, ops }], { timeoutMs });
    const error = answer.results[0]?.error;
    if (error !== undefined) rethrowActionable(error, 'ALTER_CONFIGS', CLUSTER);
    term.note(`changed ${plan.length} quota(s) of ${label(entity)}`);
    return { entity, quotas: plan, executed: true };
  });
  if (term.json) term.document(result);
}
