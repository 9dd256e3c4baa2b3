#!/usr/bin/env node
// After a test run: fails when a JVM started by the testkit outlived its owner process (the
// owner's pid is gone, yet the marked JVM still runs). Waits a few seconds first: the owner
// watchdog polls once a second. JVMs of live owners (another run in progress) and detached
// clusters (`npm run kafka:up`, owner 0) are reported but never count as leaks.
import { readdirSync, readFileSync } from 'node:fs';

const MARK = '-Dkafkats.owner=';

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function marked() {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0] !== 'java' && !args[0]?.endsWith('/java')) continue;
      const mark = args.find((a) => a.startsWith(MARK));
      if (mark !== undefined)
        out.push({
          pid: Number(entry),
          owner: Number(mark.slice(MARK.length)),
          main: args.find((a) => a === 'kafka.Kafka' || a === 'JavaAdmin') ?? args.at(-1),
        });
    } catch {
      // gone while we looked
    }
  }
  return out;
}

const deadline = Date.now() + 5000;
let leaks = [];
for (;;) {
  const all = marked();
  leaks = all.filter((p) => p.owner !== 0 && !alive(p.owner));
  if (leaks.length === 0 || Date.now() > deadline) {
    const others = all.length - leaks.length;
    if (others > 0)
      process.stdout.write(
        `${others} testkit JVM(s) of live owners or detached clusters still run (not ours to judge)\n`,
      );
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
if (leaks.length > 0) {
  for (const l of leaks)
    process.stdout.write(`leaked JVM pid ${l.pid} (${l.main}), owner ${l.owner} is gone\n`);
  process.exit(1);
}
process.stdout.write('no Kafka JVM outlived its test process\n');
