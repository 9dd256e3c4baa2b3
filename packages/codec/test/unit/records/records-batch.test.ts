import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_CODECS,
  type CompressionCodec,
  ControlRecordType,
  crc32c,
  decodeControlRecord,
  decodeRecordBatches,
  encodeRecordBatch,
  encodeRecordBatchSync,
  endTransactionMarker,
  type RecordBatch,
  type RecordInput,
} from '../../../src/index.js';

function batches(buf: Buffer): RecordBatch[] {
  return [...decodeRecordBatches(buf)];
}

const records: RecordInput[] = [
  { key: Buffer.from('k0'), value: Buffer.from('v0'), timestamp: 1_700_000_000_000n },
  {
    key: null,
    value: Buffer.from('v1'),
    timestamp: 1_699_999_999_000,
    headers: [
      { key: 'a', value: Buffer.from('1') },
      { key: 'ключ', value: null },
    ],
  },
  { key: Buffer.from('k2'), value: null, timestamp: 1_700_000_000_500n },
];

describe('encodeRecordBatch / decodeRecordBatches', () => {
  for (const codec of COMPRESSION_CODECS) {
    it(`round-trips every field with ${codec}`, async () => {
      const buf = await encodeRecordBatch({
        baseOffset: 42n,
        partitionLeaderEpoch: 7,
        producerId: 1234n,
        producerEpoch: 3,
        baseSequence: 10,
        transactional: true,
        compression: codec,
        records,
      });
      const [b] = batches(buf);
      expect(b).toBeDefined();
      const batch = b!;
      expect(batch.magic).toBe(2);
      expect(batch.compression).toBe(codec);
      expect(batch.baseOffset).toBe(42n);
      expect(batch.lastOffset).toBe(44n);
      expect(batch.partitionLeaderEpoch).toBe(7);
      expect(batch.producerId).toBe(1234n);
      expect(batch.producerEpoch).toBe(3);
      expect(batch.baseSequence).toBe(10);
      expect(batch.isTransactional).toBe(true);
      expect(batch.isControl).toBe(false);
      expect(batch.timestampType).toBe('CreateTime');
      expect(batch.baseTimestamp).toBe(1_700_000_000_000n);
      expect(batch.maxTimestamp).toBe(1_700_000_000_500n);
      expect(batch.recordCount).toBe(3);
      expect(batch.sizeInBytes).toBe(buf.length);
      const out = [...batch.records()];
      expect(out.map((r) => r.offset)).toEqual([42n, 43n, 44n]);
      expect(out.map((r) => r.sequence)).toEqual([10, 11, 12]);
      expect(out.map((r) => r.timestamp)).toEqual([
        1_700_000_000_000n,
        1_699_999_999_000n,
        1_700_000_000_500n,
      ]);
      expect(out[0]!.key?.toString()).toBe('k0');
      expect(out[1]!.key).toBeNull();
      expect(out[2]!.value).toBeNull();
      expect(out[1]!.headers).toEqual([
        { key: 'a', value: Buffer.from('1') },
        { key: 'ключ', value: null },
      ]);
      // records() starts over on every call
      expect([...batch.records()].length).toBe(3);
    });
  }

  it('writes the header layout Kafka expects and a CRC-32C over attributes..end', () => {
    const buf = encodeRecordBatchSync({ records: [{ value: Buffer.from('x'), timestamp: 5 }] });
    expect(buf.readInt32BE(8)).toBe(buf.length - 12);
    expect(buf[16]).toBe(2);
    expect(buf.readUInt32BE(17)).toBe(crc32c(buf, 21));
    expect(buf.readInt32BE(57)).toBe(1);
  });

  it('refuses zstd synchronously and an empty batch', () => {
    expect(() =>
      encodeRecordBatchSync({ compression: 'zstd', records: [{ value: null }] }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_CODEC_UNSUPPORTED' }));
    expect(() => encodeRecordBatchSync({ records: [] })).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_CODEC_VALUE_INVALID' }),
    );
  });

  it('keeps LogAppendTime, delete horizon and control attributes', () => {
    const lat = encodeRecordBatchSync({
      timestampType: 'LogAppendTime',
      logAppendTime: 99n,
      records: [{ value: null, timestamp: 5 }],
    });
    const [b] = batches(lat);
    expect(b!.timestampType).toBe('LogAppendTime');
    expect([...b!.records()][0]!.timestamp).toBe(99n);

    const dh = encodeRecordBatchSync({
      deleteHorizonMs: 1000n,
      records: [{ value: null, timestamp: 1500 }],
    });
    const [d] = batches(dh);
    expect(d!.deleteHorizonMs).toBe(1000n);
    expect([...d!.records()][0]!.timestamp).toBe(1500n);
  });

  it('reads transaction markers from control batches', () => {
    const marker = endTransactionMarker('COMMIT', 17);
    const buf = encodeRecordBatchSync({
      control: true,
      transactional: true,
      producerId: 9n,
      producerEpoch: 0,
      records: [marker],
    });
    const [b] = batches(buf);
    expect(b!.isControl).toBe(true);
    const c = decodeControlRecord([...b!.records()][0]!);
    expect(c.type).toBe(ControlRecordType.COMMIT);
    expect(c.typeName).toBe('COMMIT');
    expect(c.coordinatorEpoch).toBe(17);
    const abort = decodeControlRecord(
      [
        ...batches(
          encodeRecordBatchSync({ control: true, records: [endTransactionMarker('ABORT', 2)] }),
        )[0]!.records(),
      ][0]!,
    );
    expect(abort.typeName).toBe('ABORT');
  });

  it('stops cleanly at a trailing partial batch and reports its size', () => {
    const one = encodeRecordBatchSync({ records: [{ value: Buffer.from('a'), timestamp: 1 }] });
    const two = encodeRecordBatchSync({
      baseOffset: 1n,
      records: [{ value: Buffer.from('b'), timestamp: 2 }],
    });
    const full = Buffer.concat([one, two]);
    for (let cut = one.length; cut < full.length; cut++) {
      const it = decodeRecordBatches(full.subarray(0, cut));
      const got = [...it];
      expect(got.length).toBe(1);
      expect(it.partialBatchBytes).toBe(cut - one.length);
    }
    const it = decodeRecordBatches(full);
    expect([...it].map((b) => b.baseOffset)).toEqual([0n, 1n]);
    expect(it.partialBatchBytes).toBe(0);
  });

  it('writes a lone surrogate in a header key as Java does (?), pairs untouched', () => {
    const buf = encodeRecordBatchSync({
      records: [
        {
          value: null,
          timestamp: 0,
          headers: [
            { key: 'a\ud800b', value: null },
            { key: '😀', value: null },
          ],
        },
      ],
    });
    const keys = [...batches(buf)[0]!.records()][0]!.headers.map((h) => h.key);
    expect(keys).toEqual(['a?b', '😀']);
  });

  it('decodes negative and huge timestamp deltas', () => {
    const buf = encodeRecordBatchSync({
      records: [
        { value: null, timestamp: 0 },
        { value: null, timestamp: -1 },
        { value: null, timestamp: 2 ** 52 },
        { value: null, timestamp: -(2 ** 52) },
      ],
    });
    const ts = [...batches(buf)[0]!.records()].map((r) => r.timestamp);
    expect(ts).toEqual([0n, -1n, 2n ** 52n, -(2n ** 52n)]);
  });
  it('adds offsets and timestamps in int64 arithmetic, wrapping as the long sums of Kafka DefaultRecord do', () => {
    const buf = encodeRecordBatchSync({
      baseOffset: 2n ** 63n - 1n,
      records: [
        { value: null, timestamp: 0 },
        { value: null, timestamp: 5 },
      ],
    });
    // The base timestamp field (byte 27) moved near int64 max; the CRC follows it.
    buf.writeBigInt64BE(2n ** 63n - 3n, 27);
    buf.writeUInt32BE(crc32c(buf, 21, buf.length), 17);
    const read = [...batches(buf)[0]!.records()];
    expect(read.map((r) => r.offset)).toEqual([2n ** 63n - 1n, -(2n ** 63n)]);
    expect(read.map((r) => r.timestamp)).toEqual([2n ** 63n - 3n, -(2n ** 63n) + 2n]);
  });

  it('hands out keys, values and header values as Buffers sharing the batch memory', () => {
    const buf = encodeRecordBatchSync({
      records: [
        {
          key: Buffer.from('key'),
          value: Buffer.alloc(300, 7),
          timestamp: 0,
          headers: [{ key: 'h', value: Buffer.from('hv') }],
        },
      ],
    });
    const [r] = [...batches(buf)[0]!.records()];
    for (const b of [r!.key!, r!.value!, r!.headers[0]!.value!]) {
      expect(Buffer.isBuffer(b)).toBe(true);
      expect(b.buffer).toBe(buf.buffer);
    }
    expect(r!.key!.toString()).toBe('key');
    expect(r!.value!.equals(Buffer.alloc(300, 7))).toBe(true);
    expect(r!.headers[0]!.value!.toString()).toBe('hv');
  });
});

describe('compression codecs', () => {
  const codecs: CompressionCodec[] = ['gzip', 'snappy', 'lz4', 'zstd'];
  for (const codec of codecs) {
    it(`${codec}: a 300 KiB batch spanning many compression blocks round-trips`, async () => {
      const big: RecordInput[] = [];
      for (let i = 0; i < 3000; i++) big.push({ value: Buffer.alloc(100, i & 0xff), timestamp: i });
      const buf = await encodeRecordBatch({ compression: codec, records: big });
      expect(buf.length).toBeLessThan(300_000 / 4);
      const vals = [...batches(buf)[0]!.records()].map((r) => r.value![0]);
      expect(vals).toEqual(big.map((r) => r.value![0]));
    });
  }
});

describe('huge headers', () => {
  // One header larger than a snappy (32 KiB) and an lz4 (64 KiB) block, a 20,000-character
  // multi-byte key, and 2,000 small headers: each must come back intact with every codec.
  const bigValue = Buffer.alloc(1 << 20);
  for (let i = 0; i < bigValue.length; i++) bigValue[i] = (i * 131 + (i >>> 9)) & 0xff;
  const bigKey = 'ключ-'.repeat(4000);
  const many = Array.from({ length: 2000 }, (_, i) => ({
    key: `h${i}`,
    value: i % 7 === 0 ? null : Buffer.from([i & 0xff, i >>> 8]),
  }));
  for (const codec of COMPRESSION_CODECS) {
    it(`${codec}: a 1 MiB header value, a 20,000-char key and 2,000 headers round-trip`, async () => {
      const buf = await encodeRecordBatch({
        compression: codec,
        records: [
          { value: Buffer.from('a'), timestamp: 1, headers: [{ key: bigKey, value: bigValue }] },
          { key: Buffer.from('k'), value: null, timestamp: 2, headers: many },
        ],
      });
      const [b] = batches(buf);
      const [r0, r1] = [...b!.records()];
      expect(r0!.headers.length).toBe(1);
      expect(r0!.headers[0]!.key).toBe(bigKey);
      expect(r0!.headers[0]!.value!.equals(bigValue)).toBe(true);
      expect(r1!.headerCount).toBe(2000);
      expect(r1!.headers).toEqual(many);
    });
  }
});
