import type { Admin, ShareGroupDescription, TopicPartition } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import { topicPartitions } from '../topic-partitions.js';
import { newOffset, parseTopicSpec, type ResetPlanRow } from './group-offsets.js';

// `kafkats share-groups`: KIP-932 share groups as Kafka's kafka-share-groups.sh
// (org.apache.kafka.tools.consumer.group.ShareGroupCommand) shows and changes them, with its
// columns; changes are shown as a plan and made only with --execute.

const key = (p: TopicPartition) => `${p.topic}\u0000${p.partition}`;
const byPartition = (a: TopicPartition, b: TopicPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
const dash = (v: bigint | number | string | null | undefined) =>
  v === null || v === undefined || v === '' ? '-' : String(v);

/** `kafkats share-groups list [--state S]`: every share group (ListGroups, type `share`) and its state. */
export async function shareGroupsListCommand(
  ctx: CommandContext,
  states: readonly string[],
): Promise<void> {
  const { term, settings } = ctx;
  const result = await withCluster(ctx, (_cluster, admin) =>
    admin
      .listShareGroups({
        timeoutMs: settings.timeoutMs,
        ...(states.length === 0 ? {} : { states }),
      })
      .catch((e: unknown) =>
        rethrowActionable(e, 'DESCRIBE', { type: 'CLUSTER', name: 'kafka-cluster' }),
      ),
  );
  const unreachable = result.errors.map((e) => `broker ${e.brokerId}: ${e.error.message}`);
  if (term.json) {
    term.document({ groups: result.groups, unreachable });
    return;
  }
  for (const u of unreachable) term.note(`not listed: ${u}`);
  if (result.groups.length === 0) {
    term.note('no share groups');
    return;
  }
  term.table(
    ['GROUP', 'STATE'],
    result.groups.map((g) => [g.groupId, g.state || '-']),
  );
}

/** One row of `share-groups describe`: ShareGroupCommand's `--describe --offsets --verbose` columns. */
export interface ShareOffsetRow extends TopicPartition {
  readonly group: string;
  /** Null when the group has no state for the partition yet. */
  readonly startOffset: bigint | null;
  readonly leaderEpoch: number | null;
  /** Null when the broker does not compute it (DescribeShareGroupOffsets v0). */
  readonly lag: bigint | null;
}

/** `kafkats share-groups describe --json`: per group, its state, members and start offsets. */
export interface ShareGroupDocument {
  readonly group: string;
  readonly state: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly assignor: string;
  /** `host:port (id)`, as ShareGroupCommand's COORDINATOR (ID) column. */
  readonly coordinator: string | null;
  readonly members: readonly {
    readonly memberId: string;
    readonly clientId: string;
    readonly host: string;
    readonly rackId: string | null;
    readonly memberEpoch: number;
    readonly subscribedTopics: readonly string[];
    readonly partitions: readonly TopicPartition[];
  }[];
  readonly offsets: readonly ShareOffsetRow[];
}

async function describeOne(
  admin: Admin,
  group: string,
  timeoutMs: number,
): Promise<ShareGroupDescription> {
  const [described] = (await admin.describeShareGroups([group], { timeoutMs })).groups;
  if (described?.error !== undefined)
    rethrowActionable(described.error, 'DESCRIBE', { type: 'GROUP', name: group });
  return described as ShareGroupDescription;
}

/**
 * `kafkats share-groups describe --group G...`: each group's state and coordinator, its start
 * offset and lag per partition (ShareGroupCommand's default `--describe`), and its members
 * with their assignments (`--describe --members`).
 */
export async function shareGroupsDescribeCommand(
  ctx: CommandContext,
  groups: readonly string[],
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  if (groups.length === 0) throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --group');
  const documents = await withCluster(ctx, async (_cluster, admin) => {
    const out: ShareGroupDocument[] = [];
    for (const group of groups) {
      const d = await describeOne(admin, group, timeoutMs);
      const offsets = await admin
        .describeShareGroupOffsets(group, { timeoutMs })
        .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', { type: 'GROUP', name: group }));
      const c = d.coordinator;
      out.push({
        group,
        state: d.state,
        groupEpoch: d.groupEpoch,
        assignmentEpoch: d.assignmentEpoch,
        assignor: d.assignor,
        coordinator: c === undefined ? null : `${c.host}:${c.port} (${c.nodeId})`,
        members: d.members.map((m) => ({
          memberId: m.memberId,
          clientId: m.clientId,
          host: m.clientHost,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          subscribedTopics: m.subscribedTopicNames,
          partitions: m.assignment,
        })),
        offsets: offsets.partitions.map((p) => ({
          group,
          topic: p.topic,
          partition: p.partition,
          startOffset: p.startOffset,
          leaderEpoch: p.leaderEpoch ?? null,
          lag: p.lag ?? null,
        })),
      });
    }
    return out;
  });
  if (term.json) {
    term.document({ groups: documents });
    return;
  }
  documents.forEach((d, i) => {
    if (i > 0) term.line();
    term.table(
      ['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS'],
      [
        [
          d.group,
          dash(d.coordinator),
          dash(d.state),
          String(d.groupEpoch),
          String(d.assignmentEpoch),
          String(d.members.length),
        ],
      ],
    );
    term.line();
    if (d.offsets.length === 0) term.note(`share group '${d.group}' has no offset information`);
    else
      term.table(
        ['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'],
        d.offsets.map((r) => [
          r.group,
          r.topic,
          String(r.partition),
          dash(r.leaderEpoch),
          dash(r.startOffset),
          dash(r.lag),
        ]),
      );
    if (d.members.length === 0) {
      term.note(`share group '${d.group}' has no active members`);
      return;
    }
    term.line();
    term.table(
      ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'MEMBER-EPOCH', 'ASSIGNMENT'],
      d.members.map((m) => [
        d.group,
        m.memberId,
        m.host,
        m.clientId,
        String(m.partitions.length),
        String(m.memberEpoch),
        assignmentText(m.partitions),
      ]),
    );
  });
}

