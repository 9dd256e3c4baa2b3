/**
 * Message codec suite: Metadata response decode (1,000 topics x 10 partitions x RF 3), Fetch
 * response decode (10,000 records, every field read and kept) and Produce request encode
 * (1,000 records, framed), kafkats against kafkajs 2.2.4 and @platformatic/kafka 2.12.1 (their
 * own protocol modules) on the same input, each at the versions it speaks.
 *
 * Method: a child process first runs every contestant once and compares what each produced
 * (counts and a checksum of names, ids, keys, values, offsets, ...): a contestant that did
 * less work fails the run. Then, `runs` times over, every task (one contestant of one
 * workload) is timed in a child process of its own (`--expose-gc`), the tasks in an order
 * shuffled for each run, with a full GC before each timing, followed in the same process by
 * the task's heap-state timings (the same task with ~150 MB of live objects in the heap; the
 * Fetch task with each call's result dropped before the next call, where every other timing
 * keeps it through the next call; the Fetch task with its records kept in arrays grown from
 * empty instead of sized up front). A process per task, as JMH forks a JVM per benchmark, so
 * that no library's figures depend on which others ran before it in the same process; with
 * `--shared-process`, each run times every task in one process instead (the method of earlier
 * runs, kept to show that dependence).
 * Printed: median and min-max over the runs, the ratio of each kafkats task to the best peer
 * of its workload (above 1 = kafkats faster), and the load average before and after (the
 * machine may be shared).
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TimedResult } from './codec-child.js';
import { buildWorkloads, GROWN, type Summary } from './codec-workloads.js';
import { shuffle } from './seeded-random.js';

const run = promisify(execFile);
const child = join(dirname(fileURLToPath(import.meta.url)), 'codec-child.js');

async function runChild(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--expose-gc', child, ...args], {
    maxBuffer: 64 << 20,
  });
  return stdout;
}

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function fmt(us: number): string {
  return us >= 100 ? us.toFixed(0) : us.toFixed(1);
}

/**
 * Runs the codec suite and prints its tables. `smoke`: the self-check and one short timing
 * run (CI proves the suite runs and every contestant does the same work; figures mean nothing).
 */
/** A positive integer from the environment, else `fallback`; anything else is an error. */
function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

