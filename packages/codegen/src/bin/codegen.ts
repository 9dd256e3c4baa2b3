/**
 * `npm run codegen` / `npm run codegen:check`: reads the extracted schemas under
 * fixtures/schemas/ and (re)writes the codec's generated files. With `--check` nothing is
 * written: the run fails when any generated file differs, is missing, or is stale.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDescriptions } from '../schema/emit-descriptions.js';
import { generate } from '../schema/emit-files.js';
import { loadSchemas } from '../schema/load.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const codec = join(root, 'packages', 'codec');
const schemas = join(root, 'fixtures', 'schemas');

/** Directories and files the generator owns (src/gen/errors.ts belongs to gen:errors). */
const OWNED_DIRS = [
  'src/gen/descriptions',
  'src/gen/messages',
  'src/gen/data',
  'src/gen/remote-log-metadata',
  'test/support/gen',
];
const OWNED_FILES = [
  'src/gen/headers.ts',
  'src/gen/api-keys.ts',
  'src/gen/remote-log-metadata.ts',
  'src/gen/index.ts',
];
function listOwned(): string[] {
  const out: string[] = [];
  for (const d of OWNED_DIRS) {
    const abs = join(codec, d);
    if (!existsSync(abs)) continue;
    for (const f of readdirSync(abs)) if (f.endsWith('.ts')) out.push(`${d}/${f}`);
  }
  for (const f of OWNED_FILES) if (existsSync(join(codec, f))) out.push(f);
  return out.sort();
}

function main(): void {
  const check = process.argv.includes('--check');
  const pinned = (
    JSON.parse(readFileSync(join(root, 'fixtures', 'kafka-release.json'), 'utf8')) as {
      kafka: string;
    }
  ).kafka;
  const { release, specs } = loadSchemas(schemas, pinned);
  const g = generate(specs, release);
  const problems: string[] = [];
  const wanted = new Map(
    [...g.files, ...generateDescriptions(specs, release)].map((f) => [f.path, f.content]),
  );
  if (check) {
    for (const [path, content] of wanted) {
      const abs = join(codec, path);
      if (!existsSync(abs)) problems.push(`missing: packages/codec/${path}`);
      else if (readFileSync(abs, 'utf8') !== content)
        problems.push(`differs: packages/codec/${path}`);
    }
    for (const path of listOwned())
      if (!wanted.has(path)) problems.push(`stale: packages/codec/${path}`);
  } else {
    for (const path of listOwned()) if (!wanted.has(path)) rmSync(join(codec, path));
    for (const [path, content] of wanted) {
      const abs = join(codec, path);
      mkdirSync(dirname(abs), { recursive: true });
      if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) writeFileSync(abs, content);
    }
  }
  process.stdout.write(
    `codegen: Kafka ${release}: ${g.apiKeys} API keys, ${g.requestVersions} request versions, ${g.responseVersions} response versions; ` +
      `${specs.length} schemas, ${g.files.length} files${g.retired.length > 0 ? `; retired (no valid versions, skipped): ${g.retired.join(', ')}` : ''}\n`,
  );
  if (problems.length > 0) {
    process.stderr.write(
      `codegen:check failed (run \`npm run codegen\`):\n  ${problems.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  if (check) process.stdout.write('codegen:check: generated files are up to date\n');
}

main();
