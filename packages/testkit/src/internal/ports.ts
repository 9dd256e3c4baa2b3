import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestkitError, TestkitErrorCode } from '../errors.js';
import { isAlive } from '../reaper.js';

// Ports come from below the Linux ephemeral range (32768-60999), so an outgoing connection
// cannot grab one between our check and the broker's bind. Several test processes (other
// engineers, parallel workers) allocate at once: a lock file per port, holding the owner's
// pid, makes a reservation exclusive across processes until released or its owner dies.
const LOW = 20_000;
const HIGH = 32_000;

/** Directory of port lock files (one file per reserved port, content: owner pid). */
export const portLockDir = join(tmpdir(), 'kafkats-ports');

const held = new Set<number>();

function tryLock(port: number, owner: number): boolean {
  const file = join(portLockDir, String(port));
  try {
    writeFileSync(file, String(owner), { flag: 'wx' });
    return true;
  } catch {
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return false;
    try {
      unlinkSync(file);
      writeFileSync(file, String(owner), { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  }
}

/** Resolves true when nothing listens on 127.0.0.1:port and we may bind it. */
export function canBind(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Reserves `count` distinct free TCP ports on 127.0.0.1 for this process.
 * @param random source of randomness in [0,1), injectable for tests.
 * @throws TestkitError ERR_KAFKA_TESTKIT_PORTS_EXHAUSTED after 2000 failed candidates.
 */
export async function reservePorts(
  count: number,
  random: () => number = Math.random,
): Promise<number[]> {
  mkdirSync(portLockDir, { recursive: true });
  const out: number[] = [];
  for (let attempt = 0; out.length < count; attempt++) {
    if (attempt >= 2000) {
      releasePorts(out);
      throw new TestkitError(
        TestkitErrorCode.PortsExhausted,
        `no ${count} free ports in ${LOW}-${HIGH}`,
      );
    }
    const port = LOW + Math.floor(random() * (HIGH - LOW));
    if (held.has(port) || !tryLock(port, process.pid)) continue;
    if (!(await canBind(port))) {
      unlinkQuiet(port);
      continue;
    }
    held.add(port);
    out.push(port);
  }
  return out;
}

function unlinkQuiet(port: number): void {
  try {
    unlinkSync(join(portLockDir, String(port)));
  } catch {
    // already gone: nothing to release
  }
}

/** Gives reserved ports back (their brokers have stopped, or they were never used). */
export function releasePorts(ports: Iterable<number>): void {
  for (const port of ports) {
    if (held.delete(port)) unlinkQuiet(port);
  }
}

/** Releases every port this process holds; called from the exit hook. */
export function releaseAllPorts(): void {
  releasePorts([...held]);
}
