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

interface SpeedRow {
  task: string;
  'best MB/s': string;
  'median MB/s': string;
}

/**
 * Times `fn` `n` times one after another and reports the best and the median throughput.
 * The best (minimum time) is the figure to compare on a loaded box: contention only ever adds
 * time, so the fastest of many runs is the closest to what the code itself costs.
 */
async function speed(task: string, bytes: number, fn: () => unknown, n: number): Promise<SpeedRow> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start));
  }
  times.sort((a, b) => a - b);
  const mbs = (ns: number) => (bytes / (ns / 1e9) / 1e6).toFixed(0);
  return {
    task,
    'best MB/s': mbs(times[0]!),
    'median MB/s': mbs(times[Math.floor(times.length / 2)]!),
  };
}

export async function runCompressionSuite(smoke: boolean): Promise<void> {
  const section = recordsSection();
  const limit = 1 << 26;
  const n = smoke ? 2 : 60;
  const rows: SpeedRow[] = [];
  const add = async (task: string, fn: () => unknown, times = n) =>
    rows.push(await speed(task, section.length, fn, times));
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as Codec[]) {
    const packed = await compress(codec, section);
    const ratio = `${((100 * packed.length) / section.length).toFixed(0)}%`;
    for (const [impl, backend] of implementations(codec, 'decompress')) {
      await add(`decompress ${codec} (${ratio}): ${impl}, bounded`, () =>
        decompress(codec, packed, limit, { backend }),
      );
    }
    if (codec === 'lz4') {
      const lz4 = optional<{ decompressFrameSync(b: Buffer): Buffer }>('lz4-napi');
      if (lz4 !== null) {
        await add('decompress lz4: lz4-napi frame, unbounded', () =>
          lz4.decompressFrameSync(packed),
        );
      }
    }
    if (codec === 'zstd') {
      const zstd = optional<{ decompress(b: Buffer): Promise<Buffer> }>('@mongodb-js/zstd');
      if (zstd !== null) {
        await add('decompress zstd: @mongodb-js/zstd (async), unbounded', () =>
          zstd.decompress(packed),
        );
      }
    }
    for (const [impl, backend] of implementations(codec, 'compress')) {
      await add(`compress ${codec}: ${impl}`, () => compress(codec, section, { backend }), n / 3);
    }
  }
  await add('CRC-32C 1 MiB: crc32c (@node-rs/crc32 when present)', () => crc32c(section), n * 3);
  await add('CRC-32C 1 MiB: crc32cJs (slicing-by-8)', () => crc32cJs(section));
  console.log(
    `suite: compression, Node ${process.version}, ${(section.length / 1024).toFixed(0)} KiB of records, MB/s of uncompressed bytes`,
  );
  console.table(rows);
}
