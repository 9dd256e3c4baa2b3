import type {
  AbortTransactionSpec,
  Admin,
  PartitionProducers,
  TopicPartition,
  TransactionDescription,
  TransactionListing,
} from '@kafkats/client';
import { ProtocolError } from '@kafkats/codec';
import { CliError } from '../cli-error.js';
import { type ChangeFlags, mayChange } from '../confirm.js';
import { type CommandContext, rethrowActionable, withCluster } from '../context.js';

const CLUSTER = { type: 'CLUSTER', name: 'kafka-cluster' };

/**
 * `kafkats transactions [--state S]... [--producer-id P]... [--duration-ms MS]`: the
 * transactions every coordinator knows (ListTransactions), as `kafka-transactions.sh list`.
 */
export async function transactionsCommand(
  ctx: CommandContext,
  options: {
    readonly state: readonly string[];
    readonly producerId: readonly string[];
    readonly durationMs?: number;
  },
): Promise<void> {
  const { term } = ctx;
  const result = await withCluster(ctx, (_cluster, admin) =>
    admin
      .listTransactions({
        timeoutMs: ctx.settings.timeoutMs,
        ...(options.state.length > 0 ? { states: options.state } : {}),
        ...(options.producerId.length > 0
          ? { producerIds: options.producerId.map((p) => BigInt(p)) }
          : {}),
        ...(options.durationMs === undefined ? {} : { durationFilterMs: options.durationMs }),
      })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER)),
  );
  const errors = result.errors.map((e) => ({ brokerId: e.brokerId, error: e.error.message }));
  if (term.json) {
    term.document({ transactions: result.transactions, errors });
    return;
  }
  for (const e of errors) term.note(`not listed: broker ${e.brokerId}: ${e.error}`);
  if (result.transactions.length === 0) term.note('no transactions');
  else
    term.table(
      ['TRANSACTIONAL-ID', 'PRODUCER-ID', 'STATE'],
      result.transactions.map((t) => [t.transactionalId, String(t.producerId), t.state]),
    );
}

/**
 * `kafkats transactions describe ID...`: each transaction's coordinator, producer id and epoch,
 * state, timeout, start and the partitions it wrote to, as `kafka-transactions.sh describe`.
 */
export async function transactionsDescribeCommand(
  ctx: CommandContext,
  ids: readonly string[],
): Promise<void> {
  const { term } = ctx;
  const result = await withCluster(ctx, (_cluster, admin) =>
    admin.describeTransactions(ids, { timeoutMs: ctx.settings.timeoutMs }),
  );
  for (const t of result.transactions)
    if (t.error !== undefined)
      rethrowActionable(t.error, 'DESCRIBE', { type: 'TRANSACTIONAL_ID', name: t.transactionalId });
  const now = Date.now();
  const rows = result.transactions.map((t) => ({
    transactionalId: t.transactionalId,
    coordinatorId: t.coordinatorId ?? null,
    producerId: t.producerId ?? null,
    producerEpoch: t.producerEpoch ?? null,
    state: t.state ?? null,
    transactionTimeoutMs: t.transactionTimeoutMs ?? null,
    transactionStartTimeMs: t.transactionStartTimeMs ?? null,
    durationMs:
      t.transactionStartTimeMs === undefined ? null : now - Number(t.transactionStartTimeMs),
    partitions: t.partitions ?? [],
  }));
  if (term.json) {
    term.document({ transactions: rows });
    return;
  }
  term.table(
    [
      'TRANSACTIONAL-ID',
      'COORDINATOR',
      'PRODUCER-ID',
      'EPOCH',
      'STATE',
      'TIMEOUT-MS',
      'DURATION-MS',
      'PARTITIONS',
    ],
    rows.map((r) => [
      r.transactionalId,
      String(r.coordinatorId ?? '-'),
      String(r.producerId ?? '-'),
      String(r.producerEpoch ?? '-'),
      r.state ?? '-',
      String(r.transactionTimeoutMs ?? '-'),
      r.durationMs === null ? '-' : String(r.durationMs),
      r.partitions.map((p) => `${p.topic}-${p.partition}`).join(',') || '-',
    ]),
  );
}

