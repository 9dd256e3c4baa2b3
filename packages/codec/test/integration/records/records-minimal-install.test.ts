/**
 * An application installs the packed @kafkats/codec (with the packed wire, meta and client it
 * sits under) with `npm install --omit=optional`: no compression package at all, no native
 * addon. It must still produce and read uncompressed and gzip batches against a real broker,
 * interoperate with Kafka's Java producer and consumer, and refuse snappy with the typed error
 * naming the package to add. The app runs in its own Node process (this test's Node), from a
 * temp folder outside the workspace, so nothing resolves from the monorepo's node_modules.
 *
 * Needs the workspace built (`npm run build`): the tarballs are packed from `dist`.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecordBatches } from '../../../src/index.js';
import { MiniKafka } from './kafka-wire.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..');
const PACKAGES = ['codec', 'wire', 'meta', 'client'];

/** The application: produces with each codec, reads everything back, prints JSON. */
const APP = `
import { Cluster } from '@kafkats/meta';
import { PartitionReader, Producer } from '@kafkats/client';
import { CompressionUnavailableError, compressionSupport } from '@kafkats/codec';

const [bootstrap, topic, expected] = process.argv.slice(2);
const out = { node: process.version, support: compressionSupport(), sent: [], snappy: null, read: [] };
const cluster = await Cluster.connect(bootstrap);
try {
  for (const compression of ['none', 'gzip']) {
    const producer = new Producer(cluster, { compression, lingerMs: 20 });
    const sends = [];
    for (let i = 0; i < 40; i++) {
      sends.push(producer.send({
        topic, partition: 0, key: compression + '-' + i, value: (compression + ' ' + i + ' ').repeat(30),
        headers: [{ key: 'codec', value: compression }],
      }));
    }
    for (const r of await Promise.all(sends)) out.sent.push(String(r.offset));
    await producer.close();
  }
  const snappy = new Producer(cluster, { compression: 'snappy' });
  try {
    await snappy.send({ topic, partition: 0, value: 'never sent' });
    out.snappy = 'sent';
  } catch (e) {
    out.snappy = {
      typed: e instanceof CompressionUnavailableError,
      code: e.code, packages: e.packages, operation: e.operation, message: e.message,
    };
  }
  await snappy.close();
  const controller = new AbortController();
  const reader = new PartitionReader(cluster, { topic, partition: 0, startOffset: 'earliest', signal: controller.signal });
  for await (const batch of reader) {
    for (const r of batch.records) {
      out.read.push([String(r.offset), r.key === null ? null : r.key.toString(), r.value.toString(),
        r.headers.map((h) => h.key + '=' + (h.value === null ? 'null' : h.value.toString())).join(',')]);
    }
    if (out.read.length >= Number(expected)) controller.abort();
  }
} finally {
  await cluster.close();
}
console.log(JSON.stringify(out));
`;

function run(cmd: string, args: string[], cwd: string, timeout = 300_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

let app: string;

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'kafkats-minimal-install-'));
  const deps: Record<string, string> = {};
  for (const p of PACKAGES) {
    const dir = join(root, 'packages', p);
    if (!existsSync(join(dir, 'dist', 'index.js'))) {
      throw new Error(`packages/${p}/dist is missing: build the workspace first`);
    }
    const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', app], dir)) as {
      filename: string;
    }[];
    deps[`@kafkats/${p}`] = `file:./${info!.filename}`;
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'minimal-app', private: true, type: 'module', dependencies: deps }),
  );
  writeFileSync(join(app, 'app.mjs'), APP);
  run('npm', ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline'], app);
}, 300_000);

