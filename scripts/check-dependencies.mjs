#!/usr/bin/env node
// What `npm install <package>` brings for each publishable package: its production dependency
// closure (dependencies, optional dependencies, which npm installs only where their platform
// matches, and required peers; never an optional peer, which npm leaves to the user), read from package-lock.json the way npm resolves a name from
// a package's folder upwards. Optional plugins are expected to bring their vendor's SDK; no
// other package may reach a plugin or a vendor SDK.
//
// Usage: node scripts/check-dependencies.mjs   (prints each closure; exit 1 when a package
//   other than a plugin reaches a plugin or a vendor SDK)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYERS, PLUGINS } from './check-layers.mjs';

/** Packages of vendor SDKs that only plugins may bring. */
const VENDOR = /^@(aws-sdk|smithy|aws-crypto|aws)\//;

/**
 * The production closure of the workspace package at `packages/<name>`, as names with versions.
 * @param {Record<string, any>} lock package-lock.json's `packages`
 */
export function closure(lock, name) {
  const seen = new Map();
  const visit = (from) => {
    const entry = lock[from];
    const required = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const [peer, range] of Object.entries(entry.peerDependencies ?? {})) {
      if (entry.peerDependenciesMeta?.[peer]?.optional !== true) required[peer] = range;
    }
    for (const dep of Object.keys(required)) {
      let at = from;
      let found;
      for (;;) {
        const candidate = at === '' ? `node_modules/${dep}` : `${at}/node_modules/${dep}`;
        if (lock[candidate] !== undefined) {
          found = candidate;
          break;
        }
        if (at === '') break;
        const parent = at.lastIndexOf('/node_modules/');
        at = parent < 0 ? '' : at.slice(0, parent);
      }
      if (found === undefined) {
        if (entry.optionalDependencies?.[dep] !== undefined) continue;
        throw new Error(`${from}: ${dep} is not in package-lock.json`);
      }
      const target = lock[found].link === true ? lock[found].resolved : found;
      const key = `${dep}@${lock[target].version ?? 'workspace'}`;
      if (seen.has(key)) continue;
      seen.set(key, target);
      visit(target);
    }
  };
  visit(`packages/${name}`);
  return [...seen.keys()].sort();
}

/**
 * Each library package and plugin with its closure, and what is wrong: a package other than a
 * plugin that brings a plugin or a vendor SDK.
 * @param {Record<string, any>} lock package-lock.json's `packages`
 */
export function footprint(lock) {
  const packages = [];
  const problems = [];
  for (const name of [...LAYERS, ...Object.keys(PLUGINS)]) {
    const deps = closure(lock, name);
    packages.push({ name: `@kafkats/${name}`, deps });
    if (Object.hasOwn(PLUGINS, name)) continue;
    for (const dep of deps) {
      const bare = dep.slice(0, dep.lastIndexOf('@'));
      const plugin = bare.startsWith('@kafkats/') && Object.hasOwn(PLUGINS, bare.slice(9));
      if (plugin || VENDOR.test(bare)) problems.push(`@kafkats/${name} brings ${dep}`);
    }
  }
  return { packages, problems };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
  const { packages, problems } = footprint(lock);
  for (const p of packages) {
    process.stdout.write(`${p.name}: ${p.deps.length} packages\n  ${p.deps.join('\n  ')}\n`);
  }
  if (problems.length > 0) {
    process.stderr.write(`dependencies: ${problems.join('; ')}\n`);
    process.exit(1);
  }
}
