import {
  ControlRecordType,
  decodeControlRecord,
  decodeRecordBatches,
  type FetchResponseAbortedTransaction,
  type RecordBatch,
  type RecordColumns,
} from '@kafkats/codec';
import type { IsolationLevelName } from '../partition-batch.js';

/** How to read the `records` bytes of one Fetch partition. */
export interface ReadRecordsOptions {
  readonly fetchOffset: bigint;
  readonly isolationLevel: IsolationLevelName;
  /** The response's abortedTransactions (read_committed only; null or empty otherwise). */
  readonly abortedTransactions: readonly FetchResponseAbortedTransaction[] | null;
  /** Check every batch's CRC (Kafka's `check.crcs`). */
  readonly verifyCrc: boolean;
  readonly maxUncompressedBytes: number;
}

/** What the bytes held for the caller. */
export interface ReadRecordsResult {
  /**
   * Data records at or after `fetchOffset`, in offset order, as columns: one per record batch
   * returned (more only should a batch's offsets not ascend), no record object made.
   */
  readonly columns: RecordColumns[];
  /** The `partitionLeaderEpoch` of the batch each of `columns` comes from, by index. */
  readonly epochs: number[];
  /** Records in `columns`, all together. */
  readonly count: number;
  /** Where the next Fetch starts: after the last whole batch read or skipped. */
  readonly nextOffset: bigint;
  /** Whole batches seen, including the ones skipped (control, aborted, before the position). */
  readonly batches: number;
  /** Trailing bytes of a batch the broker cut at its size limit (normal). */
  readonly partialBytes: number;
  /**
   * The partition leader epoch stamped on the last batch whose records are returned (Kafka's
   * `CompletedFetch.lastEpoch`); -1 when no record is returned or the batch carries none.
   */
  readonly lastLeaderEpoch: number;
}

/**
 * Reads one Fetch partition's record batches as Kafka's consumer does (CompletedFetch):
 * control batches are never returned; under read_committed a transactional batch is dropped
 * when its producer has an aborted transaction open at that offset, per the response's
 * abortedTransactions list and the ABORT markers met on the way; records before the fetch
 * offset (a whole batch is returned from its start) are dropped. The position moves past
 * every whole batch, returned or skipped, so compacted gaps and markers are stepped over.
 *
 * Keys and values are views into `bytes` (or a batch's decompressed copy).
 *
 * @throws RecordBatchError `CORRUPT` on a CRC mismatch, `LENGTH_INVALID` / `UNSUPPORTED`
 *   on malformed or unknown batches, a malformed record included (the records before it are
 *   not returned either: the position stays before the batch)
 */
export function readFetchedRecords(
  bytes: Buffer | null,
  options: ReadRecordsOptions,
): ReadRecordsResult {
  const columns: RecordColumns[] = [];
  const epochs: number[] = [];
  let count = 0;
  let next = options.fetchOffset;
  let batches = 0;
  let lastLeaderEpoch = -1;
  if (bytes === null || bytes.length === 0) {
    return { columns, epochs, count, nextOffset: next, batches, partialBytes: 0, lastLeaderEpoch };
  }
  const committed = options.isolationLevel === 'read_committed';
  // Aborted transactions ordered by first offset, consumed as batches pass them.
  const aborted = committed
    ? [...(options.abortedTransactions ?? [])].sort((a, b) =>
        a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
      )
    : [];
  let nextAborted = 0;
  const abortedProducers = new Set<bigint>();
  const iterator = decodeRecordBatches(bytes, {
    verifyCrc: options.verifyCrc,
    maxUncompressedBytes: options.maxUncompressedBytes,
  });
  for (const batch of iterator) {
    batches++;
    if (batch.lastOffset < next) continue;
    if (committed && batch.producerId >= 0n) {
      // An aborted transaction whose first offset is at or before this batch's end is open.
      while (
        nextAborted < aborted.length &&
        aborted[nextAborted]!.firstOffset <= batch.lastOffset
      ) {
        abortedProducers.add(aborted[nextAborted]!.producerId);
        nextAborted++;
      }
      if (isAbortMarker(batch)) {
        abortedProducers.delete(batch.producerId);
      } else if (batch.isTransactional && abortedProducers.has(batch.producerId)) {
        next = batch.lastOffset + 1n;
        continue;
      }
    }
    if (!batch.isControl) {
      const all = batch.columns();
      if (all.error !== null) throw all.error;
      const before = count;
      // Offset deltas are int32: a batch starting 2^31 or more past the position keeps all.
      const gap = next - batch.baseOffset;
      count += keepFrom(all, gap < -INT32_SPAN ? -(2 ** 31) : Number(gap), columns);
      while (epochs.length < columns.length) epochs.push(batch.partitionLeaderEpoch);
      if (count > before) lastLeaderEpoch = batch.partitionLeaderEpoch;
    }
    next = batch.lastOffset + 1n;
  }
  return {
    columns,
    epochs,
    count,
    nextOffset: next,
    batches,
    partialBytes: iterator.partialBatchBytes,
    lastLeaderEpoch,
  };
}

const INT32_SPAN = 2n ** 31n;

/**
 * Adds to `out` the runs of `all` whose offset delta is at least `from` (the records at or
 * after the position in a batch that starts before it, as Kafka's `CompletedFetch` skips
 * each record below the position); how many records that is. In a batch from a broker the
 * deltas ascend and this is one run; any order is handled.
 */
function keepFrom(all: RecordColumns, from: number, out: RecordColumns[]): number {
  let kept = 0;
  let start = -1;
  for (let i = 0; i < all.length; i++) {
    if (all.offsetDelta(i) >= from) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(all.slice(start, i));
      kept += i - start;
      start = -1;
    }
  }
  if (start >= 0) {
    out.push(start === 0 ? all : all.slice(start));
    kept += all.length - start;
  }
  return kept;
}

/** A control batch whose (single) record is an ABORT transaction marker. */
function isAbortMarker(batch: RecordBatch): boolean {
  if (!batch.isControl) return false;
  for (const record of batch.records()) {
    return decodeControlRecord(record).type === ControlRecordType.ABORT;
  }
  return false;
}
