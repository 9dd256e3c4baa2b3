// An answer cut into batches of at most maxBatchRecords records (fetchedBatches): for any log
// of batches (leader epochs rising, compressed or not) read from any offset and any bound, the
// batches hold exactly the answer's records in order, each at most the bound (only the last
// fewer), each starting where the one before ends, each ending just past its last record (the
// last where the answer ends), with the leader epoch of its last record's batch, and their
// bytes add up to the answer's.
import { encodeRecordBatchSync } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fetchedBatches } from '../../../src/fetch/internal/fetched-batch.js';
import { readFetchedRecords } from '../../../src/fetch/internal/fetched-records.js';
import { recordsOf } from '../../support/fetched-records.js';

const batchSpec = fc.record({
  records: fc.integer({ min: 1, max: 12 }),
  epochStep: fc.integer({ min: 0, max: 2 }),
  compression: fc.constantFrom('none' as const, 'lz4' as const),
});

describe('fetchedBatches', () => {
  it('cuts an answer into batches of at most the bound, losing and repeating nothing', () => {
    fc.assert(
      fc.property(
        fc.array(batchSpec, { minLength: 1, maxLength: 8 }),
        fc.nat(40),
        fc.integer({ min: 1, max: 30 }),
        fc.nat(5000),
        (specs, startAt, max, size) => {
          const epochOf = new Map<bigint, number>();
          const parts: Buffer[] = [];
          let offset = 0n;
          let epoch = 0;
          for (const spec of specs) {
            epoch += spec.epochStep;
            for (let i = 0; i < spec.records; i++) epochOf.set(offset + BigInt(i), epoch);
            parts.push(
              encodeRecordBatchSync({
                baseOffset: offset,
                partitionLeaderEpoch: epoch,
                compression: spec.compression,
                records: Array.from({ length: spec.records }, (_, i) => ({
                  value: Buffer.from(`o${offset + BigInt(i)}`),
                })),
              }),
            );
            offset += BigInt(spec.records);
          }
          const fetchOffset = BigInt(Math.min(startAt, Number(offset) - 1));
          const read = readFetchedRecords(Buffer.concat(parts), {
            fetchOffset,
            isolationLevel: 'read_uncommitted',
            abortedTransactions: null,
            verifyCrc: true,
            maxUncompressedBytes: 1 << 20,
          });
          const fields = {
            topic: 't',
            partition: 0,
            fetchOffset,
            columns: read.columns,
            count: read.count,
            nextOffset: read.nextOffset,
            highWatermark: offset,
            lastStableOffset: offset,
            logStartOffset: 0n,
            leaderId: 1,
            leaderEpoch: epoch,
            lastLeaderEpoch: read.lastLeaderEpoch,
            sizeInBytes: size,
          };
          const batches = fetchedBatches(fields, read.epochs, max);
          const offsets = (rs: readonly { offset: bigint }[]) => rs.map((r) => r.offset);
          expect(batches.flatMap((b) => offsets(b.records))).toEqual(offsets(recordsOf(read)));
          expect(batches.flatMap((b) => b.records.map((r) => r.value?.toString()))).toEqual(
            recordsOf(read).map((r) => `o${r.offset}`),
          );
          expect(batches.length).toBe(Math.max(1, Math.ceil(read.count / max)));
          expect(batches[0]!.fetchOffset).toBe(fetchOffset);
          expect(batches.at(-1)!.nextOffset).toBe(read.nextOffset);
          expect(batches.at(-1)!.lastLeaderEpoch).toBe(read.lastLeaderEpoch);
          let bytes = 0;
          for (const [k, b] of batches.entries()) {
            expect(b.records.length).toBe(b.count);
            expect(b.columns.reduce((n, c) => n + c.length, 0)).toBe(b.count);
            if (k < batches.length - 1) {
              expect(b.count).toBe(max);
              const last = b.records.at(-1)!.offset;
              expect(b.nextOffset).toBe(last + 1n);
              expect(b.lastLeaderEpoch).toBe(epochOf.get(last));
              expect(batches[k + 1]!.fetchOffset).toBe(b.nextOffset);
            }
            expect(b.sizeInBytes).toBeGreaterThanOrEqual(0);
            bytes += b.sizeInBytes;
          }
          expect(bytes).toBe(size);
        },
      ),
      { numRuns: 300 },
    );
  });
});
