import type { AlterConfigOp, ConfigEntry, ConfigResourceType } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/**
 * `kafkats topic delete NAME...`: shows each topic (id, partitions), then, with `--execute`
 * (and a yes on a terminal), deletes them (DeleteTopics, to the controller).
 */
export async function topicDeleteCommand(
  ctx: CommandContext,
  names: readonly string[],
  flags: ChangeFlags,
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const described = (await admin.describeTopics(names, { timeoutMs })).topics;
    const plan = described.map((t, i) => {
      const name = names[i] as string;
      if (t.error !== undefined) rethrowActionable(t.error, 'DESCRIBE', { type: 'TOPIC', name });
      return { topic: name, topicId: t.topicId, partitions: t.partitions.length };
    });
    if (!term.json)
      term.table(
        ['TOPIC', 'TOPIC-ID', 'PARTITIONS'],
        plan.map((t) => [t.topic, t.topicId, String(t.partitions)]),
      );
    if (!(await mayChange(ctx, flags, `delete ${plan.length} topic(s) and every record in them`)))
      return { topics: plan.map((t) => ({ ...t, deleted: false })), executed: false };
    const answer = await admin.deleteTopics(names, { timeoutMs });
    const failed = answer.topics.filter((t) => t.error !== undefined);
    const first = failed[0];
    if (first !== undefined)
      rethrowActionable(first.error, 'DELETE', { type: 'TOPIC', name: first.name });
    for (const t of plan) term.note(`deleted topic ${t.topic}`);
    return { topics: plan.map((t) => ({ ...t, deleted: true })), executed: true };
  });
  if (term.json) term.document(result);
}

/**
 * `kafkats topic add-partitions NAME --count N`: shows the count now and after, then, with
 * `--execute`, raises it (CreatePartitions). Keyed records of new sends may then land on other
 * partitions (murmur2 modulo the count), as Kafka's kafka-topics.sh warns.
 */
export async function topicAddPartitionsCommand(
  ctx: CommandContext,
  name: string,
  options: ChangeFlags & { readonly count: number },
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const [described] = (await admin.describeTopics([name], { timeoutMs })).topics;
    if (described?.error !== undefined)
      rethrowActionable(described.error, 'DESCRIBE', { type: 'TOPIC', name });
    const now = described?.partitions.length ?? 0;
    if (options.count <= now)
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `topic ${name} has ${now} partitions: --count must be more (Kafka cannot remove partitions)`,
      );
    if (!term.json) {
      term.table(
        ['TOPIC', 'PARTITIONS', 'NEW-PARTITIONS'],
        [[name, String(now), String(options.count)]],
      );
      term.note(
        'keyed records sent after this may go to other partitions than before (the key hash is taken modulo the partition count)',
      );
    }
    if (!(await mayChange(ctx, options, `raise ${name} to ${options.count} partitions`)))
      return { topic: name, partitions: now, newPartitions: options.count, executed: false };
    const answer = await admin.createPartitions([{ topic: name, totalCount: options.count }], {
      timeoutMs,
    });
    const error = answer.topics[0]?.error;
    if (error !== undefined) rethrowActionable(error, 'ALTER', { type: 'TOPIC', name });
    await admin.waitForTopics([{ name, partitions: options.count }], { timeoutMs });
    term.note(`topic ${name} has ${options.count} partitions`);
    return { topic: name, partitions: now, newPartitions: options.count, executed: true };
  });
  if (term.json) term.document(result);
}

/** One row of `kafkats configs`: a config, its value now and what a change makes it. */
export interface ConfigRow {
  readonly name: string;
  readonly value: string | null;
  readonly source: string;
  /** With changes: what the config becomes (`null`: back to its default). */
  readonly newValue?: string | null;
}

/**
 * `--set name=value` and `--delete name` as incremental changes (SET, DELETE).
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for a `--set` without `=` or a name given twice
 */
export function configOps(set: readonly string[], remove: readonly string[]): AlterConfigOp[] {
  const ops: AlterConfigOp[] = [];
  const seen = new Set<string>();
  const once = (name: string) => {
    if (name === '' || seen.has(name))
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `config ${JSON.stringify(name)} is named twice or empty`,
      );
    seen.add(name);
  };
  for (const entry of set) {
    const eq = entry.indexOf('=');
    if (eq <= 0)
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `--set takes name=value, got ${JSON.stringify(entry)}`,
      );
    const name = entry.slice(0, eq);
    once(name);
    ops.push({ name, op: 'SET', value: entry.slice(eq + 1) });
  }
  for (const name of remove) {
    once(name);
    ops.push({ name, op: 'DELETE' });
  }
  return ops;
}

