/**
 * One process of the codec suite (started by `codec-suite.ts`, never by hand):
 *
 * - `check`: runs every contestant once and prints each one's {@link Summary} as JSON; the
 *   parent fails the run unless all non-floor contestants of a workload agree.
 * - `time <seed> <ms> <workload> <contestant>`: times one task (the contestant at that index
 *   of that workload) with a full `gc()` before it, then its heap-state tasks (the same task
 *   while a heap-filling structure is alive, for the Metadata v12 and Fetch v17 workloads;
 *   for Fetch v17, also with each call's result dropped before the next call instead of kept
 *   through it), and prints the results as JSON. The suite starts one process per task, as
 *   JMH forks a JVM per benchmark: what one library's code left in the process (the JIT's
 *   type feedback for shared builtins such as Buffer's constructor, V8's young-generation
 *   size and pretenuring decisions) cannot change another's figures.
 * - `time <seed> <ms>` (no task): every task in one process, in an order shuffled by `seed`,
 *   then every heap-state task: the suite's `--shared-process` method, kept to show how much
 *   the tasks run before one move its figure.
 *
 * Needs `--expose-gc`.
 */
import { buildWorkloads, GROWN, type Summary, setKeptGrowth } from './codec-workloads.js';
import { shuffle } from './seeded-random.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('codec-child needs node --expose-gc');

export interface TimedResult {
  workload: string;
  contestant: string;
  /**
   * '' for a clean heap, 'filled heap' or 'previous result released' for the heap-state
   * tasks.
   */
  heap: string;
  usPerOp: number;
  /** Process CPU time (user + system, all threads: GC helpers included) per call. */
  cpuUsPerOp: number;
  ops: number;
}

/**
 * Runs `fn` for at least `ms` (after a warm-up as long: the process is fresh, so the JIT and
 * the young generation's sizing start from nothing); returns µs per call. `ms` 0
 * (smoke) calls it once to warm up and once timed. Each call's result is kept until the next
 * call returns (nothing it built can be optimised away, and a caller that holds one batch
 * while it decodes the next looks the same); with `release`, it is dropped before the next
 * call starts.
 */
async function time(
  fn: () => unknown,
  ms: number,
  release = false,
): Promise<{ usPerOp: number; cpuUsPerOp: number; ops: number }> {
  const isAsync = fn() instanceof Promise;
  const run = async (budgetMs: number, minOps: number) => {
    let ops = 0;
    let sink: unknown;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const end = t0 + BigInt(Math.round(budgetMs * 1e6));
    let now = t0;
    do {
      if (release) sink = undefined;
      sink = isAsync ? await fn() : fn();
      ops++;
      now = process.hrtime.bigint();
    } while (now < end || ops < minOps);
    if (sink === Symbol.for('never')) console.log('');
    const cpu = process.cpuUsage(c0);
    return {
      usPerOp: Number(now - t0) / 1000 / ops,
      cpuUsPerOp: (cpu.user + cpu.system) / ops,
      ops,
    };
  };
  await run(ms, ms === 0 ? 0 : 2);
  return run(ms, ms === 0 ? 1 : 3);
}

/** About 150 MB of small live objects, the shape a long-lived consumer's heap has. */
function fillHeap(): unknown[] {
  const keep: unknown[] = [];
  for (let i = 0; i < 1_500_000; i++) keep.push({ i, s: `v${i}`, a: [i, i + 1] });
  return keep;
}

const [mode, seedArg, msArg] = process.argv.slice(2);
const workloads = await buildWorkloads();

if (mode === 'check') {
  const out: Record<string, Record<string, Summary>> = {};
  for (const w of workloads) {
    out[w.id] = {};
    for (const c of w.contestants) {
      if (c.summarize === undefined) continue;
      out[w.id]![c.name] = await c.summarize(await c.run());
    }
  }
  process.stdout.write(JSON.stringify(out));
} else if (mode === 'time') {
  const ms = Number(msArg);
  const [workloadArg, contestantArg] = process.argv.slice(5);
  let tasks = workloads.flatMap((w) => w.contestants.map((c) => ({ w, c })));
  if (workloadArg !== undefined) {
    const w = workloads.find((x) => x.id === workloadArg);
    const c = w?.contestants[Number(contestantArg)];
    if (w === undefined || c === undefined) {
      throw new Error(`codec-child: no task ${workloadArg} ${String(contestantArg)}`);
    }
    tasks = [{ w, c }];
  } else {
    shuffle(tasks, Number(seedArg));
  }
  const results: TimedResult[] = [];
  for (const { w, c } of tasks) {
    gc();
    const r = await time(c.run, ms);
    results.push({ workload: w.id, contestant: c.name, heap: '', ...r });
  }
  // Heap state: the Metadata v12 and Fetch v17 tasks again while ~150 MB of live objects
  // fill the old generation (each scavenge and mark then has more to walk).
  const one = workloadArg !== undefined;
  for (const id of ['metadata-v12', 'fetch-v17']) {
    const w = workloads.find((x) => x.id === id)!;
    const of = one ? tasks.filter((t) => t.w === w).map((t) => t.c) : w.contestants;
    // Smoke, all tasks in one process: one contestant, to prove the path runs.
    for (const c of ms === 0 && !one ? of.slice(0, 1) : of) {
      if (c.floor === true) continue;
      gc();
      let filler: unknown[] | undefined = fillHeap();
      const r = await time(c.run, ms);
      if (filler.length === 0) console.log('');
      filler = undefined;
      results.push({ workload: w.id, contestant: c.name, heap: 'filled heap', ...r });
    }
  }
  // The Fetch tasks again, in two more heap states:
  // - each result dropped before the next call: the young generation's size against what a
  //   call allocates and keeps decides where in a call each scavenge falls, and with it how
  //   much of two calls' results it must copy;
  // - the kept records pushed into arrays grown from empty, as the suite kept them before it
  //   sized them up front: the harness's own garbage then moves each contestant's figure by
  //   where its scavenges fall (see `Kept` in codec-workloads.ts).
  const fetch = workloads.find((x) => x.id === 'fetch-v17')!;
  const of = one ? tasks.filter((t) => t.w === fetch).map((t) => t.c) : fetch.contestants;
  for (const variant of [
    { heap: 'previous result released', release: true, grow: false },
    { heap: GROWN, release: false, grow: true },
  ]) {
    for (const c of ms === 0 && !one ? of.slice(0, 1) : of) {
      if (c.floor === true) continue;
      gc();
      setKeptGrowth(variant.grow);
      const r = await time(c.run, ms, variant.release);
      setKeptGrowth(false);
      results.push({ workload: fetch.id, contestant: c.name, heap: variant.heap, ...r });
    }
  }
  process.stdout.write(JSON.stringify(results));
} else {
  throw new Error(`codec-child: unknown mode ${String(mode)}`);
}
