import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

/** One group of `kafkats groups --json`. */
export interface GroupDocument {
  readonly groupId: string;
  /** `classic`, `consumer`, `share`, `streams`; null when the broker does not say (ListGroups < v5). */
  readonly type: string | null;
  readonly protocolType: string;
  /**
   * `Stable`, `Empty`, ...: from ConsumerGroupDescribe for a KIP-848 group, from DescribeGroups
   * for the others.
   */
  readonly state: string;
  readonly protocol: string;
  readonly members: readonly {
    readonly memberId: string;
    readonly clientId: string;
    readonly clientHost: string;
    readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
  }[];
  /** Why the group could not be described, when it could not. */
  readonly error: string | null;
}

/** `kafkats groups [GROUP...]`: every group (ListGroups on every broker) or the named ones, described. */
export async function groupsCommand(ctx: CommandContext, names: readonly string[]): Promise<void> {
  const { term, settings } = ctx;
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const timeoutMs = settings.timeoutMs;
    let listed: { groupId: string; type?: string; protocolType: string }[] = names.map(
      (groupId) => ({ groupId, protocolType: '' }),
    );
    const unreachable: string[] = [];
    if (names.length === 0) {
      const answer = await admin
        .listGroups({ timeoutMs })
        .catch((e: unknown) =>
          rethrowActionable(e, 'DESCRIBE', { type: 'CLUSTER', name: 'kafka-cluster' }),
        );
      listed = [...answer.groups];
      for (const e of answer.errors) unreachable.push(`broker ${e.brokerId}: ${e.error.message}`);
    }
    if (listed.length === 0) return { groups: [] as GroupDocument[], unreachable };
    const described = (
      await admin.describeGroups(
        listed.map((g) => g.groupId),
        { timeoutMs },
      )
    ).groups;
    const groups = described.map((d, i): GroupDocument => {
      if (d.error !== undefined && names.length > 0)
        rethrowActionable(d.error, 'DESCRIBE', { type: 'GROUP', name: d.groupId });
      const listing = listed[i];
      return {
        groupId: d.groupId,
        type: listing?.type ?? d.type ?? null,
        protocolType: d.protocolType || listing?.protocolType || '',
        state: d.state,
        protocol: d.protocol,
        members: d.members.map((m) => ({
          memberId: m.memberId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          partitions: (m.assignedPartitions ?? []).map((p) => ({
            topic: p.topic,
            partition: p.partition,
          })),
        })),
        error: d.error === undefined ? null : d.error.message,
      };
    });
    return { groups, unreachable };
  });
  if (term.json) {
    term.document(result);
    return;
  }
  const c = term.colors;
  for (const u of result.unreachable) term.note(`not listed: ${u}`);
  if (result.groups.length === 0) {
    term.note('no groups');
    return;
  }
  term.table(
    ['GROUP', 'TYPE', 'STATE', 'PROTOCOL', 'MEMBERS', 'PARTITIONS'],
    result.groups.map((g) => [
      g.groupId,
      g.type ?? (g.protocolType || '-'),
      g.error !== null ? 'error' : g.state || '-',
      g.protocol || '-',
      String(g.members.length),
      String(g.members.reduce((n, m) => n + m.partitions.length, 0)),
    ]),
    (_r, col, cell) =>
      col === 2
        ? cell.startsWith('Stable')
          ? c.green(cell)
          : cell.startsWith('error')
            ? c.red(cell)
            : c.yellow(cell)
        : cell,
  );
  for (const g of result.groups) if (g.error !== null) term.note(`${g.groupId}: ${g.error}`);
}

/**
 * `kafkats groups delete GROUP...`: shows each group's state and members, then, with
 * `--execute` (and a yes on a terminal), deletes them (DeleteGroups): their committed offsets
 * and metadata. Kafka refuses a group that still has members (NON_EMPTY_GROUP).
 */
export async function groupsDeleteCommand(
  ctx: CommandContext,
  names: readonly string[],
  flags: ChangeFlags,
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const described = (await admin.describeGroups(names, { timeoutMs })).groups;
    for (const d of described)
      if (d.error !== undefined)
        rethrowActionable(d.error, 'DESCRIBE', { type: 'GROUP', name: d.groupId });
    const plan = described.map((d) => ({
      group: d.groupId,
      state: d.state,
      members: d.members.length,
    }));
    if (!term.json)
      term.table(
        ['GROUP', 'STATE', 'MEMBERS'],
        plan.map((g) => [g.group, g.state || '-', String(g.members)]),
      );
    const busy = plan.filter((g) => g.members > 0);
    if (busy.length > 0)
      term.note(
        `Kafka refuses to delete a group with members: ${busy.map((g) => g.group).join(', ')}`,
      );
    if (!(await mayChange(ctx, flags, `delete ${plan.length} group(s)`)))
      return { groups: plan.map((g) => ({ ...g, deleted: false, error: null })), executed: false };
    const answer = await admin.deleteGroups(names, { timeoutMs });
    const groups = answer.groups.map((g, i) => ({
      ...(plan[i] as (typeof plan)[number]),
      deleted: g.error === undefined,
      error: g.error === undefined ? null : g.error.message,
    }));
    for (const g of groups)
      if (g.error === null) term.note(`deleted group ${g.group}`);
      else term.note(`group ${g.group} not deleted: ${g.error}`);
    const failed = groups.filter((g) => !g.deleted);
    if (failed.length > 0)
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${failed.length} of ${groups.length} groups were not deleted`,
        { cause: answer.groups.find((g) => g.error !== undefined)?.error },
      );
    return { groups, executed: true };
  });
  if (term.json) term.document(result);
}
