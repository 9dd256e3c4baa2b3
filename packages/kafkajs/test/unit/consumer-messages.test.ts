// The messages and batches a handler receives, checked against kafkajs 2.2.4 itself: the same
// record-batch bytes (written by kafkajs's encoder) are read by kafkajs's decoder and by
// kafkats's, and the facade's translation of the latter must equal the former.
import { createRequire } from 'node:module';
import type { PartitionBatch } from '@kafkats/client';
import {
  crc32c,
  decodeRecordBatches,
  encodeRecordBatchSync,
  type KafkaRecord,
} from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FacadeBatch, toHeaders } from '../../src/internal/consumer-messages.js';

const require = createRequire(import.meta.url);
const KafkaJSRecordBatch = require('kafkajs/src/protocol/recordBatch/v0').RecordBatch;
const KafkaJSRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
const kafkajsBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder');
const KafkaJSDecoder = require('kafkajs/src/protocol/decoder');
const KafkaJSBatch = require('kafkajs/src/consumer/batch');
const Long = require('kafkajs/src/utils/long');

const bytes = fc.uint8Array({ maxLength: 16 }).map((a) => Buffer.from(a));
// Not `__proto__`: kafkajs's decoder reads Object.prototype under it (see the test below).
const headerKey = fc.constantFrom('a', 'b', 'trace-id', 'é', '');
const record = fc.record({
  key: fc.option(bytes, { nil: null }),
  value: fc.option(bytes, { nil: null }),
  timestampDelta: fc.integer({ min: 0, max: 1_000_000 }),
  headers: fc.dictionary(
    headerKey,
    fc.oneof(bytes, fc.array(bytes, { minLength: 1, maxLength: 3 })),
  ),
});

/** A kafkats batch over record-batch bytes, as the fetch engine hands it out. */
function batchOf(bytes: Buffer | null, fetchOffset: bigint, nextOffset: bigint): PartitionBatch {
  const columns = bytes === null ? [] : [...decodeRecordBatches(bytes)].map((b) => b.columns());
  return {
    topic: 't',
    partition: 0,
    fetchOffset,
    columns,
    records: columns.flatMap((c) => Array.from({ length: c.length }, (_, i) => c.record(i))),
    nextOffset,
    highWatermark: nextOffset,
  } as unknown as PartitionBatch;
}

/** What kafkajs's `eachMessage` receives for a record, made the plain way (the oracle). */
function plainMessage(r: KafkaRecord) {
  return {
    key: r.key,
    value: r.value,
    timestamp: String(r.timestamp),
    attributes: r.attributes,
    offset: String(r.offset),
    headers: toHeaders(r.headers),
    magicByte: 2,
    isControlRecord: false,
  };
}

