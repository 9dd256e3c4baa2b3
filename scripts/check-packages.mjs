#!/usr/bin/env node
// The seven publishable packages, as a registry would see them: `npm pack` each into a temp
// directory, then lint the tarball with publint (strict: warnings fail) and check its types
// with attw (profile esm-only: the packages are ESM-only on purpose, so CommonJS `require`
// resolutions are out of scope). Needs the packages built (`npm run build`).
//
// Usage: node scripts/check-packages.mjs   (exit 1 when any package fails)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PUBLISHED = [
  'codec',
  'wire',
  'sasl-aws-msk-iam',
  'meta',
  'client',
  'kafkajs',
  'remote-log-metadata',
  'cli',
];

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

const out = mkdtempSync(join(tmpdir(), 'kafkats-pack-'));
const failures = [];
try {
  for (const name of PUBLISHED) {
    const dir = join(root, 'packages', name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (pkg.private === true) {
      failures.push(`${pkg.name}: marked private but must be publishable`);
      continue;
    }
    const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (pack.status !== 0) {
      failures.push(`${pkg.name}: npm pack failed\n${pack.stderr}`);
      continue;
    }
    const [info] = JSON.parse(pack.stdout);
    const tarball = join(out, info.filename);
    const files = info.files.map((f) => f.path);
    const lines = [`${pkg.name}: ${info.files.length} files, ${info.size} bytes packed`];
    for (const required of ['package.json', 'dist/index.js', 'dist/index.d.ts']) {
      if (!files.includes(required)) failures.push(`${pkg.name}: tarball lacks ${required}`);
    }
    const leaked = files.filter(
      (f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.tsbuildinfo'),
    );
    if (leaked.length > 0)
      failures.push(`${pkg.name}: tarball ships ${leaked.slice(0, 5).join(', ')}`);
    const publint = run('npx', ['publint', 'run', tarball, '--strict']);
    lines.push(`  publint: ${publint.ok ? 'ok' : 'FAILED'}`);
    if (!publint.ok) failures.push(`${pkg.name}: publint\n${publint.output}`);
    const attw = run('npx', [
      'attw',
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'table-flipped',
    ]);
    lines.push(`  attw (esm-only): ${attw.ok ? 'ok' : 'FAILED'}`);
    if (!attw.ok) failures.push(`${pkg.name}: attw\n${attw.output}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stdout.write(`\n${failures.join('\n\n')}\n`);
  process.exit(1);
}
process.stdout.write('all publishable packages pass publint and attw\n');