/** One producer of `kafkats transactions producers --json`. */
interface ProducerRow {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** -1 when no coordinator has written a marker for this producer yet. */
  readonly coordinatorEpoch: number;
  readonly lastSequence: number;
  readonly lastTimestamp: bigint;
  /** The first offset of its open transaction; null when none is open. */
  readonly currentTxnStartOffset: bigint | null;
}

function producerRows(partitions: readonly PartitionProducers[]): ProducerRow[] {
  return partitions.flatMap((p) =>
    p.activeProducers.map((s) => ({
      topic: p.topic,
      partition: p.partition,
      producerId: s.producerId,
      producerEpoch: s.producerEpoch,
      coordinatorEpoch: s.coordinatorEpoch,
      lastSequence: s.lastSequence,
      lastTimestamp: s.lastTimestamp,
      currentTxnStartOffset: s.currentTxnStartOffset ?? null,
    })),
  );
}

const PRODUCER_HEADERS = [
  'TOPIC',
  'PARTITION',
  'PRODUCER-ID',
  'EPOCH',
  'COORDINATOR-EPOCH',
  'LAST-SEQUENCE',
  'LAST-TIMESTAMP',
  'TXN-START-OFFSET',
];

function producerCells(r: ProducerRow): string[] {
  return [
    r.topic,
    String(r.partition),
    String(r.producerId),
    String(r.producerEpoch),
    String(r.coordinatorEpoch),
    String(r.lastSequence),
    String(r.lastTimestamp),
    r.currentTxnStartOffset === null ? '-' : String(r.currentTxnStartOffset),
  ];
}

/** The partitions of `topic` (all, or `partition`), or those with a replica on `brokerId`. */
async function partitionsToSearch(
  ctx: CommandContext,
  admin: Admin,
  scope: { readonly topic?: string; readonly partition?: number; readonly brokerId?: number },
): Promise<TopicPartition[]> {
  const timeoutMs = ctx.settings.timeoutMs;
  if (scope.topic !== undefined && scope.partition !== undefined)
    return [{ topic: scope.topic, partition: scope.partition }];
  const names =
    scope.topic !== undefined
      ? [scope.topic]
      : (await admin.listTopics({ timeoutMs })).topics.map((t) => t.name);
  const described = await admin.describeTopics(names, { timeoutMs });
  const out: TopicPartition[] = [];
  for (const t of described.topics) {
    if (t.error !== undefined) {
      // A named topic that cannot be described is the answer; one that vanished while
      // listing is skipped.
      if (scope.topic !== undefined)
        rethrowActionable(t.error, 'DESCRIBE', { type: 'TOPIC', name: t.name });
      continue;
    }
    for (const p of t.partitions)
      if (scope.brokerId === undefined || p.replicas.includes(scope.brokerId))
        out.push({ topic: t.name, partition: p.partition });
  }
  return out;
}

/** DescribeProducers of `partitions`; a partition's error fails the command, naming it. */
async function producersOf(
  ctx: CommandContext,
  admin: Admin,
  partitions: readonly TopicPartition[],
  brokerId: number | undefined,
): Promise<ProducerRow[]> {
  const rows: ProducerRow[] = [];
  // At most 500 partitions a request, as kafka-transactions.sh batches them.
  for (let i = 0; i < partitions.length; i += 500) {
    const answer = await admin.describeProducers(partitions.slice(i, i + 500), {
      timeoutMs: ctx.settings.timeoutMs,
      ...(brokerId === undefined ? {} : { brokerId }),
    });
    for (const p of answer.partitions)
      if (p.error !== undefined)
        rethrowActionable(p.error, 'READ', { type: 'TOPIC', name: p.topic });
    rows.push(...producerRows(answer.partitions));
  }
  return rows;
}

/**
 * `kafkats transactions producers --topic T [--partition P] [--broker-id N]`: each partition's
 * active producers as its leader (or broker N) keeps them (DescribeProducers), with the start
 * offset of any open transaction, as `kafka-transactions.sh describe-producers`.
 */
export async function transactionsProducersCommand(
  ctx: CommandContext,
  options: { readonly topic: string; readonly partition?: number; readonly brokerId?: number },
): Promise<void> {
  const { term } = ctx;
  const rows = await withCluster(ctx, async (_cluster, admin) =>
    producersOf(
      ctx,
      admin,
      await partitionsToSearch(ctx, admin, {
        topic: options.topic,
        ...(options.partition === undefined ? {} : { partition: options.partition }),
      }),
      options.brokerId,
    ),
  );
  if (term.json) {
    term.document({ producers: rows });
    return;
  }
  if (rows.length === 0) term.note('no active producers');
  else term.table(PRODUCER_HEADERS, rows.map(producerCells));
}

