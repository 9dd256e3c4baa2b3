import {
  deserializeMetadataEvent,
  KafkaMetadataEventLog,
  METADATA_TOPIC,
  RemoteLogMetadataManager,
  type RemoteLogSegmentMetadata,
  type TopicIdPartition,
  topicIdPartitionOf,
} from '@kafkats/remote-log-metadata';
import { CliError } from '../cli-error.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import {
  describeEvent,
  eventDocument,
  SEGMENT_HEADER,
  segmentDocument,
  segmentRows,
  stateColor,
} from '../rlmm-view.js';
import type { Terminal } from '../terminal.js';
import { topicPartitions } from '../topic-partitions.js';

/** Flags shared by the `rlmm` commands. */
export interface RlmmFlags {
  /** The metadata topic. Default `__remote_log_metadata`. */
  readonly metadataTopic?: string;
}

/**
 * Opens the metadata topic read-only (nothing but Metadata, ListOffsets and Fetch is ever
 * sent), after checking it exists so that its absence is a plain "not found".
 */
export async function openMetadataLog(
  ctx: CommandContext,
  flags: RlmmFlags,
): Promise<KafkaMetadataEventLog> {
  const topic = flags.metadataTopic ?? METADATA_TOPIC;
  await withCluster(ctx, async (_cluster, admin) => {
    const [d] = (await admin.describeTopics([topic], { timeoutMs: ctx.settings.timeoutMs })).topics;
    if (d?.error !== undefined) {
      if (d.error.errorName === 'UNKNOWN_TOPIC_OR_PARTITION') {
        throw new CliError(
          'ERR_KAFKA_CLI_NOT_FOUND',
          `the tiered-storage metadata topic ${topic} does not exist on this cluster`,
          {
            hint: 'it is created by brokers with remote.log.storage.system.enable=true (or by `npm start` on the embedded cluster)',
          },
        );
      }
      rethrowActionable(d.error, 'DESCRIBE', { type: 'TOPIC', name: topic });
    }
  });
  const { readOnly: _ignored, ...cluster } = ctx.settings.cluster;
  return KafkaMetadataEventLog.openReadOnly({ bootstrap: ctx.settings.bootstrap, cluster, topic });
}

/** One metadata partition of `rlmm status --json`. */
export interface RlmmPartitionStatus {
  readonly partition: number;
  /** Log end offset of the metadata partition. */
  readonly endOffset: bigint;
  /** Next offset the manager will read (it has applied every record before it). */
  readonly readOffset: bigint;
  /** `endOffset - readOffset`. */
  readonly lag: bigint;
  /** Events read, by kind. */
  readonly events: {
    readonly segment: number;
    readonly 'segment-update': number;
    readonly 'partition-delete': number;
  };
  /** Records that are not metadata events (skipped, as the manager skips them). */
  readonly badRecords: number;
  /** User partitions (`topicId:topic-partition`) whose events live here. */
  readonly userPartitions: readonly string[];
}

/** `rlmm status --json`. */
export interface RlmmStatusDocument {
  readonly topic: string;
  readonly topicId: string;
  readonly partitions: number;
  /** Whether the manager caught up with every end offset captured at the start. */
  readonly ready: boolean;
  /** Only metadata partitions holding records (the others have end offset 0). */
  readonly nonEmpty: readonly RlmmPartitionStatus[];
}

/**
 * Collects the status: end offsets in one ListOffsets round; each non-empty partition read once
 * to find its user partitions and count events; then a RemoteLogMetadataManager registered
 * for every user partition found reads the log as a broker's would, and its positions are
 * what "read" and "lag" report.
 */
