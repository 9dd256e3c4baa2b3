import { readdirSync, readFileSync } from 'node:fs';

/** The system property that marks every JVM the testkit starts with the pid that owns it. */
export const OWNER_PROPERTY = 'kafkats.owner';

/** True when a process with this pid exists (a zombie counts until it is reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process marked with `-Dkafkats.owner=<pid>`. */
export interface MarkedProcess {
  pid: number;
  pgid: number;
  owner: number;
}

/**
 * The fields of a `/proc/<pid>/stat` line after the parenthesised name (which may hold
 * spaces): index 0 is field 3 of `man 5 proc` (the state letter), index 2 field 5 (the
 * process group id). Null when the line has no name.
 */
export function parseStatFields(stat: string): string[] | null {
  const close = stat.lastIndexOf(')');
  return close < 0 ? null : stat.slice(close + 2).split(' ');
}

/** Parses `/proc/<pid>/stat` for the process group id (field 5, after the parenthesised name). */
export function parseProcessGroup(stat: string): number | null {
  const fields = parseStatFields(stat);
  if (fields === null) return null;
  const pgid = Number(fields[2]);
  return Number.isInteger(pgid) && pgid > 0 ? pgid : null;
}

/** Finds the owner pid in a NUL-separated command line, or null when unmarked. */
export function parseOwner(cmdline: string): number | null {
  const marker = `-D${OWNER_PROPERTY}=`;
  for (const arg of cmdline.split('\0')) {
    if (arg.startsWith(marker)) {
      const owner = Number(arg.slice(marker.length));
      return Number.isInteger(owner) ? owner : null;
    }
  }
  return null;
}

/** Every live process (JVM or its supervising shell) carrying the owner mark (Linux /proc). */
export function listMarkedProcesses(): MarkedProcess[] {
  const out: MarkedProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out; // not Linux: the exit hooks and owner watchdog still apply
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const owner = parseOwner(readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
      if (owner === null) continue;
      const pgid = parseProcessGroup(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (pgid !== null) out.push({ pid: Number(entry), pgid, owner });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/**
 * Kills JVMs left behind by a test process that died without cleaning up: those whose owner
 * pid no longer exists. Owner 0 marks a deliberately detached cluster (`npm run kafka:up`),
 * which is never reaped. Returns the pids killed.
 */
export function reapOrphans(): number[] {
  const killed: number[] = [];
  for (const p of listMarkedProcesses()) {
    if (p.owner === 0 || p.owner === process.pid || isAlive(p.owner)) continue;
    try {
      process.kill(-p.pgid, 'SIGKILL');
    } catch {
      // group already gone
    }
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    killed.push(p.pid);
  }
  return killed;
}

type Cleanup = () => void;
const cleanups = new Set<Cleanup>();
let hooked = false;

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // keep going: every group must get its SIGKILL
    }
  }
  cleanups.clear();
}

/**
 * Registers a synchronous cleanup (SIGKILL a process group) run when this process exits or
 * is told to stop. Returns a function that unregisters it.
 */
export function onProcessExit(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  if (!hooked) {
    hooked = true;
    process.on('exit', runCleanups);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        runCleanups();
        // With our listener gone, re-raising gets the default action (exit) unless someone
        // else (vitest) handles the signal.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    }
  }
  return () => {
    cleanups.delete(cleanup);
  };
}
