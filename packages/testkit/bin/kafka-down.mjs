#!/usr/bin/env node
// `npm run kafka:down`: stops the cluster `npm run kafka:up` started (SIGTERM, SIGKILL after
// 30 s) and removes its state and working directory.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadTestkit, repoRoot } from './load-testkit.mjs';

const stateFile = join(repoRoot, '.kafkats', 'cluster.json');
if (!existsSync(stateFile)) {
  process.stderr.write('kafka:down: no cluster is up (no .kafkats/cluster.json)\n');
  process.exit(0);
}
const state = JSON.parse(readFileSync(stateFile, 'utf8'));
const { stopProcessGroups } = await loadTestkit();
await stopProcessGroups(state.processGroups ?? []);
rmSync(state.baseDir, { recursive: true, force: true });
rmSync(stateFile, { force: true });
process.stderr.write(`kafka:down: stopped ${state.bootstrap}\n`);
