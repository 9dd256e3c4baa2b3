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
