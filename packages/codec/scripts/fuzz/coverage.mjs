// Block coverage from V8's precise coverage (the Profiler domain of `node:inspector`, in
// process): `startPreciseCoverage({ callCount: true, detailed: true })` counts every block,
// and each `takePreciseCoverage` returns the counts since the previous take and resets them.
//
// V8 reports a nested range only when its count differs from its parent's: a block run as
// often as its enclosing block is not listed at all, and a block not run is listed with
// count 0. So a block is known once it has been listed (with any count), and a known block
// that is not listed in a take ran exactly as often as the innermost listed range around it.
//
// Only Node's V8 has it: Bun's node:inspector Session answers nothing, and Deno's is a stub.
// There `available` is false and every take counts nothing, so the fuzzer still runs its
// mutations through the decoders, unguided (see fuzz.mjs).
import { Session } from 'node:inspector';
export class BlockCoverage {
  session = new Session();
  covered = new Set();
  /** By function key (url + function start): its known blocks not covered yet. */
  pending = new Map();
  include;
  /** @param include which scripts count (by URL): the decoders under test, not the fuzzer. */
  constructor(include) {
    this.include = include;
    try {
      this.session.connect();
      this.post('Profiler.enable');
      this.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
      this.available = Array.isArray(this.post('Profiler.takePreciseCoverage')?.result);
    } catch {
      this.available = false;
    }
  }
  /** Whether the runtime gives V8 precise coverage; false: nothing is ever counted. */
  available;
  /** Blocks (function bodies included) seen to run at least once. */
  get blocksCovered() {
    return this.covered.size;
  }
  /** Blocks known to exist in the functions that ran, covered or not. */
  get blocksKnown() {
    let n = this.covered.size;
    for (const p of this.pending.values()) n += p.length;
    return n;
  }
  /**
   * Reads (and resets) the counts since the last call and folds them in.
   * @param dryRun only count the new blocks, remember nothing (a batch of inputs whose
   *   finds are then attributed by running each input again)
   * @returns how many blocks ran for the first time
   */
  collect(dryRun = false) {
    const t0 = performance.now();
    try {
      return this.collectNow(dryRun);
    } finally {
      this.takes++;
      this.takeMs += performance.now() - t0;
    }
  }
  /** Takes so far, and the milliseconds they cost (the fuzzer's overhead). */
  takes = 0;
  takeMs = 0;
  collectNow(dryRun) {
    if (!this.available) return 0;
    const { result } = this.post('Profiler.takePreciseCoverage');
    let fresh = 0;
    for (const script of result) {
      if (!this.include(script.url)) continue;
      for (const fn of script.functions) {
        const ranges = fn.ranges;
        if (ranges.length === 0 || ranges[0].count === 0) {
          // Not called: remember its blocks so a later call can cover them.
          if (ranges.length > 0 && !dryRun) this.learn(script.url, ranges, false, true);
          continue;
        }
        fresh += this.learn(script.url, ranges, true, !dryRun);
      }
    }
    return fresh;
  }
  /** Folds one function's ranges in (`called` false: only learn its blocks). */
  learn(url, ranges, called, commit) {
    const fnKey = `${url}@${ranges[0].startOffset}`;
    let pending = this.pending.get(fnKey);
    if (pending === undefined) {
      pending = [];
      this.pending.set(fnKey, pending);
    }
    let fresh = 0;
    const listed = new Set();
    for (const r of ranges) {
      const key = `${fnKey}:${r.startOffset}-${r.endOffset}`;
      listed.add(key);
      if (this.covered.has(key)) continue;
      if (called && r.count > 0) {
        fresh++;
        if (!commit) continue;
        this.covered.add(key);
        const i = pending.findIndex(([s, e]) => s === r.startOffset && e === r.endOffset);
        if (i >= 0) pending.splice(i, 1);
      } else if (commit && !pending.some(([s, e]) => s === r.startOffset && e === r.endOffset)) {
        pending.push([r.startOffset, r.endOffset]);
      }
    }
    if (!called) return 0;
    // Known blocks not listed this time ran as often as the innermost listed range around them.
    for (let i = pending.length - 1; i >= 0; i--) {
      const [s, e] = pending[i];
      const key = `${fnKey}:${s}-${e}`;
      if (listed.has(key)) continue;
      let count = 0;
      let width = Number.POSITIVE_INFINITY;
      for (const r of ranges) {
        if (r.startOffset <= s && r.endOffset >= e && r.endOffset - r.startOffset < width) {
          width = r.endOffset - r.startOffset;
          count = r.count;
        }
      }
      if (count > 0) {
        fresh++;
        if (!commit) continue;
        this.covered.add(key);
        pending.splice(i, 1);
      }
    }
    return fresh;
  }
  stop() {
    if (!this.available) return;
    this.post('Profiler.stopPreciseCoverage');
    this.post('Profiler.disable');
    this.session.disconnect();
  }
  post(method, params) {
    let out;
    let error = null;
    // An in-process session answers synchronously.
    this.session.post(method, params ?? {}, (e, r) => {
      error = e;
      out = r;
    });
    if (error !== null) throw error;
    return out;
  }
}