const isNotFound = (e: unknown) =>
  e instanceof ProtocolError && e.errorName === 'TRANSACTIONAL_ID_NOT_FOUND';

/**
 * Of the open transactions `open` (each a partition's producer with a transaction start), the
 * hanging ones, as Kafka's `FindHangingTransactionsCommand` decides: those whose producer no
 * coordinator lists, whose transactional id its coordinator no longer knows, or whose
 * transaction does not name the partition (its coordinator will never write its marker there).
 */
export function hangingOf<
  R extends { readonly topic: string; readonly partition: number; readonly producerId: bigint },
>(
  open: readonly R[],
  listed: readonly TransactionListing[],
  described: readonly TransactionDescription[],
): R[] {
  const idOf = new Map(listed.map((t) => [t.producerId, t.transactionalId]));
  const partitionsOf = new Map<string, ReadonlySet<string> | null>();
  for (const t of described)
    if (t.error === undefined || isNotFound(t.error))
      partitionsOf.set(
        t.transactionalId,
        t.error !== undefined
          ? null
          : new Set((t.partitions ?? []).map((p) => `${p.partition}:${p.topic}`)),
      );
  return open.filter((r) => {
    const id = idOf.get(r.producerId);
    const written = id === undefined ? null : (partitionsOf.get(id) ?? null);
    return written === null || !written.has(`${r.partition}:${r.topic}`);
  });
}

/**
 * `kafkats transactions find-hanging (--topic T [--partition P] | --broker-id N)
 * [--max-transaction-timeout MIN]`: open transactions no coordinator will finish, as
 * `kafka-transactions.sh find-hanging` finds them. A partition's open transaction whose
 * producer last wrote longer ago than the timeout is hanging when no coordinator lists the
 * producer, or when its transaction no longer names the partition.
 */
export async function transactionsFindHangingCommand(
  ctx: CommandContext,
  options: {
    readonly topic?: string;
    readonly partition?: number;
    readonly brokerId?: number;
    readonly maxTransactionTimeout: number;
  },
): Promise<void> {
  const { term } = ctx;
  if (options.topic === undefined && options.brokerId === undefined)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      'find-hanging needs --topic or --broker-id to limit the search',
    );
  if (options.partition !== undefined && options.topic === undefined)
    throw new CliError('ERR_KAFKA_CLI_USAGE', '--partition needs --topic');
  const maxMs = options.maxTransactionTimeout * 60_000;
  const hanging = await withCluster(ctx, async (_cluster, admin) => {
    const timeoutMs = ctx.settings.timeoutMs;
    const partitions = await partitionsToSearch(ctx, admin, options);
    const now = Date.now();
    const open = (await producersOf(ctx, admin, partitions, options.brokerId)).filter(
      (r) => r.currentTxnStartOffset !== null && now - Number(r.lastTimestamp) > maxMs,
    );
    if (open.length === 0) return [];
    const producerIds = [...new Set(open.map((r) => r.producerId))];
    const listed = await admin
      .listTransactions({ producerIds, timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'DESCRIBE', CLUSTER));
    // A coordinator that could not answer may know the producer: say so rather than guess.
    if (listed.errors.length > 0)
      throw new CliError(
        'ERR_KAFKA_CLI_BROKER',
        `could not list the transactions of brokers ${listed.errors.map((e) => e.brokerId).join(', ')}`,
        { cause: listed.errors[0]?.error },
      );
    const ids = [...new Set(listed.transactions.map((t) => t.transactionalId))];
    const described = await admin.describeTransactions(ids, { timeoutMs });
    for (const t of described.transactions)
      if (t.error !== undefined && !isNotFound(t.error))
        rethrowActionable(t.error, 'DESCRIBE', {
          type: 'TRANSACTIONAL_ID',
          name: t.transactionalId,
        });
    return hangingOf(open, listed.transactions, described.transactions);
  });
  const rows = hanging.map((r) => ({
    ...r,
    durationMin: Math.floor((Date.now() - Number(r.lastTimestamp)) / 60_000),
  }));
  if (term.json) {
    term.document({ hanging: rows });
    return;
  }
  if (rows.length === 0) term.note('no hanging transactions');
  else
    term.table(
      [...PRODUCER_HEADERS, 'DURATION-MIN'],
      rows.map((r) => [...producerCells(r), String(r.durationMin)]),
    );
}

