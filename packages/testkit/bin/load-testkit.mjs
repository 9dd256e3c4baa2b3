// Shared by the bin scripts: imports the built testkit, building it first when dist/ is missing
// (the scripts run from a fresh clone before `npm run build`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(pkg, '..', '..');

export async function loadTestkit() {
  const entry = join(pkg, 'dist', 'index.js');
  if (!existsSync(entry)) {
    const built = spawnSync('npx', ['tsc', '-b', pkg], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('building @kafkats/testkit failed');
  }
  return import(entry);
}

/** `--name value` from argv, or the fallback. */
export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
