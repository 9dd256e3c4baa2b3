/**
 * A codec whose packages are not installed (as after `npm install --omit=optional`): the
 * import still works, uncompressed and gzip batches still encode and decode, and the batch
 * that needs the missing codec throws ERR_KAFKA_CODEC_UNAVAILABLE naming the package to add.
 *
 * The module loader is made to refuse the optional packages, and the codec module is loaded
 * fresh (its package cache is per module instance) after that.
 */
import Module from 'node:module';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

type Codec = typeof import('../../../src/index.js');

const OPTIONAL = new Set([
  'snappy',
  'snappyjs',
  'lz4-napi',
  'lz4js',
  '@mongodb-js/zstd',
  'fzstd',
  '@node-rs/crc32',
]);
const nodeZstd = typeof (zlib as { zstdCompress?: unknown }).zstdCompress === 'function';

// Module._load is where every require() starts on Node and Deno, before Node's own resolution
// caches; Bun's require() does not call it but asks Module._resolveFilename every time.
const loader = Module as unknown as {
  _load: (request: string, ...rest: unknown[]) => unknown;
  _resolveFilename: (request: string, ...rest: unknown[]) => unknown;
};
const original = loader._load;
const originalResolve = loader._resolveFilename;
const refuse = (request: string) =>
  Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
let codec: Codec;
let present: Codec;

beforeAll(async () => {
  present = await import('../../../src/index.js');
  // Loads (and caches) every package in the instance with everything present.
  present.compressionSupport();
  present.compressionSupport({ backend: 'js' });
  present.crc32c(Buffer.alloc(1024));
  loader._load = function (request: string, ...rest: unknown[]) {
    if (OPTIONAL.has(request)) throw refuse(request);
    return original.call(this, request, ...rest);
  };
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    if (OPTIONAL.has(request)) throw refuse(request);
    return originalResolve.call(this, request, ...rest);
  };
  vi.resetModules();
  codec = await import('../../../src/index.js');
  expect(codec.compressionSupport).not.toBe(present.compressionSupport);
});

afterAll(() => {
  loader._load = original;
  loader._resolveFilename = originalResolve;
});

const records = [
  { key: Buffer.from('k'), value: Buffer.from('v'.repeat(500)), timestamp: 1 },
  { key: null, value: null, timestamp: 2, headers: [{ key: 'h', value: Buffer.from('x') }] },
];

function readAll(c: Codec, buf: Buffer): string[] {
  const out: string[] = [];
  for (const batch of c.decodeRecordBatches(buf)) {
    for (const r of batch.records()) out.push(`${r.offset}:${r.value?.length ?? 'null'}`);
  }
  return out;
}

describe('without the optional compression packages', () => {
  it('reports what is left: gzip, snappy and lz4 decoding, zstd where node:zlib has it', () => {
    expect(codec.compressionSupport()).toEqual({
      gzip: { compress: 'node:zlib', decompress: 'node:zlib' },
      snappy: { compress: null, decompress: 'kafkats' },
      lz4: { compress: null, decompress: 'kafkats' },
      zstd: nodeZstd
        ? { compress: 'node:zlib', decompress: 'node:zlib' }
        : { compress: null, decompress: null },
    });
  });

  it('uncompressed and gzip batches encode and decode (CRC-32C in JS)', async () => {
    for (const compression of ['none', 'gzip'] as const) {
      const sync = codec.encodeRecordBatchSync({ baseOffset: 10n, compression, records });
      const async = await codec.encodeRecordBatch({ baseOffset: 10n, compression, records });
      // Long enough for the native CRC-32C path, had @node-rs/crc32 been there.
      if (compression === 'none') expect(sync.length).toBeGreaterThan(256);
      expect(readAll(codec, sync)).toEqual(['10:500', '11:null']);
      expect(readAll(codec, async)).toEqual(['10:500', '11:null']);
      // Same bytes as with every package present (gzip: same zlib, same level).
      expect(
        sync.equals(present.encodeRecordBatchSync({ baseOffset: 10n, compression, records })),
      ).toBe(true);
    }
  });

  it('encoding snappy or lz4 throws the typed error naming the package to add', () => {
    for (const [compression, pkg, alt] of [
      ['snappy', 'snappyjs', 'snappy'],
      ['lz4', 'lz4js', 'lz4-napi'],
    ] as const) {
      let caught: unknown;
      try {
        codec.encodeRecordBatchSync({ compression, records });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(codec.CompressionUnavailableError);
      expect(caught).toBeInstanceOf(codec.CodecError);
      expect(caught).toMatchObject({
        code: 'ERR_KAFKA_CODEC_UNAVAILABLE',
        codec: compression,
        operation: 'compress',
        packages: [pkg, alt],
        retriable: false,
      });
      expect((caught as Error).message).toContain(`npm install ${pkg}`);
    }
  });

  it('snappy and lz4 batches decode with our own decoders', () => {
    const snappy = present.encodeRecordBatchSync({
      baseOffset: 2n,
      compression: 'snappy',
      records,
    });
    const lz4 = present.encodeRecordBatchSync({ baseOffset: 4n, compression: 'lz4', records });
    expect(readAll(codec, Buffer.concat([snappy, lz4]))).toEqual([
      '2:500',
      '3:null',
      '4:500',
      '5:null',
    ]);
  });

  it.runIf(!nodeZstd)(
    'decoding stops at the zstd batch, naming it and fzstd; the batches before it read',
    async () => {
      const gzip = present.encodeRecordBatchSync({ baseOffset: 0n, compression: 'gzip', records });
      const snappy = present.encodeRecordBatchSync({
        baseOffset: 2n,
        compression: 'snappy',
        records,
      });
      const zstd = await present.encodeRecordBatch({
        baseOffset: 4n,
        compression: 'zstd',
        records,
      });
      const it = codec.decodeRecordBatches(Buffer.concat([gzip, snappy, zstd]));
      expect([...it.next().value!.records()].length).toBe(2);
      expect([...it.next().value!.records()].length).toBe(2);
      const batch = it.next().value!;
      expect(batch.compression).toBe('zstd');
      let caught: unknown;
      try {
        batch.records();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(codec.RecordBatchError);
      expect(caught).toMatchObject({ code: 'ERR_KAFKA_CODEC_UNAVAILABLE', baseOffset: 4n });
      expect((caught as Error).message).toMatch(/offset 4.*npm install fzstd/);
      const cause = (caught as Error).cause;
      expect(cause).toBeInstanceOf(codec.CompressionUnavailableError);
      expect(cause).toMatchObject({ operation: 'decompress', packages: ['fzstd'] });
    },
  );

  it.runIf(!nodeZstd)('zstd encoding before Node 22.15 names @mongodb-js/zstd', async () => {
    await expect(codec.encodeRecordBatch({ compression: 'zstd', records })).rejects.toMatchObject({
      code: 'ERR_KAFKA_CODEC_UNAVAILABLE',
      operation: 'compress',
      packages: ['@mongodb-js/zstd'],
      message: expect.stringContaining('Node 22.15+'),
    });
  });

  it.runIf(nodeZstd)('zstd runs on node:zlib both ways, no package needed', async () => {
    const zstd = await codec.encodeRecordBatch({ compression: 'zstd', records });
    expect(readAll(present, zstd)).toEqual(['0:500', '1:null']);
    const theirs = await present.encodeRecordBatch({ compression: 'zstd', records });
    expect(readAll(codec, theirs)).toEqual(['0:500', '1:null']);
  });
});
