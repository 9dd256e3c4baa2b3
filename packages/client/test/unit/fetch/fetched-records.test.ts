// How one Fetch partition's bytes become records, as Kafka's CompletedFetch reads them:
// control batches never returned, aborted transactions dropped under read_committed only,
// records before the fetch offset dropped, CRCs checked, a batch cut at the size limit left
// for the next fetch.
import { encodeRecordBatchSync, RECORD_BATCH_OVERHEAD, RecordBatchError } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { readFetchedRecords } from '../../../src/fetch/internal/fetched-records.js';
import { recordsOf } from '../../support/fetched-records.js';
import { buildTxnLog, fetchFrom } from '../../support/txn-log.js';

const base = { verifyCrc: true, maxUncompressedBytes: 1 << 20 } as const;

const offsets = (r: ReturnType<typeof readFetchedRecords>) => recordsOf(r).map((x) => x.offset);

describe('readFetchedRecords', () => {
  // offsets: 0-1 plain, 2-3 txn A (producer 1), 4 plain, 5-6 txn B (producer 2),
  // 7 ABORT A, 8 COMMIT B, 9 plain
  const log = buildTxnLog([
    { kind: 'data', producer: 0, records: 2, compression: 'none' },
    { kind: 'data', producer: 1, records: 2, compression: 'gzip' },
    { kind: 'data', producer: 0, records: 1, compression: 'none' },
    { kind: 'data', producer: 2, records: 2, compression: 'lz4' },
    { kind: 'end', producer: 1, commit: false },
    { kind: 'end', producer: 2, commit: true },
    { kind: 'data', producer: 0, records: 1, compression: 'snappy' },
  ]);

  it('read_uncommitted returns every data record and no control record', () => {
    const { bytes, abortedTransactions } = fetchFrom(log, 0n, 100);
    const read = readFetchedRecords(bytes, {
      ...base,
      fetchOffset: 0n,
      isolationLevel: 'read_uncommitted',
      abortedTransactions,
    });
    expect(offsets(read)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 9n]);
    expect(read.nextOffset).toBe(10n);
    expect(read.batches).toBe(7);
  });

  it('read_committed drops the aborted transaction and keeps the committed one', () => {
    const { bytes, abortedTransactions } = fetchFrom(log, 0n, 100);
    const read = readFetchedRecords(bytes, {
      ...base,
      fetchOffset: 0n,
      isolationLevel: 'read_committed',
      abortedTransactions,
    });
    expect(offsets(read)).toEqual([0n, 1n, 4n, 5n, 6n, 9n]);
    expect(recordsOf(read).map((r) => r.value?.toString())).toEqual([
      'o0',
      'o1',
      'o4',
      'o5',
      'o6',
      'o9',
    ]);
    expect(read.nextOffset).toBe(10n);
  });

  it('moves past a fetch holding only a marker, returning nothing', () => {
    const { bytes, abortedTransactions } = fetchFrom(log, 7n, 1);
    const read = readFetchedRecords(bytes, {
      ...base,
      fetchOffset: 7n,
      isolationLevel: 'read_committed',
      abortedTransactions,
    });
    expect(recordsOf(read)).toEqual([]);
    expect(read.nextOffset).toBe(8n);
  });

  it('drops records of the first batch that lie before the fetch offset', () => {
    const { bytes } = fetchFrom(log, 1n, 1);
    const read = readFetchedRecords(bytes, {
      ...base,
      fetchOffset: 1n,
      isolationLevel: 'read_uncommitted',
      abortedTransactions: null,
    });
    expect(offsets(read)).toEqual([1n]);
    expect(read.nextOffset).toBe(2n);
  });

  it('drops each record below the fetch offset, as CompletedFetch does, in any delta order', () => {
    // Four one-byte records at offsets 10.. (deltas 0-3), their deltas rewritten to 0, 3, 1,
    // 2: from offset 12, the records at 13 and 12 are kept, in batch order.
    const bytes = encodeRecordBatchSync({
      baseOffset: 10n,
      records: ['a', 'b', 'c', 'd'].map((v) => ({ value: Buffer.from(v), timestamp: 5 })),
    });
    const recordsStart = RECORD_BATCH_OVERHEAD;
    const recordSize = 1 + bytes[recordsStart]! / 2; // length varint (one byte) + the record
    [0, 3, 1, 2].forEach((delta, i) => {
      // length, attributes, timestamp delta (one byte each), then the offset delta
      const at = recordsStart + i * recordSize + 3;
      expect(bytes[at]).toBe(2 * i);
      bytes[at] = 2 * delta;
    });
    const read = readFetchedRecords(bytes, {
      ...base,
      verifyCrc: false,
      fetchOffset: 12n,
      isolationLevel: 'read_uncommitted',
      abortedTransactions: null,
    });
    expect(recordsOf(read).map((r) => [r.offset, r.value?.toString()])).toEqual([
      [13n, 'b'],
      [12n, 'd'],
    ]);
    expect(read.columns).toHaveLength(2);
    expect(read.nextOffset).toBe(14n);
  });

  it('stops before a batch cut short and says how many bytes it left', () => {
    const { bytes } = fetchFrom(log, 0n, 2);
    const cut = bytes.subarray(0, bytes.length - 5);
    const read = readFetchedRecords(cut, {
      ...base,
      fetchOffset: 0n,
      isolationLevel: 'read_uncommitted',
      abortedTransactions: null,
    });
    expect(offsets(read)).toEqual([0n, 1n]);
    expect(read.nextOffset).toBe(2n);
    expect(read.partialBytes).toBeGreaterThan(0);
  });

  it('throws a CRC mismatch as RecordBatchError CORRUPT, and skips the check when told', () => {
    const batch = Buffer.from(
      encodeRecordBatchSync({ baseOffset: 0n, records: [{ value: Buffer.from('abc') }] }),
    );
    batch[batch.length - 2] = (batch[batch.length - 2] ?? 0) ^ 0x20; // the value: abc -> abC
    const options = {
      ...base,
      fetchOffset: 0n,
      isolationLevel: 'read_uncommitted',
      abortedTransactions: null,
    } as const;
    let error: unknown;
    try {
      readFetchedRecords(batch, options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RecordBatchError);
    expect((error as RecordBatchError).code).toBe('ERR_KAFKA_CODEC_CORRUPT');
    expect(recordsOf(readFetchedRecords(batch, { ...options, verifyCrc: false }))).toHaveLength(1);
  });

  it('reads nothing from null or empty bytes and stays put', () => {
    const options = {
      ...base,
      fetchOffset: 5n,
      isolationLevel: 'read_committed',
      abortedTransactions: [],
    } as const;
    expect(readFetchedRecords(null, options).nextOffset).toBe(5n);
    expect(recordsOf(readFetchedRecords(Buffer.alloc(0), options))).toEqual([]);
  });
});
