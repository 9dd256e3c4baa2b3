import { readFileSync } from 'node:fs';
import type { TopicPartition } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };

/** One partition of a plan file: Kafka's reassignment JSON (`kafka-reassign-partitions.sh`). */
export interface PlannedPartition extends TopicPartition {
  readonly replicas: readonly number[];
}

/**
 * Reads a reassignment plan: `{"version":1,"partitions":[{"topic","partition","replicas"}]}`,
 * the format Kafka's tool writes with --generate and reads with --execute (`log_dirs`, when
 * present, is not supported here and refused).
 *
 * @throws CliError `ERR_KAFKA_CLI_INPUT_INVALID` naming what is wrong
 */
export function parsePlan(text: string): PlannedPartition[] {
  const bad = (why: string) =>
    new CliError('ERR_KAFKA_CLI_INPUT_INVALID', `reassignment plan: ${why}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new CliError('ERR_KAFKA_CLI_INPUT_INVALID', 'reassignment plan: not JSON', { cause });
  }
  const parts = (doc as { partitions?: unknown })?.partitions;
  if (!Array.isArray(parts)) throw bad('no "partitions" list');
  const seen = new Set<string>();
  return parts.map((p: unknown, i) => {
    const { topic, partition, replicas, log_dirs: logDirs } = (p ?? {}) as Record<string, unknown>;
    if (typeof topic !== 'string' || topic === '') throw bad(`partitions[${i}] has no topic`);
    if (!Number.isInteger(partition) || (partition as number) < 0)
      throw bad(`partitions[${i}] has no partition number`);
    if (
      !Array.isArray(replicas) ||
      replicas.length === 0 ||
      !replicas.every((r) => Number.isInteger(r) && r >= 0) ||
      new Set(replicas).size !== replicas.length
    )
      throw bad(`partitions[${i}] needs "replicas": distinct broker ids`);
    if (Array.isArray(logDirs) && logDirs.some((d) => d !== 'any'))
      throw bad(`partitions[${i}]: log_dirs other than "any" are not supported`);
    const k = `${topic}-${partition}`;
    if (seen.has(k)) throw bad(`${k} is named twice`);
    seen.add(k);
    return { topic, partition: partition as number, replicas: replicas as number[] };
  });
}

function readPlan(file: string): PlannedPartition[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new CliError('ERR_KAFKA_CLI_INPUT_INVALID', `cannot read ${file}`, { cause });
  }
  return parsePlan(text);
}

const key = (p: TopicPartition) => `${p.topic}-${p.partition}`;
const list = (r: readonly number[] | undefined) => (r === undefined ? '-' : r.join(','));

/** The current replicas of the plan's partitions, from Metadata. */
async function currentReplicas(
  admin: import('@kafkats/client').Admin,
  plan: readonly PlannedPartition[],
  timeoutMs: number,
): Promise<Map<string, readonly number[]>> {
  const topics = [...new Set(plan.map((p) => p.topic))];
  const described = (await admin.describeTopics(topics, { timeoutMs })).topics;
  const out = new Map<string, readonly number[]>();
  described.forEach((t, i) => {
    const name = topics[i] as string;
    if (t.error !== undefined) rethrowActionable(t.error, 'DESCRIBE', { type: 'TOPIC', name });
    for (const p of t.partitions) out.set(`${name}-${p.partition}`, p.replicas);
  });
  for (const p of plan)
    if (!out.has(key(p)))
      throw new CliError(
        'ERR_KAFKA_CLI_NOT_FOUND',
        `topic ${p.topic} has no partition ${p.partition}`,
      );
  return out;
}

/**
 * `kafkats reassign start --plan FILE`: each partition's replicas now and in the plan, then,
 * with `--execute`, AlterPartitionReassignments (as `kafka-reassign-partitions.sh --execute`).
 */
export async function reassignStartCommand(
  ctx: CommandContext,
  options: ChangeFlags & { readonly plan: string },
): Promise<void> {
  const { term } = ctx;
  const timeoutMs = ctx.settings.timeoutMs;
  const plan = readPlan(options.plan);
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const now = await currentReplicas(admin, plan, timeoutMs);
    const rows = plan.map((p) => ({ ...p, currentReplicas: now.get(key(p)) ?? [] }));
    if (!term.json)
      term.table(
        ['TOPIC', 'PARTITION', 'REPLICAS', 'NEW-REPLICAS'],
        rows.map((r) => [r.topic, String(r.partition), list(r.currentReplicas), list(r.replicas)]),
      );
    if (!(await mayChange(ctx, options, `move ${plan.length} partition(s)`)))
      return { partitions: rows, executed: false };
    const answer = await admin.alterPartitionReassignments(plan, { timeoutMs });
    const failed = answer.partitions.find((p) => p.error !== undefined);
    if (failed !== undefined) rethrowActionable(failed.error, 'ALTER', CLUSTER);
    term.note(
      `started moving ${plan.length} partition(s); follow with: kafkats reassign status --plan ${options.plan}`,
    );
    return { partitions: rows, executed: true };
  });
  if (term.json) term.document(result);
}

/** Where a planned partition is: moving, done (its replicas are the plan's), or neither. */
export type ReassignmentState = 'in-progress' | 'complete' | 'not-started';

/**
 * `kafkats reassign status --plan FILE`: per partition, whether its move is in progress,
 * complete (its replicas are the plan's, in order) or neither, as
 * `kafka-reassign-partitions.sh --verify` reports; without `--plan`, every ongoing move.
 */
export async function reassignStatusCommand(
  ctx: CommandContext,
  options: { readonly plan?: string },
): Promise<void> {
  const { term } = ctx;
  const timeoutMs = ctx.settings.timeoutMs;
  const plan = options.plan === undefined ? undefined : readPlan(options.plan);
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const ongoing = await admin
      .listPartitionReassignments(plan, { timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER));
    if (plan === undefined) return { reassignments: ongoing.reassignments };
    const moving = new Map(ongoing.reassignments.map((r) => [key(r), r]));
    const now = await currentReplicas(admin, plan, timeoutMs);
    const partitions = plan.map((p) => {
      const replicas = now.get(key(p)) ?? [];
      const state: ReassignmentState = moving.has(key(p))
        ? 'in-progress'
        : replicas.length === p.replicas.length && replicas.every((r, i) => r === p.replicas[i])
          ? 'complete'
          : 'not-started';
      return {
        topic: p.topic,
        partition: p.partition,
        state,
        replicas,
        targetReplicas: p.replicas,
      };
    });
    return { partitions };
  });
  if (term.json) {
    term.document(result);
    return;
  }
  if ('reassignments' in result) {
    if (result.reassignments.length === 0) term.note('no reassignment in progress');
    else
      term.table(
        ['TOPIC', 'PARTITION', 'REPLICAS', 'ADDING', 'REMOVING'],
        result.reassignments.map((r) => [
          r.topic,
          String(r.partition),
          list(r.replicas),
          list(r.addingReplicas),
          list(r.removingReplicas),
        ]),
      );
    return;
  }
  term.table(
    ['TOPIC', 'PARTITION', 'STATE', 'REPLICAS', 'TARGET'],
    result.partitions.map((p) => [
      p.topic,
      String(p.partition),
      p.state,
      list(p.replicas),
      list(p.targetReplicas),
    ]),
  );
}

/**
 * `kafkats reassign cancel --plan FILE`: cancels the plan's moves still in progress
 * (AlterPartitionReassignments with no replicas), after listing them.
 */
export async function reassignCancelCommand(
  ctx: CommandContext,
  options: ChangeFlags & { readonly plan: string },
): Promise<void> {
  const { term } = ctx;
  const timeoutMs = ctx.settings.timeoutMs;
  const plan = readPlan(options.plan);
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const ongoing = (await admin.listPartitionReassignments(plan, { timeoutMs })).reassignments;
    if (!term.json) {
      if (ongoing.length === 0) term.note('none of these partitions is moving');
      else
        term.table(
          ['TOPIC', 'PARTITION', 'REPLICAS', 'ADDING', 'REMOVING'],
          ongoing.map((r) => [
            r.topic,
            String(r.partition),
            list(r.replicas),
            list(r.addingReplicas),
            list(r.removingReplicas),
          ]),
        );
    }
    if (
      ongoing.length === 0 ||
      !(await mayChange(ctx, options, `cancel ${ongoing.length} move(s)`))
    )
      return { partitions: ongoing, executed: false };
    const answer = await admin.alterPartitionReassignments(
      ongoing.map((r) => ({ topic: r.topic, partition: r.partition, replicas: null })),
      { timeoutMs },
    );
    const failed = answer.partitions.find((p) => p.error !== undefined);
    if (failed !== undefined) rethrowActionable(failed.error, 'ALTER', CLUSTER);
    term.note(`cancelled ${ongoing.length} move(s)`);
    return { partitions: ongoing, executed: true };
  });
  if (term.json) term.document(result);
}
