#!/usr/bin/env node
// `npm test`: everything CI checks, in order, on a fresh clone after `npm ci`.
// Each step runs to completion; the run fails if any step failed. Tests that need Kafka start
// it themselves (the testkit assembles the pinned release from Maven Central) and fail, never
// skip, when it cannot start. Besides the full integration run against the pinned release, the
// wire, meta and client suites run against each older Kafka release line (scripts/kafka-matrix.mjs).
// The end of the output shows the matrix that ran (runtimes: Node.js majors, Bun, Deno; Kafka
// release x suite), and the last line is the total of every vitest run:
//   `tests: N passed[ (K on a retry)], N failed`
//
//   node scripts/test.mjs --only "Kafka 3.9"   runs only the steps whose name contains that text
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatMatrix,
  kafkaReleases,
  matrixCounts,
  matrixFiles,
  reportTag,
} from './kafka-matrix.mjs';
import { testOutcomes } from './reports.mjs';
import { packagesWithUnitTests } from './unit-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, '.kafkats', 'reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

/** turbo filters for the packages that have unit, property or regression tests. */
function unitTestFilters() {
  return packagesWithUnitTests(root).map((p) => `--filter=${p.name}`);
}

/**
 * The other Node.js majors the unit, property and regression suites run on (the default Node
 * runs everything). Each is installed from the npm registry on first use (scripts/with-node.mjs).
 */
const OTHER_NODES = ['22', '24'];

/**
 * The other runtimes the same suites run on, each pinned and installed from the npm registry on
 * first use (scripts/with-runtime.mjs); vitest and its workers run on the runtime itself.
 */
const OTHER_RUNTIMES = ['bun', 'deno'];

/** `Bun` for `bun`: how a runtime is named in step names and the summary. */
const runtimeName = (runtime) => `${runtime[0].toUpperCase()}${runtime.slice(1)}`;

const releases = kafkaReleases(root);

/**
 * [name, command, args, env?]; steps that only report (benchmarks) never fail the run on a
 * figure.
 */
const allSteps = [
  ['kafka distribution', 'node', ['packages/testkit/bin/kafka-dist.mjs']],
  ['build', 'npx', ['turbo', 'run', 'build', '--output-logs=errors-only']],
  // Regenerates the codec from the pinned schemas in memory and fails on any difference.
  ['generated code is fresh', 'npm', ['run', 'codegen:check']],
  ['generated error table is current', 'npm', ['run', 'codegen:errors:check']],
  ['typecheck tests (src + test per package)', 'node', ['scripts/typecheck-tests.mjs']],
  ['lint', 'npx', ['biome', 'check', '.']],
  // The README code blocks marked `<!-- example: examples/... -->` are those files' regions; the
  // files themselves are compiled and run against real brokers by the integration tests.
  ['README examples are the files in examples/', 'node', ['scripts/readme-examples.mjs']],
  ['layering', 'node', ['scripts/check-layers.mjs']],
  ['publishable packages (npm pack, publint, attw)', 'node', ['scripts/check-packages.mjs']],
  // Prints what installing each package brings; fails when a vendor SDK reaches a core package.
  [
    'what each package brings (no vendor SDK in a core package)',
    'node',
    ['scripts/check-dependencies.mjs'],
  ],
  [
    'unit, property and regression tests',
    'npx',
    ['turbo', 'run', 'test', '--concurrency=1', ...unitTestFilters()],
  ],
  ...OTHER_NODES.map((major) => [
    `unit, property and regression tests on Node ${major}`,
    'node',
    ['scripts/with-node.mjs', major, '--unit'],
  ]),
  ...OTHER_RUNTIMES.map((runtime) => [
    `unit, property and regression tests on ${runtimeName(runtime)}`,
    'node',
    ['scripts/with-runtime.mjs', runtime, '--unit'],
  ]),
  ['repo script tests', 'npx', ['vitest', 'run', '--config', 'scripts/vitest.config.ts']],
  ['conformance against Kafka and AWS Java classes', 'npm', ['run', 'conformance']],
  [
    'integration tests (real Kafka)',
    'npx',
    ['vitest', 'run', '--config', 'vitest.integration.config.ts'],
  ],
  // One shared cluster per older release, one release after another (each assembled from Maven
  // Central on first use); reports `integration-kafka-<release>.json`.
  ...releases.older.map((version) => [
    `integration tests (Kafka ${version})`,
    'npx',
    ['vitest', 'run', '--config', 'vitest.integration.config.ts', ...matrixFiles()],
    { KAFKATS_KAFKA_VERSION: version, KAFKATS_REPORT_TAG: reportTag(version) },
  ]),
  // The real-broker smoke file (packages/cli/test/integration/runtime-smoke.test.ts, in the
  // integration run on Node above) with vitest and its workers on each other runtime; reports
  // `smoke-<runtime>.json`.
  ...OTHER_RUNTIMES.map((runtime) => [
    `real-broker smoke on ${runtimeName(runtime)}`,
    'node',
    ['scripts/with-runtime.mjs', runtime, '--smoke'],
  ]),
  ['no Kafka JVM left behind', 'node', ['packages/testkit/bin/check-no-jvm.mjs']],
  ['benchmarks (smoke)', 'npm', ['run', 'bench:smoke', '-w', '@kafkats/benchmarks']],
];

