#!/usr/bin/env node
// `npm run conformance`: our codec against Apache Kafka's own serializers, and the AWS_MSK_IAM
// payload against AWS's own Java library. Builds what the suite imports, runs the vitest
// conformance config, and ends with exactly one line:
//   conformance: P/P (api, version, direction) byte-identical, R/R record-batch cases, M/M AWS_MSK_IAM payloads
// Each suite file writes its tally to a scratch directory; this script adds them up. The exit
// code is non-zero when vitest failed or any case did not pass.
// Knobs: KAFKATS_CONFORMANCE_SEED (printed every run), KAFKATS_CONFORMANCE_RUNS (default 50).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = mkdtempSync(join(tmpdir(), 'kafkats-conformance-'));

const build = spawnSync(
  'npx',
  [
    'tsc',
    '-b',
    'packages/codec',
    'packages/testkit',
    'packages/remote-log-metadata',
    'packages/sasl-aws-msk-iam',
  ],
  { cwd: root, stdio: 'inherit' },
);
const run =
  build.status === 0
    ? spawnSync(
        'npx',
        ['vitest', 'run', '--config', 'vitest.conformance.config.ts', ...process.argv.slice(2)],
        {
          cwd: root,
          stdio: 'inherit',
          env: { ...process.env, KAFKATS_CONFORMANCE_OUT: out },
        },
      )
    : build;

function tally(name) {
  const file = join(out, `${name}.json`);
  if (!existsSync(file)) return { passed: 0, total: 0, missing: true };
  return JSON.parse(readFileSync(file, 'utf8'));
}
const messages = tally('messages');
const records = tally('records');
const mskIam = tally('msk-iam');
rmSync(out, { recursive: true, force: true });

const ok =
  run.status === 0 &&
  !messages.missing &&
  !records.missing &&
  !mskIam.missing &&
  messages.total > 0 &&
  records.total > 0 &&
  mskIam.total > 0 &&
  messages.passed === messages.total &&
  records.passed === records.total &&
  mskIam.passed === mskIam.total;
process.stdout.write(
  `conformance: ${messages.passed}/${messages.total} (api, version, direction) byte-identical, ${records.passed}/${records.total} record-batch cases, ${mskIam.passed}/${mskIam.total} AWS_MSK_IAM payloads\n`,
);
process.exit(ok ? 0 : 1);
