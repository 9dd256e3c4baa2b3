/**
 * The shared tinybench harness of the codec and records suites: one group of tasks over the
 * same logical input, the first task being kafkats', printed as one table row per task.
 */
import { Bench } from 'tinybench';

/** Name of the memcpy-of-the-same-bytes task; a group that has one gets a `vs floor` column. */
export const FLOOR = 'memcpy (floor)';

/** One printed row. */
export interface Row {
  task: string;
  'µs/op': string;
  'ops/s': string;
  'MB/s': string;
  /** Task time / the group's first (kafkats) task time: above 1 is slower than kafkats. */
  'vs kafkats': string;
  /** Task time / the floor's time, when the group has a floor task. */
  'vs floor'?: string;
}

/**
 * Runs one group and returns its rows. `smoke` runs each task 3 times (CI proves the suite
 * still runs; the figures mean nothing). A task that throws fails the whole run.
 * @param bytesPerOp logical bytes one call handles, for MB/s (0: no MB/s column value)
 */
export async function runGroup(
  title: string,
  smoke: boolean,
  bytesPerOp: number,
  tasks: [string, () => unknown][],
  timing: { timeMs: number; warmupMs: number } = { timeMs: 500, warmupMs: 150 },
): Promise<Row[]> {
  const bench = new Bench(
    smoke
      ? { iterations: 3, time: 0, warmup: false }
      : { time: timing.timeMs, warmupTime: timing.warmupMs },
  );
  for (const [name, fn] of tasks) bench.add(name, fn);
  await bench.run();
  const means = bench.tasks.map((t) => {
    const r = t.result;
    if (r.state === 'errored') throw new Error(`${title} / ${t.name}: ${String(r.error)}`);
    return r.state === 'completed' ? r.latency.mean : Number.NaN;
  });
  const ours = means[0]!;
  // The floor's own ratio to kafkats rounds to 0.00; the reader wants the converse, how many
  // memcpys of the same bytes each task costs.
  const floorIndex = bench.tasks.findIndex((t) => t.name === FLOOR);
  const floor = floorIndex < 0 ? undefined : means[floorIndex];
  return bench.tasks.map((t, i) => {
    const ms = means[i]!;
    const row: Row = {
      task: `${title}: ${t.name}`,
      'µs/op': (ms * 1000).toFixed(1),
      'ops/s': (1000 / ms).toFixed(0),
      'MB/s': bytesPerOp > 0 ? (bytesPerOp / 1e6 / (ms / 1000)).toFixed(0) : '',
      'vs kafkats': i === 0 ? '1.00' : (ms / ours).toFixed(2),
    };
    if (floor !== undefined) row['vs floor'] = (ms / floor).toFixed(1);
    return row;
  });
}