/**
 * `kafkats transactions abort --topic T --partition P (--start-offset O | --producer-id ID
 * --producer-epoch E --coordinator-epoch C)`: aborts a hanging transaction on one partition
 * (WriteTxnMarkers), as `kafka-transactions.sh abort`. With `--start-offset` the producer is
 * the one whose open transaction starts there (DescribeProducers). Shows what it will abort;
 * aborts only with `--execute`.
 */
export async function transactionsAbortCommand(
  ctx: CommandContext,
  options: ChangeFlags & {
    readonly topic: string;
    readonly partition: number;
    readonly startOffset?: string;
    readonly producerId?: string;
    readonly producerEpoch?: number;
    readonly coordinatorEpoch?: number;
  },
): Promise<void> {
  const { term } = ctx;
  const where = `${options.topic}-${options.partition}`;
  if (options.startOffset === undefined && options.producerId === undefined)
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      'name the transaction to abort with --start-offset, or with --producer-id, --producer-epoch and --coordinator-epoch',
    );
  if (options.startOffset !== undefined && options.producerId !== undefined)
    throw new CliError('ERR_KAFKA_CLI_USAGE', 'give --start-offset or --producer-id, not both');
  if (
    options.producerId !== undefined &&
    (options.producerEpoch === undefined || options.coordinatorEpoch === undefined)
  )
    throw new CliError(
      'ERR_KAFKA_CLI_USAGE',
      '--producer-id needs --producer-epoch and --coordinator-epoch',
    );
  const result = await withCluster(ctx, async (_cluster, admin) => {
    let spec: AbortTransactionSpec;
    let startOffset: bigint | null = null;
    if (options.startOffset !== undefined) {
      startOffset = BigInt(options.startOffset);
      const rows = await producersOf(
        ctx,
        admin,
        [{ topic: options.topic, partition: options.partition }],
        undefined,
      );
      const found = rows.find((r) => r.currentTxnStartOffset === startOffset);
      if (found === undefined)
        throw new CliError(
          'ERR_KAFKA_CLI_NOT_FOUND',
          `no open transaction starts at offset ${startOffset} on ${where}`,
        );
      spec = {
        topic: options.topic,
        partition: options.partition,
        producerId: found.producerId,
        producerEpoch: found.producerEpoch,
        // No marker written for this producer yet: 0, which no coordinator epoch is below.
        coordinatorEpoch: Math.max(found.coordinatorEpoch, 0),
      };
    } else {
      spec = {
        topic: options.topic,
        partition: options.partition,
        producerId: BigInt(options.producerId!),
        producerEpoch: options.producerEpoch!,
        coordinatorEpoch: Math.max(options.coordinatorEpoch!, 0),
      };
    }
    const plan = {
      topic: spec.topic,
      partition: spec.partition,
      producerId: spec.producerId,
      producerEpoch: spec.producerEpoch,
      coordinatorEpoch: spec.coordinatorEpoch,
      startOffset,
    };
    if (!term.json)
      term.table(
        ['TOPIC', 'PARTITION', 'PRODUCER-ID', 'EPOCH', 'COORDINATOR-EPOCH', 'START-OFFSET'],
        [
          [
            spec.topic,
            String(spec.partition),
            String(spec.producerId),
            String(spec.producerEpoch),
            String(spec.coordinatorEpoch),
            startOffset === null ? '-' : String(startOffset),
          ],
        ],
      );
    if (
      !(await mayChange(
        ctx,
        options,
        `abort producer ${spec.producerId}'s transaction on ${where}`,
      ))
    )
      return { ...plan, aborted: false };
    await admin
      .abortTransaction(spec, { timeoutMs: ctx.settings.timeoutMs })
      .catch((e: unknown) => rethrowActionable(e, 'CLUSTER_ACTION', CLUSTER));
    term.note(`aborted producer ${spec.producerId}'s transaction on ${where}`);
    return { ...plan, aborted: true };
  });
  if (term.json) term.document(result);
}
