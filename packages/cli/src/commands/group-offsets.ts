import type { Admin, TopicPartition } from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import { topicPartitions } from '../topic-partitions.js';

const key = (p: TopicPartition) => `${p.topic}\u0000${p.partition}`;
const byPartition = (a: TopicPartition, b: TopicPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

/** One row of `kafkats groups describe`: Kafka's `kafka-consumer-groups.sh --describe` columns. */
export interface GroupOffsetRow {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  /** The committed offset; null when the group has none for the partition. */
  readonly currentOffset: bigint | null;
  /** The partition's log end offset (ListOffsets latest, read_uncommitted); null when unknown. */
  readonly logEndOffset: bigint | null;
  /** logEndOffset - currentOffset; null when either is unknown. */
  readonly lag: bigint | null;
  /** The member that owns the partition, or null. */
  readonly consumerId: string | null;
  readonly host: string | null;
  readonly clientId: string | null;
}

/** `kafkats groups describe --json`: per group, its state, members and offsets with lag. */
export interface GroupDescribeDocument {
  readonly group: string;
  readonly state: string;
  readonly type: string | null;
  readonly members: readonly {
    readonly memberId: string;
    readonly groupInstanceId: string | null;
    readonly clientId: string;
    readonly host: string;
    readonly memberEpoch: number | null;
    readonly partitions: readonly TopicPartition[];
  }[];
  readonly offsets: readonly GroupOffsetRow[];
}

/**
 * The log end offsets (ListOffsets latest, read_uncommitted, as Kafka's group command reads
 * them) of `partitions`; a partition whose lookup failed is absent.
 */
async function logEndOffsets(
  admin: Admin,
  partitions: readonly TopicPartition[],
  timeoutMs: number,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (partitions.length === 0) return out;
  const answer = await admin.listOffsets(
    partitions.map((p) => ({ topic: p.topic, partition: p.partition, spec: 'latest' as const })),
    { timeoutMs },
  );
  for (const p of answer.partitions)
    if (p.error === undefined && p.offset !== undefined) out.set(key(p), p.offset);
  return out;
}

/** A group's committed offsets (partitions with a commit only). */
async function committedOffsets(
  admin: Admin,
  group: string,
  timeoutMs: number,
): Promise<Map<string, { topic: string; partition: number; offset: bigint }>> {
  const answer = await admin
    .listConsumerGroupOffsets(group, { timeoutMs })
    .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', { type: 'GROUP', name: group }));
  const out = new Map<string, { topic: string; partition: number; offset: bigint }>();
  for (const p of answer.partitions)
    if (p.error === undefined && p.offset >= 0n) out.set(key(p), p);
  return out;
}

/** One described group, or the actionable error (GROUP_ID_NOT_FOUND, authorization). */
async function describeOne(admin: Admin, group: string, timeoutMs: number) {
  const [described] = (await admin.describeGroups([group], { timeoutMs })).groups;
  if (described?.error !== undefined)
    rethrowActionable(described.error, 'DESCRIBE', { type: 'GROUP', name: group });
  return described;
}

/**
 * `kafkats groups describe GROUP...`: each group's members, and per partition its committed
 * offset, log end offset and lag, as `kafka-consumer-groups.sh --describe` shows them and in
 * its order: the partitions members own (with the owner) and those with a commit but no owner.
 */
export async function groupsDescribeCommand(
  ctx: CommandContext,
  groups: readonly string[],
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const documents = await withCluster(ctx, async (_cluster, admin) => {
    const out: GroupDescribeDocument[] = [];
    for (const group of groups) {
      const described = await describeOne(admin, group, timeoutMs);
      const committed = await committedOffsets(admin, group, timeoutMs);
      const owners = new Map<string, { memberId: string; host: string; clientId: string }>();
      const members = (described?.members ?? []).map((m) => {
        const partitions = [...(m.assignedPartitions ?? [])].sort(byPartition);
        for (const p of partitions)
          owners.set(key(p), { memberId: m.memberId, host: m.clientHost, clientId: m.clientId });
        return {
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          host: m.clientHost,
          memberEpoch: m.memberEpoch ?? null,
          partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
        };
      });
      // Kafka's order: members by assignment size, largest first, each member's partitions
      // sorted; then the committed partitions no member owns, sorted.
      const partitions = new Map<string, TopicPartition>();
      for (const m of [...members].sort((a, b) => b.partitions.length - a.partitions.length))
        for (const p of m.partitions) partitions.set(key(p), p);
      const unowned = [...committed.values()]
        .filter((p) => !partitions.has(key(p)))
        .sort(byPartition);
      for (const p of unowned) partitions.set(key(p), { topic: p.topic, partition: p.partition });
      const sorted = [...partitions.values()];
      const ends = await logEndOffsets(admin, sorted, timeoutMs);
      const offsets = sorted.map((p): GroupOffsetRow => {
        const current = committed.get(key(p))?.offset ?? null;
        const end = ends.get(key(p)) ?? null;
        const owner = owners.get(key(p));
        return {
          group,
          topic: p.topic,
          partition: p.partition,
          currentOffset: current,
          logEndOffset: end,
          lag: current === null || end === null ? null : end - current,
          consumerId: owner?.memberId ?? null,
          host: owner?.host ?? null,
          clientId: owner?.clientId ?? null,
        };
      });
      out.push({
        group,
        state: described?.state ?? '',
        type: described?.type ?? null,
        members,
        offsets,
      });
    }
    return out;
  });
  if (term.json) {
    term.document({ groups: documents });
    return;
  }
  const dash = (v: bigint | string | null) => (v === null ? '-' : String(v));
  documents.forEach((d, i) => {
    if (i > 0) term.line();
    term.line(`group ${d.group}: ${d.state || '-'}, ${d.members.length} member(s)`);
    if (d.members.length === 0) term.note(`consumer group '${d.group}' has no active members`);
    if (d.offsets.length === 0) term.note(`consumer group '${d.group}' has no committed offsets`);
    else
      term.table(
        [
          'GROUP',
          'TOPIC',
          'PARTITION',
          'CURRENT-OFFSET',
          'LOG-END-OFFSET',
          'LAG',
          'CONSUMER-ID',
          'HOST',
          'CLIENT-ID',
        ],
        d.offsets.map((r) => [
          r.group,
          r.topic,
          String(r.partition),
          dash(r.currentOffset),
          dash(r.logEndOffset),
          dash(r.lag),
          dash(r.consumerId),
          dash(r.host),
          dash(r.clientId),
        ]),
      );
    if (d.members.length > 0) {
      term.line();
      term.table(
        ['CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', 'EPOCH', 'PARTITIONS'],
        d.members.map((m) => [
          m.memberId,
          m.groupInstanceId ?? '-',
          m.host,
          m.clientId,
          m.memberEpoch === null ? '-' : String(m.memberEpoch),
          m.partitions.map((p) => `${p.topic}-${p.partition}`).join(',') || '-',
        ]),
      );
    }
  });
}

// -- reset-offsets -------------------------------------------------------------------------

/** How `groups reset-offsets` computes each partition's new offset (one of them). */
export type ResetMode =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'current' }
  | { readonly kind: 'offset'; readonly offset: bigint }
  | { readonly kind: 'shift'; readonly by: bigint }
  | { readonly kind: 'timestamp'; readonly timestamp: bigint }
  | { readonly kind: 'file'; readonly offsets: ReadonlyMap<string, bigint> };

