/**
 * Golden vectors built by Apache Kafka's own kafka-clients classes (see the `source` field
 * of fixtures/vectors/record-batches.json and test/support/java/RecordBatchVectors.java).
 * Uncompressed v2 batches must match byte for byte; compressed and legacy ones must decode
 * to the records Kafka was given (compressor output may legitimately differ).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type CompressionCodec,
  decodeControlRecord,
  decodeRecordBatches,
  encodeRecordBatch,
  endTransactionMarker,
  type RecordInput,
} from '../../../src/index.js';

interface Vector {
  name: string;
  magic: number;
  compression: CompressionCodec;
  timestampType: 'CreateTime' | 'LogAppendTime';
  baseOffset: string;
  logAppendTime: string;
  producerId: string;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
  control: boolean;
  partitionLeaderEpoch: number;
  records: {
    key: string | null;
    value: string | null;
    timestamp: string;
    headers: { key: string; value: string | null }[];
  }[];
  hex: string;
}

const file = JSON.parse(
  readFileSync(
    new URL('../../../../../fixtures/vectors/record-batches.json', import.meta.url),
    'utf8',
  ),
) as { source: string; vectors: Vector[] };

const utf8 = (s: string | null) => (s === null ? null : Buffer.from(s, 'utf8'));
const str = (b: Buffer | null) => (b === null ? null : b.toString('utf8'));

describe('golden record batches from Kafka 4.4 kafka-clients', () => {
  it('has vectors for every magic and codec', () => {
    expect(file.source).toContain('kafka-clients');
    expect(file.vectors.length).toBeGreaterThanOrEqual(24);
  });

  for (const v of file.vectors) {
    it(`decodes: ${v.name}`, () => {
      const it = decodeRecordBatches(Buffer.from(v.hex, 'hex'));
      const batches = [...it];
      expect(it.partialBatchBytes).toBe(0);
      const got = batches.flatMap((b) => [...b.records()]);
      const first = batches[0]!;
      expect(first.magic).toBe(v.magic);
      expect(first.compression).toBe(v.compression);
      if (v.control) {
        expect(first.isControl).toBe(true);
        expect(first.isTransactional).toBe(true);
        expect(first.producerId).toBe(BigInt(v.producerId));
        expect(first.partitionLeaderEpoch).toBe(v.partitionLeaderEpoch);
        const c = decodeControlRecord(got[0]!);
        expect(c.typeName).toBe(v.name.endsWith('COMMIT') ? 'COMMIT' : 'ABORT');
        expect(c.coordinatorEpoch).toBe(11);
        expect(got[0]!.offset).toBe(500n);
        return;
      }
      expect(first.baseOffset).toBe(BigInt(v.baseOffset));
      if (v.magic === 2) {
        expect(batches.length).toBe(1);
        expect(first.producerId).toBe(BigInt(v.producerId));
        expect(first.producerEpoch).toBe(v.producerEpoch);
        expect(first.baseSequence).toBe(v.baseSequence);
        expect(first.isTransactional).toBe(v.transactional);
        expect(first.partitionLeaderEpoch).toBe(v.partitionLeaderEpoch);
        expect(first.timestampType).toBe(v.timestampType);
      }
      expect(got.length).toBe(v.records.length);
      const lat = v.timestampType === 'LogAppendTime' ? BigInt(v.logAppendTime) : null;
      got.forEach((r, i) => {
        const want = v.records[i]!;
        expect(r.offset).toBe(BigInt(v.baseOffset) + BigInt(i));
        expect(str(r.key)).toBe(want.key);
        expect(str(r.value)).toBe(want.value);
        expect(r.timestamp).toBe(lat ?? BigInt(want.timestamp));
        expect(r.headers.map((h) => ({ key: h.key, value: str(h.value) }))).toEqual(want.headers);
      });
    });

    if (v.magic === 2 && (v.compression === 'none' || v.control)) {
      it(`encodes byte-identically: ${v.name}`, async () => {
        const records: RecordInput[] = v.control
          ? [
              {
                ...endTransactionMarker(v.name.endsWith('COMMIT') ? 'COMMIT' : 'ABORT', 11),
                timestamp: 1_700_000_000_000n,
              },
            ]
          : v.records.map((r) => ({
              key: utf8(r.key),
              value: utf8(r.value),
              timestamp: BigInt(r.timestamp),
              headers: r.headers.map((h) => ({ key: h.key, value: utf8(h.value) })),
            }));
        const ours = await encodeRecordBatch({
          baseOffset: BigInt(v.baseOffset),
          partitionLeaderEpoch: v.partitionLeaderEpoch,
          producerId: BigInt(v.producerId),
          producerEpoch: v.producerEpoch,
          baseSequence: v.baseSequence,
          transactional: v.transactional,
          control: v.control,
          compression: v.compression,
          timestampType: v.timestampType,
          ...(v.timestampType === 'LogAppendTime'
            ? { logAppendTime: BigInt(v.logAppendTime) }
            : {}),
          records,
        });
        expect(ours.toString('hex')).toBe(v.hex);
      });
    }
  }
});
