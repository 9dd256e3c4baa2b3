// The one-pass batch builder (records written as they are appended, strings straight into the
// batch) gives exactly the bytes of the reference encoder for the same records, for every
// codec, nulls, headers as a list or an object, strings and bytes, and record sizes on both
// sides of the size varint's width steps; its refusals and size figures are exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_CODECS,
  CodecError,
  type CompressionCodec,
  decodeRecordBatches,
  encodeRecordBatch,
  RECORD_BATCH_OVERHEAD,
  RecordBatchBuilder,
  type RecordBatchFields,
  type RecordHeadersInput,
  type RecordInput,
  recordBatchSizeUpperBound,
  recordSizeInBytes,
  restampRecordBatch,
} from '../../../src/index.js';

type Field = Buffer | string | null;

interface BuilderRecord {
  readonly timestamp: number;
  readonly key: Field;
  readonly value: Field;
  readonly headers: RecordHeadersInput | null;
}

const BASE_TS = 1_700_000_000_000;

/** Lengths around the varint steps of a field (64, 8192) and of a record's size varint. */
const length = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 80 }) },
  { weight: 2, arbitrary: fc.constantFrom(62, 63, 64, 65, 8180, 8191, 8192, 8200) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }) },
);

const bytesOf = (n: number) =>
  fc.integer({ min: 0, max: 255 }).map((seed) => {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = (seed + i * 31) & 0xff;
    return b;
  });

/** A string: ASCII of a given length, or any UTF-16 (lone surrogates included). */
const text = fc.oneof(
  length.map((n) => 'k'.repeat(n)),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
  fc.string({ maxLength: 40, unit: 'binary' }),
);

const field: fc.Arbitrary<Field> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: length.chain(bytesOf) },
  { weight: 3, arbitrary: text },
);

const headerValue: fc.Arbitrary<Field> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 70 }).chain(bytesOf),
  fc.string({ maxLength: 20, unit: 'binary' }),
);

const headerList = fc.array(
  fc.record({ key: fc.string({ maxLength: 20, unit: 'binary' }), value: headerValue }),
  { maxLength: 4 },
);

const headers: fc.Arbitrary<RecordHeadersInput | null> = fc.oneof(
  fc.constant(null),
  headerList,
  // An object: one value per key (keys that are not array indices keep their order).
  fc
    .array(
      fc.tuple(
        fc.string({ maxLength: 10 }).map((k) => `h-${k}`),
        headerValue,
      ),
      {
        maxLength: 4,
      },
    )
    .map((pairs) => Object.fromEntries(pairs)),
);

const recordArb: fc.Arbitrary<BuilderRecord> = fc.record({
  timestamp: fc.oneof(
    fc.integer({ min: BASE_TS - 100_000, max: BASE_TS + 100_000 }),
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
    // Two of these can be more than 2^53 apart: an int64 delta only a bigint holds exactly.
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  ),
  key: field,
  value: field,
  headers,
});

const fieldsArb: fc.Arbitrary<RecordBatchFields> = fc.record({
  producerId: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
  producerEpoch: fc.integer({ min: -1, max: 32767 }),
  baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  transactional: fc.boolean(),
});

const bytes = (f: Field): Buffer | null =>
  f === null ? null : typeof f === 'string' ? Buffer.from(f, 'utf8') : f;

/** The record as the reference encoder takes it: bytes, headers as a list. */
function reference(r: BuilderRecord): RecordInput {
  const h = r.headers;
  const list =
    h === null
      ? []
      : Array.isArray(h)
        ? (h as { key: string; value: Field }[])
        : Object.entries(h as Record<string, Field>).map(([key, value]) => ({ key, value }));
  return {
    key: bytes(r.key),
    value: bytes(r.value),
    headers: list.map(({ key, value }) => ({ key, value: bytes(value) })),
    timestamp: r.timestamp,
  };
}

async function build(
  records: readonly BuilderRecord[],
  capacity: number,
  codec: CompressionCodec,
  fields: RecordBatchFields,
  sync = false,
): Promise<{ batch: Buffer; sizes: number[] }> {
  const b = new RecordBatchBuilder(Buffer.alloc(capacity));
  const sizes = records.map((r) => b.append(r.timestamp, r.key, r.value, r.headers));
  // compress() frames the records behind room for the header; compressAsync() copies them.
  if (sync) b.compress(codec);
  else await b.compressAsync(codec);
  return { batch: b.build(fields), sizes };
}

