#!/usr/bin/env node
// The layering rule, enforced: a package may import only the public entry points of the
// packages below it (codec < wire < meta < client < remote-log-metadata < cli). Deep imports
// (`@kafkats/codec/src/...`, `@kafkats/codec/dist/...`), relative paths that leave a package,
// upward or sideways imports, and library imports of the private tooling (codegen, testkit)
// are violations. Tests and benchmarks may use testkit. The same rule is checked against each
// package.json's dependencies, so the declared graph and the real one cannot drift apart, and
// against each tsconfig.json's project references (tsc -b builds what the references say). A
// Optional plugins (a SASL mechanism with its vendor's SDK, the kafkajs-compatible facade on the
// client) sit on one layer and import only it
// and those below; no library depends on them, so their dependencies reach nobody else's
// install. Only the CLI may load one, by dynamic `import()`, and declares it as an optional
// peer, never a dependency. A
// public file (one not under an `internal/` folder) may not re-export from an `internal/` path:
// internal means not API, and a public type is defined in a public file. Inside a package laid
// out in folders by role (`src/producer/`, `src/consumer/`, ...), a role may use another role's
// public files but never its `internal/` folder; `src/internal/` is shared by all.
//
// Usage: node scripts/check-layers.mjs [repoRoot]   (exit 1 and a list on any violation)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Library packages, lowest first. */
export const LAYERS = ['codec', 'wire', 'meta', 'client', 'remote-log-metadata', 'cli'];
/** Optional plugins, each with the layer it sits on. */
export const PLUGINS = { 'sasl-aws-msk-iam': 'wire', kafkajs: 'client' };
/** Private tooling: never imported by library source. */
export const TOOLING = ['codegen', 'testkit'];

