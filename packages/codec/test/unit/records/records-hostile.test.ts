import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  type CompressionBackend,
  type CompressionCodec,
  compress,
  compressionSupport,
  crc32,
  crc32c,
  decodeRecordBatches,
  encodeRecordBatchSync,
  RecordBatchError,
} from '../../../src/index.js';

function consume(
  buf: Buffer,
  options: {
    maxUncompressedBytes?: number;
    verifyCrc?: boolean;
    compressionBackend?: CompressionBackend;
  } = {},
) {
  let n = 0;
  for (const b of decodeRecordBatches(buf, options)) {
    for (const r of b.records()) {
      n += r.headers.length + (r.key?.length ?? 0) + (r.value?.length ?? 0);
    }
  }
  return n;
}

function fixCrc(buf: Buffer): Buffer {
  buf.writeUInt32BE(crc32c(buf, 21, buf.length), 17);
  return buf;
}

function sample(): Buffer {
  return encodeRecordBatchSync({
    baseOffset: 42n,
    records: [
      {
        key: Buffer.from('key'),
        value: Buffer.from('value'),
        timestamp: 1,
        headers: [{ key: 'h', value: null }],
      },
      { key: null, value: Buffer.from('v2'), timestamp: 2 },
    ],
  });
}

/** First record starts right after the 61-byte header. */
const REC = 61;

function expectCodecError(fn: () => unknown, code: string): RecordBatchError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(RecordBatchError);
  expect((caught as CodecError).code).toBe(code);
  expect((caught as CodecError).retriable).toBe(false);
  return caught as RecordBatchError;
}

describe('hostile v2 batches', () => {
  it('a bad CRC names the batch base offset and both CRCs', () => {
    const buf = sample();
    buf[buf.length - 3]! ^= 0xff;
    const e = expectCodecError(() => consume(buf), 'ERR_KAFKA_CODEC_CORRUPT');
    expect(e.baseOffset).toBe(42n);
    expect(e.message).toContain('offset 42');
    expect(e.expectedCrc).toBe(buf.readUInt32BE(17));
    expect(e.actualCrc).toBe(crc32c(buf, 21));
    expect(e.message).toContain(e.expectedCrc!.toString(16));
    // verifyCrc: false reads it anyway
    expect(consume(buf, { verifyCrc: false })).toBeGreaterThan(0);
  });

  it('a batch length below the v2 header or negative is LENGTH_INVALID', () => {
    for (const len of [14, 48, -1, -2147483648]) {
      const buf = sample();
      buf.writeInt32BE(len, 8);
      expectCodecError(() => consume(buf), 'ERR_KAFKA_CODEC_LENGTH_INVALID');
    }
  });

  it('a batch length longer than the bytes is a partial batch, not an allocation', () => {
    const buf = sample();
    buf.writeInt32BE(0x7fffffff, 8);
    const it = decodeRecordBatches(buf);
    expect([...it]).toEqual([]);
    expect(it.partialBatchBytes).toBe(buf.length);
  });

  it('a record count that lies either way is LENGTH_INVALID', () => {
    for (const count of [3, 1000, 0x7fffffff, 1, 0, -1]) {
      const buf = sample();
      buf.writeInt32BE(count, 57);
      fixCrc(buf);
      expectCodecError(() => consume(buf), 'ERR_KAFKA_CODEC_LENGTH_INVALID');
    }
  });

  it('record, key, value and header lengths that lie are typed errors', () => {
    // offsets inside the first record: length(1) attrs(1) tsDelta(1) offsetDelta(1) keyLen(1)
    const patches: [number, number][] = [
      [REC, 0x7e], // record length 63: longer than the record
      [REC, 0x02], // record length 1: shorter than its fields
      [REC, 0x03], // negative record length
      [REC + 4, 0x09], // key length -5
      [REC + 4, 0x7e], // key length 63: past the record
      [REC + 4 + 1 + 3, 0x7e], // value length past the record
      [REC + 4 + 1 + 3 + 1 + 5, 0x7e], // 63 headers
    ];
    for (const [at, byte] of patches) {
      const buf = sample();
      buf[at] = byte;
      fixCrc(buf);
      let caught: unknown;
      try {
        consume(buf);
      } catch (e) {
        caught = e;
      }
      expect(caught, `patch ${at}=${byte}`).toBeInstanceOf(CodecError);
      expect(['ERR_KAFKA_CODEC_LENGTH_INVALID', 'ERR_KAFKA_CODEC_TRUNCATED']).toContain(
        (caught as CodecError).code,
      );
    }
  });

  it('a malformed record is thrown after the records before it were handed out, on every records() call', () => {
    const records = ['a', 'b', 'c'].map((v, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.from(v),
      timestamp: 10 + i,
    }));
    const buf = encodeRecordBatchSync({ baseOffset: 7n, records });
    // Each record takes 10 bytes: its length, attributes, tsDelta, offsetDelta, key length,
    // key (2 bytes), value length, value (1 byte), header count.
    const third = REC + 2 * 10;
    buf[third + 4] = 0x7e; // key length 63: past the record
    fixCrc(buf);
    const [batch] = [...decodeRecordBatches(buf)];
    for (let pass = 0; pass < 2; pass++) {
      const seen: string[] = [];
      let caught: unknown;
      try {
        for (const r of batch!.records()) seen.push(`${r.offset}:${r.value!.toString()}`);
      } catch (e) {
        caught = e;
      }
      expect(seen).toEqual(['7:a', '8:b']);
      expect(caught).toBeInstanceOf(RecordBatchError);
      expect((caught as RecordBatchError).code).toBe('ERR_KAFKA_CODEC_LENGTH_INVALID');
      expect((caught as RecordBatchError).message).toContain('record 2 key length 63');
    }
  });

  it('a varint longer than 5 bytes is LENGTH_INVALID', () => {
    const buf = sample();
    buf.fill(0xff, REC, REC + 6);
    fixCrc(buf);
    expectCodecError(() => consume(buf), 'ERR_KAFKA_CODEC_LENGTH_INVALID');
  });

  it('unknown compression ids and magic bytes are UNSUPPORTED', () => {
    const codec = sample();
    codec.writeInt16BE(5, 21);
    fixCrc(codec);
    expectCodecError(() => consume(codec), 'ERR_KAFKA_CODEC_UNSUPPORTED');
    const magic = sample();
    magic[16] = 3;
    expectCodecError(() => consume(magic), 'ERR_KAFKA_CODEC_UNSUPPORTED');
  });

  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as CompressionCodec[]) {
    it(`${codec}: garbage in a compressed batch is a typed error`, () => {
      const buf = sample();
      buf.writeInt16BE(
        buf.readInt16BE(21) | ['none', 'gzip', 'snappy', 'lz4', 'zstd'].indexOf(codec),
        21,
      );
      fixCrc(buf);
      let caught: unknown;
      try {
        consume(buf);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(RecordBatchError);
      expect((caught as RecordBatchError).baseOffset).toBe(42n);
    });
  }
});

