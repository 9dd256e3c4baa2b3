import {
  type ConsumerRecord,
  type ListOffsetsRequestItem,
  MultiPartitionReader,
} from '@kafkats/client';
import { CliError } from '../cli-error.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import { topicPartitions } from '../topic-partitions.js';

/** Where `consume --from` starts each partition. */
export type StartSpec =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'offset'; readonly offset: bigint }
  | { readonly kind: 'timestamp'; readonly timestampMs: bigint };

/**
 * Parses `--from`: `earliest`, `latest`, an offset (`42`), or a time: `@1700000000000` (ms since
 * the epoch) or an ISO-8601 date (`2026-12-01T12:00:00Z`).
 * @throws CliError `ERR_KAFKA_CLI_USAGE`
 */
export function parseStartSpec(text: string): StartSpec {
  if (text === 'earliest' || text === 'beginning') return { kind: 'earliest' };
  if (text === 'latest' || text === 'end') return { kind: 'latest' };
  if (/^\d+$/.test(text)) return { kind: 'offset', offset: BigInt(text) };
  if (/^@\d+$/.test(text)) return { kind: 'timestamp', timestampMs: BigInt(text.slice(1)) };
  const ms = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(ms))
    return { kind: 'timestamp', timestampMs: BigInt(ms) };
  throw new CliError(
    'ERR_KAFKA_CLI_USAGE',
    `--from "${text}" is not earliest, latest, an offset, @<ms> or an ISO date`,
  );
}

/** How bytes are printed with --json. */
export type BytesEncoding = 'utf8' | 'base64';

/** One line of `kafkats consume --json`. */
export interface ConsumedRecordDocument {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
  /** Bytes in the chosen `--encoding` (UTF-8 text by default, or base64); null for a null key or value. */
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: readonly { readonly key: string; readonly value: string | null }[];
}

/** Flags of `kafkats consume`. */
export interface ConsumeFlags {
  readonly from: string;
  readonly partition?: number[];
  readonly count?: number;
  readonly follow?: boolean;
  readonly encoding: BytesEncoding;
  readonly isolation: 'read_uncommitted' | 'read_committed';
}

const bytes = (b: Buffer | null, encoding: BytesEncoding) =>
  b === null ? null : b.toString(encoding);

/** A record as its --json line. */
export function recordDocument(
  topic: string,
  partition: number,
  r: ConsumerRecord,
  encoding: BytesEncoding,
): ConsumedRecordDocument {
  return {
    topic,
    partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: bytes(r.key, encoding),
    value: bytes(r.value, encoding),
    headers: r.headers.map((h) => ({ key: h.key, value: bytes(h.value, encoding) })),
  };
}

/**
 * `kafkats consume TOPIC`: reads with the client's MultiPartitionReader (no group, no commits).
 * Without `--follow` it stops at the end offsets captured when it started; `--count` stops
 * after that many records; Ctrl-C stops it cleanly.
 */
export async function consumeCommand(
  ctx: CommandContext,
  topic: string,
  flags: ConsumeFlags,
): Promise<void> {
  const resource = { type: 'TOPIC', name: topic };
  const { term, settings } = ctx;
  const start = parseStartSpec(flags.from);
  if (flags.count !== undefined && (!Number.isInteger(flags.count) || flags.count < 1)) {
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      `--count must be a positive integer, got ${flags.count}`,
    );
  }
  const c = term.colors;
  let consumed = 0;
  await withCluster(ctx, async (cluster, admin) => {
    const timeoutMs = settings.timeoutMs;
    const { partitions } = await topicPartitions(admin, topic, timeoutMs, flags.partition);
    const items: ListOffsetsRequestItem[] = [];
    for (const partition of partitions) {
      items.push({ topic, partition, spec: 'earliest' }, { topic, partition, spec: 'latest' });
      if (start.kind === 'timestamp')
        items.push({ topic, partition, spec: { timestamp: start.timestampMs } });
    }
    const answers = (await admin.listOffsets(items, { isolationLevel: flags.isolation, timeoutMs }))
      .partitions;
    for (const a of answers)
      if (a.error !== undefined) rethrowActionable(a.error, 'DESCRIBE', resource);
    const per = start.kind === 'timestamp' ? 3 : 2;
    const plan = partitions.map((partition, i) => {
      const earliest = answers[per * i]?.offset ?? 0n;
      const end = answers[per * i + 1]?.offset ?? 0n;
      let from: bigint;
      if (start.kind === 'earliest') from = earliest;
      else if (start.kind === 'latest') from = end;
      else if (start.kind === 'offset') from = start.offset < earliest ? earliest : start.offset;
      else {
        const at = answers[per * i + 2]?.offset ?? -1n;
        from = at < 0n ? end : at;
      }
      return { partition, from, end };
    });
    const active = plan.filter((p) => flags.follow === true || p.from < p.end);
    if (active.length === 0) {
      term.note(
        `nothing to read: every partition of ${topic} is at its end (--follow waits for new records)`,
      );
      return;
    }
    const remaining = new Map(active.map((p) => [p.partition, p.end]));
    const reader = new MultiPartitionReader(
      cluster,
      active.map((p) => ({ topic, partition: p.partition, startOffset: p.from })),
      { signal: ctx.signal, isolationLevel: flags.isolation, offsetOutOfRange: 'earliest' },
    );
    const progress = term.progress(`consuming ${topic}`);
    try {
      outer: for await (const batch of reader) {
        for (const r of batch.records) {
          if (term.json) term.document(recordDocument(topic, batch.partition, r, flags.encoding));
          else {
            const head = c.dim(
              `${batch.partition}@${r.offset} ${new Date(Number(r.timestamp)).toISOString()}`,
            );
            const key = r.key === null ? '' : `${c.cyan(r.key.toString('utf8'))} `;
            const headers =
              r.headers.length === 0
                ? ''
                : ` ${c.dim(`[${r.headers.map((h) => `${h.key}=${h.value?.toString('utf8') ?? 'null'}`).join(', ')}]`)}`;
            term.line(
              `${head} ${key}${r.value === null ? c.dim('(null)') : r.value.toString('utf8')}${headers}`,
            );
          }
          consumed++;
          if (flags.count !== undefined && consumed >= flags.count) break outer;
        }
        progress.update(`consuming ${topic}: ${consumed} records`);
        if (flags.follow !== true) {
          const end = remaining.get(batch.partition);
          if (end !== undefined && batch.nextOffset >= end) remaining.delete(batch.partition);
          if (remaining.size === 0) break;
        }
      }
    } catch (error) {
      rethrowActionable(error, 'READ', resource);
    } finally {
      progress.stop();
      await reader.close();
    }
  });
  term.note(`${consumed} record${consumed === 1 ? '' : 's'} from ${topic}`);
}