afterAll(() => {
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

const JAVA_RECORDS = 30;

describe('@kafkats/codec installed with --omit=optional', () => {
  it('holds no compression package: the four @kafkats tarballs and nothing else', () => {
    const lock = JSON.parse(
      readFileSync(join(app, 'node_modules', '.package-lock.json'), 'utf8'),
    ) as { packages: Record<string, unknown> };
    const installed = Object.keys(lock.packages)
      .filter((k) => k.startsWith('node_modules/'))
      .map((k) => k.slice('node_modules/'.length))
      .sort();
    expect(installed).toEqual([
      '@kafkats/client',
      '@kafkats/codec',
      '@kafkats/meta',
      '@kafkats/wire',
    ]);
  });

  it('produces and reads uncompressed and gzip batches against the broker; snappy names its package', async () => {
    const cluster = sharedCluster();
    const topic = `records-minimal-install-${randomUUID().slice(0, 8)}`;
    await cluster.admin.createTopic(topic, {
      partitions: 1,
      replicationFactor: 3,
      waitForLeaders: true,
    });
    // Kafka's Java producer writes first: one gzip and one uncompressed batch for the app to read.
    for (const compression of ['gzip', 'none'] as const) {
      await cluster.admin.produce(
        topic,
        Array.from({ length: JAVA_RECORDS / 2 }, (_, i) => ({
          partition: 0,
          key: Buffer.from(`java-${compression}-${i}`),
          value: Buffer.from(`java ${i} `.repeat(30)),
        })),
        { compression, lingerMs: 50 },
      );
    }
    const expected = JAVA_RECORDS + 80;
    const r = spawnSync(process.execPath, ['app.mjs', cluster.bootstrap, topic, String(expected)], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      node: string;
      support: Record<string, { compress: string | null; decompress: string | null }>;
      sent: string[];
      snappy: { typed: boolean; code: string; packages: string[]; message: string } | string;
      read: [string, string | null, string, string][];
    };
    expect(out.node).toBe(process.version);
    expect(out.support.gzip).toEqual({ compress: 'node:zlib', decompress: 'node:zlib' });
    expect(out.support.snappy).toEqual({ compress: null, decompress: 'kafkats' });
    expect(out.support.lz4).toEqual({ compress: null, decompress: 'kafkats' });
    expect(out.snappy).toMatchObject({
      typed: true,
      code: 'ERR_KAFKA_CODEC_UNAVAILABLE',
      packages: ['snappyjs', 'snappy'],
    });
    expect((out.snappy as { message: string }).message).toContain('npm install snappyjs');
    expect(out.sent).toHaveLength(80);

    // Everything, in offset order: Java's records, then the app's none and gzip ones.
    expect(out.read.map((x) => x[0])).toEqual(
      Array.from({ length: expected }, (_, i) => String(i)),
    );
    expect(out.read.slice(0, JAVA_RECORDS).map((x) => x[1])).toEqual([
      ...Array.from({ length: 15 }, (_, i) => `java-gzip-${i}`),
      ...Array.from({ length: 15 }, (_, i) => `java-none-${i}`),
    ]);
    const ours = out.read.slice(JAVA_RECORDS);
    for (const [i, [, key, value, headers]] of ours.entries()) {
      const codec = i < 40 ? 'none' : 'gzip';
      expect(key).toBe(`${codec}-${i % 40}`);
      expect(value).toBe(`${codec} ${i % 40} `.repeat(30));
      expect(headers).toBe(`codec=${codec}`);
    }

    // The broker holds the app's gzip batches as gzip, and Kafka's Java consumer reads them.
    const consumed = await cluster.admin.consume(topic, {
      partition: 0,
      maxRecords: expected,
      timeoutMs: 30_000,
    });
    expect(consumed.map((c) => c.key?.toString())).toEqual(out.read.map((x) => x[1]));
    const d = await cluster.admin.describeTopic(topic);
    const leader = d.partitions.find((p) => p.partition === 0)!.leader;
    const broker = cluster.brokers.find((b) => b.nodeId === leader)!;
    const raw = await MiniKafka.open(broker.host, broker.port);
    try {
      const codecs: string[] = [];
      let offset = 0n;
      while (offset < BigInt(expected)) {
        const res = await raw.fetch(topic, 0, offset, 1 << 20);
        expect(res.errorCode).toBe(0);
        for (const batch of decodeRecordBatches(res.records ?? Buffer.alloc(0))) {
          if (batch.baseOffset < offset) continue;
          codecs.push(batch.compression);
          offset = batch.lastOffset + 1n;
        }
      }
      expect(new Set(codecs)).toEqual(new Set(['gzip', 'none']));
      expect(codecs.at(-1)).toBe('gzip'); // the app's last batch
    } finally {
      raw.close();
    }
  });
});
