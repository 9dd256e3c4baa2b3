// The workspace packages that have unit, property or regression tests: vitest refuses to pass
// with no tests (`passWithNoTests: false`), and a package without tests yet is not a failure.
// A package joins as soon as its first test file lands. Shared by `npm test` and with-node.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `[{ name, dir }]`, sorted by folder name. */
export function packagesWithUnitTests(root) {
  const hasTest = (dir) =>
    existsSync(dir) &&
    readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.test.ts'));
  const found = [];
  for (const folder of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', folder);
    if (!existsSync(join(dir, 'package.json'))) continue;
    if (['unit', 'property', 'regressions'].some((area) => hasTest(join(dir, 'test', area)))) {
      found.push({ name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name, dir });
    }
  }
  return found;
}
