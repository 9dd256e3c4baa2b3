import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import { topicPartitions } from '../topic-partitions.js';

/** One partition of `kafkats offsets TOPIC --json` (offsets as decimal strings). */
export interface OffsetsRow {
  readonly partition: number;
  /** Log start offset. */
  readonly earliest: bigint;
  /** Log end offset (the high watermark). */
  readonly latest: bigint;
  /** `latest - earliest`: records held (an upper bound: compaction and markers leave gaps). */
  readonly records: bigint;
  /** Offset of the record with the largest timestamp, or null for an empty partition (KIP-734). */
  readonly maxTimestampOffset: bigint | null;
  readonly maxTimestamp: bigint | null;
}

/** `kafkats offsets TOPIC`: earliest, latest and max-timestamp offsets per partition. */
export async function offsetsCommand(
  ctx: CommandContext,
  topic: string,
  options: { partition?: number[] },
): Promise<void> {
  const resource = { type: 'TOPIC', name: topic };
  const rows = await withCluster(ctx, async (_cluster, admin): Promise<OffsetsRow[]> => {
    const timeoutMs = ctx.settings.timeoutMs;
    const { partitions } = await topicPartitions(admin, topic, timeoutMs, options.partition);
    const items = partitions.flatMap((partition) => [
      { topic, partition, spec: 'earliest' as const },
      { topic, partition, spec: 'latest' as const },
      { topic, partition, spec: 'maxTimestamp' as const },
    ]);
    const answers = (await admin.listOffsets(items, { timeoutMs })).partitions;
    return partitions.map((partition, i) => {
      const [earliest, latest, max] = [answers[3 * i], answers[3 * i + 1], answers[3 * i + 2]];
      for (const a of [earliest, latest])
        if (a?.error !== undefined) rethrowActionable(a.error, 'DESCRIBE', resource);
      const e = earliest?.offset ?? 0n;
      const l = latest?.offset ?? 0n;
      const hasMax = max?.error === undefined && max?.offset !== undefined && max.offset >= 0n;
      return {
        partition,
        earliest: e,
        latest: l,
        records: l - e,
        maxTimestampOffset: hasMax ? (max?.offset ?? null) : null,
        maxTimestamp: hasMax ? (max?.timestamp ?? null) : null,
      };
    });
  });
  const { term } = ctx;
  if (term.json) {
    term.document({ topic, partitions: rows });
    return;
  }
  term.table(
    ['PARTITION', 'EARLIEST', 'LATEST', 'RECORDS', 'MAX-TIMESTAMP'],
    rows.map((r) => [
      String(r.partition),
      String(r.earliest),
      String(r.latest),
      String(r.records),
      r.maxTimestamp === null
        ? '-'
        : `${new Date(Number(r.maxTimestamp)).toISOString()} @${r.maxTimestampOffset}`,
    ]),
  );
  const total = rows.reduce((n, r) => n + r.records, 0n);
  term.note(`${total} records in ${rows.length} partitions of ${topic}`);
}
