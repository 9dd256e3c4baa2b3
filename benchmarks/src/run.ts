/**
 * Benchmark entry point: runs every suite and prints its table. `--smoke` runs each task a
 * handful of times so CI proves the suites still run; its figures mean nothing.
 */
import { Bench } from 'tinybench';

const smoke = process.argv.includes('--smoke');

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
