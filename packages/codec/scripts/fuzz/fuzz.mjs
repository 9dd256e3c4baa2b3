#!/usr/bin/env node
// `npm run fuzz -- [--seconds N | --inputs N] [--seed N] [--fresh] [--json] [--list-targets]`
//
// Runs the coverage-guided fuzzer over every decoder of the built codec (`dist/`: run
// `npm run build` first). Starts from the committed corpus (`fixtures/fuzz/`) plus, for long
// runs, what earlier runs found (`.kafkats/fuzz/corpus.txt`, unless --fresh), and writes the
// corpus back there. Prints progress every 30 s and a summary; exits 1 when a decoder broke
// its contract, with the inputs in `.kafkats/fuzz/crashers.txt`.
//
//   --seconds N     stop after N seconds (default 60 unless --inputs is given)
//   --inputs N      stop after N mutated inputs (the seeds are not counted)
//   --seed N        the mutator's seed (default: the clock); a run is reproducible by seed
//                   and budget in inputs
//   --fresh         start from the committed corpus only, and write nothing back
//   --check         a short check (what `npm test` runs): the committed corpus and N
//                   mutations of it through every decoder, counting blocks but growing no
//                   corpus (no coverage take is spent on finding which input reached what)
//   --json          end with one JSON line: { inputs, seedsRun, corpus, blocksCovered,
//                   coverage (false where the runtime gives no V8 precise coverage), ... }
//   --list-targets  print the target names and exit
//   --distill       fold the corpus of earlier runs into the committed one: keep, from the
//                   smallest up, the entries that reach blocks the seeds and the entries
//                   before them do not, and write them to fixtures/fuzz/corpus.txt
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BlockCoverage } from './coverage.mjs';
import { distill, FIXTURES, fuzz, readCorpusFile, WORK_DIR, writeCorpusFile } from './engine.mjs';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string' },
    inputs: { type: 'string' },
    seed: { type: 'string' },
    fresh: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'list-targets': { type: 'boolean', default: false },
    distill: { type: 'boolean', default: false },
  },
});

/** Only the codec's own code counts as coverage (not the fuzzer itself). */
const isCodec = (/** @type {string} */ url) => url.replaceAll('\\', '/').includes('/codec/dist/');

// Coverage first: V8 counts blocks only in code compiled after precise coverage is on.

const coverage = new BlockCoverage(isCodec);
const codec = await import('../../dist/index.js');
const { fuzzTargets } = await import('./targets.mjs');
const targets = fuzzTargets(codec);
const log = (/** @type {string} */ line) => process.stderr.write(`fuzz: ${line}\n`);
const deno = /** @type {{ Deno?: { version: { deno: string } } }} */ (globalThis).Deno;
const runtime = process.versions.bun
  ? `Bun ${process.versions.bun}`
  : deno
    ? `Deno ${deno.version.deno}`
    : `Node ${process.versions.node}`;

/** @returns {number} the exit code */
function main() {
  if (args['list-targets']) {
    for (const t of targets) process.stdout.write(`${t.id}\n`);
    return 0;
  }
  if (!coverage.available && !args.check) {
    // Growing or distilling a corpus is choosing inputs by the blocks they reach.
    log(
      `${runtime} gives no V8 precise coverage through node:inspector; only --check and ` +
        '--list-targets run here (unguided). Grow or distill the corpus on Node.',
    );
    return 2;
  }
  if (!coverage.available) {
    log(`${runtime} gives no V8 precise coverage: the check mutates the corpus unguided`);
  }
  return args.distill ? runDistill() : runFuzz();
}

const maxInputs = args.inputs === undefined ? undefined : Number(args.inputs);
const seconds =
  args.seconds === undefined ? (maxInputs === undefined ? 60 : undefined) : Number(args.seconds);
const rngSeed = args.seed === undefined ? Date.now() % 2 ** 31 : Number(args.seed);
const save = !args.fresh && !args.check && maxInputs === undefined;

const valid = [
  ...readCorpusFile(join(FIXTURES, 'messages.txt')),
  ...readCorpusFile(join(FIXTURES, 'records.txt')),
];
const found = readCorpusFile(join(FIXTURES, 'corpus.txt'));
const crashers = readCorpusFile(join(FIXTURES, 'crashers.txt'));
const saved = args.fresh || args.check ? [] : readCorpusFile(join(WORK_DIR, 'corpus.txt'));

function runDistill() {
  const kept = distill({
    targets,
    base: valid,
    candidates: [...found, ...crashers, ...saved],
    coverage,
    isTypedError: (e) => e instanceof codec.KafkaError,
  });
  writeCorpusFile(
    join(FIXTURES, 'corpus.txt'),
    kept,
    '# Inputs the fuzzer found (target<TAB>base64) that reach blocks the seeds do not;\n' +
      '# rewritten by `npm run fuzz -- --distill` from the corpus of earlier runs.\n',
  );
  log(
    `distilled ${found.length + crashers.length + saved.length} entries to ${kept.length} ` +
      `(blocks covered ${coverage.blocksCovered})`,
  );
  return 0;
}

function runFuzz() {
  const seeds = [...valid, ...found];
  log(
    `seed ${rngSeed}; ${targets.length} targets; ${seeds.length} committed seeds, ` +
      `${crashers.length} kept crashers, ${saved.length} entries from earlier runs; ` +
      (seconds === undefined ? `${maxInputs} inputs` : `${seconds} s`),
  );

  const result = fuzz({
    targets,
    seeds: [...seeds, ...crashers, ...saved],
    isTypedError: (e) => e instanceof codec.KafkaError,
    coverage,
    rngSeed,
    maxInputs,
    seconds,
    growCorpus: !args.check,
    log,
    logEverySeconds: 30,
  });
  coverage.stop();

  if (save) writeCorpusFile(join(WORK_DIR, 'corpus.txt'), result.corpus);
  if (result.crashers.length > 0) {
    writeCorpusFile(
      join(WORK_DIR, 'crashers.txt'),
      result.crashers.map((c) => ({ target: c.target, input: c.input })),
    );
  }
  log(
    `done: ${result.inputs} inputs (+${result.seedsRun} seeds) in ${result.seconds.toFixed(1)} s ` +
      `over ${result.targetsRun} targets; corpus ${result.corpus.length}; blocks covered ` +
      `${result.blocksCovered} of ${result.blocksKnown} seen; crashers ${result.crashers.length}`,
  );
  for (const c of result.crashers) {
    log(`crasher ${c.target}: ${c.problem}\n  ${c.input.toString('base64')}\n${c.where}`);
  }
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({
        inputs: result.inputs,
        seedsRun: result.seedsRun,
        corpus: result.corpus.length,
        targets: result.targetsRun,
        blocksCovered: result.blocksCovered,
        blocksKnown: result.blocksKnown,
        coverage: coverage.available,
        seconds: result.seconds,
        crashers: result.crashers.map((c) => ({
          target: c.target,
          input: c.input.toString('base64'),
          problem: c.problem,
        })),
      })}\n`,
    );
  }
  return result.crashers.length > 0 ? 1 : 0;
}

// The process ends by itself, not by process.exit(): written to a pipe, stdout is
// asynchronous, and an exit right after a write cut the output short (the target list, on
// Node 24, and on Bun even after the write's callback had run). Deno 2.9 is the exception: its
// writes to a pipe are done when they return, and a Deno process left to end by itself here
// crashed with SIGSEGV after its last line in about a third of the runs (the exit code lost),
// which an explicit exit never did (0 of 60 runs, the target list whole in 20 of 20).
const code = main();
if (deno) process.exit(code);
process.exitCode = code;