describe('FacadeBatch messages', () => {
  it("equal kafkajs's decoding of the same record batch", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 6 }),
        // Offsets on both sides of 1,000 (decimals made by thousands above it) and of 2^52,
        // where the messages' offsets stop going through numbers.
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 62n }),
          fc.bigInt({ min: 990n, max: 1_010n }),
          fc.bigInt({ min: 0n, max: 3_000n }),
          fc.bigInt({ min: 2n ** 52n - 8n, max: 2n ** 52n + 2n }),
        ),
        fc.integer({ min: 0, max: 2 ** 40 }),
        async (records, baseOffset, firstTimestamp) => {
          const encoded = await KafkaJSRecordBatch({
            firstOffset: Long.fromValue(String(baseOffset)),
            firstTimestamp,
            maxTimestamp: firstTimestamp,
            lastOffsetDelta: records.length - 1,
            records: records.map((r, i) =>
              KafkaJSRecord({
                offsetDelta: i,
                timestampDelta: r.timestampDelta,
                key: r.key,
                value: r.value,
                headers: r.headers,
              }),
            ),
          });
          const buffer: Buffer = encoded.buffer;
          const theirs = await kafkajsBatchDecoder(new KafkaJSDecoder(buffer));
          const batch = new FacadeBatch(
            batchOf(buffer, baseOffset, baseOffset + BigInt(records.length)),
          );
          expect(batch.messages).toHaveLength(theirs.records.length);
          batch.messages.forEach((m, i) => {
            const k = theirs.records[i];
            expect(batch.nextOffsetOf(i)).toBe(BigInt(k.offset) + 1n);
            expect(m.offset).toBe(k.offset);
            expect(m.timestamp).toBe(k.timestamp);
            expect(m.attributes).toBe(k.attributes);
            expect(m.key).toEqual(k.key);
            expect(m.value).toEqual(k.value);
            expect(m.headers).toEqual(k.headers);
            expect(m.magicByte).toBe(k.magicByte);
            expect(m.isControlRecord).toBe(k.isControlRecord);
            expect(Object.keys(m.headers)).toEqual(Object.keys(k.headers));
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives repeated header keys as an array in record order, a single one as a Buffer', () => {
    const headers = toHeaders([
      { key: 'x', value: Buffer.from('1') },
      { key: 'y', value: Buffer.from('2') },
      { key: 'x', value: Buffer.from('3') },
      { key: 'x', value: Buffer.from('4') },
    ]);
    expect(headers).toEqual({
      x: [Buffer.from('1'), Buffer.from('3'), Buffer.from('4')],
      y: Buffer.from('2'),
    });
  });

  it('keeps a header named __proto__ as data (kafkajs prepends Object.prototype to it)', () => {
    const headers = toHeaders([{ key: '__proto__', value: Buffer.from('v') }]);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(Object.hasOwn(headers, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toEqual(Buffer.from('v'));
  });
});

describe('FacadeBatch', () => {
  it('gives each record as the plain translation does, timestamps shared or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 2n ** 30n - 10n, max: 2n ** 30n + 10n }),
          fc.bigInt({ min: 2n ** 52n - 10n, max: 2n ** 52n + 10n }),
        ),
        fc.array(fc.constantFrom(-1, 0, 1, 1_733_000_000_000, 1_733_000_000_001), {
          maxLength: 12,
        }),
        fc.boolean(),
        (fetchOffset, timestamps, farBase) => {
          const bytes =
            timestamps.length === 0
              ? null
              : encodeRecordBatchSync({
                  baseOffset: fetchOffset,
                  records: timestamps.map((timestamp, i) => ({
                    timestamp: BigInt(timestamp),
                    value: Buffer.from([i]),
                    headers: i % 3 === 0 ? [] : [{ key: 'h', value: Buffer.from('v') }],
                  })),
                });
          if (bytes !== null && farBase) {
            // A base timestamp past 2^53 ms, which no encoder writes: the decimals stay exact.
            bytes.writeBigInt64BE(2n ** 60n + 3n, 27);
            bytes.writeUInt32BE(crc32c(bytes, 21, bytes.length), 17);
          }
          const plain = batchOf(bytes, fetchOffset, fetchOffset + BigInt(timestamps.length));
          const batch = new FacadeBatch(plain);
          expect(batch.messages).toEqual(plain.records.map((r) => plainMessage(r as KafkaRecord)));
          expect(batch.messages.map((_, i) => batch.nextOffsetOf(i))).toEqual(
            plain.records.map((r) => r.offset + 1n),
          );
          // Each message has headers of its own, as kafkajs decodes them per record.
          expect(new Set(batch.messages.map((m) => m.headers)).size).toBe(timestamps.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("gives kafkajs's Batch offsets and lags", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 50n }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        (fetchOffset, count, trailingControl, beyond) => {
          const offsets = Array.from({ length: count }, (_, i) => fetchOffset + BigInt(i));
          const nextOffset = fetchOffset + BigInt(count + trailingControl);
          const highWatermark = nextOffset + BigInt(beyond);
          const bytes =
            count === 0
              ? null
              : encodeRecordBatchSync({
                  baseOffset: fetchOffset,
                  records: offsets.map(() => ({ value: null })),
                });
          const ours = new FacadeBatch({
            ...batchOf(bytes, fetchOffset, nextOffset),
            highWatermark,
          });
          // kafkajs sees the trailing control records too, and filters them from `messages`.
          const raw = [
            ...offsets.map((o) => ({ offset: String(o), isControlRecord: false })),
            ...Array.from({ length: trailingControl }, (_, i) => ({
              offset: String(fetchOffset + BigInt(count + i)),
              isControlRecord: true,
            })),
          ];
          const theirs = new KafkaJSBatch('t', String(fetchOffset), {
            partition: 0,
            highWatermark: String(highWatermark),
            messages: raw,
            abortedTransactions: [],
          });
          expect(ours.isEmpty()).toBe(theirs.isEmpty());
          expect(ours.highWatermark).toBe(theirs.highWatermark);
          if (raw.length === 0) return; // kats never hands out a batch that covers nothing
          expect(ours.lastOffset()).toBe(theirs.lastOffset());
          expect(ours.offsetLag()).toBe(theirs.offsetLag());
          if (count > 0) {
            expect(ours.firstOffset()).toBe(theirs.firstOffset());
            expect(ours.offsetLagLow()).toBe(theirs.offsetLagLow());
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
