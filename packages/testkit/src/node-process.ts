import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { TestkitError, TestkitErrorCode } from './errors.js';
import { isAlive, OWNER_PROPERTY, parseProcessGroup, parseStatFields } from './reaper.js';

// The JVM runs under a small POSIX shell supervisor, leader of its own process group:
// - it watches the owner pid once a second and SIGKILLs the whole group when the owner is
//   gone, so no broker outlives a test process even when that process was SIGKILLed;
// - a SIGTERM to the shell becomes a SIGTERM to the JVM (controlled shutdown), and the shell
//   exits only when the JVM has, so waiting for the shell waits for the broker.
// Owner 0 means detached (`npm run kafka:up`): never watched.
const SUPERVISOR = `owner=$1; shift
"$@" &
j=$!
trap 'kill -TERM $j 2>/dev/null; wait $j; exit $?' TERM INT
while kill -0 $j 2>/dev/null; do
  if [ "$owner" != 0 ] && ! kill -0 "$owner" 2>/dev/null; then kill -KILL 0; fi
  sleep 1
done
wait $j`;

/** A broker JVM under its supervisor. */
export interface NodeProcess {
  /** pid of the supervisor = process group id. */
  readonly pgid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal) when the supervisor, and so the JVM, has exited. */
  readonly exited: Promise<string>;
  isRunning(): boolean;
}

/** Spawns `java <jvmArgs>` supervised, stdout and stderr appended to `logFile`. */
export function spawnSupervised(
  javaArgs: readonly string[],
  logFile: string,
  owner: number,
): NodeProcess {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      'sh',
      [
        '-c',
        SUPERVISOR,
        'kafkats-node',
        String(owner),
        'java',
        `-D${OWNER_PROPERTY}=${owner}`,
        ...javaArgs,
      ],
      {
        detached: true,
        stdio: ['ignore', fd, fd],
      },
    );
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) {
    throw new TestkitError(
      TestkitErrorCode.ClusterStartFailed,
      `cannot spawn the broker JVM (log ${logFile})`,
    );
  }
  const pgid = child.pid;
  let running = true;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve(String(code ?? signal));
    });
    child.once('error', (error) => {
      running = false;
      resolve(`spawn error: ${error.message}`);
    });
  });
  child.unref();
  return { pgid, logFile, exited, isRunning: () => running };
}

/**
 * The state letter of every thread of every process in a process group, from Linux's
 * `/proc/<pid>/task/<tid>/stat` (`T` stopped, `t` traced, `S` sleeping, `R` running, ...);
 * undefined where there is no `/proc`.
 */
export function groupThreadStates(pgid: number): string[] | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const states: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    // A process may exit while it is read: skip what is gone.
    try {
      if (parseProcessGroup(readFileSync(`/proc/${pid}/stat`, 'utf8')) !== pgid) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        states.push(
          parseStatFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))?.[0] ?? '?',
        );
      }
    } catch {
      // gone
    }
  }
  return states;
}

/**
 * SIGSTOPs a process group and returns once every thread of it has stopped (or exited). `kill` returns
 * when the signal is queued; a thread running on another core, or in a system call that is
 * not interrupted, stops a little later, and a request sent in between could still be
 * answered. Without `/proc` it returns after the signal.
 * @throws TestkitError CLUSTER_STATE when some thread has not stopped within `timeoutMs`
 */
export function stopGroup(pgid: number, timeoutMs = 10_000): void {
  killGroup(pgid, 'SIGSTOP');
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const states = groupThreadStates(pgid);
    // Z and X: a child that exited (the supervisor's `sleep`) and waits to be reaped by a
    // parent that is itself stopped; it runs nothing.
    if (states === undefined || states.every((s) => 'TtZX'.includes(s))) return;
    if (Date.now() > deadline) {
      throw new TestkitError(
        TestkitErrorCode.ClusterState,
        `process group ${pgid} did not stop within ${timeoutMs} ms (thread states: ${[...new Set(states)].join('')})`,
      );
    }
    Atomics.wait(pause, 0, 0, 1);
  }
}

/** SIGKILLs a process group, ignoring one that is already gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * Stops a supervised JVM: SIGTERM to the supervisor (controlled shutdown) and SIGKILL to the
 * group after `graceMs`, or SIGKILL at once. Resolves when it has exited.
 */
export async function stopSupervised(
  node: NodeProcess,
  signal: 'SIGTERM' | 'SIGKILL',
  graceMs = 30_000,
): Promise<void> {
  if (!node.isRunning()) return;
  if (signal === 'SIGKILL') {
    killGroup(node.pgid);
  } else {
    try {
      process.kill(node.pgid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => killGroup(node.pgid), graceMs);
  await node.exited;
  clearTimeout(timer);
  // The supervisor is gone; make sure nothing else in its group lingers.
  killGroup(node.pgid);
}

/** Stops a group known only by pid (from a state file): SIGTERM, SIGKILL after `graceMs`. */
export async function stopGroupByPid(pgid: number, graceMs = 30_000): Promise<void> {
  if (!isAlive(pgid)) return;
  try {
    process.kill(pgid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  killGroup(pgid);
}

/** The last `lines` lines of a file (reads at most the last 256 KiB). */
export function tailFile(file: string, lines = 60): string {
  if (!existsSync(file)) return '(no log file)';
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer
      .toString('utf8')
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  } finally {
    closeSync(fd);
  }
}

/**
 * Stops the process groups of a detached cluster (from `processGroups()`), all at once:
 * SIGTERM to each supervisor, SIGKILL to each group after `graceMs`.
 */
export async function stopProcessGroups(pgids: readonly number[], graceMs = 30_000): Promise<void> {
  await Promise.all(pgids.map((pgid) => stopGroupByPid(pgid, graceMs)));
}
