/**
 * Every implementation of every codec that can run in this process, on the same 1 MiB of
 * record bytes: node:zlib, native addons, pure JS and our own decoders, each
 * through the codec's `backend` option (deduplicated: a backend that picks the same
 * implementation as another is measured once), plus the unbounded native decoders for
 * reference. Run it under each Node version to compare (node:zlib has zstd from 22.15 on):
 * `node benchmarks/dist/run.js --suite compression`.
 */
import { createRequire } from 'node:module';
import {
  type CompressionBackend,
  compress,
  compressionSupport,
  crc32c,
  crc32cJs,
  decompress,
  encodeRecordBatchSync,
} from '@kafkats/codec';
import { type Row, runGroup } from './harness.js';

const require = createRequire(import.meta.url);

function optional<T>(name: string): T | null {
  try {
    return require(name) as T;
  } catch {
    return null;
  }
}

/** 8,000 records of 100-200 bytes with keys and headers: what a topic holds. */
function recordsSection(): Buffer {
  const records = Array.from({ length: 8000 }, (_, i) => ({
    key: Buffer.from(`order-${i % 977}`),
    value: Buffer.from(
      JSON.stringify({ id: i, customer: `c-${i % 311}`, total: (i * 7.31) % 1000, items: i % 9 }) +
        ' '.repeat(i % 64),
    ),
    headers: [{ key: 'trace', value: Buffer.from(`t-${i % 101}`) }],
    timestamp: 1_700_000_000_000 + i,
  }));
  return encodeRecordBatchSync({ records }).subarray(61);
}

type Codec = 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** One backend per distinct implementation of `codec` in direction `op`. */
function implementations(codec: Codec, op: 'compress' | 'decompress') {
  const seen = new Map<string, CompressionBackend>();
  for (const backend of ['auto', 'native', 'js'] as CompressionBackend[]) {
    const impl = compressionSupport({ backend })[codec][op];
    if (impl !== null && !seen.has(impl)) seen.set(impl, backend);
  }
  return [...seen.entries()];
}

export async function runCompressionSuite(smoke: boolean): Promise<void> {
  const section = recordsSection();
  const limit = 1 << 26;
  const rows: Row[] = [];
  const timing = { timeMs: 400, warmupMs: 100 };
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as Codec[]) {
    const packed = await compress(codec, section);
    const tasks: [string, () => unknown][] = implementations(codec, 'decompress').map(
      ([impl, backend]) => [
        `${impl} (bounded)`,
        () => decompress(codec, packed, limit, { backend }),
      ],
    );
    if (codec === 'lz4') {
      const lz4 = optional<{ decompressFrameSync(b: Buffer): Buffer }>('lz4-napi');
      if (lz4 !== null)
        tasks.push(['lz4-napi frame (unbounded)', () => lz4.decompressFrameSync(packed)]);
    }
    if (codec === 'zstd') {
      const zstd = optional<{ decompress(b: Buffer): Promise<Buffer> }>('@mongodb-js/zstd');
      if (zstd !== null)
        tasks.push(['@mongodb-js/zstd (async, unbounded)', () => zstd.decompress(packed)]);
    }
    const title = `decompress ${(section.length / 1024).toFixed(0)} KiB ${codec} (${((100 * packed.length) / section.length).toFixed(0)}%)`;
    rows.push(...(await runGroup(title, smoke, section.length, tasks, timing)));
    const compressors: [string, () => unknown][] = implementations(codec, 'compress').map(
      ([impl, backend]) => [impl, () => compress(codec, section, { backend })],
    );
    rows.push(...(await runGroup(`compress ${codec}`, smoke, section.length, compressors, timing)));
  }
  const crcTasks: [string, () => unknown][] = [
    ['crc32c (auto: @node-rs/crc32 when present)', () => crc32c(section)],
    ['crc32cJs (slicing-by-8)', () => crc32cJs(section)],
  ];
  rows.push(...(await runGroup('CRC-32C 1 MiB', smoke, section.length, crcTasks, timing)));
  console.log(`suite: compression, Node ${process.version} (ratio = task time / first task time)`);
  console.table(rows);
}
