#!/usr/bin/env node
// Runs every package's unit, property and regression tests on Bun or Deno, each pinned and
// installed from the npm registry (the platform packages that the `bun` and `deno` packages
// pull in as optional dependencies) into a cache outside the repo:
//
//   node scripts/with-runtime.mjs bun --unit
//   node scripts/with-runtime.mjs deno --unit
//   node scripts/with-runtime.mjs bun --smoke   (real Kafka: vitest.smoke.config.ts)
//   node scripts/with-runtime.mjs bun -- <command> [args...]   (the runtime first on PATH)
//
// Vitest itself runs on the runtime (`bun --bun vitest.mjs run`, `deno run -A vitest.mjs run`),
// and so do its `forks` workers: they are forked from the runner's own executable, so the
// packages' src and the dist of the packages below them execute on Bun or Deno, not on Node.
// KAFKATS_RUNTIME=<runtime> makes vitest.shared.ts add a setup file that fails every test file
// whose worker is not that runtime, so a run can never pass on Node by accident.
//
// The cache is `$KAFKATS_CACHE/runtimes/<runtime>-<version>` (default `~/.cache/kafkats/...`,
// about 100 MB per runtime). The packages must be built first (`dist/` of the packages below the
// one under test is what its tests import). Reports (with KAFKATS_REPORT_DIR) are
// `unit-<folder>-<runtime>.json`. Exit code: non-zero when any package failed. A whole run takes
// about as long as the same suites on Node (two to three minutes on two cores).
//
// `--smoke` runs packages/cli/test/integration/runtime-smoke.test.ts on the runtime: the
// testkit's global setup (on the runtime too) starts the shared 3-node Kafka (Java, from the
// jars `packages/testkit/bin/kafka-dist.mjs` assembles) and the file connects over SASL_SSL,
// produces (every codec: both runtimes load the N-API addons snappy and lz4-napi and compress
// zstd with their own node:zlib), consumes, commits, runs the tiered-storage metadata manager and
// spawns the CLI with the runtime's own executable (Deno runs a script handed to its executable
// as `deno run` with every permission). Report `smoke-<runtime>.json`. About 20 s on two cores,
// half of it Kafka's start; a cluster that cannot start fails the run (the setup throws).
//
// What differs from Node, and how kafkats meets it: Bun's TracingChannel has no hasSubscribers
// (wire's createTracingChannel adds one); neither runtime gives V8 precise coverage through
// node:inspector (the codec fuzzer's check runs unguided there); both have zstd in node:zlib, so
// the tests of zstd through packages are skipped on them, as on Node 22.15 and later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagesWithUnitTests } from './unit-packages.mjs';
import { installInto } from './with-node.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned releases; a bump is a commit that also re-runs both suites. */
export const RUNTIME_VERSIONS = { bun: '1.4.5', deno: '2.9.6' };

/**
 * The npm package that carries the runtime's binary for a platform, and the binary's path
 * inside it. Bun: `@oven/bun-<os>-<x64|aarch64>`; Deno: `@deno/<os>-<x64|arm64>[-glibc]`.
 */
export function runtimePackage(runtime, platform = process.platform, arch = process.arch) {
  const exe = platform === 'win32' ? '.exe' : '';
  if (runtime === 'bun') {
    const cpu = arch === 'arm64' ? 'aarch64' : arch;
    const os = platform === 'win32' ? 'windows' : platform;
    return { name: `@oven/bun-${os}-${cpu}`, bin: join('bin', `bun${exe}`) };
  }
  if (runtime === 'deno') {
    const libc = platform === 'linux' ? '-glibc' : '';
    return { name: `@deno/${platform}-${arch}${libc}`, bin: `deno${exe}` };
  }
  throw new Error(`not a runtime with-runtime knows: ${runtime} (bun or deno)`);
}

/** The vitest config `--smoke` runs (relative to the repo root): one real-broker file. */
export const SMOKE_CONFIG = 'vitest.smoke.config.ts';

/** Binaries already checked in this process, by runtime. */
const checked = new Map();

