// A partition log written the way a broker stores transactions (KIP-98): data batches from
// plain and transactional producers, COMMIT/ABORT control batches, and the aborted-transaction
// index a Fetch answer draws its abortedTransactions from. Each record's value is `o<offset>`.
import {
  type CompressionCodec,
  encodeRecordBatchSync,
  endTransactionMarker,
  type FetchResponseAbortedTransaction,
} from '@kafkats/codec';

export type LogCommand =
  | { kind: 'data'; producer: number; records: number; compression: CompressionCodec }
  | { kind: 'end'; producer: number; commit: boolean };

export interface LoggedBatch {
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly bytes: Buffer;
}

export interface TxnLog {
  readonly batches: LoggedBatch[];
  /** Every aborted transaction: producer, first data offset, marker offset. */
  readonly aborted: { producerId: bigint; firstOffset: bigint; lastOffset: bigint }[];
  /** Offsets of data records, in order. */
  readonly dataOffsets: bigint[];
  /** Offsets of data records a read_committed reader sees. */
  readonly committedOffsets: bigint[];
  readonly endOffset: bigint;
}

/** Producer 0 is plain (no producer id); 1..n are transactional with producer id 100 + n. */
export function buildTxnLog(commands: readonly LogCommand[]): TxnLog {
  const batches: LoggedBatch[] = [];
  const aborted: TxnLog['aborted'] = [];
  const dataOffsets: bigint[] = [];
  const committed: bigint[] = [];
  const open = new Map<number, { first: bigint; offsets: bigint[] }>();
  let next = 0n;
  const write = (
    producer: number,
    values: { key?: Buffer | null; value: Buffer | null }[],
    options: { control?: boolean; compression?: CompressionCodec } = {},
  ) => {
    const baseOffset = next;
    const bytes = encodeRecordBatchSync({
      baseOffset,
      ...(producer === 0
        ? {}
        : { producerId: BigInt(100 + producer), producerEpoch: 0, baseSequence: 0 }),
      transactional: producer !== 0,
      control: options.control ?? false,
      compression: options.compression ?? 'none',
      now: 1_700_000_000_000,
      records: values,
    });
    next += BigInt(values.length);
    batches.push({ baseOffset, lastOffset: next - 1n, bytes });
    return baseOffset;
  };
  const end = (producer: number, commit: boolean) => {
    const txn = open.get(producer);
    if (txn === undefined) return;
    open.delete(producer);
    const marker = write(producer, [endTransactionMarker(commit ? 'COMMIT' : 'ABORT', 0)], {
      control: true,
    });
    if (commit) committed.push(...txn.offsets);
    else
      aborted.push({
        producerId: BigInt(100 + producer),
        firstOffset: txn.first,
        lastOffset: marker,
      });
  };
  for (const command of commands) {
    if (command.kind === 'end') {
      end(command.producer, command.commit);
      continue;
    }
    const values = Array.from({ length: command.records }, (_, i) => ({
      value: Buffer.from(`o${next + BigInt(i)}`),
    }));
    const base = write(command.producer, values, { compression: command.compression });
    const offsets = values.map((_, i) => base + BigInt(i));
    dataOffsets.push(...offsets);
    if (command.producer === 0) {
      committed.push(...offsets);
      continue;
    }
    const txn = open.get(command.producer) ?? { first: base, offsets: [] };
    txn.offsets.push(...offsets);
    open.set(command.producer, txn);
  }
  // Decide what is still open, so the last stable offset is the end of the log.
  for (const producer of [...open.keys()]) end(producer, producer % 2 === 0);
  committed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { batches, aborted, dataOffsets, committedOffsets: committed, endOffset: next };
}

/**
 * What a broker returns for a fetch at `offset`: the bytes of up to `maxBatches` whole batches
 * from the one holding `offset`, and the aborted transactions that may touch them (those not
 * ended before `offset`, as the broker's transaction index lookup gives).
 */
export function fetchFrom(
  log: TxnLog,
  offset: bigint,
  maxBatches: number,
): { bytes: Buffer; abortedTransactions: FetchResponseAbortedTransaction[] } {
  const from = log.batches.filter((b) => b.lastOffset >= offset).slice(0, maxBatches);
  return {
    bytes: Buffer.concat(from.map((b) => b.bytes)),
    abortedTransactions: log.aborted
      .filter((a) => a.lastOffset >= offset)
      .map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset })),
  };
}
