// The messages and batches a handler receives, checked against kafkajs 2.2.4 itself: the same
// record-batch bytes (written by kafkajs's encoder) are read by kafkajs's decoder and by
// kafkats's, and the facade's translation of the latter must equal the former.
import { createRequire } from 'node:module';
import type { ConsumerRecord, PartitionBatch } from '@kafkats/client';
import { decodeRecordBatches } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FacadeBatch,
  offsetText,
  toHeaders,
  toKafkaMessage,
} from '../../src/internal/consumer-messages.js';

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

describe('toKafkaMessage', () => {
  it("equals kafkajs's decoding of the same record batch", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 6 }),
        fc.bigInt({ min: 0n, max: 2n ** 62n }),
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
          const ours = [...decodeRecordBatches(buffer, {})].flatMap((b) => [...b.records()]);
          expect(ours).toHaveLength(theirs.records.length);
          ours.forEach((rec, i) => {
            const m = toKafkaMessage(rec as ConsumerRecord);
            const k = theirs.records[i];
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

describe('offsetText', () => {
  it('is the decimal of any offset, on both sides of 2^30', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
          fc.bigInt({ min: 2n ** 30n - 5n, max: 2n ** 30n + 5n }),
          fc.bigInt({ min: -(2n ** 63n), max: -1n }),
        ),
        (offset) => {
          expect(offsetText(offset)).toBe(offset.toString());
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('FacadeBatch', () => {
  it('gives each record as toKafkaMessage does, timestamps shared or not', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 2n ** 30n - 10n, max: 2n ** 30n + 10n }),
        fc.array(fc.constantFrom(0n, 1n, 1_733_000_000_000n, 1_733_000_000_001n), {
          maxLength: 12,
        }),
        (fetchOffset, timestamps) => {
          const records = timestamps.map(
            (timestamp, i) =>
              ({
                offset: fetchOffset + BigInt(i),
                timestamp,
                key: null,
                value: Buffer.from([i]),
                attributes: 0,
                headers: i % 3 === 0 ? [] : [{ key: 'h', value: Buffer.from('v') }],
              }) as unknown as ConsumerRecord,
          );
          const batch = new FacadeBatch({
            topic: 't',
            partition: 0,
            fetchOffset,
            records,
            nextOffset: fetchOffset + BigInt(records.length),
            highWatermark: fetchOffset + BigInt(records.length),
          } as unknown as PartitionBatch);
          expect(batch.messages).toEqual(records.map(toKafkaMessage));
          // Each message has headers of its own, as kafkajs decodes them per record.
          expect(new Set(batch.messages.map((m) => m.headers)).size).toBe(records.length);
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
          const records = offsets.map(
            (offset) =>
              ({
                offset,
                timestamp: 0n,
                key: null,
                value: null,
                attributes: 0,
                headers: [],
              }) as unknown as ConsumerRecord,
          );
          const ours = new FacadeBatch({
            topic: 't',
            partition: 0,
            fetchOffset,
            records,
            nextOffset,
            highWatermark,
          } as unknown as PartitionBatch);
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
