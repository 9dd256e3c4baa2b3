import type { ConfigEntry, PartitionDescription } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/** One partition as `topic --json` prints it. */
export interface PartitionDocument {
  readonly partition: number;
  /** null when the partition has no leader (offline). */
  readonly leader: number | null;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
  readonly error: string | null;
}

/** One topic of `topics --json`. */
export interface TopicSummary {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** Partitions without a leader. */
  readonly offline: number;
  /** Partitions whose ISR is smaller than their replica set. */
  readonly underReplicated: number;
}

const partitionDocument = (p: PartitionDescription): PartitionDocument => ({
  partition: p.partition,
  leader: p.leader ?? null,
  leaderEpoch: p.leaderEpoch,
  replicas: p.replicas,
  isr: p.isr,
  offlineReplicas: p.offlineReplicas,
  error: p.error?.errorName ?? null,
});

/** `kafkats topics`: every topic with partition counts, replication, offline and under-replicated partitions. */
export async function topicsCommand(
  ctx: CommandContext,
  options: { internal?: boolean },
): Promise<void> {
  const topics = await withCluster(ctx, async (cluster): Promise<TopicSummary[]> => {
    const snapshot = cluster.snapshot();
    return snapshot.topics
      .filter((t) => options.internal === true || !t.isInternal)
      .filter((t) => t.errorCode === 0)
      .map((t) => ({
        name: t.name,
        topicId: t.topicId,
        internal: t.isInternal,
        partitions: t.partitions.length,
        replicationFactor: Math.max(0, ...t.partitions.map((p) => p.replicas.length)),
        offline: t.partitions.filter((p) => p.leader === undefined).length,
        underReplicated: t.partitions.filter((p) => p.isr.length < p.replicas.length).length,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  });
  const { term } = ctx;
  if (term.json) {
    term.document({ topics });
    return;
  }
  const c = term.colors;
  if (topics.length === 0) {
    term.note('no topics (internal topics are listed with --internal)');
    return;
  }
  term.table(
    ['TOPIC', 'PARTITIONS', 'RF', 'OFFLINE', 'UNDER-REPLICATED', 'ID'],
    topics.map((t) => [
      t.name,
      String(t.partitions),
      String(t.replicationFactor),
      String(t.offline),
      String(t.underReplicated),
      t.topicId,
    ]),
    (_r, col, cell) =>
      (col === 3 || col === 4) && cell.trim() !== '0'
        ? c.red(cell)
        : col === 5
          ? c.dim(cell)
          : cell,
  );
}

/** `kafkats topic NAME --json`. */
export interface TopicDocument {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  readonly partitions: readonly PartitionDocument[];
  /** Topic configs: every one with `--all-configs`, else those not at their default. */
  readonly configs: readonly {
    readonly name: string;
    readonly value: string | null;
    readonly source: string;
    readonly sensitive: boolean;
  }[];
}

/** `kafkats topic NAME`: partitions, leaders, ISR, offline replicas and configs. */
export async function topicCommand(
  ctx: CommandContext,
  name: string,
  options: { allConfigs?: boolean },
): Promise<void> {
  const resource = { type: 'TOPIC', name };
  const doc = await withCluster(ctx, async (_cluster, admin): Promise<TopicDocument> => {
    const timeoutMs = ctx.settings.timeoutMs;
    const [described] = (await admin.describeTopics([name], { timeoutMs })).topics;
    if (described === undefined)
      throw new CliError('ERR_KAFKA_CLI_BROKER', `no answer about topic ${name}`);
    if (described.error !== undefined) rethrowActionable(described.error, 'DESCRIBE', resource);
    const [configs] = (await admin.describeConfigs([{ type: 'TOPIC', name }], { timeoutMs }))
      .resources;
    if (configs?.error !== undefined)
      rethrowActionable(configs.error, 'DESCRIBE_CONFIGS', resource);
    const shown = (configs?.configs ?? []).filter(
      (e: ConfigEntry) => options.allConfigs === true || !e.isDefault,
    );
    return {
      name: described.name,
      topicId: described.topicId,
      internal: described.isInternal,
      partitions: described.partitions.map(partitionDocument),
      configs: shown
        .map((e) => ({ name: e.name, value: e.value, source: e.source, sensitive: e.isSensitive }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  });
  const { term } = ctx;
  if (term.json) {
    term.document(doc);
    return;
  }
  const c = term.colors;
  term.line(
    `${c.bold('topic')}  ${doc.name}${doc.internal ? ' (internal)' : ''}  ${c.dim(doc.topicId)}`,
  );
  term.line();
  term.table(
    ['PARTITION', 'LEADER', 'EPOCH', 'REPLICAS', 'ISR', 'OFFLINE'],
    doc.partitions.map((p) => [
      String(p.partition),
      p.leader === null ? 'none' : String(p.leader),
      String(p.leaderEpoch),
      p.replicas.join(','),
      p.isr.join(','),
      p.offlineReplicas.length === 0 ? '-' : p.offlineReplicas.join(','),
    ]),
    (row, col, cell) => {
      const p = doc.partitions[row];
      if (p === undefined) return cell;
      if (col === 1 && p.leader === null) return c.red(cell);
      if (col === 4 && p.isr.length < p.replicas.length) return c.yellow(cell);
      if (col === 5 && p.offlineReplicas.length > 0) return c.red(cell);
      return cell;
    },
  );
  term.line();
  if (doc.configs.length === 0) {
    term.note('every config at its default (--all-configs lists them)');
    return;
  }
  term.table(
    ['CONFIG', 'VALUE', 'SOURCE'],
    doc.configs.map((e) => [e.name, e.sensitive ? '(sensitive)' : (e.value ?? '(null)'), e.source]),
    (_r, col, cell) => (col === 2 ? c.dim(cell) : cell),
  );
}