/** Installs (once) the pinned release of `runtime` and returns its binary's path. */
export function ensureRuntime(runtime) {
  const { name, bin: inPackage } = runtimePackage(runtime);
  const known = checked.get(runtime);
  if (known !== undefined) return known;
  const version = RUNTIME_VERSIONS[runtime];
  const cache = join(process.env.KAFKATS_CACHE || join(homedir(), '.cache', 'kafkats'), 'runtimes');
  const dir = join(cache, `${runtime}-${version}`);
  const bin = join(dir, 'node_modules', name, inPackage);
  if (versionOf(runtime, bin) !== version) {
    installInto(dir, `${name}@${version}`, 'with-runtime');
    const found = versionOf(runtime, bin);
    if (found !== version) {
      throw new Error(
        `${bin} reports ${found ?? 'no version'} after installing ${name}@${version}`,
      );
    }
  }
  checked.set(runtime, bin);
  return bin;
}

/** `1.4.5` from `bun --version`, `2.9.6` from `deno --version`'s first line. */
function versionOf(runtime, bin) {
  if (!existsSync(bin)) return undefined;
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (run.status !== 0) return undefined;
  const first = run.stdout.trim().split('\n')[0] ?? '';
  return runtime === 'deno' ? first.split(' ')[1] : first;
}

/**
 * The command that runs vitest on the runtime. `--bun` makes Bun run the runner (and every
 * `#!/usr/bin/env node` script it starts) on Bun; Deno reads the repo's node_modules as they
 * are (`--node-modules-dir=manual`) and writes no lock file.
 */
export function vitestCommand(runtime, bin, vitestArgs) {
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  if (runtime === 'bun') return [bin, ['--bun', vitest, ...vitestArgs]];
  return [bin, ['run', '-A', '--no-lock', '--node-modules-dir=manual', vitest, ...vitestArgs]];
}

function envFor(runtime, bin) {
  return {
    ...process.env,
    PATH: `${dirname(bin)}${delimiter}${process.env.PATH ?? ''}`,
    KAFKATS_REPORT_TAG: runtime,
    KAFKATS_RUNTIME: runtime,
  };
}

function main(argv) {
  const [runtime, ...rest] = argv;
  if (runtime === undefined || !['--', '--unit', '--smoke'].includes(rest[0])) {
    process.stderr.write(
      'usage: node scripts/with-runtime.mjs <bun|deno> --unit\n' +
        '       node scripts/with-runtime.mjs <bun|deno> --smoke\n' +
        '       node scripts/with-runtime.mjs <bun|deno> -- <command> [args...]\n',
    );
    return 2;
  }
  const bin = ensureRuntime(runtime);
  process.stdout.write(`with-runtime: ${runtime} ${versionOf(runtime, bin)}\n`);
  const env = envFor(runtime, bin);
  if (rest[0] === '--') {
    const [command, ...args] = rest.slice(1);
    if (command === undefined) return 2;
    return spawnSync(command, args, { stdio: 'inherit', env, cwd: root }).status ?? 1;
  }
  if (rest[0] === '--smoke') {
    const started = Date.now();
    const [command, args] = vitestCommand(runtime, bin, ['run', '--config', SMOKE_CONFIG]);
    const run = spawnSync(command, args, { stdio: 'inherit', env, cwd: root });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `\nsmoke on ${runtime}: ${run.status === 0 ? 'ok' : 'FAILED'} in ${seconds} s\n`,
    );
    return run.status ?? 1;
  }
  const failed = [];
  const times = [];
  for (const pkg of packagesWithUnitTests(root)) {
    process.stdout.write(`\n--- ${pkg.name} on ${runtime}\n`);
    const started = Date.now();
    const [command, args] = vitestCommand(runtime, bin, ['run']);
    const run = spawnSync(command, args, { stdio: 'inherit', env, cwd: pkg.dir });
    times.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${pkg.name}`);
    if (run.status !== 0) failed.push(pkg.name);
  }
  process.stdout.write(`\n${runtime} times:\n${times.map((t) => `  ${t}\n`).join('')}`);
  if (failed.length > 0) process.stdout.write(`failed on ${runtime}: ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (error) {
    process.stderr.write(
      `with-runtime: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