const only = process.argv.indexOf('--only');
const steps =
  only === -1 ? allSteps : allSteps.filter(([name]) => name.includes(process.argv[only + 1] ?? ''));

const failed = [];
/** [step name, seconds] for the summary. */
const timings = [];
for (const [name, command, args, env = {}] of steps) {
  const started = Date.now();
  process.stdout.write(`\n=== ${name}: ${command} ${args.join(' ')}\n`);
  const run = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, KAFKATS_REPORT_DIR: reports, ...env },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  timings.push([name, seconds]);
  const ok = run.status === 0;
  process.stdout.write(
    `=== ${name}: ${ok ? 'ok' : `FAILED (exit ${run.status ?? run.signal})`} in ${seconds}s\n`,
  );
  if (!ok) failed.push(name);
}

/** `Node 22`, `Bun` or `Deno` from a unit report's name (no suffix: this script's Node.js). */
function runtimeOfReport(file) {
  const suffix = /-(node\d+|bun|deno)\.json$/.exec(file)?.[1];
  if (suffix === undefined) return `Node ${process.versions.node.split('.')[0]}`;
  if (suffix.startsWith('node')) return `Node ${suffix.slice(4)}`;
  return runtimeName(suffix);
}

/** Node majors in order, then the other runtimes by name. */
function runtimeOrder(a, b) {
  const na = a.startsWith('Node ') ? Number(a.slice(5)) : Number.POSITIVE_INFINITY;
  const nb = b.startsWith('Node ') ? Number(b.slice(5)) : Number.POSITIVE_INFINITY;
  return na !== nb ? na - nb : a < b ? -1 : a > b ? 1 : 0;
}

let passed = 0;
let failedTests = 0;
/**
 * Unit, property and regression tests per runtime: `unit-<pkg>[-node<major>|-bun|-deno].json`
 * (no suffix: the Node.js running this script).
 */
const byRuntime = new Map();
/** The real-broker smoke run per other runtime: `smoke-<runtime>.json`. */
const smokeByRuntime = new Map();
/** [file, report] of every vitest JSON report, for the Kafka matrix. */
const parsed = [];
if (existsSync(reports)) {
  for (const file of readdirSync(reports)) {
    if (!file.endsWith('.json')) continue;
    const report = JSON.parse(readFileSync(join(reports, file), 'utf8'));
    parsed.push([file, report]);
    passed += report.numPassedTests ?? 0;
    failedTests += report.numFailedTests ?? 0;
    if (file.startsWith('unit-')) {
      const runtime = runtimeOfReport(file);
      const cell = byRuntime.get(runtime) ?? { passed: 0, failed: 0 };
      cell.passed += report.numPassedTests ?? 0;
      cell.failed += report.numFailedTests ?? 0;
      byRuntime.set(runtime, cell);
    }
    if (file.startsWith('smoke-')) {
      smokeByRuntime.set(runtimeOfReport(file), {
        passed: report.numPassedTests ?? 0,
        failed: report.numFailedTests ?? 0,
      });
    }
  }
}
// Each failed test, so the last lines of a run (all a CI log may keep) say what failed; and each
// integration test that passed only on its retry, so a flaky test is never silent.
const { failures, retried } = testOutcomes(parsed, root);
process.stdout.write(
  '\nunit, property and regression tests by runtime (and the real-broker smoke run):\n',
);
const runtimes = [...new Set([...byRuntime.keys(), ...smokeByRuntime.keys()])].sort(runtimeOrder);
for (const runtime of runtimes) {
  const unit = byRuntime.get(runtime);
  const smoke = smokeByRuntime.get(runtime);
  const parts = [];
  if (unit !== undefined) parts.push(`${unit.passed} passed, ${unit.failed} failed`);
  if (smoke !== undefined)
    parts.push(`real-broker smoke: ${smoke.passed} passed, ${smoke.failed} failed`);
  process.stdout.write(`  ${runtime}: ${parts.join('; ')}\n`);
}
const kafkaMatrix = matrixCounts(parsed, releases.pinned);
if (kafkaMatrix.size > 0) {
  process.stdout.write(
    `\nintegration tests by Kafka release and suite (${releases.pinned}: every integration test; older releases: scripts/kafka-matrix.mjs):\n`,
  );
  for (const line of formatMatrix(kafkaMatrix)) process.stdout.write(`${line}\n`);
}
process.stdout.write('\nstep times:\n');
for (const [name, seconds] of timings)
  process.stdout.write(`  ${seconds.padStart(7)} s  ${name}\n`);
if (retried.length > 0) {
  process.stdout.write(`\npassed on a retry, first failure shown (${retried.length}):\n`);
  for (const line of retried) process.stdout.write(`  ${line}\n`);
}
if (failures.length > 0) {
  process.stdout.write(`\nfailed tests (${failures.length}):\n`);
  for (const line of failures) process.stdout.write(`  ${line}\n`);
}
if (failed.length > 0) process.stdout.write(`\nfailed steps: ${failed.join(', ')}\n`);
const onRetry = retried.length > 0 ? ` (${retried.length} on a retry)` : '';
process.stdout.write(`tests: ${passed} passed${onRetry}, ${failedTests} failed\n`);
process.exit(failed.length > 0 || failedTests > 0 ? 1 : 0);
