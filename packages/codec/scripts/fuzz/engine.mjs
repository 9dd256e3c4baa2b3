// A coverage-guided fuzzer for the codec's decoders, in the manner of libFuzzer: keep a
// corpus per target, mutate an entry, run the decoder, and keep the input when it made V8
// count a block that no earlier input reached.
//
// The invariant every decoder must keep, whatever the bytes: return, or throw a KafkaError
// (CodecError, RecordBatchError); never another exception (TypeError, RangeError, ...),
// never a result larger than the input allows (FuzzTarget.maxUnits), never a hang (a
// watchdog thread kills the process and writes the input down when one decode stalls).
//
// Coverage is read in batches: while nothing new turns up the fuzzer runs up to 256 inputs per
// take of V8's counters (a take costs milliseconds); when a batch reached new blocks, its
// halves run again, recursively, to find the inputs that did.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mutate, Rng } from './mutate.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** The committed corpus (seeds and kept crashers). */
export const FIXTURES = join(here, '..', '..', 'fixtures', 'fuzz');
/** Where long runs keep what they found (not committed). */
export const WORK_DIR = join(here, '..', '..', '..', '..', '.kafkats', 'fuzz');
/** Reads `target<TAB>base64` lines; `#` starts a comment. */
export function readCorpusFile(file) {
  if (!existsSync(file)) return [];
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [target, b64] = line.split('\t');
    if (target === undefined || b64 === undefined) continue;
    out.push({ target, input: Buffer.from(b64, 'base64') });
  }
  return out;
}
export function writeCorpusFile(file, entries, header = '') {
  mkdirSync(dirname(file), { recursive: true });
  const lines = entries.map((e) => `${e.target}\t${e.input.toString('base64')}`);
  writeFileSync(file, `${header}${lines.join('\n')}\n`);
}
/**
 * Runs one input through a target and checks the invariant.
 * @returns null when the decoder kept it, else what went wrong
 */
export function check(target, input, isTypedError) {
  let units;
  try {
    units = target.run(input);
  } catch (e) {
    if (isTypedError(e)) return null;
    const err = e instanceof Error ? e : new Error(String(e));
    return {
      problem: `${err.name}: ${err.message}`,
      where: (err.stack ?? '').split('\n').slice(1, 6).join('\n'),
    };
  }
  const max = target.maxUnits(input.length);
  if (units > max) {
    return {
      problem: `decoded ${units} units from ${input.length} bytes (at most ${max} allowed)`,
      where: '',
    };
  }
  return null;
}
const MAX_BATCH = 256;

/**
 * @typedef {import('./targets.mjs').FuzzTarget} FuzzTarget
 * @typedef {import('./coverage.mjs').BlockCoverage} BlockCoverage
 * @typedef {{ target: string, input: Buffer }} CorpusEntry
 * @typedef {{ target: string, input: Buffer, problem: string, where: string }} Crasher
 */

/**
 * The fuzz loop.
 * @param {object} o
 * @param {readonly FuzzTarget[]} o.targets
 * @param {readonly CorpusEntry[]} o.seeds run first and all kept
 * @param {(e: unknown) => boolean} o.isTypedError the errors a decoder may throw (KafkaError)
 * @param {BlockCoverage} o.coverage started before the decoders' modules were imported
 * @param {number} o.rngSeed
 * @param {number} [o.maxInputs] stop after this many mutated inputs (seeds not counted)
 * @param {number} [o.seconds] stop after this many seconds
 * @param {boolean} [o.growCorpus] false: count new blocks but keep no input (short runs
 *   whose corpus is thrown away: no coverage take is spent on finding the input); default true
 * @param {number} [o.hangMs] a decode running longer is a hang (default 60 s)
 * @param {(line: string) => void} [o.log] progress lines
 * @param {number} [o.logEverySeconds]
 * @returns {{ inputs: number, seedsRun: number, corpus: CorpusEntry[], blocksCovered: number,
 *   blocksKnown: number, crashers: Crasher[], seconds: number, targetsRun: number }}
 */
