import { describe, expect, it } from 'vitest';
import {
  decodeRecordBatches,
  encodeRecordBatchSync,
  type KafkaRecord,
} from '../../../src/index.js';

function recordsOf(buf: Buffer): KafkaRecord[] {
  return [...decodeRecordBatches(buf)].flatMap((b) => [...b.records()]);
}

const buf = encodeRecordBatchSync({
  baseOffset: 100n,
  records: [
    { key: Buffer.from('k0'), value: Buffer.from('v0'), timestamp: 1_700_000_000_000 },
    {
      key: null,
      value: null,
      timestamp: 1_700_000_000_250,
      headers: [
        { key: 'trace', value: Buffer.from('t-1') },
        { key: 'trace', value: null },
        { key: 'x'.repeat(70), value: Buffer.alloc(300, 7) },
      ],
    },
  ],
});

describe('a decoded record object', () => {
  it('carries offset, timestamp, key and value as own enumerable properties', () => {
    const [r0, r1] = recordsOf(buf);
    // What a debugger, console.log or a spread shows: the fields themselves, not a handle.
    expect(Object.keys(r0!)).toEqual(
      expect.arrayContaining(['offset', 'timestamp', 'key', 'value']),
    );
    expect({ ...r0! }).toMatchObject({
      offset: 100n,
      timestamp: 1_700_000_000_000n,
      key: Buffer.from('k0'),
      value: Buffer.from('v0'),
    });
    expect({ ...r1! }).toMatchObject({
      offset: 101n,
      timestamp: 1_700_000_000_250n,
      key: null,
      value: null,
    });
  });

  it('hands out the same key and value Buffers on every read, views into the batch bytes', () => {
    const [r0] = recordsOf(buf);
    expect(r0!.key).toBe(r0!.key);
    expect(r0!.value).toBe(r0!.value);
    expect(r0!.value!.buffer).toBe(buf.buffer);
  });

  it('agrees with its deltas: offset = base + offsetDelta, timestamp = base + timestampDelta', () => {
    const [batch] = [...decodeRecordBatches(buf)];
    for (const r of batch!.records()) {
      expect(r.offset).toBe(batch!.baseOffset + BigInt(r.offsetDelta));
      expect(r.timestamp).toBe(batch!.baseTimestamp + r.timestampDelta);
    }
  });

  it('decodes its headers once, a repeated key as the same string, long lengths included', () => {
    const [r0, r1] = recordsOf(buf);
    expect(r0!.headers).toEqual([]);
    const hs = r1!.headers;
    expect(r1!.headers).toBe(hs);
    expect(hs.map((h) => h.key)).toEqual(['trace', 'trace', 'x'.repeat(70)]);
    expect(hs[0]!.value).toEqual(Buffer.from('t-1'));
    expect(hs[1]!.value).toBeNull();
    // A 70-byte key and a 300-byte value: two-byte length varints.
    expect(hs[2]!.value).toEqual(Buffer.alloc(300, 7));
    expect(Object.keys(hs[0]!)).toEqual(['key', 'value']);
  });

  it('a second records() pass makes new record objects with the same fields', () => {
    const [batch] = [...decodeRecordBatches(buf)];
    const a = [...batch!.records()];
    const b = [...batch!.records()];
    expect(a[0]).not.toBe(b[0]);
    expect(b[0]!.key).toEqual(a[0]!.key);
    expect(b[1]!.headers).toBe(a[1]!.headers);
  });
});
