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
//   --json          end with one JSON line: { inputs, seedsRun, corpus, blocksCovered, ... }
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

/**
 * Exits once stdout is flushed: written to a pipe, stdout is asynchronous, and process.exit()
 * right after a write can cut the output short (the target list came out truncated on Node 24).
 */
async function exitFlushed(/** @type {number} */ code) {
  await new Promise((resolve) => process.stdout.write('', resolve));
  process.exit(code);
}

const coverage = new BlockCoverage(isCodec);
const codec = await import('../../dist/index.js');
const { fuzzTargets } = await import('./targets.mjs');
const targets = fuzzTargets(codec);

if (args['list-targets']) {
  for (const t of targets) process.stdout.write(`${t.id}\n`);
  await exitFlushed(0);
}

const maxInputs = args.inputs === undefined ? undefined : Number(args.inputs);
const seconds =
  args.seconds === undefined ? (maxInputs === undefined ? 60 : undefined) : Number(args.seconds);
const rngSeed = args.seed === undefined ? Date.now() % 2 ** 31 : Number(args.seed);
const save = !args.fresh && !args.check && maxInputs === undefined;
const log = (/** @type {string} */ line) => process.stderr.write(`fuzz: ${line}\n`);

const valid = [
  ...readCorpusFile(join(FIXTURES, 'messages.txt')),
  ...readCorpusFile(join(FIXTURES, 'records.txt')),
];
const found = readCorpusFile(join(FIXTURES, 'corpus.txt'));
const crashers = readCorpusFile(join(FIXTURES, 'crashers.txt'));
const saved = args.fresh || args.check ? [] : readCorpusFile(join(WORK_DIR, 'corpus.txt'));

if (args.distill) {
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
  await exitFlushed(0);
}

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
      seconds: result.seconds,
      crashers: result.crashers.map((c) => ({
        target: c.target,
        input: c.input.toString('base64'),
        problem: c.problem,
      })),
    })}\n`,
  );
}
await exitFlushed(result.crashers.length > 0 ? 1 : 0);