/** ShareGroupCommand's ASSIGNMENT cell: `topic:0,1;other:2`, topics sorted. */
export function assignmentText(partitions: readonly TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  return [...byTopic]
    .map(([topic, list]) => `${topic}:${[...list].sort((a, b) => a - b).join(',')}`)
    .sort()
    .join(';');
}

/** How `share-groups reset-offsets` computes each partition's new start offset (one of them). */
export type ShareResetMode =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'offset'; readonly offset: bigint };

/** Options of `share-groups reset-offsets`. */
export interface ShareResetOptions extends ChangeFlags {
  readonly topics: readonly string[];
  readonly allTopics: boolean;
  readonly mode: ShareResetMode;
}

/**
 * `kafkats share-groups reset-offsets --group G (--topic T | --all-topics) --to-...`: the new
 * start offsets (the plan, Kafka's `GROUP TOPIC PARTITION NEW-OFFSET`), set with --execute
 * (AlterShareGroupOffsets). Refused unless the group is Empty or does not exist yet (then the
 * reset creates it), as ShareGroupCommand does.
 */
export async function shareGroupsResetOffsetsCommand(
  ctx: CommandContext,
  group: string,
  options: ShareResetOptions,
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  if (options.allTopics === options.topics.length > 0)
    throw new CliError('ERR_KAFKA_CLI_USAGE', 'give either --topic (repeatable) or --all-topics');
  const warnings: string[] = [];
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const [described] = (await admin.describeShareGroups([group], { timeoutMs })).groups;
    const missing = described?.error?.code === 'ERR_KAFKA_BROKER_GROUP_ID_NOT_FOUND';
    if (described?.error !== undefined && !missing)
      rethrowActionable(described.error, 'DESCRIBE', { type: 'GROUP', name: group });
    const state = missing ? 'Dead' : (described?.state ?? '');
    if (state !== 'Empty' && state !== 'Dead')
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `share group ${group} is not empty: its state is ${state} (${described?.members.length ?? 0} member(s)); start offsets can only be reset while it has no members`,
        { hint: 'stop its share consumers first, then run this again' },
      );
    let partitions: TopicPartition[] = [];
    if (options.allTopics) {
      if (!missing) {
        const current = await admin.describeShareGroupOffsets(group, { timeoutMs });
        partitions = current.partitions.map((p) => ({ topic: p.topic, partition: p.partition }));
      }
    } else
      for (const spec of options.topics) {
        const { topic, partitions: only } = parseTopicSpec(spec);
        const found = await topicPartitions(admin, topic, timeoutMs, only);
        for (const partition of found.partitions) partitions.push({ topic, partition });
      }
    partitions = [...new Map(partitions.map((p) => [key(p), p])).values()].sort(byPartition);
    const lookup = async (spec: 'earliest' | 'latest') => {
      const out = new Map<string, bigint>();
      if (partitions.length === 0) return out;
      const answer = await admin.listOffsets(
        partitions.map((p) => ({ topic: p.topic, partition: p.partition, spec })),
        { timeoutMs },
      );
      for (const a of answer.partitions) {
        if (a.error !== undefined)
          rethrowActionable(a.error, 'DESCRIBE', { type: 'TOPIC', name: a.topic });
        out.set(key(a), a.offset ?? -1n);
      }
      return out;
    };
    const [earliest, latest] = await Promise.all([lookup('earliest'), lookup('latest')]);
    // The same arithmetic as a consumer group's reset (Kafka's GroupOffsetsResetter serves
    // both): an explicit offset is kept within [earliest, latest].
    const plan: ResetPlanRow[] = partitions.map((p) => ({
      group,
      topic: p.topic,
      partition: p.partition,
      newOffset: newOffset(
        group,
        p,
        options.mode,
        {
          earliest: earliest.get(key(p)) ?? 0n,
          latest: latest.get(key(p)) ?? 0n,
          committed: undefined,
        },
        (w) => warnings.push(w),
      ),
    }));
    for (const w of warnings) term.note(`warning: ${w}`);
    if (!term.json) {
      if (plan.length === 0) term.note('no partitions to reset');
      else
        term.table(
          ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
          plan.map((r) => [r.group, r.topic, String(r.partition), String(r.newOffset)]),
        );
    }
    if (
      plan.length === 0 ||
      !(await mayChange(
        ctx,
        options,
        `reset ${plan.length} start offset(s) of share group ${group}`,
      ))
    )
      return { plan, executed: false };
    const answer = await admin.alterShareGroupOffsets(
      group,
      plan.map((r) => ({ topic: r.topic, partition: r.partition, offset: r.newOffset })),
      { timeoutMs },
    );
    const failed = answer.partitions.filter((p) => p.error !== undefined);
    if (failed.length > 0) {
      const first = failed[0];
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${failed.length} of ${plan.length} start offsets were not reset; ${first?.topic}-${first?.partition}: ${first?.error?.message}`,
        { cause: first?.error },
      );
    }
    term.note(`reset ${plan.length} start offset(s) of share group ${group}`);
    return { plan, executed: true };
  });
  if (term.json) term.document({ group, ...result, warnings });
}

/**
 * `kafkats share-groups delete --group G...`: shows each group's state, then with --execute
 * deletes them (DeleteGroups). As ShareGroupCommand does, a group that is not a share group
 * or not Empty is refused before anything is sent.
 */
export async function shareGroupsDeleteCommand(
  ctx: CommandContext,
  groups: readonly string[],
  flags: ChangeFlags,
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  if (groups.length === 0) throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --group');
  const names = [...new Set(groups)];
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const listed = await admin
      .listShareGroups({ timeoutMs })
      .catch((e: unknown) =>
        rethrowActionable(e, 'DESCRIBE', { type: 'CLUSTER', name: 'kafka-cluster' }),
      );
    const states = new Map(listed.groups.map((g) => [g.groupId, g.state]));
    const plan = names.map((group) => {
      const state = states.get(group);
      const refusal =
        state === undefined
          ? `group '${group}' is not a share group`
          : state === 'Dead'
            ? `share group '${group}' group state is Dead`
            : state !== 'Empty'
              ? `share group '${group}' is not Empty (state ${state})`
              : null;
      return { group, state: state ?? null, refusal };
    });
    if (!term.json)
      term.table(
        ['GROUP', 'STATE', 'DELETABLE'],
        plan.map((g) => [g.group, dash(g.state), g.refusal === null ? 'yes' : `no: ${g.refusal}`]),
      );
    const refused = plan.filter((g) => g.refusal !== null);
    if (refused.length > 0)
      throw new CliError(
        refused.every((g) => g.state === null) ? 'ERR_KAFKA_CLI_NOT_FOUND' : 'ERR_KAFKA_CLI_USAGE',
        refused.map((g) => g.refusal).join('; '),
        { hint: 'list the share groups and their states with `kafkats share-groups list`' },
      );
    if (!(await mayChange(ctx, flags, `delete ${plan.length} share group(s)`)))
      return { groups: plan.map((g) => ({ ...g, deleted: false, error: null })), executed: false };
    const answer = await admin.deleteShareGroups(names, { timeoutMs });
    const deleted = answer.groups.map((g, i) => ({
      ...(plan[i] as (typeof plan)[number]),
      deleted: g.error === undefined,
      error: g.error === undefined ? null : g.error.message,
    }));
    for (const g of deleted)
      if (g.error === null) term.note(`deleted share group ${g.group}`);
      else term.note(`share group ${g.group} not deleted: ${g.error}`);
    const failed = deleted.filter((g) => !g.deleted);
    if (failed.length > 0)
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${failed.length} of ${deleted.length} share groups were not deleted`,
        { cause: answer.groups.find((g) => g.error !== undefined)?.error },
      );
    return { groups: deleted, executed: true };
  });
  if (term.json) term.document(result);
}