/** One row of a reset plan: Kafka's `GROUP TOPIC PARTITION NEW-OFFSET`. */
export interface ResetPlanRow extends TopicPartition {
  readonly group: string;
  readonly newOffset: bigint;
}

/** What the plan needs to know of a partition. */
export interface PartitionOffsets {
  readonly earliest: bigint;
  readonly latest: bigint;
  /** The group's committed offset, or undefined. */
  readonly committed: bigint | undefined;
  /** The first offset at or after the mode's timestamp, or -1 when none (timestamp modes). */
  readonly atTimestamp?: bigint;
}

/**
 * The new offset of one partition under `mode`, as Kafka's ConsumerGroupCommand computes it:
 * an explicit offset or a shift is clamped into [earliest, latest] (with a warning); a
 * timestamp past every record gives the log end; `current` keeps the commit (or the log end
 * without one). Pure: the lookups were made before.
 *
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for a shift of a partition without a committed offset
 */
export function newOffset(
  group: string,
  p: TopicPartition,
  mode: ResetMode,
  o: PartitionOffsets,
  warn: (text: string) => void,
): bigint {
  const clamp = (wanted: bigint): bigint => {
    if (wanted > o.latest) {
      warn(
        `new offset (${wanted}) is higher than latest offset for topic partition ${p.topic}-${p.partition}; value will be set to ${o.latest}`,
      );
      return o.latest;
    }
    if (wanted < o.earliest) {
      warn(
        `new offset (${wanted}) is lower than earliest offset for topic partition ${p.topic}-${p.partition}; value will be set to ${o.earliest}`,
      );
      return o.earliest;
    }
    return wanted;
  };
  switch (mode.kind) {
    case 'earliest':
      return o.earliest;
    case 'latest':
      return o.latest;
    case 'current':
      return o.committed ?? o.latest;
    case 'offset':
      return clamp(mode.offset);
    case 'shift':
      if (o.committed === undefined)
        throw new CliError(
          'ERR_KAFKA_CLI_USAGE',
          `cannot shift the offset of ${p.topic}-${p.partition}: group ${group} has no committed offset for it`,
        );
      return clamp(o.committed + mode.by);
    case 'timestamp':
      return o.atTimestamp === undefined || o.atTimestamp < 0n ? o.latest : o.atTimestamp;
    case 'file': {
      const wanted = mode.offsets.get(key(p));
      if (wanted === undefined)
        throw new CliError(
          'ERR_KAFKA_CLI_INPUT_INVALID',
          `no offset for ${p.topic}-${p.partition}`,
        );
      return clamp(wanted);
    }
  }
}

