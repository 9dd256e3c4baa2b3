#!/usr/bin/env node
// The README code that users copy is compiled and run: each such block is the `readme` region
// of a file in examples/ (type-checked by `tsc -b examples` and run against a real broker by
// the client's integration tests), and this script keeps the two identical. In a README:
//
//   <!-- example: examples/producer.ts -->
//   ```ts
//   ...the lines between `// #region readme` and `// #endregion readme` of that file...
//   ```
//
// Usage: node scripts/readme-examples.mjs [--write] [repoRoot]
//   (checks by default: exit 1 naming each block that differs from its file; --write copies
//   the regions into the READMEs)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = /^<!-- example: (\S+) -->$/;
const START = '// #region readme';
const END = '// #endregion readme';

/** The README files: the root one and each package's. */
export function readmes(root) {
  const files = [join(root, 'README.md')];
  const packages = join(root, 'packages');
  if (existsSync(packages))
    for (const name of readdirSync(packages).sort()) {
      const file = join(packages, name, 'README.md');
      if (existsSync(file)) files.push(file);
    }
  return files.filter((f) => existsSync(f));
}

/**
 * The lines of `text` between the region markers, without them.
 * @throws Error when the markers are missing, repeated or out of order
 */
export function region(text, file) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === START);
  const end = lines.findIndex((l) => l.trim() === END);
  const again = lines.findIndex((l, i) => i > start && l.trim() === START);
  if (start === -1 || end === -1 || end < start || again !== -1)
    throw new Error(`${file}: expected one '${START}' ... '${END}' region`);
  return lines.slice(start + 1, end).join('\n');
}

/**
 * Each example block of a README: where its fence opens and closes (line indexes), the file it
 * names, and the code it holds.
 * @throws Error for a marker not followed by a ```ts fence, or a fence never closed
 */
export function exampleBlocks(text, file) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]);
    if (m === null) continue;
    if (lines[i + 1] !== '```ts')
      throw new Error(`${file}:${i + 1}: '${lines[i]}' must be followed by a \`\`\`ts fence`);
    const close = lines.findIndex((l, j) => j > i + 1 && l === '```');
    if (close === -1) throw new Error(`${file}:${i + 2}: the fence is never closed`);
    blocks.push({
      line: i + 1,
      open: i + 1,
      close,
      source: m[1],
      code: lines.slice(i + 2, close).join('\n'),
    });
  }
  return blocks;
}

/**
 * Checks (or, with `write`, rewrites) every README's example blocks against their files.
 * @returns one message per block that differs from its file's region (empty when all agree)
 */
export function checkReadmeExamples(root, { write = false } = {}) {
  const problems = [];
  for (const readme of readmes(root)) {
    const text = readFileSync(readme, 'utf8');
    const name = relative(root, readme);
    const blocks = exampleBlocks(text, name);
    if (blocks.length === 0) continue;
    const lines = text.split('\n');
    // Back to front, so that earlier line indexes stay valid while later blocks are replaced.
    for (const block of [...blocks].reverse()) {
      const source = join(root, block.source);
      if (!existsSync(source)) {
        problems.push(`${name}:${block.line}: ${block.source} does not exist`);
        continue;
      }
      const want = region(readFileSync(source, 'utf8'), block.source);
      if (want === block.code) continue;
      if (write) lines.splice(block.open + 1, block.close - block.open - 1, ...want.split('\n'));
      else
        problems.push(
          `${name}:${block.line}: the block differs from the readme region of ${block.source} (node scripts/readme-examples.mjs --write copies it)`,
        );
    }
    if (write) writeFileSync(readme, lines.join('\n'));
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const root =
    args.find((a) => !a.startsWith('--')) ?? join(dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkReadmeExamples(root, { write });
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write(`readme examples: ${write ? 'written' : 'every block matches its file'}\n`);
}