/**
 * `kafkats share-groups delete-offsets --group G --topic T...`: deletes the group's state for
 * whole topics (DeleteShareGroupOffsets), after showing what it has there; the group must
 * have no members.
 */
export async function shareGroupsDeleteOffsetsCommand(
  ctx: CommandContext,
  group: string,
  options: ChangeFlags & { readonly topics: readonly string[] },
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  if (options.topics.length === 0) throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --topic');
  const topics = [...new Set(options.topics)];
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const current = await admin
      .describeShareGroupOffsets(group, { timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', { type: 'GROUP', name: group }));
    const rows = current.partitions.filter((p) => topics.includes(p.topic));
    if (!term.json) {
      if (rows.length === 0) term.note(`share group ${group} has no state for those topics`);
      else
        term.table(
          ['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET'],
          rows.map((p) => [group, p.topic, String(p.partition), dash(p.startOffset)]),
        );
    }
    if (
      !(await mayChange(
        ctx,
        options,
        `delete the state of share group ${group} for ${topics.length} topic(s)`,
      ))
    )
      return { topics: topics.map((topic) => ({ topic, error: null })), executed: false };
    const answer = await admin
      .deleteShareGroupOffsets(group, topics, { timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DELETE', { type: 'GROUP', name: group }));
    const out = answer.topics.map((t) => ({ topic: t.topic, error: t.error?.message ?? null }));
    if (!term.json)
      term.table(
        ['TOPIC', 'STATUS'],
        out.map((t) => [t.topic, t.error === null ? 'Successful' : `Error: ${t.error}`]),
      );
    const failed = answer.topics.filter((t) => t.error !== undefined);
    if (failed.length > 0)
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${failed.length} of ${topics.length} topics kept their state: ${failed.map((t) => `${t.topic}: ${t.error?.errorName}`).join('; ')}`,
        { cause: failed[0]?.error },
      );
    return { topics: out, executed: true };
  });
  if (term.json) term.document({ group, ...result });
}
