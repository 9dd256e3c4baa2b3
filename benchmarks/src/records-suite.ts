/**
 * Record batch codec suite: encode 1,000 x 100 B records and decode ~1 MiB of
 * batches with each codec, CRC-32C throughput against the memcpy floor, and the peers'
 * record codecs (kafkajs, @platformatic/kafka; reached through their internal modules)
 * in the same run. Ratios are peer time / kafkats time: above 1 means kafkats is faster.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type CompressionCodec,
  compress,
  crc32c,
  crc32cJs,
  decodeRecordBatches,
  decompress,
  encodeRecordBatch,
  encodeRecordBatchSync,
  type RecordInput,
} from '@kafkats/codec';
import { FLOOR, type Row, runGroup } from './harness.js';

const require = createRequire(import.meta.url);

// ---- peers, loaded from their internals (no public record codec API in either) ----
interface KafkajsEncoder {
  buffer: Buffer;
}
type KafkajsRecord = (r: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}) => unknown;
type KafkajsBatch = (b: {
  compression: number;
  records: unknown[];
  firstTimestamp: number;
  maxTimestamp: number;
  lastOffsetDelta: number;
}) => Promise<KafkajsEncoder>;
interface KafkajsDecoder {
  offset: number;
}
type KafkajsBatchDecoder = (d: KafkajsDecoder) => Promise<{ records: unknown[] }>;

interface PlatformaticRecords {
  createRecordsBatch(
    messages: {
      key: Buffer;
      value: Buffer;
      topic: string;
      timestamp: bigint;
      headers: Map<Buffer, Buffer>;
    }[],
    options: { compression: string },
  ): { buffer: Buffer };
  readRecordsBatches(reader: unknown): { records: { offsetDelta: number }[] }[];
}
interface PlatformaticReader {
  Reader: { from(b: Buffer): unknown };
}

interface Peers {
  kafkajs: {
    Record: KafkajsRecord;
    RecordBatch: KafkajsBatch;
    Decoder: new (b: Buffer) => KafkajsDecoder;
    decodeBatch: KafkajsBatchDecoder;
    crc32c: (b: Buffer) => number;
  };
  platformatic: PlatformaticRecords & PlatformaticReader & { jsCRC32C: (b: Buffer) => number };
  nodeRsCrc32c: ((b: Uint8Array) => number) | null;
}

async function loadPeers(): Promise<Peers> {
  const kjs = dirname(require.resolve('kafkajs'));
  const pf = join(dirname(require.resolve('@platformatic/kafka')), 'protocol');
  const records = (await import(pathToFileURL(join(pf, 'records.js')).href)) as PlatformaticRecords;
  const reader = (await import(pathToFileURL(join(pf, 'reader.js')).href)) as PlatformaticReader;
  const crc = (await import(pathToFileURL(join(pf, 'crc32c.js')).href)) as {
    jsCRC32C: (b: Buffer) => number;
  };
  let nodeRsCrc32c: ((b: Uint8Array) => number) | null = null;
  try {
    nodeRsCrc32c = (require('@node-rs/crc32') as { crc32c: (b: Uint8Array) => number }).crc32c;
  } catch {
    nodeRsCrc32c = null;
  }
  return {
    kafkajs: {
      Record: require(join(kjs, 'src/protocol/recordBatch/record/v0/index.js')) as KafkajsRecord,
      RecordBatch: (
        require(join(kjs, 'src/protocol/recordBatch/v0/index.js')) as { RecordBatch: KafkajsBatch }
      ).RecordBatch,
      Decoder: require(join(kjs, 'src/protocol/decoder.js')) as new (b: Buffer) => KafkajsDecoder,
      decodeBatch: require(
        join(kjs, 'src/protocol/recordBatch/v0/decoder.js'),
      ) as KafkajsBatchDecoder,
      crc32c: require(join(kjs, 'src/protocol/recordBatch/crc32C/index.js')) as (
        b: Buffer,
      ) => number,
    },
    platformatic: { ...records, ...reader, jsCRC32C: crc.jsCRC32C },
    nodeRsCrc32c,
  };
}

// ---- corpus: "1k-100B": 1,000 records, 16 B keys, 100 B values of compressible text ----
function corpus(n: number, seed: number): RecordInput[] {
  const words = ['kafka', 'record', 'batch', 'offset', 'topic', 'leader', 'epoch', 'ts'];
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x;
  };
  const out: RecordInput[] = [];
  for (let i = 0; i < n; i++) {
    let text = '';
    while (text.length < 100) text += `${words[next() % words.length]}:${next() % 1000} `;
    out.push({
      key: Buffer.from(`key-${String(i).padStart(12, '0')}`),
      value: Buffer.from(text.slice(0, 100)),
      timestamp: 1_700_000_000_000 + i,
    });
  }
  return out;
}

const CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const KAFKAJS_CODEC: Partial<Record<CompressionCodec, number>> = { none: 0, gzip: 1 };
// @platformatic/kafka's zstd needs node:zlib zstd (Node >= 22.15), absent on Node 20.
const PLATFORMATIC_CODECS: CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4'];

export async function runRecordsSuite(smoke: boolean): Promise<void> {
  const peers = await loadPeers();
  const rows: Row[] = [];
  const records = corpus(1000, 7);
  const rawBytes = records.reduce((s, r) => s + r.key!.length + r.value!.length, 0);

  // ---- encode 1,000 x 100 B ----
  for (const codec of CODECS) {
    const tasks: [string, () => unknown][] = [];
    tasks.push([
      'kafkats',
      codec === 'zstd'
        ? () => encodeRecordBatch({ compression: codec, records })
        : () => encodeRecordBatchSync({ compression: codec, records }),
    ]);
    const kjs = KAFKAJS_CODEC[codec];
    if (kjs !== undefined) {
      tasks.push([
        'kafkajs',
        async () => {
          const recs = records.map((r, i) =>
            peers.kafkajs.Record({
              offsetDelta: i,
              timestampDelta: Number(r.timestamp) - 1_700_000_000_000,
              key: r.key ?? null,
              value: r.value,
              headers: {},
            }),
          );
          const enc = await peers.kafkajs.RecordBatch({
            compression: kjs,
            records: recs,
            firstTimestamp: 1_700_000_000_000,
            maxTimestamp: 1_700_000_000_999,
            lastOffsetDelta: records.length - 1,
          });
          return enc.buffer;
        },
      ]);
    }
    if (PLATFORMATIC_CODECS.includes(codec)) {
      const msgs = records.map((r) => ({
        key: r.key!,
        value: r.value!,
        topic: 't',
        timestamp: BigInt(r.timestamp!),
        headers: new Map<Buffer, Buffer>(),
      }));
      tasks.push([
        '@platformatic/kafka',
        () => peers.platformatic.createRecordsBatch(msgs, { compression: codec }).buffer,
      ]);
    }
    if (codec === 'snappy' || codec === 'lz4') {
      tasks.push([
        'kafkats (pure-JS backend)',
        () => encodeRecordBatchSync({ compression: codec, compressionBackend: 'js', records }),
      ]);
    }
    rows.push(...(await runGroup(`encode 1k x 100 B ${codec}`, smoke, rawBytes, tasks)));
  }

  // ---- decode ~1 MiB of batches (8 batches of the corpus) ----
  for (const codec of CODECS) {
    const ours: Buffer[] = [];
    for (let b = 0; b < 8; b++) {
      ours.push(
        await encodeRecordBatch({
          baseOffset: BigInt(b * 1000),
          compression: codec,
          records: corpus(1000, b),
        }),
      );
    }
    const buf = Buffer.concat(ours);
    const decodedBytes = rawBytes * 8;
    const tasks: [string, () => unknown][] = [
      [
        'kafkats (key, value, headers)',
        () => {
          let n = 0;
          for (const batch of decodeRecordBatches(buf)) {
            for (const r of batch.records()) {
              n += r.value!.length + r.key!.length + r.headers.length;
            }
          }
          return n;
        },
      ],
      [
        'kafkats (offsets only)',
        () => {
          let last = 0n;
          for (const batch of decodeRecordBatches(buf))
            for (const r of batch.records()) last = r.offset;
          return last;
        },
      ],
    ];
    if (KAFKAJS_CODEC[codec] !== undefined) {
      tasks.push([
        'kafkajs',
        async () => {
          const d = new peers.kafkajs.Decoder(buf);
          let n = 0;
          while (d.offset < buf.length) n += (await peers.kafkajs.decodeBatch(d)).records.length;
          return n;
        },
      ]);
    }
    if (PLATFORMATIC_CODECS.includes(codec)) {
      tasks.push([
        '@platformatic/kafka',
        () => peers.platformatic.readRecordsBatches(peers.platformatic.Reader.from(buf)).length,
      ]);
    }
    rows.push(
      ...(await runGroup(
        `decode ${(buf.length / 1024).toFixed(0)} KiB ${codec}`,
        smoke,
        decodedBytes,
        tasks,
      )),
    );
  }

  // ---- CRC-32C against the memcpy floor ----
  for (const size of [64, 4096, 1 << 20]) {
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i++) data[i] = (i * 31 + 7) & 0xff;
    const target = Buffer.alloc(size);
    const tasks: [string, () => unknown][] = [
      ['kafkats crc32c (native from 256 B, as shipped)', () => crc32c(data)],
      [FLOOR, () => data.copy(target)],
      ['kafkats crc32cJs (JS slicing-by-8 fallback)', () => crc32cJs(data)],
      ['kafkajs crc32C (JS, byte table)', () => peers.kafkajs.crc32c(data)],
      ['@platformatic/kafka jsCRC32C (JS, byte table)', () => peers.platformatic.jsCRC32C(data)],
    ];
    const native = peers.nodeRsCrc32c;
    if (native !== null) tasks.push(['@node-rs/crc32 crc32c (napi, direct)', () => native(data)]);
    rows.push(
      ...(await runGroup(`CRC-32C ${size >= 1 << 20 ? '1 MiB' : `${size} B`}`, smoke, size, tasks)),
    );
  }

  // ---- decompression backends (why native vs pure JS) on 1 MiB of record bytes ----
  const section = encodeRecordBatchSync({ records: corpus(8000, 3) }).subarray(61);
  for (const codec of ['snappy', 'lz4', 'zstd'] as CompressionCodec[]) {
    const packed = await compress(codec, section);
    const tasks: [string, () => unknown][] = [
      ['kafkats decompress (auto)', () => decompress(codec, packed, 1 << 26)],
    ];
    if (codec === 'snappy') {
      tasks.push([
        'kafkats decompress (backend js: our own decoder)',
        () => decompress(codec, packed, 1 << 26, { backend: 'js' }),
      ]);
    }
    if (codec === 'lz4') {
      const lz4 = require('lz4-napi') as { decompressFrameSync(b: Buffer): Buffer };
      tasks.push([
        'lz4-napi decompressFrameSync (native, unbounded)',
        () => lz4.decompressFrameSync(packed),
      ]);
    }
    if (codec === 'zstd') {
      const zstd = require('@mongodb-js/zstd') as { decompress(b: Buffer): Promise<Buffer> };
      tasks.push([
        '@mongodb-js/zstd decompress (native async, unbounded)',
        () => zstd.decompress(packed),
      ]);
    }
    rows.push(
      ...(await runGroup(
        `decompress ${(section.length / 1024).toFixed(0)} KiB ${codec}`,
        smoke,
        section.length,
        tasks,
      )),
    );
  }

  console.log('suite: records (ratio = task time / first task time of its group)');
  console.table(rows);
}
