#!/usr/bin/env node
// `npm run kafka:up -- --nodes 3 [--listeners SASL_SSL,SSL] [--acls]`: starts a KRaft cluster
// that outlives this command (detached JVMs, no owner watchdog), records it in
// .kafkats/cluster.json at the repository root and prints its bootstrap string on stdout.
// `npm run kafka:down` stops it. One such cluster at a time.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTestkit, option, repoRoot } from './load-testkit.mjs';

const stateDir = join(repoRoot, '.kafkats');
const stateFile = join(stateDir, 'cluster.json');
if (existsSync(stateFile)) {
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  process.stderr.write(
    `kafka:up: a cluster is already up (${state.bootstrap}); run npm run kafka:down first\n`,
  );
  process.exit(1);
}
const nodes = Number(option('nodes', '1'));
if (nodes !== 1 && nodes !== 3) {
  process.stderr.write('kafka:up: --nodes must be 1 or 3\n');
  process.exit(2);
}
const listeners = option('listeners', '')
  .split(',')
  .filter((l) => l !== '');
const { startCluster } = await loadTestkit();
mkdirSync(stateDir, { recursive: true });
const started = Date.now();
const cluster = await startCluster({
  nodes,
  listeners,
  acls: process.argv.includes('--acls'),
  detached: true,
  baseDir: join(stateDir, 'cluster'),
});
const description = cluster.describe();
// The detached JVMs are process-group leaders' children; kafka:down needs those group ids.
const groups = cluster.processGroups();
writeFileSync(stateFile, `${JSON.stringify({ ...description, processGroups: groups }, null, 2)}\n`);
process.stderr.write(
  `kafka:up: ${nodes}-node Kafka ${description.kafkaVersion} ready in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${description.baseDir}; state in ${stateFile}\n`,
);
for (const [name, bootstrap] of Object.entries(description.listeners)) {
  if (name !== 'PLAINTEXT') process.stderr.write(`kafka:up: ${name} ${bootstrap}\n`);
}
if (description.security !== null)
  process.stderr.write(`kafka:up: CA ${description.security.caPemPath}; users in ${stateFile}\n`);
process.stdout.write(`${description.bootstrap}\n`);
// Only the Java admin used for readiness is ours to end; the brokers stay.
await cluster.admin.close();
process.exit(0);
