import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkReadmeExamples } from '../readme-examples.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fakeRepo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kafkats-readme-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const example = [
  "import { Producer } from '@kafkats/client';",
  '// #region readme',
  'const producer = new Producer(cluster);',
  'await producer.close();',
  '// #endregion readme',
  "console.log('done');",
].join('\n');

const readme = (code: string) =>
  ['# pkg', '', '<!-- example: examples/p.ts -->', '```ts', code, '```', 'after', ''].join('\n');

describe('readme-examples', () => {
  it('passes on this repository', () => {
    expect(checkReadmeExamples(repoRoot)).toEqual([]);
  });

  it("accepts a block equal to its file's readme region", () => {
    const root = fakeRepo({
      'examples/p.ts': example,
      'packages/client/README.md': readme(
        'const producer = new Producer(cluster);\nawait producer.close();',
      ),
    });
    expect(checkReadmeExamples(root)).toEqual([]);
  });

  it('names a block that drifted from its file, and --write copies the region in', () => {
    const root = fakeRepo({
      'examples/p.ts': example,
      'packages/client/README.md': readme('const producer = new Producer(cluster, {});'),
    });
    expect(checkReadmeExamples(root)).toEqual([
      expect.stringContaining(
        'packages/client/README.md:3: the block differs from the readme region of examples/p.ts',
      ),
    ]);
    expect(checkReadmeExamples(root, { write: true })).toEqual([]);
    expect(readFileSync(join(root, 'packages/client/README.md'), 'utf8')).toBe(
      readme('const producer = new Producer(cluster);\nawait producer.close();'),
    );
    expect(checkReadmeExamples(root)).toEqual([]);
  });

  it('names a missing example file and refuses a marker without a ts fence', () => {
    expect(checkReadmeExamples(fakeRepo({ 'README.md': readme('x') }))).toEqual([
      'README.md:3: examples/p.ts does not exist',
    ]);
    const root = fakeRepo({
      'examples/p.ts': example,
      'README.md': '<!-- example: examples/p.ts -->\n```js\nx\n```\n',
    });
    expect(() => checkReadmeExamples(root)).toThrow('must be followed by a ```ts fence');
  });
});
