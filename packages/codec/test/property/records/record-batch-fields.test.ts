import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c, decodeRecordBatches, encodeRecordBatchSync } from '../../../src/index.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Zigzag varlong, as Kafka's ByteUtils.writeVarlong writes it. */
function varlong(v: bigint): number[] {
  let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

/**
 * A v2 batch of records with the given timestamp deltas, built by hand: our encoder takes
 * timestamps within ±2^53 ms only, while Kafka's format allows any int64 delta.
 */
function batchWithDeltas(baseTimestamp: bigint, deltas: readonly bigint[]): Buffer {
  const records = deltas.map((d, i) => {
    // attributes, timestampDelta, offsetDelta, key -1 (null), value of 1 byte, 0 headers
    const body = [
      0,
      ...varlong(d),
      ...varlong(BigInt(i)),
      ...varlong(-1n),
      ...varlong(1n),
      i & 0xff,
      0,
    ];
    return Buffer.from([...varlong(BigInt(body.length)), ...body]);
  });
  const head = Buffer.alloc(61);
  head.writeBigInt64BE(0n, 0); // baseOffset
  head.writeInt32BE(-1, 12); // partitionLeaderEpoch
  head.writeInt8(2, 16); // magic
  head.writeInt16BE(0, 21); // attributes: CreateTime, no compression
  head.writeInt32BE(deltas.length - 1, 23); // lastOffsetDelta
  head.writeBigInt64BE(baseTimestamp, 27);
  head.writeBigInt64BE(baseTimestamp, 35); // maxTimestamp (not checked by readers)
  head.writeBigInt64BE(-1n, 43); // producerId
  head.writeInt16BE(-1, 51); // producerEpoch
  head.writeInt32BE(-1, 53); // baseSequence
  head.writeInt32BE(deltas.length, 57); // recordCount
  const buf = Buffer.concat([head, ...records]);
  buf.writeInt32BE(buf.length - 12, 8); // batchLength
  buf.writeUInt32BE(crc32c(buf.subarray(21)), 17);
  return buf;
}

// A base timestamp anywhere in int64 and deltas that keep every timestamp in int64; some lie
// beyond 2^53, where a JavaScript number would lose digits.
const baseAndDeltas = fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).chain((base) =>
  fc.tuple(
    fc.constant(base),
    fc.array(
      fc.oneof(
        fc.bigInt({ min: -100_000n, max: 100_000n }),
        // The delta is an int64 itself, and so is base + delta.
        fc.bigInt({
          min: base < 0n ? INT64_MIN - base : INT64_MIN,
          max: base > 0n ? INT64_MAX - base : INT64_MAX,
        }),
        fc.constantFrom(2n ** 53n + 1n, -(2n ** 53n) - 1n),
      ),
      { minLength: 1, maxLength: 20 },
    ),
  ),
);

describe('RecordBatch and KafkaRecord fields (fast-check)', () => {
  it('lastOffsetDelta, lastSequence and sizeInBytes describe the batch as encoded', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 62n }),
        fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
        fc.integer({ min: 1, max: 40 }),
        (baseOffset, baseSequence, count) => {
          const buf = encodeRecordBatchSync({
            baseOffset,
            baseSequence,
            producerId: baseSequence < 0 ? -1n : 7n,
            producerEpoch: baseSequence < 0 ? -1 : 0,
            records: Array.from({ length: count }, (_, i) => ({
              value: Buffer.from([i]),
              timestamp: 1_700_000_000_000 + i,
            })),
          });
          const [b] = [...decodeRecordBatches(buf)];
          expect(b!.sizeInBytes).toBe(buf.length);
          expect(b!.lastOffsetDelta).toBe(count - 1);
          expect(b!.lastOffset).toBe(baseOffset + BigInt(count - 1));
          const last = baseSequence < 0 ? -1 : (baseSequence + count - 1) % 2 ** 31;
          expect(b!.lastSequence).toBe(last);
          // The last record's own sequence is the batch's lastSequence (both wrap alike).
          const records = [...b!.records()];
          expect(records[records.length - 1]!.sequence).toBe(last);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('baseOffset and producerId read back as written, batch after batch (0, -1, any int64)', () => {
    // The header writer shortcuts 0 and -1 and keeps the last other value's halves: a run of
    // batches mixing them must never write one batch's value into another.
    const int64 = fc.oneof(
      fc.constantFrom(0n, -1n, 1n, -2n, 2n ** 32n, -(2n ** 32n), INT64_MIN, INT64_MAX),
      fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: INT64_MAX })), int64),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        (batches) => {
          const bufs = batches.map(([baseOffset, producerId]) =>
            encodeRecordBatchSync({
              baseOffset,
              producerId,
              records: [{ value: Buffer.from('v'), timestamp: 1_700_000_000_000 }],
            }),
          );
          bufs.forEach((buf, i) => {
            const [baseOffset, producerId] = batches[i]!;
            const [b] = [...decodeRecordBatches(buf)];
            expect(b!.baseOffset).toBe(baseOffset);
            expect(b!.producerId).toBe(producerId);
            expect(buf.readBigInt64BE(43)).toBe(producerId);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('timestampDelta is the exact int64 delta the record carries, past 2^53 too', () => {
    fc.assert(
      fc.property(baseAndDeltas, ([base, deltas]) => {
        const [b] = [...decodeRecordBatches(batchWithDeltas(base, deltas))];
        const records = [...b!.records()];
        expect(records.map((r) => r.timestampDelta)).toEqual(deltas);
        expect(records.map((r) => r.timestamp)).toEqual(deltas.map((d) => base + d));
      }),
      { numRuns: 300 },
    );
  });

  it('timestampDelta of records our encoder wrote is their timestamp minus the base', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), {
          minLength: 1,
          maxLength: 20,
        }),
        (ts) => {
          const buf = encodeRecordBatchSync({
            records: ts.map((timestamp, i) => ({ value: Buffer.from([i]), timestamp })),
          });
          const [b] = [...decodeRecordBatches(buf)];
          for (const r of b!.records()) {
            expect(typeof r.timestampDelta).toBe('bigint');
            expect(r.timestampDelta).toBe(r.timestamp - b!.baseTimestamp);
          }
        },
      ),
      {
        numRuns: 200,
        // Deltas past 2^53, which only an int64 holds exactly: Kafka's DefaultRecord writes them.
        examples: [
          [[2 ** 52, -(2 ** 52)]],
          [[Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0]],
          [[Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1]],
        ],
      },
    );
  });
});
