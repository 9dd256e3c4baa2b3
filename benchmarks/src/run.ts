/**
 * Benchmark entry point: runs every suite and prints its table. `--smoke` runs each task a
 * handful of times so CI proves the suites still run; its figures mean nothing.
 * `--shared-process`: the codec suite times all of a run's tasks in one process instead of
 * one process per task (see `codec-suite.ts`).
 */
import { Bench } from 'tinybench';
import { runClientSuite } from './client-suite.js';
import { runCodecSuite } from './codec-suite.js';
import { runCompressionSuite } from './compression-suite.js';
import { runRecordsSuite } from './records-suite.js';
import { runRlmmSuite } from './rlmm-suite.js';
import { runWireSuite } from './wire-suite.js';

const smoke = process.argv.includes('--smoke');
/** `--suite <name>` runs one suite (plus the floor). */
const suiteArg = process.argv.indexOf('--suite');
const only = suiteArg >= 0 ? process.argv[suiteArg + 1] : undefined;

async function memcpyFloor(): Promise<void> {
  const source = Buffer.alloc(1 << 20, 7);
  const target = Buffer.alloc(1 << 20);
  const bench = new Bench(smoke ? { iterations: 5, time: 0, warmup: false } : { time: 500 });
  bench.add('memcpy 1 MiB (floor)', () => {
    source.copy(target);
  });
  await bench.run();
  console.log('suite: floor');
  console.table(bench.table());
}

await memcpyFloor();
if (only === undefined || only === 'codec')
  await runCodecSuite(smoke, { sharedProcess: process.argv.includes('--shared-process') });
if (only === undefined || only === 'records') await runRecordsSuite(smoke);
if (only === undefined || only === 'compression') await runCompressionSuite(smoke);
if (only === undefined || only === 'wire') await runWireSuite(smoke);
if (only === undefined || only === 'rlmm') await runRlmmSuite(smoke);
if (only === undefined || only === 'client') await runClientSuite(smoke);