describe('RecordBatchBuilder (fast-check)', () => {
  it('writes the bytes the reference encoder writes, for every codec', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...COMPRESSION_CODECS),
        fieldsArb,
        fc.boolean(),
        async (records, codec, fields, sync) => {
          const expected = await encodeRecordBatch({
            ...fields,
            compression: codec,
            records: records.map(reference),
          });
          // zstd compresses only asynchronously.
          const { batch, sizes } = await build(
            records,
            1 << 20,
            codec,
            fields,
            sync && codec !== 'zstd',
          );
          expect(batch.equals(expected)).toBe(true);
          // What append said each record took is what the record takes.
          const first = records[0]!.timestamp;
          sizes.forEach((size, i) => {
            const r = records[i]!;
            expect(size).toBe(recordSizeInBytes(i, r.timestamp - first, r.key, r.value, r.headers));
            expect(recordBatchSizeUpperBound(r.key, r.value, r.headers)).toBeGreaterThanOrEqual(
              RECORD_BATCH_OVERHEAD + size,
            );
          });
          // And the independent decoder reads back what went in.
          const [decoded] = [...decodeRecordBatches(batch)];
          const back = [...decoded!.records()];
          expect(back.map((r) => r.value)).toEqual(records.map((r) => bytes(r.value)));
          expect(back.map((r) => r.key)).toEqual(records.map((r) => bytes(r.key)));
          expect(back.map((r) => Number(r.timestamp))).toEqual(records.map((r) => r.timestamp));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('takes a record when its exact size fits, however tight, and refuses one byte less', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(recordArb, { minLength: 1, maxLength: 6 }), async (records) => {
        const expected = await encodeRecordBatch({ records: records.map(reference) });
        // A buffer of exactly the batch's size takes every record, the last only just.
        const exact = await build(records, expected.length, 'none', {});
        expect(exact.batch.equals(expected)).toBe(true);
        // One byte less: the last record is refused, nothing of it written.
        const b = new RecordBatchBuilder(Buffer.alloc(expected.length - 1));
        const last = records.length - 1;
        for (let i = 0; i < last; i++) {
          const r = records[i]!;
          expect(b.append(r.timestamp, r.key, r.value, r.headers)).toBeGreaterThan(0);
        }
        const r = records[last]!;
        const before = b.sizeInBytes;
        expect(b.append(r.timestamp, r.key, r.value, r.headers)).toBe(-1);
        expect(b.sizeInBytes).toBe(before);
        expect(b.recordCount).toBe(last);
      }),
      { numRuns: 150 },
    );
  });

  it('restamps producer id, epoch and sequence as an encoding with them would have written them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(...COMPRESSION_CODECS),
        fieldsArb,
        async (records, codec, fields) => {
          const expected = await encodeRecordBatch({
            ...fields,
            compression: codec,
            records: records.map(reference),
          });
          // Built without a sequence and without its CRC, then numbered: the producer's path.
          const b = new RecordBatchBuilder(Buffer.alloc(1 << 20));
          for (const r of records) b.append(r.timestamp, r.key, r.value, r.headers);
          await b.compressAsync(codec);
          const batch = b.build({ transactional: fields.transactional ?? false }, false);
          restampRecordBatch(
            batch,
            fields.producerId ?? -1n,
            fields.producerEpoch ?? -1,
            fields.baseSequence ?? -1,
          );
          expect(batch.equals(expected)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('64-bit header fields', () => {
  it('are written as Buffer.writeBigInt64BE writes them: any producer id, any safe timestamp', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.integer({ min: Number.MIN_SAFE_INTEGER + 1e6, max: Number.MAX_SAFE_INTEGER - 1e6 }),
        fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 4 }),
        (producerId, other, start, deltas) => {
          const timestamps = deltas.map((d) => start + d);
          const b = new RecordBatchBuilder(Buffer.alloc(1024));
          for (const t of timestamps) b.append(t, null, 'v');
          const batch = b.build();
          // The same id twice (a cached conversion), then another, then the first again.
          for (const id of [producerId, producerId, other, producerId]) {
            restampRecordBatch(batch, id, 0, 0);
            expect(batch.readBigInt64BE(43)).toBe(id);
          }
          const base = BigInt(timestamps[0] as number);
          // Kafka's MemoryRecordsBuilder starts maxTimestamp at NO_TIMESTAMP (-1).
          const max = Math.max(-1, ...timestamps);
          expect(batch.readBigInt64BE(27)).toBe(base);
          expect(batch.readBigInt64BE(35)).toBe(BigInt(max));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('RecordBatchBuilder refusals', () => {
  it('refuses bad input with typed errors', () => {
    expect(() => new RecordBatchBuilder(Buffer.alloc(60))).toThrow(CodecError);
    const b = new RecordBatchBuilder(Buffer.alloc(1024));
    expect(() => b.build()).toThrow(/at least one record/);
    expect(() => b.append(1.5, null, 'v')).toThrow(/not an integer/);
    expect(() => b.compress('zstd')).toThrow(CodecError);
    b.append(1, null, 'v');
    expect(() => b.compress('none', { level: 3 })).toThrow(/no compression level/);
    b.build();
    expect(() => b.append(2, null, 'w')).toThrow(/built batch/);
    expect(() => restampRecordBatch(Buffer.alloc(70), 1n, 0, 0)).toThrow(CodecError);
    const batch = b.build();
    expect(() => restampRecordBatch(batch, 1n, 0x8000, 0)).toThrow(/producerEpoch/);
  });
});
