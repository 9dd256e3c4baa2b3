#!/usr/bin/env node
// What `npm install <package>` costs a new user: bytes on disk, packages installed and the
// wall time of the install, each into an empty temp folder with an empty npm cache (so every
// tarball is downloaded, as on a first install). Not part of `npm test`: it needs the
// registry and its times depend on the network.
//
// Targets: the packed workspace @kafkats/codec (built first: `npm run build`), installed
// as is and with --omit=optional, kafkajs 2.2.4 and @platformatic/kafka 2.12.1. With
// --candidates it also measures each compression / CRC-32C library the codec could use.
//
// Usage: node scripts/install-footprint.mjs [--runs N] [--candidates] [--tarball FILE]
//                                           [--before FILE]
//   --runs N        installs per target, round-robin over the targets so that a slow spell
//                   of the network or the box hits them alike; the table shows the median
//                   time (default 1)
//   --candidates    add snappy, snappyjs, lz4-napi, lz4js, @mongodb-js/zstd, fzstd,
//                   @node-rs/crc32, one by one
//   --tarball FILE  measure this codec tarball instead of packing the workspace
//   --before FILE   also measure this codec tarball (e.g. `npm pack` of an older commit), in
//                   the same rounds, for a before/after table
//   --json          print the rows as JSON instead of a table
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const runs = Math.max(1, Number(value('--runs', '1')));

const CANDIDATES = [
  'snappy@7.4.3',
  'snappyjs@0.7.0',
  'lz4-napi@2.10.0',
  'lz4js@0.2.0',
  '@mongodb-js/zstd@1.2.2',
  'fzstd@0.1.1',
  '@node-rs/crc32@1.10.8',
];

function packCodec(dest) {
  const given = value('--tarball', undefined);
  if (given !== undefined) return resolve(given);
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: join(root, 'packages', 'codec'),
    encoding: 'utf8',
  });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  return join(dest, JSON.parse(pack.stdout)[0].filename);
}

/** Apparent size and allocated bytes (st_blocks x 512) of every file under `dir`. */
function diskUsage(dir) {
  let bytes = 0;
  let onDisk = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      const st = lstatSync(p);
      bytes += st.size;
      onDisk += st.blocks * 512;
      if (entry.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return { bytes, onDisk };
}

/** Packages npm installed: the entries of its hidden lockfile. */
function packageCount(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8'));
  return Object.keys(lock.packages).filter((k) => k.startsWith('node_modules/')).length;
}

function installOnce(spec, extra) {
  const dir = mkdtempSync(join(tmpdir(), 'kafkats-footprint-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'footprint', private: true }));
    const start = process.hrtime.bigint();
    const r = spawnSync(
      'npm',
      [
        'install',
        spec,
        '--no-audit',
        '--no-fund',
        '--no-save',
        '--no-package-lock',
        '--cache',
        join(dir, '.npm-cache'),
        ...extra,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`npm install ${spec} failed:\n${r.stderr}`);
    return { ms, packages: packageCount(dir), ...diskUsage(join(dir, 'node_modules')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Installs every target `runs` times, round-robin, and summarizes each. */
function measureAll(targets) {
  const samples = targets.map(() => []);
  for (let i = 0; i < runs; i++) {
    targets.forEach((t, k) => {
      samples[k].push(installOnce(t.spec, t.extra ?? []));
      process.stderr.write(`run ${i + 1}/${runs}: ${t.label}\n`);
    });
  }
  return targets.map((t, k) => {
    const times = samples[k].map((s) => s.ms).sort((a, b) => a - b);
    const last = samples[k][samples[k].length - 1];
    return {
      target: t.label,
      packages: last.packages,
      bytes: last.bytes,
      onDisk: last.onDisk,
      medianMs: Math.round(times[Math.floor(times.length / 2)]),
      minMs: Math.round(times[0]),
      maxMs: Math.round(times[times.length - 1]),
    };
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'kafkats-footprint-pack-'));
let rows;
try {
  const tarball = packCodec(scratch);
  const version = JSON.parse(readFileSync(join(root, 'packages', 'codec', 'package.json'))).version;
  const name =
    value('--tarball', undefined) === undefined
      ? `@kafkats/codec ${version} (packed)`
      : `@kafkats/codec (${basename(tarball)})`;
  const targets = [];
  const before = value('--before', undefined);
  if (before !== undefined) {
    const label = `@kafkats/codec (${basename(before)})`;
    targets.push({ label, spec: resolve(before) });
    targets.push({
      label: `${label}, --omit=optional`,
      spec: resolve(before),
      extra: ['--omit=optional'],
    });
  }
  targets.push({ label: name, spec: tarball });
  targets.push({ label: `${name}, --omit=optional`, spec: tarball, extra: ['--omit=optional'] });
  targets.push({ label: 'kafkajs 2.2.4', spec: 'kafkajs@2.2.4' });
  targets.push({ label: '@platformatic/kafka 2.12.1', spec: '@platformatic/kafka@2.12.1' });
  if (flag('--candidates')) for (const c of CANDIDATES) targets.push({ label: c, spec: c });
  rows = measureAll(targets);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (flag('--json')) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`Node ${process.version}, npm install into an empty folder with an empty cache,`);
  console.log(`${runs} run(s) each, round-robin (time: median, [min-max])\n`);
  console.log('| target | packages | size (apparent) | size on disk | install time |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const range = runs > 1 ? ` [${r.minMs}-${r.maxMs}]` : '';
    console.log(
      `| ${r.target} | ${r.packages} | ${kib(r.bytes)} | ${kib(r.onDisk)} | ${r.medianMs} ms${range} |`,
    );
  }
}
