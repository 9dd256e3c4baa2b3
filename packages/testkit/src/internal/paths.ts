import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Works from src/ (vitest runs the sources) and from dist/ (everyone else): walk up to the
// package.json rather than counting directory levels.
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'java'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('testkit: cannot find its package root');
    dir = up;
  }
}

/** packages/testkit */
export const packageRoot = findPackageRoot();
/** The repository root (packages/testkit/../..). */
export const repoRoot = join(packageRoot, '..', '..');
/** Our single-file Java programs. */
export const javaDir = join(packageRoot, 'java');