const SOURCE = /\.(c|m)?(t|j)s$/;
const REEXPORT = /\bexport\s+(?:type\s+)?[\w*{}\s,$]*\s+from\s+['"]([^'"]+)['"]/g;
const SPECIFIER =
  /(?:\bimport\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?|\bexport\s+(?:type\s+)?[\w*{}\s,$]*\s+from\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** What `from` (a package dir name, or 'benchmarks') may import from `@kafkats/<to>`. */
function allowed(from, to, area) {
  if (from === to) return 'self';
  const fromLayer = LAYERS.indexOf(from);
  const toLayer = LAYERS.indexOf(to);
  if (to === 'codegen') return false;
  if (to === 'testkit') return area !== 'src' || from === 'benchmarks';
  if (Object.hasOwn(PLUGINS, to)) {
    if (area !== 'src' || from === 'benchmarks') return true;
    return from === 'cli' ? 'dynamic' : false;
  }
  if (Object.hasOwn(PLUGINS, from) && area === 'src') {
    return toLayer >= 0 && toLayer <= LAYERS.indexOf(PLUGINS[from]);
  }
  if (toLayer < 0) return false;
  if (from === 'benchmarks') return true;
  if (area !== 'src') return true; // tests may drive any library through its public entry
  if (from === 'testkit' || from === 'codegen') return false; // tooling sits beside, not above
  return fromLayer > toLayer;
}

/**
 * The role folder whose `internal/` files `target` is in, when `file` lives outside that role
 * folder (so may not import it); undefined otherwise. `src/internal/` belongs to no role.
 */
function roleInternals(srcDir, file, target) {
  const to = relative(srcDir, target).split(sep);
  if (to.length < 3 || to[1] !== 'internal' || to[0] === '..') return undefined;
  const from = relative(srcDir, file).split(sep);
  return from.length > 1 && from[0] === to[0] ? undefined : to[0];
}

/**
 * @param {string} root repository root
 * @returns {string[]} one line per violation
 */
export function checkLayers(root) {
  const violations = [];
  const units = [];
  const pkgDir = join(root, 'packages');
  if (existsSync(pkgDir)) {
    for (const name of readdirSync(pkgDir)) {
      if (existsSync(join(pkgDir, name, 'package.json'))) units.push([name, join(pkgDir, name)]);
    }
  }
  if (existsSync(join(root, 'benchmarks', 'package.json')))
    units.push(['benchmarks', join(root, 'benchmarks')]);

  for (const [name, dir] of units) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      if (!dep.startsWith('@kafkats/')) continue;
      const to = dep.slice('@kafkats/'.length);
      const verdict = allowed(name, to, 'src');
      if (!verdict) {
        violations.push(`packages/${name}/package.json: dependency ${dep} breaks the layering`);
      } else if (verdict === 'dynamic') {
        violations.push(
          `packages/${name}/package.json: dependency ${dep} is a plugin; declare it as an optional peer`,
        );
      }
    }
    const tsconfigPath = join(dir, 'tsconfig.json');
    if (existsSync(tsconfigPath)) {
      const declared = new Set(
        [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
          .filter((d) => d.startsWith('@kafkats/'))
          .map((d) => d.slice('@kafkats/'.length)),
      );
      const tsconfig = JSON.parse(readFileSync(tsconfigPath, 'utf8'));
      const referenced = new Set(
        (tsconfig.references ?? []).map((r) => basename(resolve(dir, r.path))),
      );
      const where = relative(root, tsconfigPath);
      for (const d of declared) {
        if (!referenced.has(d))
          violations.push(`${where}: no project reference to ${d}, a declared dependency`);
      }
      for (const r of referenced) {
        if (!declared.has(r))
          violations.push(
            `${where}: project reference to ${r}, which package.json does not declare`,
          );
      }
    }
    const srcDir = join(dir, 'src');
    for (const file of walk(srcDir)) {
      if (/(^|[\\/])internal[\\/]/.test(relative(srcDir, file))) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(REEXPORT)) {
        const spec = match[1];
        if (spec.startsWith('.') && /(^|\/)internal\//.test(spec)) {
          const line = text.slice(0, match.index).split('\n').length;
          const what = file === join(srcDir, 'index.ts') ? 'the public entry' : 'a public file';
          violations.push(
            `${relative(root, file)}:${line}: ${what} re-exports ${spec}; internal modules are not API (define public types in public files)`,
          );
        }
      }
    }
    for (const file of walk(dir)) {
      const rel = relative(dir, file);
      const top = rel.split(sep)[0];
      const area = top === 'src' ? 'src' : 'other';
      // Config files at a package's top level (vitest.config.ts) may reach the shared root config.
      const contained = name === 'benchmarks' || top === 'src' || top === 'test';
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(SPECIFIER)) {
        const spec = match[1];
        const line = text.slice(0, match.index).split('\n').length;
        const where = `${relative(root, file)}:${line}`;
        if (spec.startsWith('@kafkats/')) {
          const [, to, ...rest] = spec.split('/');
          const verdict = allowed(name, to, area);
          if (!verdict) violations.push(`${where}: ${name} may not import ${spec}`);
          else if (verdict === 'dynamic' && !/^import\s*\(/.test(match[0])) {
            violations.push(`${where}: the plugin ${spec} is optional; load it with import()`);
          } else if (verdict !== 'self' && rest.length > 0 && rest.join('/') !== 'package.json') {
            violations.push(
              `${where}: ${spec} is a deep import; use the public entry @kafkats/${to}`,
            );
          }
        } else if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (contained && !target.startsWith(dir + sep) && target !== dir) {
            violations.push(`${where}: relative import ${spec} leaves ${name}`);
          } else if (top === 'src') {
            const other = roleInternals(srcDir, file, target);
            if (other !== undefined)
              violations.push(
                `${where}: ${spec} reaches into the internals of ${other}/; use its public files`,
              );
          }
        }
      }
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const violations = checkLayers(root);
  if (violations.length > 0) {
    process.stderr.write(`layering: ${violations.length} violation(s)\n${violations.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('layering: ok\n');
}
