// The coverage-guided fuzzer (scripts/fuzz) on a fixed budget, in its check mode: the whole
// committed corpus (fixtures/fuzz/, grown by long runs) and a fixed number of mutations of it at
// a fixed seed through every decoder, so a run is reproducible. Long runs, which grow the
// corpus: `npm run fuzz -- --seconds N`.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cli = join(root, 'scripts', 'fuzz', 'fuzz.mjs');

/**
 * V8 precise coverage through node:inspector is Node's alone (Bun's Session answers nothing,
 * Deno's is a stub); elsewhere the check runs its mutations unguided.
 */
const hasV8Coverage = !process.versions.bun && !('Deno' in globalThis);

/** Mutated inputs per `npm test` run (a few seconds of CPU). */
const BUDGET = Number(process.env.KAFKATS_FUZZ_INPUTS ?? '20000');

function spawnFuzz(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

function fuzzCli(args: string[]): string {
  const run = spawnFuzz(args);
  if (run.status !== 0 && !args.includes('--json')) {
    throw new Error(`fuzz.mjs ${args.join(' ')} exited ${run.status}:\n${run.stderr}`);
  }
  return run.stdout;
}

describe('coverage-guided fuzzing of every decoder', () => {
  it('targets every generated message at every version, the framed remote-log-metadata value and the record reader', () => {
    const listed = fuzzCli(['--list-targets']).trim().split('\n');
    const expected: string[] = [];
    for (const c of MESSAGE_CODECS) {
      for (let v = c.minVersion; v <= c.maxVersion; v++) expected.push(`${c.name} v${v}`);
    }
    expected.push('remote-log-metadata value', 'records', 'records, CRC unchecked');
    expect([...listed].sort()).toEqual(expected.sort());
  });

  it(`runs ${BUDGET} mutated inputs without a decoder throwing anything but a KafkaError`, () => {
    const out = fuzzCli(['--check', '--inputs', String(BUDGET), '--seed', '20260505', '--json']);
    const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
      inputs: number;
      seedsRun: number;
      targets: number;
      blocksCovered: number;
      coverage: boolean;
      crashers: { target: string; input: string; problem: string }[];
    };
    expect(summary.crashers).toEqual([]);
    expect(summary.inputs).toBe(BUDGET);
    // The committed corpus ran too (fixtures/fuzz/*.txt: over a thousand entries).
    expect(summary.seedsRun).toBeGreaterThan(1000);
    // Every target started from a committed seed or the empty input.
    expect(summary.targets).toBe(
      MESSAGE_CODECS.reduce((n, c) => n + c.maxVersion - c.minVersion + 1, 0) + 3,
    );
    expect(summary.coverage).toBe(hasV8Coverage);
    if (hasV8Coverage) expect(summary.blocksCovered).toBeGreaterThan(0);
  }, 600_000);

  it.skipIf(hasV8Coverage)(
    'refuses to grow the corpus on a runtime without V8 precise coverage, naming it',
    () => {
      const run = spawnFuzz(['--inputs', '10', '--fresh']);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /(Bun|Deno) \S+ gives no V8 precise coverage through node:inspector/,
      );
    },
  );
});