/**
 * `kafkats configs topic|broker NAME [--set k=v]... [--delete k]...`: without changes, the
 * configs set on the resource (not at their default; all with `--all`), as
 * `kafka-configs.sh --describe`; with changes, each config's value now and after, then, with
 * `--execute`, IncrementalAlterConfigs (SET, DELETE back to the default), and the values read
 * back. `broker` takes a broker id, or `''` for the cluster-wide default.
 */
export async function configsCommand(
  ctx: CommandContext,
  kind: 'topic' | 'broker',
  name: string,
  options: ChangeFlags & {
    readonly set: readonly string[];
    readonly delete: readonly string[];
    readonly all?: boolean;
  },
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const type: ConfigResourceType = kind === 'topic' ? 'TOPIC' : 'BROKER';
  if (kind === 'broker' && name !== '' && !/^\d+$/.test(name))
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `a broker is named by its id, got ${JSON.stringify(name)}`,
    );
  const ops = configOps(options.set, options.delete);
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const read = async (): Promise<readonly ConfigEntry[]> => {
      const [r] = (await admin.describeConfigs([{ type, name }], { timeoutMs })).resources;
      if (r?.error !== undefined) rethrowActionable(r.error, 'DESCRIBE_CONFIGS', { type, name });
      return r?.configs ?? [];
    };
    const before = await read();
    const byName = new Map(before.map((c) => [c.name, c]));
    if (ops.length === 0) {
      const rows: ConfigRow[] = before
        .filter((c) => options.all === true || !c.isDefault)
        .map((c) => ({ name: c.name, value: c.isSensitive ? null : c.value, source: c.source }));
      if (!term.json) {
        if (rows.length === 0) term.note(`no configs set on ${kind} ${name || '(default)'}`);
        else
          term.table(
            ['NAME', 'VALUE', 'SOURCE'],
            rows.map((r) => [r.name, r.value ?? '(sensitive or unset)', r.source]),
          );
      }
      return { resource: { type, name }, configs: rows, executed: false };
    }
    for (const op of ops)
      if (!byName.has(op.name))
        throw new CliError(
          'ERR_KAFKA_CLI_USAGE',
          `${kind} ${name || '(default)'} has no config ${op.name}`,
          { hint: `list them with: kafkats configs ${kind} ${name || "''"} --all` },
        );
    const plan: ConfigRow[] = ops.map((op) => {
      const now = byName.get(op.name);
      return {
        name: op.name,
        value: now?.isSensitive ? null : (now?.value ?? null),
        source: now?.source ?? '',
        newValue: op.op === 'SET' ? (op.value ?? null) : null,
      };
    });
    if (!term.json)
      term.table(
        ['NAME', 'VALUE', 'SOURCE', 'NEW-VALUE'],
        plan.map((r) => [
          r.name,
          r.value ?? '-',
          r.source,
          r.newValue === null ? '(default)' : (r.newValue ?? '-'),
        ]),
      );
    if (
      !(await mayChange(
        ctx,
        options,
        `change ${ops.length} config(s) of ${kind} ${name || '(default)'}`,
      ))
    )
      return { resource: { type, name }, configs: plan, executed: false };
    const answer = await admin.incrementalAlterConfigs([{ type, name, ops }], { timeoutMs });
    const error = answer.resources[0]?.error;
    if (error !== undefined) rethrowActionable(error, 'ALTER_CONFIGS', { type, name });
    const after = new Map((await read()).map((c) => [c.name, c]));
    const changed = plan.map((r) => ({
      ...r,
      newValue: after.get(r.name)?.isSensitive ? null : (after.get(r.name)?.value ?? null),
      source: after.get(r.name)?.source ?? r.source,
    }));
    term.note(`changed ${ops.length} config(s) of ${kind} ${name || '(default)'}`);
    return { resource: { type, name }, configs: changed, executed: true };
  });
  if (term.json) term.document(result);
}
