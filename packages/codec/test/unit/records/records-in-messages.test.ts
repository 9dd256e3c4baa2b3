/**
 * The contract with the generated messages (docs/internals.md): a `records` field is a
 * `Buffer | null` view, and these batches travel through it without a copy.
 */
import { describe, expect, it } from 'vitest';
import {
  createFetchResponse,
  createFetchResponseFetchableTopicResponse,
  createFetchResponsePartitionData,
  decodeFetchResponse,
  decodeRecordBatches,
  encodeFetchResponse,
  encodeRecordBatch,
  Reader,
  Writer,
} from '../../../src/index.js';

describe('record batches inside generated messages', () => {
  for (const version of [4, 12, 17]) {
    it(`FetchResponse v${version} carries batches (and a partial tail) as a view`, async () => {
      const one = await encodeRecordBatch({
        compression: 'lz4',
        records: [{ key: Buffer.from('a'), value: Buffer.from('1'), timestamp: 1 }],
      });
      const two = await encodeRecordBatch({
        baseOffset: 1n,
        records: [{ key: Buffer.from('b'), value: Buffer.from('2'), timestamp: 2 }],
      });
      const records = Buffer.concat([one, two.subarray(0, 30)]); // the broker cut batch two
      const w = new Writer();
      encodeFetchResponse(
        w,
        createFetchResponse({
          responses: [
            createFetchResponseFetchableTopicResponse({
              topic: 't',
              partitions: [createFetchResponsePartitionData({ records })],
            }),
          ],
        }),
        version,
      );
      const frame = Buffer.from(w.finish());
      const decoded = decodeFetchResponse(new Reader(frame), version);
      const got = decoded.responses[0]!.partitions[0]!.records!;
      expect(got.buffer).toBe(frame.buffer); // a view into the frame, not a copy
      const it = decodeRecordBatches(got);
      const batches = [...it];
      expect(batches.map((b) => b.compression)).toEqual(['lz4']);
      expect([...batches[0]!.records()][0]!.key!.toString()).toBe('a');
      expect(it.partialBatchBytes).toBe(30);
    });
  }
});
