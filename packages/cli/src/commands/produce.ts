import { createInterface } from 'node:readline';
import { Producer, type RecordMetadata } from '@kafkats/client';
import { ProduceApi } from '@kafkats/codec';
import { apiAccess, ReadOnlyError } from '@kafkats/meta';
import { CliError } from '../cli-error.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';
import { type InputOptions, type InputRecord, parseInputLine } from '../records-input.js';
import { topicPartitions } from '../topic-partitions.js';

/** Flags of `kafkats produce`. */
export interface ProduceFlags extends InputOptions {
  /** One record with this value instead of reading stdin. */
  readonly value?: string;
  readonly acks: 'all' | '1' | '0';
  readonly compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
}

/** `kafkats produce TOPIC --json`: where each record landed, in input order. */
export interface ProduceDocument {
  readonly topic: string;
  readonly count: number;
  readonly records: readonly {
    readonly partition: number;
    readonly offset: bigint;
    readonly timestamp: bigint;
  }[];
}

const readOnlyRefusal = (topic: string, cause?: ReadOnlyError) =>
  new CliError(
    'ERR_KAFKA_CLI_READ_ONLY',
    `refused by --read-only: producing to ${topic} writes to the cluster (InitProducerId and Produce are writes; nothing was sent)`,
    {
      hint: 'run produce without --read-only (and without "readOnly": true in the config file)',
      ...(cause === undefined ? {} : { cause }),
    },
  );

async function* inputRecords(
  ctx: CommandContext,
  flags: ProduceFlags,
): AsyncGenerator<InputRecord> {
  if (flags.value !== undefined) {
    const { keySeparator: _ignored, ...rest } = flags;
    const r = parseInputLine(flags.value, 1, { ...rest, format: 'lines' });
    if (r !== undefined) yield r;
    return;
  }
  const lines = createInterface({ input: ctx.term.io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n++;
    const r = parseInputLine(line, n, flags);
    if (r !== undefined) yield r;
  }
}

/**
 * `kafkats produce TOPIC`: records from stdin (a line each, or JSON objects) or `--value`,
 * with the idempotent producer; resolves once every record is acknowledged.
 */
export async function produceCommand(
  ctx: CommandContext,
  topic: string,
  flags: ProduceFlags,
): Promise<void> {
  const resource = { type: 'TOPIC', name: topic };
  const { term, settings } = ctx;
  const doc = await withCluster(ctx, async (cluster, admin): Promise<ProduceDocument> => {
    if (cluster.readOnly && apiAccess(ProduceApi.apiKey) !== 'read') {
      // Refused before stdin is read: the cluster's gate would refuse the producer's first
      // request (InitProducerId) by the same table, but only after the input was waited for.
      throw readOnlyRefusal(topic);
    }
    const { partitions } = await topicPartitions(admin, topic, settings.timeoutMs);
    const producer = new Producer(cluster, {
      acks: flags.acks === 'all' ? 'all' : (Number(flags.acks) as 0 | 1),
      compression: flags.compression,
      maxBlockMs: settings.timeoutMs,
      deliveryTimeoutMs: Math.max(settings.timeoutMs, 35_000),
    });
    const progress = term.progress(`producing to ${topic}`);
    const pending: Promise<RecordMetadata>[] = [];
    try {
      for await (const r of inputRecords(ctx, flags)) {
        if (r.partition !== undefined && !partitions.includes(r.partition)) {
          throw new CliError(
            'ERR_KAFKA_CLI_NOT_FOUND',
            `topic ${topic} has no partition ${r.partition} (it has ${partitions.length})`,
          );
        }
        const queued = await producer.enqueue({
          topic,
          key: r.key,
          value: r.value,
          headers: r.headers,
          ...(r.partition === undefined ? {} : { partition: r.partition }),
          ...(r.timestamp === undefined ? {} : { timestamp: r.timestamp }),
        });
        pending.push(queued.result);
        progress.update(`producing to ${topic}: ${pending.length} records`);
      }
      const delivered = await Promise.all(pending);
      progress.succeed(`produced ${delivered.length} records to ${topic}`);
      return {
        topic,
        count: delivered.length,
        records: delivered.map((d) => ({
          partition: d.partition,
          offset: d.offset,
          timestamp: d.timestamp,
        })),
      };
    } catch (error) {
      progress.fail();
      if (error instanceof ReadOnlyError) throw readOnlyRefusal(topic, error);
      // The idempotent producer's InitProducerId needs IDEMPOTENT_WRITE on the cluster (or
      // WRITE on any topic, which implies it); its records need WRITE on the topic.
      rethrowActionable(error, 'WRITE', resource, 'IDEMPOTENT_WRITE');
    } finally {
      await producer.close().catch(() => {});
    }
  });
  if (term.json) {
    term.document(doc);
    return;
  }
  const perPartition = new Map<number, { count: number; first: bigint; last: bigint }>();
  for (const r of doc.records) {
    const p = perPartition.get(r.partition);
    if (p === undefined)
      perPartition.set(r.partition, { count: 1, first: r.offset, last: r.offset });
    else {
      p.count++;
      if (r.offset < p.first) p.first = r.offset;
      if (r.offset > p.last) p.last = r.offset;
    }
  }
  term.line(`produced ${doc.count} record${doc.count === 1 ? '' : 's'} to ${topic}`);
  if (doc.count > 0) {
    term.table(
      ['PARTITION', 'RECORDS', 'OFFSETS'],
      [...perPartition]
        .sort((a, b) => a[0] - b[0])
        .map(([p, s]) => [
          String(p),
          String(s.count),
          s.first === s.last ? String(s.first) : `${s.first}-${s.last}`,
        ]),
    );
  }
}