export async function runCodecSuite(
  smoke: boolean,
  options: { runs?: number; sharedProcess?: boolean } = {},
): Promise<void> {
  // 10 processes per task and timing windows of 1.5 s by default: fewer or shorter ones gave
  // medians that moved by more than the gaps they were meant to show. KAFKATS_BENCH_RUNS and
  // KAFKATS_BENCH_WINDOW_MS trade that for time when looking at one workload.
  const runs = options.runs ?? (smoke ? 1 : envInt('KAFKATS_BENCH_RUNS', 10));
  const shared = options.sharedProcess === true;
  // KAFKATS_BENCH_WORKLOADS=metadata,fetch-v17 times only the workloads whose id starts so.
  const only = (process.env.KAFKATS_BENCH_WORKLOADS ?? '').split(',').filter((x) => x !== '');
  const workloads = (await buildWorkloads()).filter(
    (w) => only.length === 0 || only.some((prefix) => w.id.startsWith(prefix)),
  );
  console.log('suite: codec: what each contestant does');
  console.table(
    workloads.flatMap((w) =>
      w.contestants.map((c) => ({ workload: w.id, contestant: c.name, does: c.does })),
    ),
  );

  // Self-check in a child: every contestant of a workload produced the same thing.
  const checks = JSON.parse(await runChild(['check'])) as Record<string, Record<string, Summary>>;
  for (const w of workloads) {
    const got = Object.entries(checks[w.id] ?? {});
    const want = JSON.stringify(got[0]?.[1]);
    for (const [name, s] of got) {
      if (JSON.stringify(s) !== want) {
        throw new Error(
          `codec suite: ${w.id}: ${name} produced ${JSON.stringify(s)}, ${got[0]![0]} produced ${want}`,
        );
      }
    }
    console.log(`self-check ${w.id}: ${got.length} contestants agree on ${want}`);
  }

  const loadBefore = load();
  const all: TimedResult[][] = [];
  const ms = smoke ? '0' : String(envInt('KAFKATS_BENCH_WINDOW_MS', 1500));
  for (let i = 0; i < runs; i++) {
    const seed = (Date.now() ^ (i * 0x9e3779b9)) >>> 0;
    if (shared) {
      all.push(JSON.parse(await runChild(['time', String(seed), ms])) as TimedResult[]);
      continue;
    }
    const tasks = shuffle(
      workloads.flatMap((w) => w.contestants.map((_, c) => [w.id, String(c)])),
      seed,
    );
    const results: TimedResult[] = [];
    for (const task of tasks) {
      results.push(
        ...(JSON.parse(await runChild(['time', String(seed), ms, ...task])) as TimedResult[]),
      );
    }
    all.push(results);
  }
  const loadAfter = load();

  const key = (workload: string, contestant: string, heap: string) =>
    `${workload}\u0000${contestant}\u0000${heap}`;
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (const results of all) {
    for (const r of results) {
      const k = key(r.workload, r.contestant, r.heap);
      if (!wall.has(k)) wall.set(k, []);
      if (!cpu.has(k)) cpu.set(k, []);
      wall.get(k)!.push(r.usPerOp);
      cpu.get(k)!.push(r.cpuUsPerOp);
    }
  }
  const rows: Record<string, string>[] = [];
  for (const w of workloads) {
    for (const heap of ['', 'filled heap', 'previous result released', GROWN]) {
      const peers = w.contestants.filter((c) => !c.ours && c.floor !== true && c.bound !== true);
      const best = (m: Map<string, number[]>) => {
        const xs = peers
          .map((c) => m.get(key(w.id, c.name, heap)))
          .filter((x): x is number[] => x !== undefined)
          .map(median);
        return xs.length > 0 ? Math.min(...xs) : undefined;
      };
      const bestWall = best(wall);
      const bestCpu = best(cpu);
      const floor = w.contestants.find((c) => c.floor === true);
      const floorSamples = floor === undefined ? undefined : wall.get(key(w.id, floor.name, heap));
      const floorUs = floorSamples === undefined ? undefined : median(floorSamples);
      for (const c of w.contestants) {
        const s = wall.get(key(w.id, c.name, heap));
        const sc = cpu.get(key(w.id, c.name, heap));
        if (s === undefined || sc === undefined) continue;
        const m = median(s);
        const mc = median(sc);
        const ratio = (b: number | undefined, x: number) =>
          c.floor === true || b === undefined ? '' : `${(b / x).toFixed(2)}x`;
        rows.push({
          workload: `${w.id}${heap === '' ? '' : ` (${heap})`}`,
          contestant: c.name,
          'wall µs/op median': fmt(m),
          'wall min-max': `${fmt(Math.min(...s))}-${fmt(Math.max(...s))}`,
          'cpu µs/op median': fmt(mc),
          'cpu min-max': `${fmt(Math.min(...sc))}-${fmt(Math.max(...sc))}`,
          'MB/s (wall)': (w.bytes / m).toFixed(0),
          'best peer / this (wall)': ratio(bestWall, m),
          'best peer / this (cpu)': ratio(bestCpu, mc),
          'this / memcpy': floorUs === undefined ? '' : (m / floorUs).toFixed(1),
        });
      }
    }
  }
  const method = shared
    ? 'every task of a run in one process (--shared-process)'
    : 'each task in a process of its own';
  console.log(
    `suite: codec: ${runs} run(s), timing windows of ${ms} ms, ${method}, median and min-max of the per-run means, wall clock and process CPU time (user + system, GC threads included; steadier than wall clock on a loaded machine); "best peer / this" above 1 = faster than the fastest peer of the workload (same heap state); load average before ${loadBefore}, after ${loadAfter}`,
  );
  console.table(rows);
}