describe('zip bombs', () => {
  const bombBytes = 256 * 1024 * 1024;
  // Every implementation that can run here (node:zlib, native addons, pure JS), once each.
  const cases = (['gzip', 'snappy', 'lz4', 'zstd'] as const).flatMap((codec) => {
    const seen = new Map<string, CompressionBackend>();
    for (const backend of ['auto', 'native', 'js'] as CompressionBackend[]) {
      const impl = compressionSupport({ backend })[codec].decompress;
      if (impl !== null && !seen.has(impl)) seen.set(impl, backend);
    }
    return [...seen.values()].map((backend) => [codec, backend] as const);
  });
  it('covers the native snappy decoder and our own', () => {
    expect(cases.filter(([c]) => c === 'snappy').map(([, b]) => b)).toEqual(['auto', 'js']);
  });
  for (const [codec, backend] of cases) {
    const impl = compressionSupport({ backend })[codec].decompress;
    it(`${codec} (${backend}: ${impl}): a batch inflating to 256 MiB stops at the limit`, async () => {
      const zeros = Buffer.alloc(bombBytes);
      const payload = await compress(codec as CompressionCodec, zeros);
      const header = encodeRecordBatchSync({ records: [{ value: null, timestamp: 0 }] }).subarray(
        0,
        61,
      );
      const buf = Buffer.concat([header, payload]);
      buf.writeInt32BE(buf.length - 12, 8);
      buf.writeInt16BE(['none', 'gzip', 'snappy', 'lz4', 'zstd'].indexOf(codec), 21);
      fixCrc(buf);
      const before = process.memoryUsage().arrayBuffers;
      for (const limit of [1024 * 1024, undefined]) {
        const e = expectCodecError(
          () =>
            consume(
              buf,
              limit === undefined
                ? { compressionBackend: backend }
                : { maxUncompressedBytes: limit, compressionBackend: backend },
            ),
          'ERR_KAFKA_CODEC_LENGTH_INVALID',
        );
        expect(e.message).toContain('maxUncompressedBytes');
      }
      // The default limit is 64 MiB: decoding never holds the 256 MiB the bomb asks for.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(160 * 1024 * 1024);
    });
  }

  it('a legacy wrapper whose inner offsets span more than int32 is CORRUPT, naming the message', () => {
    // v0 messages: offset, size, crc (IEEE, from the magic byte on), magic 0, attributes,
    // null key, value. Absolute inner offsets 7 and 7 + 2^31 in one gzip wrapper.
    const message = (offset: bigint, attributes: number, value: Buffer) => {
      const body = Buffer.alloc(10 + value.length);
      body[0] = 0;
      body[1] = attributes;
      body.writeInt32BE(-1, 2);
      body.writeInt32BE(value.length, 6);
      value.copy(body, 10);
      const head = Buffer.alloc(16);
      head.writeBigInt64BE(offset, 0);
      head.writeInt32BE(4 + body.length, 8);
      head.writeUInt32BE(crc32(body), 12);
      return Buffer.concat([head, body]);
    };
    const inner = Buffer.concat([
      message(7n, 0, Buffer.from('a')),
      message(7n + 2n ** 31n, 0, Buffer.from('b')),
    ]);
    const wrapper = message(7n + 2n ** 31n, 1, gzipSync(inner));
    const e = expectCodecError(() => consume(wrapper), 'ERR_KAFKA_CODEC_CORRUPT');
    expect(e.message).toMatch(/inner message 1 is 2147483648 offsets from the first/);
    // The same wrapper with offsets 2^31 - 1 apart reads both records.
    const near = Buffer.concat([
      message(7n, 0, Buffer.from('a')),
      message(7n + 2n ** 31n - 1n, 0, Buffer.from('b')),
    ]);
    const [batch] = [...decodeRecordBatches(message(7n + 2n ** 31n - 1n, 1, gzipSync(near)))];
    expect([...batch!.records()].map((r) => [r.offset, r.value?.toString()])).toEqual([
      [7n, 'a'],
      [7n + 2n ** 31n - 1n, 'b'],
    ]);
    expect(batch!.columns().offsetDelta(1)).toBe(2 ** 31 - 1);
  });
});