/**
 * Reads `--from-file`: lines `topic,partition,offset` (Kafka's `--export` format; a leading
 * group column, as Kafka writes for several groups, is allowed when it names `group`).
 *
 * @throws CliError `ERR_KAFKA_CLI_INPUT_INVALID` naming the line
 */
export function parseResetFile(text: string, group: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let cells = line.split(',').map((c) => c.trim());
    if (cells.length === 4) {
      if (cells[0] !== group) return;
      cells = cells.slice(1);
    }
    const [topic, partition, offset] = cells;
    if (
      cells.length !== 3 ||
      topic === undefined ||
      topic === '' ||
      !/^\d+$/.test(partition ?? '') ||
      !/^\d+$/.test(offset ?? '')
    )
      throw new CliError(
        'ERR_KAFKA_CLI_INPUT_INVALID',
        `line ${i + 1} of the reset file is not topic,partition,offset (offsets >= 0, as Kafka requires): ${JSON.stringify(raw)}`,
      );
    out.set(key({ topic, partition: Number(partition) }), BigInt(offset as string));
  });
  return out;
}

/** `--topic` values: `name` (every partition) or `name:0,1,2`. */
export function parseTopicSpec(spec: string): { topic: string; partitions?: number[] } {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) return { topic: spec };
  const topic = spec.slice(0, colon);
  const list = spec.slice(colon + 1);
  if (topic === '' || !/^\d+(,\d+)*$/.test(list))
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `--topic takes a topic name or name:partition,partition..., got ${JSON.stringify(spec)}`,
    );
  return { topic, partitions: list.split(',').map(Number) };
}

/** Options of `groups reset-offsets`. */
export interface ResetOffsetsOptions extends ChangeFlags {
  readonly topics: readonly string[];
  readonly allTopics: boolean;
  readonly mode: ResetMode;
}

/** Group states in which Kafka lets offsets be reset: no member can commit over them. */
const INACTIVE = new Set(['Empty', 'Dead']);

/**
 * `kafkats groups reset-offsets GROUP`: computes the new offsets of the chosen partitions (the
 * plan, shown as Kafka's `GROUP TOPIC PARTITION NEW-OFFSET`), then, with `--execute` (and a
 * yes on a terminal), commits them (OffsetCommit from outside the group). Refuses while the
 * group has members, as Kafka does.
 */