export function fuzz(o) {
  const started = performance.now();
  const deadline = o.seconds === undefined ? Number.POSITIVE_INFINITY : started + o.seconds * 1000;
  const maxInputs = o.maxInputs ?? Number.POSITIVE_INFINITY;
  const rng = new Rng(o.rngSeed);
  const byId = new Map(o.targets.map((t) => [t.id, t]));
  const corpus = new Map();
  const entries = [];
  const crashers = new Map();
  const cov = o.coverage;
  const watchdog = new Watchdog(o.hangMs ?? 60_000);
  const run = (t, input) => {
    watchdog.enter(t.id, input);
    const bad = check(t, input, o.isTypedError);
    if (bad !== null) {
      const key = `${bad.problem.replace(/\d+/g, 'N')}\n${bad.where.split('\n')[0] ?? ''}`;
      if (!crashers.has(key)) {
        crashers.set(key, { target: t.id, input: Buffer.from(input), ...bad });
        o.log?.(`CRASHER ${t.id}: ${bad.problem}\n  ${input.toString('base64')}\n${bad.where}`);
      }
    }
  };
  const keep = (target, input) => {
    let list = corpus.get(target);
    if (list === undefined) {
      list = [];
      corpus.set(target, list);
    }
    list.push(input);
    entries.push({ target, input });
  };
  /**
   * Finds the inputs of a batch that reached new blocks: run each half again and look
   * (without remembering), recursing into the halves that reached some; a single input that
   * did is kept and its blocks remembered.
   */
  const attribute = (part) => {
    if (part.length === 1) {
      const [bt, bi] = part[0];
      run(bt, bi);
      if (cov.collect() > 0) keep(bt.id, bi);
      return;
    }
    const mid = part.length >> 1;
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      for (const [bt, bi] of half) run(bt, bi);
      if (cov.collect(true) > 0) attribute(half);
    }
  };
  try {
    // Seeds: every one is kept (the committed corpus is already small), then counted.
    cov.collect();
    let seedsRun = 0;
    for (const s of o.seeds) {
      const t = byId.get(s.target);
      if (t === undefined) continue;
      run(t, s.input);
      keep(s.target, s.input);
      seedsRun++;
    }
    // Targets without a seed start from the empty input.
    for (const t of o.targets) if (!corpus.has(t.id)) keep(t.id, Buffer.alloc(0));
    cov.collect();
    const targetIds = [...corpus.keys()];
    let inputs = 0;
    let batchSize = 1;
    let batch = [];
    let nextLog = started + (o.logEverySeconds ?? 30) * 1000;
    const report = () =>
      o.log?.(
        `${((performance.now() - started) / 1000).toFixed(0)} s: ${inputs} inputs ` +
          `(${Math.round(inputs / ((performance.now() - started) / 1000))}/s), corpus ${entries.length}, ` +
          `blocks ${cov.blocksCovered} covered of ${cov.blocksKnown} seen, crashers ${crashers.size}; ` +
          `${cov.takes} coverage takes (${(cov.takeMs / 1000).toFixed(1)} s)`,
      );
    const growCorpus = () => {
      const fresh = cov.collect(batch.length > 1);
      if (fresh > 0 && batch.length > 1) {
        attribute(batch);
        batchSize = Math.max(1, batchSize >> 2);
      } else if (fresh > 0) {
        const [bt, bi] = batch[0];
        keep(bt.id, bi);
      } else {
        batchSize = Math.min(MAX_BATCH, batchSize * 2);
      }
    };
    while (inputs < maxInputs) {
      // Choose: a random target (every decoder gets its turn), a random entry (productive
      // targets have more), or a recent find.
      const pick = rng.below(100);
      let target;
      let base;
      if (pick < 40) {
        target = targetIds[rng.below(targetIds.length)];
        const list = corpus.get(target);
        base = list[rng.below(list.length)];
      } else {
        const from = pick < 75 ? 0 : Math.max(0, entries.length - 64);
        const e = entries[from + rng.below(entries.length - from)];
        target = e.target;
        base = e.input;
      }
      // Now and then, a neighbouring version of the same message.
      if (rng.chance(0.05)) target = neighbour(target, rng, byId) ?? target;
      const t = byId.get(target);
      const list = corpus.get(target) ?? [base];
      const input = mutate(rng, base, list[rng.below(list.length)], t.maxLength);
      run(t, input);
      inputs++;
      batch.push([t, input]);
      if (batch.length >= batchSize) {
        if (o.growCorpus === false) {
          // Count the blocks, keep nothing: no take is spent on finding which input did it.
          cov.collect();
          batchSize = MAX_BATCH;
        } else {
          growCorpus();
        }
        batch = [];
        const now = performance.now();
        if (now >= deadline) break;
        if (now >= nextLog) {
          report();
          nextLog = now + (o.logEverySeconds ?? 30) * 1000;
        }
      }
    }
    report();
    return {
      inputs,
      seedsRun,
      corpus: entries,
      blocksCovered: cov.blocksCovered,
      blocksKnown: cov.blocksKnown,
      crashers: [...crashers.values()],
      seconds: (performance.now() - started) / 1000,
      targetsRun: corpus.size,
    };
  } finally {
    watchdog.stop();
  }
}
/** `FetchRequest v12` -> `FetchRequest v11` or `v13` when that target exists. */
function neighbour(id, rng, byId) {
  const m = / v(\d+)$/.exec(id);
  if (m === null) return undefined;
  const v = Number(m[1]) + (rng.chance(0.5) ? 1 : -1);
  const other = `${id.slice(0, m.index)} v${v}`;
  return byId.has(other) ? other : undefined;
}
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { sab, hangMs, outFile } = workerData;
const head = new Int32Array(sab, 0, 4);
const bytes = new Uint8Array(sab, 16);
let last = -1;
let since = Date.now();
setInterval(() => {
  const seq = Atomics.load(head, 0);
  if (seq !== last || Atomics.load(head, 1) === 0) { last = seq; since = Date.now(); return; }
  if (Date.now() - since < hangMs) return;
  const targetLength = head[2];
  const target = Buffer.from(bytes.subarray(0, targetLength)).toString();
  const input = Buffer.from(bytes.subarray(targetLength, targetLength + head[3])).toString('base64');
  try {
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.appendFileSync(outFile, target + '\\t' + input + '\\n');
  } catch {}
  fs.writeSync(2, '\\nfuzz: one decode ran for more than ' + hangMs + ' ms (a hang): ' + target + ' ' + input + '\\nkept in ' + outFile + '\\n');
  process.kill(process.pid, 'SIGKILL');
}, 250);
`;
const MAX_WATCHED = 64 * 1024 + 1024;
/**
 * A thread that watches the fuzz loop: before each decode the loop writes the target and input
 * into shared memory and bumps a counter; when the counter stands still for `hangMs` while the
 * loop is active, the thread writes the input to `.kafkats/fuzz/hangs.txt` and stderr (the main
 * thread is stuck, so it writes the file descriptor directly) and kills the process.
 */
class Watchdog {
  head;
  bytes;
  worker;
  constructor(hangMs) {
    const sab = new SharedArrayBuffer(16 + MAX_WATCHED);
    this.head = new Int32Array(sab, 0, 4);
    this.bytes = new Uint8Array(sab, 16);
    this.worker = new Worker(WATCHDOG_SOURCE, {
      eval: true,
      workerData: { sab, hangMs, outFile: join(WORK_DIR, 'hangs.txt') },
    });
    this.worker.unref();
    Atomics.store(this.head, 1, 1);
  }
  enter(target, input) {
    const t = Buffer.from(target);
    const n = Math.min(input.length, MAX_WATCHED - t.length);
    this.bytes.set(t, 0);
    this.bytes.set(input.subarray(0, n), t.length);
    this.head[2] = t.length;
    this.head[3] = n;
    Atomics.add(this.head, 0, 1);
  }
  stop() {
    Atomics.store(this.head, 1, 0);
    void this.worker.terminate();
  }
}

/**
 * libFuzzer's merge: replays `base` (all kept), then `candidates` from the smallest up, and
 * returns the candidates that reach blocks nothing before them reached. Used to fold what a
 * long run found into the committed corpus without growing it more than needed.
 * @param {{ targets: readonly FuzzTarget[], base: readonly CorpusEntry[],
 *   candidates: readonly CorpusEntry[], coverage: BlockCoverage,
 *   isTypedError: (e: unknown) => boolean }} o
 * @returns {CorpusEntry[]}
 */
export function distill(o) {
  const byId = new Map(o.targets.map((t) => [t.id, t]));
  const cov = o.coverage;
  const exec = (/** @type {CorpusEntry} */ e) => {
    const t = byId.get(e.target);
    if (t !== undefined) check(t, e.input, o.isTypedError);
  };
  cov.collect();
  for (const e of o.base) exec(e);
  cov.collect();
  /** @type {CorpusEntry[]} */
  const kept = [];
  const attribute = (/** @type {CorpusEntry[]} */ part) => {
    if (part.length === 1) {
      exec(part[0]);
      if (cov.collect() > 0) kept.push(part[0]);
      return;
    }
    const mid = part.length >> 1;
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      for (const e of half) exec(e);
      if (cov.collect(true) > 0) attribute(half);
    }
  };
  const sorted = [...o.candidates].sort((a, b) => a.input.length - b.input.length);
  for (let i = 0; i < sorted.length; i += 32) {
    const part = sorted.slice(i, i + 32);
    for (const e of part) exec(e);
    if (cov.collect(true) > 0) attribute(part);
  }
  return kept.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}
