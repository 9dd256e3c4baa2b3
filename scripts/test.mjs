#!/usr/bin/env node
// `npm test`: everything CI checks, in order, on a fresh clone after `npm ci`.
// Each step runs to completion; the run fails if any step failed. Tests that need Kafka start
// it themselves (the testkit assembles the pinned release from Maven Central) and fail, never
// skip, when it cannot start. The last line is the total of every vitest run:
//   `tests: N passed, N failed`
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, '.kafkats', 'reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

/**
 * turbo filters for the packages that have unit, property or regression tests: vitest refuses
 * to pass with no tests (`passWithNoTests: false`), and a package without tests yet is not a
 * failure. A package joins the step as soon as its first test file lands.
 */
function packagesWithUnitTests() {
  const hasTest = (dir) =>
    existsSync(dir) &&
    readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.test.ts'));
  const filters = [];
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', name);
    if (!existsSync(join(dir, 'package.json'))) continue;
    if (['unit', 'property', 'regressions'].some((area) => hasTest(join(dir, 'test', area)))) {
      filters.push(`--filter=${JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name}`);
    }
  }
  return filters;
}

/** [name, command, args]; steps that only report (benchmarks) never fail the run on a figure. */
const steps = [
  ['kafka distribution', 'node', ['packages/testkit/bin/kafka-dist.mjs']],
  ['build', 'npx', ['turbo', 'run', 'build', '--output-logs=errors-only']],
  // Regenerates the codec from the pinned schemas in memory and fails on any difference.
  ['generated code is fresh', 'npm', ['run', 'codegen:check']],
  ['generated error table is current', 'npm', ['run', 'codegen:errors:check']],
  ['typecheck tests (src + test per package)', 'node', ['scripts/typecheck-tests.mjs']],
  ['lint', 'npx', ['biome', 'check', '.']],
  ['layering', 'node', ['scripts/check-layers.mjs']],
  ['publishable packages (npm pack, publint, attw)', 'node', ['scripts/check-packages.mjs']],
  [
    'unit, property and regression tests',
    'npx',
    ['turbo', 'run', 'test', '--concurrency=1', ...packagesWithUnitTests()],
  ],
  ['repo script tests', 'npx', ['vitest', 'run', '--config', 'scripts/vitest.config.ts']],
  ['conformance against Kafka Java serializers', 'npm', ['run', 'conformance']],
  [
    'integration tests (real Kafka)',
    'npx',
    ['vitest', 'run', '--config', 'vitest.integration.config.ts'],
  ],
  ['no Kafka JVM left behind', 'node', ['packages/testkit/bin/check-no-jvm.mjs']],
  ['benchmarks (smoke)', 'npm', ['run', 'bench:smoke', '-w', '@kafkats/benchmarks']],
];

const failed = [];
for (const [name, command, args] of steps) {
  const started = Date.now();
  process.stdout.write(`\n=== ${name}: ${command} ${args.join(' ')}\n`);
  const run = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, KAFKATS_REPORT_DIR: reports },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = run.status === 0;
  process.stdout.write(
    `=== ${name}: ${ok ? 'ok' : `FAILED (exit ${run.status ?? run.signal})`} in ${seconds}s\n`,
  );
  if (!ok) failed.push(name);
}

let passed = 0;
let failedTests = 0;
if (existsSync(reports)) {
  for (const file of readdirSync(reports)) {
    if (!file.endsWith('.json')) continue;
    const report = JSON.parse(readFileSync(join(reports, file), 'utf8'));
    passed += report.numPassedTests ?? 0;
    failedTests += report.numFailedTests ?? 0;
  }
}
if (failed.length > 0) process.stdout.write(`\nfailed steps: ${failed.join(', ')}\n`);
process.stdout.write(`tests: ${passed} passed, ${failedTests} failed\n`);
process.exit(failed.length > 0 || failedTests > 0 ? 1 : 0);
