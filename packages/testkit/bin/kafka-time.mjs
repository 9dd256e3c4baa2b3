#!/usr/bin/env node
// `npm run kafka:time [-- --runs 3 --nodes 3]`: how long a KRaft cluster takes from
// startCluster() to ready (every node registered and answering), median of N runs. Reports;
// asserts nothing. Each run formats fresh storage and stops the cluster before the next.
import { loadTestkit, option } from './load-testkit.mjs';

const runs = Number(option('runs', '3'));
const nodes = Number(option('nodes', '3'));
const listeners = option('listeners', '')
  .split(',')
  .filter((l) => l !== '');
const { startCluster, kafkaDist } = await loadTestkit();
kafkaDist(); // assemble or verify the jars outside the measurement
const seconds = [];
for (let i = 0; i < runs; i++) {
  const started = process.hrtime.bigint();
  const cluster = await startCluster({ nodes, listeners });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  seconds.push(elapsed);
  process.stdout.write(`run ${i + 1}: ${nodes}-node cluster ready in ${elapsed.toFixed(2)} s\n`);
  await cluster.stop();
}
const sorted = [...seconds].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
process.stdout.write(
  `median of ${runs}: ${median.toFixed(2)} s (min ${sorted[0].toFixed(2)}, max ${sorted.at(-1).toFixed(2)}); listeners ${['PLAINTEXT', ...listeners].join(',')}\n`,
);
