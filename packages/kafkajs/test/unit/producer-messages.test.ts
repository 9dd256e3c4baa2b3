// kafkajs messages as kats records, and kats's per-record answers as kafkajs's per-partition
// RecordMetadata. The byte rules are kafkajs's encoder's: a Buffer as is, null/undefined as
// null, anything else as String(x) in UTF-8; a header array gives one header per element.
import type { RecordMetadata as KatsMetadata } from '@kafkats/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KafkaJSNonRetriableError } from '../../src/errors.js';
import {
  mergeByTopic,
  toPartitionResults,
  toRecord,
  validateTopicMessages,
} from '../../src/internal/producer-messages.js';

function kafkajsBytes(x: unknown): Buffer | null {
  if (x === null || x === undefined) return null;
  return Buffer.isBuffer(x) ? x : Buffer.from(String(x), 'utf8');
}

function asBytes(x: unknown): Buffer | null {
  if (x === null || x === undefined) return null;
  return Buffer.isBuffer(x) ? x : Buffer.from(x as string, 'utf8');
}

const bytes = fc.uint8Array({ maxLength: 32 }).map((a) => Buffer.from(a));
const field = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  bytes,
  fc.constant(null),
  fc.integer(),
);
const headerValue = fc.oneof(
  fc.string({ maxLength: 10 }),
  bytes,
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), bytes), { maxLength: 3 }),
  fc.constant(undefined),
);
const headers = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'),
  headerValue,
  { maxKeys: 5 },
);
const message = fc.record(
  {
    key: field,
    value: field,
    headers,
    timestamp: fc.integer({ min: 0, max: 2 ** 41 }).map(String),
    partition: fc.integer({ min: 0, max: 50 }),
  },
  { requiredKeys: ['value'] },
);

describe('kafkajs messages as kats records', () => {
  it('keeps the key, value, header bytes and order, timestamp and partition kafkajs would send', () => {
    fc.assert(
      fc.property(message, fc.integer({ min: 0, max: 2 ** 41 }), (m, now) => {
        const r = toRecord('orders', m, now, true);
        expect(r.topic).toBe('orders');
        expect(asBytes(r.value)).toEqual(kafkajsBytes(m.value));
        expect(asBytes(r.key ?? null)).toEqual(kafkajsBytes(m.key));
        expect(r.timestamp).toBe(m.timestamp === undefined ? now : Number(m.timestamp));
        expect(r.partition).toBe(m.partition);
        const expected = Object.keys(m.headers ?? {}).flatMap((k) => {
          const v = (m.headers as Record<string, unknown>)[k];
          return (Array.isArray(v) ? v : [v]).map((x) => ({ key: k, value: kafkajsBytes(x) }));
        });
        const got = ((r.headers ?? []) as { key: string; value: unknown }[]).map((h) => ({
          key: h.key,
          value: asBytes(h.value),
        }));
        expect(got).toEqual(m.headers === undefined ? [] : expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves the partition to a custom partitioner when told to', () => {
    const r = toRecord('t', { value: 'v', partition: 3 }, 0, false);
    expect(r.partition).toBeUndefined();
  });

  it('refuses a timestamp that is not ms, and a partition that is not a number', () => {
    expect(() => toRecord('t', { value: 'v', timestamp: 'yesterday' }, 0, true)).toThrow(
      KafkaJSNonRetriableError,
    );
    expect(() => toRecord('t', { value: 'v', partition: -1 }, 0, true)).toThrow(
      /Invalid partition -1/,
    );
  });

  it("validates as kafkajs's sendBatch does, in its order and with its messages", () => {
    expect(() => validateTopicMessages([{ topic: null }], -1, false)).toThrow('Invalid topic');
    expect(() => validateTopicMessages([{ topic: 't', messages: [] }], 1, true)).toThrow(
      "Not requiring ack for all messages invalidates the idempotent producer's EoS guarantees",
    );
    expect(() => validateTopicMessages([{ topic: 't', messages: null }], -1, false)).toThrow(
      'Invalid messages array [null] for topic "t"',
    );
    expect(() =>
      validateTopicMessages([{ topic: 't', messages: [{ foo: 'bar' }] }], -1, false),
    ).toThrow('Invalid message without value for topic "t": {"foo":"bar"}');
    // A null value is a tombstone, not a missing value.
    expect(() =>
      validateTopicMessages([{ topic: 't', messages: [{ value: null }] }], -1, false),
    ).not.toThrow();
  });

  it('merges the messages of a topic named twice, in order', () => {
    const merged = mergeByTopic([
      { topic: 'a', messages: [{ value: '1' }, { value: '2' }] },
      { topic: 'b', messages: [{ value: 'x' }] },
      { topic: 'a', messages: [{ value: '3' }] },
    ]);
    expect(merged).toEqual([
      { topic: 'a', messages: [{ value: '1' }, { value: '2' }, { value: '3' }] },
      { topic: 'b', messages: [{ value: 'x' }] },
    ]);
  });
});

describe("kats's delivery metadata as kafkajs's RecordMetadata", () => {
  const delivered = fc.array(
    fc.record({
      topic: fc.constantFrom('a', 'b', 'c'),
      partition: fc.integer({ min: 0, max: 4 }),
      offset: fc.bigInt({ min: 0n, max: 10n ** 12n }),
      sent: fc.integer({ min: 0, max: 2 ** 41 }),
      logStartOffset: fc.bigInt({ min: -1n, max: 10n ** 6n }),
    }),
    { maxLength: 40 },
  );

  it('gives one entry per partition written, with the lowest offset of the call as baseOffset', () => {
    fc.assert(
      fc.property(delivered, (list) => {
        const metadata: KatsMetadata[] = list.map((d) => ({
          topic: d.topic,
          partition: d.partition,
          offset: d.offset,
          timestamp: BigInt(d.sent),
          timestampType: 'CreateTime',
          logStartOffset: d.logStartOffset,
        }));
        const results = toPartitionResults(metadata);
        const keys = new Set(list.map((d) => `${d.topic}-${d.partition}`));
        expect(results).toHaveLength(keys.size);
        for (const r of results) {
          const mine = list.filter((d) => d.topic === r.topicName && d.partition === r.partition);
          const offsets = mine.map((d) => d.offset).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
          const min = offsets[0];
          const lowest = mine.find((d) => d.offset === min);
          expect(r).toEqual({
            topicName: r.topicName,
            partition: r.partition,
            errorCode: 0,
            baseOffset: String(min),
            logAppendTime: '-1',
            logStartOffset: String(lowest?.logStartOffset),
          });
        }
        // Topics in the order first written, partitions ascending within a topic.
        const topics = [...new Set(list.map((d) => d.topic))];
        expect([...new Set(results.map((r) => r.topicName))]).toEqual(topics);
        for (const t of topics) {
          const ps = results.filter((r) => r.topicName === t).map((r) => r.partition);
          expect(ps).toEqual([...ps].sort((x, y) => x - y));
        }
      }),
    );
  });

  it("reports the broker's LogAppendTime for a LogAppendTime topic, and its log start offset", () => {
    const results = toPartitionResults([
      {
        topic: 't',
        partition: 0,
        offset: 7n,
        timestamp: 5000n,
        timestampType: 'LogAppendTime',
        logStartOffset: 3n,
      },
    ]);
    expect(results[0]?.logAppendTime).toBe('5000');
    expect(results[0]?.baseOffset).toBe('7');
    expect(results[0]?.logStartOffset).toBe('3');
  });
});
