import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type CompressionCodec,
  compress,
  compressionSupport,
  compressSync,
  decodeRecordBatches,
  decompress,
  encodeRecordBatchSync,
} from '../../../src/index.js';
import { compressSyncWithHeadroom } from '../../../src/records/compression.js';

const require = createRequire(import.meta.url);
const text = Buffer.from('kafka record batch '.repeat(20_000)); // 380 KB, many blocks

/** node:zlib has zstd from Node 22.15 on. */
const nodeZstd = typeof (zlib as { zstdCompress?: unknown }).zstdCompress === 'function';

describe('compression backends', () => {
  it('auto prefers node:zlib, then a native addon that loads, then pure JS', () => {
    // This workspace installs every optional package (the native ones as dev dependencies).
    expect(compressionSupport()).toEqual({
      gzip: { compress: 'node:zlib', decompress: 'node:zlib' },
      snappy: { compress: 'snappy', decompress: 'snappy' },
      lz4: { compress: 'lz4-napi', decompress: 'kafkats' },
      zstd: nodeZstd
        ? { compress: 'node:zlib', decompress: 'node:zlib' }
        : { compress: '@mongodb-js/zstd', decompress: 'fzstd' },
    });
    expect(compressionSupport({ backend: 'js' })).toEqual({
      gzip: { compress: 'node:zlib', decompress: 'node:zlib' },
      snappy: { compress: 'snappyjs', decompress: 'kafkats' },
      lz4: { compress: 'lz4js', decompress: 'kafkats' },
      zstd: { compress: null, decompress: 'fzstd' },
    });
    expect(compressionSupport({ backend: 'native' }).snappy.decompress).toBe('snappy');
    expect(compressionSupport({ backend: 'native' }).zstd).toEqual(
      nodeZstd
        ? { compress: 'node:zlib', decompress: 'node:zlib' }
        : { compress: '@mongodb-js/zstd', decompress: null },
    );
  });

  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    it(`${codec}: what each backend writes, every other backend reads`, async () => {
      const backends = (['auto', 'native', 'js'] as const).filter(
        (backend) => compressionSupport({ backend })[codec].compress !== null,
      );
      const readers = (['auto', 'native', 'js'] as const).filter(
        (backend) => compressionSupport({ backend })[codec].decompress !== null,
      );
      expect(readers).toContain('js');
      for (const writer of backends) {
        const out = await compress(codec, text, { backend: writer });
        for (const reader of readers) {
          expect(decompress(codec, out, 1 << 20, { backend: reader }).equals(text)).toBe(true);
        }
      }
    });
  }

  it('compression levels follow Kafka (KIP-390): gzip 1-9, zstd up to 22, none for the rest', async () => {
    const fast = await compress('gzip', text, { level: 1 });
    const best = await compress('gzip', text, { level: 9 });
    expect(fast.length).toBeGreaterThan(best.length);
    expect(decompress('gzip', fast, 1 << 20).equals(text)).toBe(true);
    const z19 = await compress('zstd', text, { level: 19 });
    expect(decompress('zstd', z19, 1 << 20).equals(text)).toBe(true);
    for (const [codec, level] of [
      ['gzip', 0],
      ['gzip', 10],
      ['zstd', 23],
      ['lz4', 9],
      ['snappy', 1],
    ] as [CompressionCodec, number][]) {
      await expect(compress(codec, text, { level })).rejects.toMatchObject({
        code: 'ERR_KAFKA_CODEC_VALUE_INVALID',
      });
    }
    expect(() =>
      encodeRecordBatchSync({ compressionLevel: 1, records: [{ value: null }] }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_CODEC_VALUE_INVALID' }));
    const batch = encodeRecordBatchSync({
      compression: 'gzip',
      compressionLevel: 1,
      records: [{ value: text }],
    });
    expect([...decodeRecordBatches(batch)][0]!.records().next().value!.value!.equals(text)).toBe(
      true,
    );
  });

  it('zstd has no pure-JS compressor: the js backend refuses rather than pretending', async () => {
    await expect(compress('zstd', text, { backend: 'js' })).rejects.toMatchObject({
      code: 'ERR_KAFKA_CODEC_UNAVAILABLE',
      codec: 'zstd',
      operation: 'compress',
      packages: [],
    });
  });

  it('snappy decodes raw blocks as well as xerial framing (Java accepts both)', () => {
    const raw = (require('snappy') as { compressSync(b: Buffer): Buffer }).compressSync(text);
    expect(raw.subarray(0, 8).toString('latin1')).not.toContain('SNAPPY');
    expect(decompress('snappy', raw, 1 << 20).equals(text)).toBe(true);
    const framed = compressSync('snappy', text);
    expect(
      framed.subarray(0, 8).equals(Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0])),
    ).toBe(true);
    expect(framed.readInt32BE(8)).toBe(1); // xerial version
    expect(framed.readInt32BE(12)).toBe(1); // compatible version
  });

  it('lz4 frames carry Kafka v2 flags and a correct header checksum', () => {
    const frame = compressSync('lz4', text);
    expect(frame.readUInt32LE(0)).toBe(0x184d2204);
    expect(frame[4]).toBe(0x60);
    expect(frame[5]).toBe(0x40);
    expect(decompress('lz4', frame, 1 << 20, { legacyLz4: false }).equals(text)).toBe(true);
  });

  it('frames behind a header gap are the bytes compressSync writes, on every backend', () => {
    // Many 64 KiB blocks, and random bytes whose lz4 blocks are stored uncompressed.
    let x = 0x2545f491;
    const random = Buffer.from(
      Array.from({ length: 70_000 }, () => {
        // xorshift32: bytes no compressor shrinks
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        return x & 0xff;
      }),
    );
    for (const codec of ['lz4', 'snappy'] as const) {
      for (const backend of ['native', 'js'] as const) {
        for (const data of [text, random, text.subarray(0, 10)]) {
          const framed = compressSyncWithHeadroom(codec, data, { backend }, 61);
          const plain = compressSync(codec, data, { backend });
          expect(framed.subarray(61).equals(plain)).toBe(true);
          // The first lz4 block of the random bytes is stored: its length has the high bit.
          if (codec === 'lz4' && data === random) expect(plain.readUInt32LE(7) >>> 31).toBe(1);
          expect(decompress(codec, framed.subarray(61), 1 << 20).equals(data)).toBe(true);
        }
      }
    }
    // Codecs without a framing of their own here are copied behind the gap.
    const gzipped = compressSyncWithHeadroom('gzip', text, {}, 61).subarray(61);
    expect(decompress('gzip', gzipped, 1 << 20).equals(text)).toBe(true);
    expect(() => compressSyncWithHeadroom('lz4', text, { level: 3 }, 61)).toThrow(/level/);
  });

  it('a golden batch from Kafka decodes with the pure-JS backend too', async () => {
    const { readFileSync } = await import('node:fs');
    const file = JSON.parse(
      readFileSync(
        new URL('../../../../../fixtures/vectors/record-batches.json', import.meta.url),
        'utf8',
      ),
    ) as { vectors: { compression: string; hex: string; records: unknown[] }[] };
    for (const v of file.vectors.filter((x) => x.compression !== 'none')) {
      const batches = decodeRecordBatches(Buffer.from(v.hex, 'hex'), { compressionBackend: 'js' });
      const n = [...batches].reduce((s, b) => s + [...b.records()].length, 0);
      expect(n).toBe(v.records.length);
    }
  });
});
