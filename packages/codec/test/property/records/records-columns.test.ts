import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_CODECS,
  decodeRecordBatches,
  encodeRecordBatch,
  type KafkaRecord,
  type RecordBatch,
  type RecordBatchInput,
  type RecordColumns,
  type RecordInput,
} from '../../../src/index.js';

/**
 * A batch read as columns gives, record by record, what its `records()` gives: offsets,
 * timestamps, keys, values, headers and attributes, for every codec, timestamp type and
 * magic, and for any slice of it.
 */

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
const nullableBytes = (max: number) => fc.option(bytes(max), { nil: null });
const BASE_TS = 1_700_000_000_000;

const recordArb: fc.Arbitrary<RecordInput> = fc.record({
  key: nullableBytes(20),
  value: nullableBytes(150),
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: nullableBytes(10) }), {
    maxLength: 3,
  }),
  // Near the first record's timestamp, and deltas beyond int32 (wide), and none (-1).
  timestamp: fc.oneof(
    fc.integer({ min: BASE_TS - 100_000, max: BASE_TS + 100_000 }),
    fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
    fc.constant(-1),
  ),
});

const batchArb: fc.Arbitrary<RecordBatchInput> = fc.record({
  baseOffset: fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 31n }),
    fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
  ),
  compression: fc.constantFrom(...COMPRESSION_CODECS),
  timestampType: fc.constantFrom('CreateTime' as const, 'LogAppendTime' as const),
  records: fc.array(recordArb, { minLength: 1, maxLength: 40 }),
});

function sameRecord(columns: RecordColumns, i: number, record: KafkaRecord): void {
  expect(columns.offset(i)).toBe(record.offset);
  expect(columns.baseOffset + BigInt(columns.offsetDelta(i))).toBe(
    record.offset < columns.baseOffset ? record.offset + 2n ** 64n : record.offset,
  );
  expect(columns.timestamp(i)).toBe(record.timestamp);
  expect(columns.timestampMs(i)).toBe(Number(record.timestamp));
  expect(columns.key(i)).toEqual(record.key);
  expect(columns.value(i)).toEqual(record.value);
  expect(columns.attributes(i)).toBe(record.attributes);
  expect(columns.headerCount(i)).toBe(record.headerCount);
  expect(columns.headers(i)).toEqual(record.headers);
  const made = columns.record(i);
  expect(made.offset).toBe(record.offset);
  expect(made.timestamp).toBe(record.timestamp);
  expect(made.value).toEqual(record.value);
}

function checkBatch(batch: RecordBatch, start: number, end: number): void {
  const records = [...batch.records()];
  const columns = batch.columns();
  expect(columns.length).toBe(records.length);
  expect(columns.error).toBeNull();
  expect(columns.baseOffset).toBe(batch.baseOffset);
  records.forEach((r, i) => {
    sameRecord(columns, i, r);
  });
  const slice = columns.slice(start, end);
  const expected = records.slice(start, end);
  expect(slice.length).toBe(expected.length);
  expected.forEach((r, i) => {
    sameRecord(slice, i, r);
  });
}

describe('record batch columns (fast-check)', () => {
  it('give what records() gives, for every codec and timestamp type, and any slice', async () => {
    await fc.assert(
      fc.asyncProperty(
        batchArb,
        fc.integer({ min: -45, max: 45 }),
        fc.integer({ min: -45, max: 45 }),
        async (input, start, end) => {
          const [batch] = [...decodeRecordBatches(await encodeRecordBatch(input))];
          checkBatch(batch!, start, end);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('give what records() gives for Kafka-built batches of every magic (v0, v1 legacy, v2)', () => {
    const file = JSON.parse(
      readFileSync(
        new URL('../../../../../fixtures/vectors/record-batches.json', import.meta.url),
        'utf8',
      ),
    ) as { vectors: { name: string; magic: number; hex: string }[] };
    const magics = new Set<number>();
    for (const v of file.vectors) {
      for (const batch of decodeRecordBatches(Buffer.from(v.hex, 'hex'))) {
        magics.add(batch.magic);
        checkBatch(batch, 1, -1);
      }
    }
    expect([...magics].sort()).toEqual([0, 1, 2]);
  });

  it('refuse an index outside them with a RangeError naming it', async () => {
    const [batch] = [
      ...decodeRecordBatches(
        await encodeRecordBatch({ records: [{ value: Buffer.from('a') }, { value: null }] }),
      ),
    ];
    const columns = batch!.columns();
    for (const bad of [-1, 2, 0.5, Number.NaN]) {
      expect(() => columns.value(bad)).toThrow(RangeError);
      expect(() => columns.offsetDelta(bad)).toThrow(`record index ${bad}`);
    }
    expect(columns.value(1)).toBeNull();
    expect(columns.slice(1).length).toBe(1);
    expect(() => columns.slice(1).value(1)).toThrow(RangeError);
    expect(columns.slice(5, 1).length).toBe(0);
  });

  it('end before a malformed record with its error, as records() throws it there', async () => {
    const buf = await encodeRecordBatch({
      records: ['a', 'b', 'c'].map((v) => ({ value: Buffer.from(v.repeat(8)) })),
    });
    buf.writeInt32BE(4, 57); // the header's record count: one more than the bytes hold
    const [batch] = [...decodeRecordBatches(buf, { verifyCrc: false })];
    const columns = batch!.columns();
    expect(columns.length).toBe(3);
    expect(columns.error?.message).toMatch(/record count says 4, the bytes hold 3/);
    expect(columns.slice(2).error).toBe(columns.error);
    expect(columns.slice(0, 2).error).toBeNull();
    const seen: string[] = [];
    expect(() => {
      for (const r of batch!.records()) seen.push(r.value!.toString());
    }).toThrow(columns.error!);
    expect(seen).toEqual([0, 1, 2].map((i) => columns.value(i)!.toString()));
  });
});