export async function groupsResetOffsetsCommand(
  ctx: CommandContext,
  group: string,
  options: ResetOffsetsOptions,
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  const fromFile = options.mode.kind === 'file' ? options.mode.offsets : undefined;
  const scoped = options.allTopics || options.topics.length > 0;
  if (fromFile !== undefined ? scoped : options.allTopics === options.topics.length > 0)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      fromFile !== undefined
        ? '--from-file names the partitions itself: leave out --topic and --all-topics'
        : 'give either --topic (repeatable) or --all-topics',
    );
  const warnings: string[] = [];
  const result = await withCluster(ctx, async (_cluster, admin) => {
    // A group that does not exist is inactive (Kafka's GroupOffsetsResetter takes
    // GroupIdNotFoundException so): the reset creates its offsets.
    const [described] = (await admin.describeGroups([group], { timeoutMs })).groups;
    const missing = described?.error?.code === 'ERR_KAFKA_BROKER_GROUP_ID_NOT_FOUND';
    if (described?.error !== undefined && !missing)
      rethrowActionable(described.error, 'DESCRIBE', { type: 'GROUP', name: group });
    const state = missing ? 'Dead' : (described?.state ?? '');
    if (!INACTIVE.has(state))
      throw new CliError(
        'ERR_KAFKA_CLI_USAGE',
        `offsets of group ${group} can only be reset while it is inactive, but its state is ${state} (${described?.members.length ?? 0} member(s))`,
        { hint: 'stop its consumers first, then run this again' },
      );
    const committed = await committedOffsets(admin, group, timeoutMs);
    let partitions: TopicPartition[] = [];
    if (fromFile !== undefined) {
      // One lookup per topic of the file: each partition it names must exist.
      const named = new Map<string, number[]>();
      for (const k of fromFile.keys()) {
        const [topic = '', partition = '0'] = k.split('\u0000');
        named.set(topic, [...(named.get(topic) ?? []), Number(partition)]);
      }
      for (const [topic, only] of named) {
        await topicPartitions(admin, topic, timeoutMs, only);
        for (const partition of only) partitions.push({ topic, partition });
      }
    } else if (options.allTopics) partitions = [...committed.values()];
    else
      for (const spec of options.topics) {
        const { topic, partitions: only } = parseTopicSpec(spec);
        const found = await topicPartitions(admin, topic, timeoutMs, only);
        for (const partition of found.partitions) partitions.push({ topic, partition });
      }
    partitions = [...new Map(partitions.map((p) => [key(p), p])).values()].sort(byPartition);
    const lookup = async (spec: 'earliest' | 'latest' | { timestamp: bigint }) => {
      const answer = await admin.listOffsets(
        partitions.map((p) => ({ topic: p.topic, partition: p.partition, spec })),
        { timeoutMs },
      );
      const out = new Map<string, bigint>();
      for (const a of answer.partitions) {
        if (a.error !== undefined)
          rethrowActionable(a.error, 'DESCRIBE', { type: 'TOPIC', name: a.topic });
        out.set(key(a), a.offset ?? -1n);
      }
      return out;
    };
    const [earliest, latest] = await Promise.all([lookup('earliest'), lookup('latest')]);
    const mode = options.mode;
    const at = mode.kind === 'timestamp' ? await lookup({ timestamp: mode.timestamp }) : undefined;
    const plan: ResetPlanRow[] = partitions.map((p) => ({
      group,
      topic: p.topic,
      partition: p.partition,
      newOffset: newOffset(
        group,
        p,
        mode,
        {
          earliest: earliest.get(key(p)) ?? 0n,
          latest: latest.get(key(p)) ?? 0n,
          committed: committed.get(key(p))?.offset,
          ...(at === undefined ? {} : { atTimestamp: at.get(key(p)) ?? -1n }),
        },
        (w) => warnings.push(w),
      ),
    }));
    for (const w of warnings) term.note(`warning: ${w}`);
    showPlan(ctx, plan);
    if (
      plan.length === 0 ||
      !(await mayChange(ctx, options, `reset ${plan.length} offset(s) of group ${group}`))
    )
      return { plan, executed: false };
    const answer = await admin.alterConsumerGroupOffsets(
      group,
      plan.map((r) => ({ topic: r.topic, partition: r.partition, offset: r.newOffset })),
      { timeoutMs },
    );
    const failed = answer.partitions.filter((p) => p.error !== undefined);
    if (failed.length > 0) {
      const first = failed[0];
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${failed.length} of ${plan.length} offsets were not reset; ${first?.topic}-${first?.partition}: ${first?.error?.message}`,
        { cause: first?.error },
      );
    }
    term.note(`reset ${plan.length} offset(s) of group ${group}`);
    return { plan, executed: true };
  });
  if (term.json) term.document({ group, ...result, warnings });
}

function showPlan(ctx: CommandContext, plan: readonly ResetPlanRow[]): void {
  const { term } = ctx;
  if (term.json) return;
  if (plan.length === 0) {
    term.note('no partitions to reset');
    return;
  }
  term.table(
    ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
    plan.map((r) => [r.group, r.topic, String(r.partition), String(r.newOffset)]),
  );
}

/**
 * `kafkats groups delete-offsets GROUP --topic T[:P,...]`: deletes the group's committed
 * offsets of those partitions (OffsetDelete), after showing them; Kafka refuses partitions
 * of a topic the group's members subscribe to.
 */
export async function groupsDeleteOffsetsCommand(
  ctx: CommandContext,
  group: string,
  options: ChangeFlags & { readonly topics: readonly string[] },
): Promise<void> {
  const { term, settings } = ctx;
  const timeoutMs = settings.timeoutMs;
  if (options.topics.length === 0) throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --topic');
  const result = await withCluster(ctx, async (_cluster, admin) => {
    const committed = await committedOffsets(admin, group, timeoutMs);
    const chosen: TopicPartition[] = [];
    for (const spec of options.topics) {
      const { topic, partitions } = parseTopicSpec(spec);
      const all = [...committed.values()].filter((p) => p.topic === topic);
      for (const p of all)
        if (partitions === undefined || partitions.includes(p.partition))
          chosen.push({ topic, partition: p.partition });
    }
    chosen.sort(byPartition);
    if (!term.json) {
      if (chosen.length === 0) term.note(`group ${group} has no committed offsets there`);
      else
        term.table(
          ['GROUP', 'TOPIC', 'PARTITION', 'OFFSET-TO-DELETE'],
          chosen.map((p) => [
            group,
            p.topic,
            String(p.partition),
            String(committed.get(key(p))?.offset ?? '-'),
          ]),
        );
    }
    if (
      chosen.length === 0 ||
      !(await mayChange(
        ctx,
        options,
        `delete ${chosen.length} committed offset(s) of group ${group}`,
      ))
    )
      return { partitions: chosen, executed: false, errors: [] as string[] };
    const answer = await admin
      .deleteConsumerGroupOffsets(group, chosen, { timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DELETE', { type: 'GROUP', name: group }));
    const errors = answer.partitions
      .filter((p) => p.error !== undefined)
      .map((p) => `${p.topic}-${p.partition}: ${p.error?.errorName ?? p.error?.message}`);
    if (errors.length > 0)
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `${errors.length} of ${chosen.length} offsets were not deleted: ${errors.join('; ')}`,
        { cause: answer.partitions.find((p) => p.error !== undefined)?.error },
      );
    term.note(`deleted ${chosen.length} committed offset(s) of group ${group}`);
    return { partitions: chosen, executed: true, errors };
  });
  if (term.json) term.document({ group, ...result });
}

/**
 * `--to-datetime`: `YYYY-MM-DDTHH:mm:SS.sss` with an optional zone (`Z`, `+hh:mm`, `+hhmm`,
 * `+hh`), as Kafka's `Utils.getDateTime` takes it; without a zone, UTC, as Kafka reads it (it
 * appends `Z`). Seconds and milliseconds may be left out here (Kafka requires them).
 *
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for anything else
 */
export function parseDateTime(text: string): bigint {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
      text,
    );
  if (m === null)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `--to-datetime takes YYYY-MM-DDTHH:mm:SS.sss with an optional zone (Z, +hh:mm), got ${JSON.stringify(text)}`,
    );
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  const ms = Number(frac.padEnd(3, '0'));
  const parts = [
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    ms,
  ] as const;
  let at = Date.UTC(...parts);
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    at -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * 60_000;
  }
  if (!Number.isFinite(at))
    throw new CliError('ERR_KAFKA_CLI_USAGE', `--to-datetime ${text} is not a date`);
  return BigInt(at);
}

/**
 * `--by-duration`: an ISO-8601 duration `PnDTnHnMn.nS` (Java's `Duration.parse`, as Kafka
 * takes it), in ms.
 *
 * @throws CliError `ERR_KAFKA_CLI_USAGE` for anything else
 */
export function parseDuration(text: string): bigint {
  const m =
    /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{1,9}))?S)?)?$/i.exec(
      text,
    );
  if (m === null || /T$/i.test(text) || /^[-+]?P$/i.test(text))
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `--by-duration takes an ISO-8601 duration such as PT1H30M or P2D, got ${JSON.stringify(text)}`,
    );
  const [, sign, days = '0', hours = '0', minutes = '0', seconds = '0', frac = ''] = m;
  const wholeSeconds = BigInt(seconds);
  let ms =
    ((BigInt(days) * 24n + BigInt(hours)) * 60n + BigInt(minutes)) * 60_000n + wholeSeconds * 1000n;
  const fracMs = BigInt(frac.padEnd(3, '0').slice(0, 3) || '0');
  ms += seconds.startsWith('-') ? -fracMs : fracMs;
  return sign === '-' ? -ms : ms;
}
