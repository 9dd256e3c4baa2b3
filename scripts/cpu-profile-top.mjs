#!/usr/bin/env node
// Prints the functions with the most self time in a V8 CPU profile (`node --cpu-prof`):
//   node scripts/cpu-profile-top.mjs <file.cpuprofile> [count]
// Self time is the samples taken while the function itself ran (not its callees), as the
// "Bottom-Up" view of Chrome's DevTools shows it; functions are keyed by name, file and line.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file, count = '25'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [count]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Sample i lasted timeDeltas[i + 1] microseconds (the delta is recorded with the next sample).
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const us = deltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + us);
}
const byFunction = new Map();
let total = 0;
for (const [id, us] of selfUs) {
  const f = byId.get(id).callFrame;
  const where = f.url === '' ? '' : ` ${basename(f.url)}:${f.lineNumber + 1}`;
  const key = `${f.functionName || '(anonymous)'}${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  total += us;
}
const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
console.log(`${basename(file)}: ${(total / 1000).toFixed(0)} ms sampled`);
for (const [key, us] of top) {
  console.log(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`,
  );
}
