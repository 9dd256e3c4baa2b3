import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_CODECS,
  CodecError,
  crc32,
  crc32c,
  decodeRecordBatches,
  encodeRecordBatch,
  type RecordBatchInput,
  type RecordInput,
} from '../../../src/index.js';

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
const nullableBytes = (max: number) => fc.option(bytes(max), { nil: null });

const header = fc.record({
  key: fc.string({ maxLength: 20, unit: 'grapheme' }),
  value: nullableBytes(30),
});

const BASE_TS = 1_700_000_000_000;

const recordArb: fc.Arbitrary<RecordInput> = fc.record({
  key: nullableBytes(40),
  value: nullableBytes(200),
  headers: fc.oneof(
    { weight: 4, arbitrary: fc.array(header, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(header, { minLength: 100, maxLength: 300 }) },
  ),
  // Negative, zero and far-apart deltas around the first record's timestamp.
  timestamp: fc.oneof(
    fc.integer({ min: BASE_TS - 100_000, max: BASE_TS + 100_000 }),
    fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
    fc.constant(-1),
  ),
});

const batchArb: fc.Arbitrary<RecordBatchInput> = fc.record({
  baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }),
  partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  producerId: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
  producerEpoch: fc.integer({ min: -1, max: 32767 }),
  baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  transactional: fc.boolean(),
  control: fc.boolean(),
  compression: fc.constantFrom(...COMPRESSION_CODECS),
  timestampType: fc.constantFrom('CreateTime' as const, 'LogAppendTime' as const),
  records: fc.array(recordArb, { minLength: 1, maxLength: 30 }),
});

/** Attributes bit 6 (KIP-534) as well: absent, or a horizon near or far from the records. */
const batchWithHorizonArb: fc.Arbitrary<RecordBatchInput> = fc
  .tuple(
    batchArb,
    fc.option(
      fc.oneof(
        fc.bigInt({ min: BigInt(BASE_TS) - 100_000n, max: BigInt(BASE_TS) + 100_000n }),
        fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
      ),
      { nil: undefined },
    ),
  )
  .map(([b, deleteHorizonMs]) => (deleteHorizonMs === undefined ? b : { ...b, deleteHorizonMs }));

function tsOf(r: RecordInput): bigint {
  return BigInt(r.timestamp ?? 0);
}

describe('record batch round trip (fast-check)', () => {
  it('every attribute combination and codec decodes to what was encoded', async () => {
    await fc.assert(
      fc.asyncProperty(batchWithHorizonArb, async (input) => {
        const buf = await encodeRecordBatch(input);
        const it = decodeRecordBatches(buf);
        const batches = [...it];
        expect(it.partialBatchBytes).toBe(0);
        expect(batches.length).toBe(1);
        const b = batches[0]!;
        expect(b.baseOffset).toBe(input.baseOffset);
        expect(b.lastOffset).toBe(input.baseOffset! + BigInt(input.records.length - 1));
        expect(b.partitionLeaderEpoch).toBe(input.partitionLeaderEpoch);
        expect(b.producerId).toBe(input.producerId);
        expect(b.producerEpoch).toBe(input.producerEpoch);
        expect(b.baseSequence).toBe(input.baseSequence);
        expect(b.isTransactional).toBe(input.transactional);
        expect(b.isControl).toBe(input.control);
        expect(b.compression).toBe(input.compression);
        expect(b.timestampType).toBe(input.timestampType);
        expect(b.deleteHorizonMs).toBe(input.deleteHorizonMs ?? null);
        if (input.deleteHorizonMs !== undefined) {
          expect(b.baseTimestamp).toBe(input.deleteHorizonMs);
        }
        // biome-ignore lint/complexity/useMathMinMax: bigint timestamps; Math.max takes numbers only
        const max = input.records.reduce((m, r) => (tsOf(r) > m ? tsOf(r) : m), -1n);
        expect(b.maxTimestamp).toBe(max);
        const out = [...b.records()];
        expect(out.length).toBe(input.records.length);
        out.forEach((r, i) => {
          const want = input.records[i]!;
          expect(r.offset).toBe(input.baseOffset! + BigInt(i));
          expect(r.timestamp).toBe(input.timestampType === 'LogAppendTime' ? max : tsOf(want));
          expect(r.key).toEqual(want.key);
          expect(r.value).toEqual(want.value);
          expect(r.headers).toEqual(want.headers);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('fuzz: mutated batches decode or throw CodecError, never anything else', async () => {
    const seeds = await Promise.all(
      COMPRESSION_CODECS.map((compression) =>
        encodeRecordBatch({
          compression,
          records: [
            {
              key: Buffer.from('k'),
              value: Buffer.alloc(300, 1),
              headers: [{ key: 'h', value: null }],
            },
            { key: null, value: Buffer.from('second'), timestamp: 5 },
          ],
        }),
      ),
    );
    // Legacy v0/v1 messages (plain and compressed wrappers) from Kafka's own builder.
    const vectors = JSON.parse(
      readFileSync(
        new URL('../../../../../fixtures/vectors/record-batches.json', import.meta.url),
        'utf8',
      ),
    ) as { vectors: { magic: number; hex: string }[] };
    for (const v of vectors.vectors) if (v.magic < 2) seeds.push(Buffer.from(v.hex, 'hex'));
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.boolean(),
        fc.nat(),
        (seed, edits, fixCrc, cut) => {
          const buf = Buffer.from(seed);
          for (const [at, v] of edits) buf[at % buf.length] = v;
          if (fixCrc && buf[16] === 2) buf.writeUInt32BE(crc32c(buf, 21), 17);
          if (fixCrc && buf[16]! < 2) {
            const end = 12 + buf.readInt32BE(8);
            if (end > 16 && end <= buf.length) buf.writeUInt32BE(crc32(buf, 16, end), 12);
          }
          const input = cut % 3 === 0 ? buf.subarray(0, cut % buf.length) : buf;
          try {
            for (const b of decodeRecordBatches(input, { maxUncompressedBytes: 1 << 20 })) {
              for (const r of b.records()) {
                void r.offset;
                void r.timestamp;
                void r.key;
                void r.value;
                void r.headers;
              }
            }
          } catch (e) {
            if (!(e instanceof CodecError)) throw e;
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
