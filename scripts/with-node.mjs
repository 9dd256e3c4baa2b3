#!/usr/bin/env node
// Runs a command under another Node.js major version, installed from the npm registry (the
// `node-<platform>-<arch>` packages the `node` package family publishes) into a cache outside
// the repo. No system install, no version manager:
//
//   node scripts/with-node.mjs 22 -- npx vitest run
//   node scripts/with-node.mjs 24 --unit      (every package's unit, property and regression tests)
//
// The cache is `$KAFKATS_CACHE/node/<major>` (default `~/.cache/kafkats/node/<major>`), reused
// while it holds a binary of that major. The command runs with that binary first on PATH, so
// `npx`, `vitest` and every `#!/usr/bin/env node` script run on it, and with
// KAFKATS_REPORT_TAG=node<major> so vitest's JSON reports (see vitest.shared.ts) do not replace
// the default Node's. Exit code: the command's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagesWithUnitTests } from './unit-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The npm package that carries Node's binary for this machine. */
export function nodePackageName(platform = process.platform, arch = process.arch) {
  const os = platform === 'win32' ? 'win' : platform;
  return `node-${os}-${arch}`;
}

/** Binaries already checked in this process, by major: one `--version` check each. */
const checked = new Map();

/** Installs (once) and returns the path of a Node binary of `major`. */
export function ensureNode(major) {
  if (!/^\d+$/.test(String(major))) throw new Error(`not a Node.js major version: ${major}`);
  const known = checked.get(String(major));
  if (known !== undefined) return known;
  const cache = join(process.env.KAFKATS_CACHE || join(homedir(), '.cache', 'kafkats'), 'node');
  const dir = join(cache, String(major));
  const name = nodePackageName();
  const bin =
    process.platform === 'win32'
      ? join(dir, 'node_modules', name, 'bin', 'node.exe')
      : join(dir, 'node_modules', name, 'bin', 'node');
  if (!existsSync(bin) || versionOf(bin)?.split('.')[0] !== `v${major}`) {
    installInto(dir, `${name}@${major}`, 'with-node');
    if (versionOf(bin)?.split('.')[0] !== `v${major}`) {
      throw new Error(`${bin} is not a Node.js ${major} binary after installing ${name}@${major}`);
    }
  }
  checked.set(String(major), bin);
  return bin;
}

/**
 * `npm install <spec>` into `dir` (made if missing), outside any workspace: no package.json
 * change, no lock file. `who` names the script in its progress line.
 */
export function installInto(dir, spec, who) {
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`${who}: installing ${spec} into ${dir}\n`);
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', spec],
    { stdio: ['ignore', 2, 2] },
  );
  if (npm.status !== 0) throw new Error(`npm could not install ${spec} (exit ${npm.status})`);
}

function versionOf(bin) {
  if (!existsSync(bin)) return undefined;
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** Runs `command args` with Node `major` first on PATH; returns the exit code. */
export function runWithNode(major, command, args, options = {}) {
  const bin = ensureNode(major);
  const env = {
    ...process.env,
    PATH: `${dirname(bin)}${delimiter}${process.env.PATH ?? ''}`,
    KAFKATS_REPORT_TAG: `node${major}`,
  };
  const run = spawnSync(command, args, { stdio: 'inherit', env, cwd: options.cwd ?? root });
  return run.status ?? 1;
}

function main(argv) {
  const [major, ...rest] = argv;
  if (major === undefined || (rest[0] !== '--' && rest[0] !== '--unit')) {
    process.stderr.write(
      'usage: node scripts/with-node.mjs <major> -- <command> [args...]\n' +
        '       node scripts/with-node.mjs <major> --unit\n',
    );
    return 2;
  }
  process.stdout.write(`with-node: Node.js ${versionOf(ensureNode(major))}\n`);
  if (rest[0] === '--') {
    const [command, ...args] = rest.slice(1);
    if (command === undefined) return 2;
    return runWithNode(major, command, args);
  }
  // --unit: each package's `vitest run` (unit, property, regression), as `npm test` runs them
  // on the default Node, one package after the other.
  const failed = [];
  for (const pkg of packagesWithUnitTests(root)) {
    process.stdout.write(`\n--- ${pkg.name} on Node ${major}\n`);
    if (runWithNode(major, 'npx', ['vitest', 'run'], { cwd: pkg.dir }) !== 0) failed.push(pkg.name);
  }
  if (failed.length > 0) process.stdout.write(`\nfailed on Node ${major}: ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (error) {
    process.stderr.write(`with-node: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
