// For any log of plain and transactional batches (commits and aborts interleaved across
// producers, any compression the sync encoder has), reading it from any offset in fetches of
// any size, each resuming at the previous nextOffset, returns exactly the data records at or
// after that offset: all of them under read_uncommitted, the committed ones under
// read_committed, in order, never a control record, and ends at the log end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFetchedRecords } from '../../../src/fetch/internal/fetched-records.js';
import type { IsolationLevelName } from '../../../src/index.js';
import { recordsOf } from '../../support/fetched-records.js';
import { buildTxnLog, fetchFrom, type LogCommand, type TxnLog } from '../../support/txn-log.js';

const command: fc.Arbitrary<LogCommand> = fc.oneof(
  fc.record({
    kind: fc.constant('data' as const),
    producer: fc.integer({ min: 0, max: 3 }),
    records: fc.integer({ min: 1, max: 3 }),
    compression: fc.constantFrom(
      'none' as const,
      'gzip' as const,
      'snappy' as const,
      'lz4' as const,
    ),
  }),
  fc.record({
    kind: fc.constant('end' as const),
    producer: fc.integer({ min: 1, max: 3 }),
    commit: fc.boolean(),
  }),
);

function readAll(
  log: TxnLog,
  from: bigint,
  sizes: readonly number[],
  isolationLevel: IsolationLevelName,
): { offsets: bigint[]; end: bigint } {
  const offsets: bigint[] = [];
  let position = from;
  for (let i = 0; position < log.endOffset; i++) {
    const { bytes, abortedTransactions } = fetchFrom(log, position, sizes[i % sizes.length]!);
    const read = readFetchedRecords(bytes, {
      fetchOffset: position,
      isolationLevel,
      abortedTransactions: isolationLevel === 'read_committed' ? abortedTransactions : null,
      verifyCrc: true,
      maxUncompressedBytes: 1 << 20,
    });
    expect(read.nextOffset).toBeGreaterThan(position);
    for (const r of recordsOf(read)) expect(r.value?.toString()).toBe(`o${r.offset}`);
    offsets.push(...recordsOf(read).map((r) => r.offset));
    position = read.nextOffset;
  }
  return { offsets, end: position };
}

describe('readFetchedRecords over whole logs', () => {
  it('returns exactly the records each isolation level allows, however the fetches fall', () => {
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (commands, sizes, startSeed) => {
          const log = buildTxnLog(commands);
          if (log.endOffset === 0n) return;
          const from = BigInt(startSeed) % log.endOffset;
          const uncommitted = readAll(log, from, sizes, 'read_uncommitted');
          expect(uncommitted.offsets).toEqual(log.dataOffsets.filter((o) => o >= from));
          expect(uncommitted.end).toBe(log.endOffset);
          const committed = readAll(log, from, sizes, 'read_committed');
          expect(committed.offsets).toEqual(log.committedOffsets.filter((o) => o >= from));
          expect(committed.end).toBe(log.endOffset);
        },
      ),
      { numRuns: 300 },
    );
  });
});