export async function rlmmStatus(
  log: KafkaMetadataEventLog,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<RlmmStatusDocument> {
  const ends = await log.highWaterMarks();
  const stats = new Map<
    number,
    { events: Record<string, number>; bad: number; users: Map<string, TopicIdPartition> }
  >();
  for (const [partition, end] of [...ends].sort((a, b) => a[0] - b[0])) {
    if (end <= 0n) continue;
    const s = {
      events: { segment: 0, 'segment-update': 0, 'partition-delete': 0 } as Record<string, number>,
      bad: 0,
      users: new Map<string, TopicIdPartition>(),
    };
    stats.set(partition, s);
    await log.visitRange(
      partition,
      0n,
      end,
      (record) => {
        try {
          const event = deserializeMetadataEvent(record.value);
          s.events[event.kind] = (s.events[event.kind] ?? 0) + 1;
          const tp = topicIdPartitionOf(event);
          s.users.set(`${tp.topicId}:${tp.topic}-${tp.partition}`, tp);
        } catch {
          s.bad++;
        }
      },
      { signal },
    );
  }
  const manager = new RemoteLogMetadataManager(log);
  let ready = true;
  try {
    const users = [...stats.values()].flatMap((s) => [...s.users.values()]);
    if (users.length > 0) {
      await manager.onPartitionLeadershipChanges(users);
      await manager.waitUntilReady(users, { timeoutMs, signal }).catch(() => {
        ready = false;
      });
    }
    const positions = manager.positions();
    return {
      topic: log.topic,
      topicId: log.topicId,
      partitions: log.numPartitions,
      ready,
      nonEmpty: [...stats].map(([partition, s]) => {
        const endOffset = ends.get(partition) ?? 0n;
        const readOffset = positions.get(partition) ?? 0n;
        return {
          partition,
          endOffset,
          readOffset,
          lag: endOffset - readOffset,
          events: s.events as RlmmPartitionStatus['events'],
          badRecords: s.bad,
          userPartitions: [...s.users.keys()].sort(),
        };
      }),
    };
  } finally {
    await manager.close();
  }
}

/** Prints a status document for a person. */
export function printRlmmStatus(term: Terminal, doc: RlmmStatusDocument): void {
  const c = term.colors;
  term.line(
    `${c.bold('metadata topic')}  ${doc.topic} ${c.dim(doc.topicId)}, ${doc.partitions} partitions, ${doc.nonEmpty.length} with records`,
  );
  term.line(
    `${c.bold('manager')}         ${doc.ready ? c.green('caught up') : c.yellow('behind (timed out)')}`,
  );
  if (doc.nonEmpty.length === 0) return;
  term.line();
  term.table(
    ['PARTITION', 'END', 'READ', 'LAG', 'SEGMENTS', 'UPDATES', 'DELETES', 'BAD', 'USER PARTITIONS'],
    doc.nonEmpty.map((p) => [
      String(p.partition),
      String(p.endOffset),
      String(p.readOffset),
      String(p.lag),
      String(p.events.segment),
      String(p.events['segment-update']),
      String(p.events['partition-delete']),
      String(p.badRecords),
      p.userPartitions.join(' '),
    ]),
    (_r, col, cell) => ((col === 3 || col === 7) && cell.trim() !== '0' ? c.red(cell) : cell),
  );
}

/** `kafkats rlmm status`. */
export async function rlmmStatusCommand(ctx: CommandContext, flags: RlmmFlags): Promise<void> {
  const log = await openMetadataLog(ctx, flags);
  const progress = ctx.term.progress(`reading ${log.topic}`);
  try {
    const doc = await rlmmStatus(log, ctx.settings.timeoutMs, ctx.signal);
    progress.stop();
    if (ctx.term.json) ctx.term.document(doc);
    else printRlmmStatus(ctx.term, doc);
  } finally {
    progress.stop();
    await log.close();
  }
}

/** `kafkats rlmm tail`: decoded events as they arrive (from the end, or `--from-beginning`), until Ctrl-C or `--count`. */
export async function rlmmTailCommand(
  ctx: CommandContext,
  flags: RlmmFlags & { fromBeginning?: boolean; count?: number },
): Promise<void> {
  const { term } = ctx;
  const c = term.colors;
  const log = await openMetadataLog(ctx, flags);
  let seen = 0;
  try {
    const ends = await log.highWaterMarks();
    for (let p = 0; p < log.numPartitions; p++)
      log.assign(p, flags.fromBeginning === true ? 0n : (ends.get(p) ?? 0n));
    term.note(
      `following ${log.topic} (${log.numPartitions} partitions${flags.fromBeginning === true ? ', from the beginning' : ''}); Ctrl-C stops`,
    );
    outer: for await (const batch of log.read(ctx.signal)) {
      for (const record of batch.records) {
        let event: ReturnType<typeof deserializeMetadataEvent> | undefined;
        let problem: string | undefined;
        try {
          event = deserializeMetadataEvent(record.value);
        } catch (error) {
          problem = (error as Error).message;
        }
        if (term.json) {
          term.document({
            partition: batch.partition,
            offset: record.offset,
            timestamp: record.timestamp,
            event: event === undefined ? null : eventDocument(event),
            ...(problem === undefined ? {} : { error: problem }),
          });
        } else {
          const at = c.dim(
            `${batch.partition}@${record.offset} ${new Date(Number(record.timestamp)).toISOString()}`,
          );
          term.line(
            `${at} ${event === undefined ? c.red(`not a metadata event: ${problem}`) : describeEvent(event, c)}`,
          );
        }
        seen++;
        if (flags.count !== undefined && seen >= flags.count) break outer;
      }
    }
  } finally {
    await log.close();
  }
}

/** `kafkats rlmm segments TOPIC PARTITION --json`. */
export interface RlmmSegmentsDocument {
  readonly topicIdPartition: TopicIdPartition;
  readonly metadataPartition: number;
  readonly segments: readonly Record<string, unknown>[];
  /** The partition's last deletion step, or null. */
  readonly partitionDeleteState: string | null;
}

/** Materialises one user partition's segment table with a RemoteLogMetadataManager. */
export async function rlmmSegments(
  log: KafkaMetadataEventLog,
  tp: TopicIdPartition,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{
  segments: RemoteLogSegmentMetadata[];
  metadataPartition: number;
  deleteState: string | null;
}> {
  const manager = new RemoteLogMetadataManager(log);
  try {
    await manager.onPartitionLeadershipChanges([tp]);
    await manager.waitUntilReady([tp], { timeoutMs, signal });
    let segments: RemoteLogSegmentMetadata[] = [];
    let deleteState: string | null = null;
    deleteState = manager.remotePartitionDeleteMetadata(tp)?.state ?? null;
    try {
      segments = manager.listRemoteLogSegments(tp);
    } catch (error) {
      // A partition whose deletion finished has no table any more (Kafka's RemoteResourceNotFoundException).
      if ((error as { code?: string }).code !== 'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND') throw error;
    }
    return { segments, metadataPartition: manager.metadataPartitionOf(tp), deleteState };
  } finally {
    await manager.close();
  }
}

/** `kafkats rlmm segments TOPIC PARTITION`. */
export async function rlmmSegmentsCommand(
  ctx: CommandContext,
  topic: string,
  partition: number,
  flags: RlmmFlags & { topicId?: string },
): Promise<void> {
  const { term, settings } = ctx;
  let topicId = flags.topicId;
  if (topicId === undefined) {
    topicId = await withCluster(
      ctx,
      async (_c, admin) =>
        (await topicPartitions(admin, topic, settings.timeoutMs, [partition])).topicId,
    );
  }
  const tp: TopicIdPartition = { topicId, topic, partition };
  const log = await openMetadataLog(ctx, flags);
  const progress = term.progress(`reading ${log.topic}`);
  try {
    const { segments, metadataPartition, deleteState } = await rlmmSegments(
      log,
      tp,
      settings.timeoutMs,
      ctx.signal,
    );
    progress.stop();
    if (term.json) {
      const doc: RlmmSegmentsDocument = {
        topicIdPartition: tp,
        metadataPartition,
        segments: segments.map(segmentDocument),
        partitionDeleteState: deleteState,
      };
      term.document(doc);
      return;
    }
    const c = term.colors;
    term.line(
      `${c.bold('partition')}  ${topic}-${partition} ${c.dim(topicId)} (metadata partition ${metadataPartition})`,
    );
    if (deleteState !== null) term.line(`${c.bold('deletion')}   ${stateColor(deleteState, c)}`);
    if (segments.length === 0) {
      term.note('no remote segments');
      return;
    }
    term.line();
    term.table(SEGMENT_HEADER, segmentRows(segments), (_r, col, cell) =>
      col === 1
        ? stateColor(cell.trimEnd(), c) + ' '.repeat(cell.length - cell.trimEnd().length)
        : cell,
    );
  } finally {
    progress.stop();
    await log.close();
  }
}
