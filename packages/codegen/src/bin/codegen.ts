/**
 * `npm run codegen` / `npm run codegen:check`: reads the extracted schemas under
 * fixtures/schemas/ and (re)writes the codec's generated files. With `--check` nothing is
 * written: the run fails when any generated file differs, is missing, or is stale.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDescriptions } from '../schema/emit-descriptions.js';
import { type Generated, generate } from '../schema/emit-files.js';
import { loadSchemas } from '../schema/load.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const codec = join(root, 'packages', 'codec');
const schemas = join(root, 'fixtures', 'schemas');

/** Directories and files the generator owns (src/gen/errors.ts belongs to gen:errors). */
const OWNED_DIRS = [
  'src/gen/descriptions',
  'src/gen/messages',
  'src/gen/data',
  'src/gen/metadata-records',
  'test/support/gen',
];
const OWNED_FILES = [
  'src/gen/headers.ts',
  'src/gen/api-keys.ts',
  'src/gen/metadata-records.ts',
  'src/gen/index.ts',
];
// src/index.ts re-exports the generated names from ./gen/index.js in two statements the
// generator rewrites (Biome then sorts them among the hand-written ones).
const GEN_EXPORT = /export (?:type )?\{[^}]*\} from '\.\/gen\/index\.js';\n?/g;

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

function indexBlock(g: Generated): string {
  const types = [...g.typeNames].sort();
  const values = [...g.valueNames].sort();
  return `export type {\n${types.map((t) => `  ${t},`).join('\n')}\n} from './gen/index.js';\nexport {\n${values.map((v) => `  ${v},`).join('\n')}\n} from './gen/index.js';\n`;
}

function blockNames(text: string): Set<string> | null {
  const statements = text.match(GEN_EXPORT);
  if (statements === null) return null;
  const names = new Set<string>();
  for (const st of statements) {
    const inner = st.slice(st.indexOf('{') + 1, st.indexOf('}'));
    for (const n of inner.split(',')) if (n.trim() !== '') names.add(n.trim());
  }
  return names;
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
    const index = readFileSync(join(codec, 'src', 'index.ts'), 'utf8');
    const have = blockNames(index);
    const want = new Set([...g.typeNames, ...g.valueNames]);
    if (have === null) problems.push('packages/codec/src/index.ts has no generated export block');
    else if (have.size !== want.size || [...want].some((n) => !have.has(n))) {
      problems.push('packages/codec/src/index.ts: generated export block differs');
    }
  } else {
    for (const path of listOwned()) if (!wanted.has(path)) rmSync(join(codec, path));
    for (const [path, content] of wanted) {
      const abs = join(codec, path);
      mkdirSync(dirname(abs), { recursive: true });
      if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) writeFileSync(abs, content);
    }
    const indexPath = join(codec, 'src', 'index.ts');
    const index = readFileSync(indexPath, 'utf8').replace(GEN_EXPORT, '');
    writeFileSync(indexPath, `${index.trimEnd()}\n${indexBlock(g)}`);
    // Only the hand-maintained entry is formatted by Biome (it sorts the names its own way);
    // the generated files are excluded from the formatter and checked byte for byte.
    execFileSync('npx', ['biome', 'check', '--write', indexPath], { cwd: root, stdio: 'inherit' });
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
