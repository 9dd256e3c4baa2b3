import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CompressionCodec,
  compress,
  compressionBackends,
  compressSync,
  decodeRecordBatches,
  decompress,
  encodeRecordBatchSync,
  setCompressionBackend,
} from '../../../src/index.js';

const require = createRequire(import.meta.url);
const text = Buffer.from('kafka record batch '.repeat(20_000)); // 380 KB, many blocks

afterEach(() => setCompressionBackend('auto'));

describe('compression backends', () => {
  it('uses the native modules when they load', () => {
    expect(compressionBackends()).toEqual({ snappy: 'native', lz4: 'native', zstd: 'native' });
    setCompressionBackend('js');
    expect(compressionBackends()).toEqual({ snappy: 'js', lz4: 'js', zstd: 'js' });
  });

  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as CompressionCodec[]) {
    it(`${codec}: native and pure-JS outputs decode with either backend`, async () => {
      const nativeOut = await compress(codec, text);
      setCompressionBackend('js');
      // zstd has no pure-JS compressor: the js backend refuses rather than pretending.
      const jsOut = codec === 'zstd' ? nativeOut : await compress(codec, text);
      for (const out of [nativeOut, jsOut]) {
        expect(decompress(codec, out, 1 << 20).equals(text)).toBe(true);
        setCompressionBackend('auto');
        expect(decompress(codec, out, 1 << 20).equals(text)).toBe(true);
        setCompressionBackend('js');
      }
    });
  }

  it('compression levels follow Kafka (KIP-390): gzip 1-9, zstd up to 22, none for the rest', async () => {
    const fast = await compress('gzip', text, 1);
    const best = await compress('gzip', text, 9);
    expect(fast.length).toBeGreaterThan(best.length);
    expect(decompress('gzip', fast, 1 << 20).equals(text)).toBe(true);
    const z19 = await compress('zstd', text, 19);
    expect(decompress('zstd', z19, 1 << 20).equals(text)).toBe(true);
    for (const [codec, level] of [
      ['gzip', 0],
      ['gzip', 10],
      ['zstd', 23],
      ['lz4', 9],
      ['snappy', 1],
    ] as [CompressionCodec, number][]) {
      await expect(compress(codec, text, level)).rejects.toMatchObject({
        code: 'ERR_KAFKA_CODEC_INVALID_VALUE',
      });
    }
    expect(() =>
      encodeRecordBatchSync({ compressionLevel: 1, records: [{ value: null }] }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_CODEC_INVALID_VALUE' }));
    const batch = encodeRecordBatchSync({
      compression: 'gzip',
      compressionLevel: 1,
      records: [{ value: text }],
    });
    expect([...decodeRecordBatches(batch)][0]!.records().next().value!.value!.equals(text)).toBe(
      true,
    );
  });

  it('zstd compression without the native module is UNSUPPORTED, not silent', async () => {
    setCompressionBackend('js');
    await expect(compress('zstd', text)).rejects.toMatchObject({
      code: 'ERR_KAFKA_CODEC_UNSUPPORTED',
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
    expect(decompress('lz4', frame, 1 << 20, false).equals(text)).toBe(true);
  });

  it('a golden batch from Kafka decodes with the pure-JS backend too', async () => {
    const { readFileSync } = await import('node:fs');
    const file = JSON.parse(
      readFileSync(
        new URL('../../../../../fixtures/vectors/record-batches.json', import.meta.url),
        'utf8',
      ),
    ) as { vectors: { compression: string; hex: string; records: unknown[] }[] };
    setCompressionBackend('js');
    for (const v of file.vectors.filter((x) => x.compression !== 'none')) {
      const n = [...decodeRecordBatches(Buffer.from(v.hex, 'hex'))].reduce(
        (s, b) => s + [...b.records()].length,
        0,
      );
      expect(n).toBe(v.records.length);
    }
  });
});
