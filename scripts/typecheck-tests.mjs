#!/usr/bin/env node
// `tsc -b` typechecks each package's src only (that is what ships). Tests run through vitest,
// which strips types without checking them, so this typechecks src + test together for every
// package that has a tsconfig.test.json: a test that no longer matches the API it exercises
// fails here rather than passing by accident. Run after `npm run build` (tests import other
// packages through their built declarations).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let failed = 0;
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const config = join(root, 'packages', name, 'tsconfig.test.json');
  if (!existsSync(config)) continue;
  const run = spawnSync(process.execPath, [tsc, '-p', config], { stdio: 'inherit' });
  process.stdout.write(`typecheck tests: ${name} ${run.status === 0 ? 'ok' : 'FAILED'}\n`);
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
