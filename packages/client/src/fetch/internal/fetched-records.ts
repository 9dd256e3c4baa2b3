import {
  ControlRecordType,
  decodeControlRecord,
  decodeRecordBatches,
  type FetchResponseAbortedTransaction,
  type KafkaRecord,
  type RecordBatch,
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
  /** Data records at or after `fetchOffset`, in offset order. */
  readonly records: KafkaRecord[];
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
 * Records are views into `bytes` (or a batch's decompressed copy).
 *
 * @throws RecordBatchError `CORRUPT` on a CRC mismatch, `LENGTH_INVALID` / `UNSUPPORTED`
 *   on malformed or unknown batches
 */
export function readFetchedRecords(
  bytes: Buffer | null,
  options: ReadRecordsOptions,
): ReadRecordsResult {
  const records: KafkaRecord[] = [];
  let next = options.fetchOffset;
  let batches = 0;
  let lastLeaderEpoch = -1;
  if (bytes === null || bytes.length === 0) {
    return { records, nextOffset: next, batches, partialBytes: 0, lastLeaderEpoch };
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
      const before = records.length;
      for (const record of batch.records()) if (record.offset >= next) records.push(record);
      if (records.length > before) lastLeaderEpoch = batch.partitionLeaderEpoch;
    }
    next = batch.lastOffset + 1n;
  }
  return {
    records,
    nextOffset: next,
    batches,
    partialBytes: iterator.partialBatchBytes,
    lastLeaderEpoch,
  };
}

/** A control batch whose (single) record is an ABORT transaction marker. */
function isAbortMarker(batch: RecordBatch): boolean {
  if (!batch.isControl) return false;
  for (const record of batch.records()) {
    return decodeControlRecord(record).type === ControlRecordType.ABORT;
  }
  return false;
}
