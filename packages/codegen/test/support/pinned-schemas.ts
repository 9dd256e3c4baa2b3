// The pinned release's extracted schemas, for tests that check the generator against them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..', '..', '..');
export const schemasDir = join(root, 'fixtures', 'schemas');
export const pinned = (
  JSON.parse(readFileSync(join(root, 'fixtures', 'kafka-release.json'), 'utf8')) as {
    kafka: string;
  }
).kafka;

/** Extracts the schemas when they are missing or from another release. */
export function ensureSchemas(): void {
  const pin = join(schemasDir, 'release.json');
  if (existsSync(pin) && JSON.parse(readFileSync(pin, 'utf8')).kafka === pinned) return;
  execFileSync('node', [join(root, 'packages', 'codegen', 'dist', 'bin', 'extract-schemas.js')], {
    stdio: 'inherit',
  });
}
