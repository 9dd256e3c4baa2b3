import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'crashing-owner.mjs',
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('no JVM outlives its test process', () => {
  it('takes the broker and Java admin JVMs down after their owner is SIGKILLed', async () => {
    const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    const { jvms } = JSON.parse(line) as { jvms: number[] };
    expect(jvms.length).toBe(2); // one broker, one Java admin
    for (const pid of jvms) expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    // The broker's supervisor polls its owner once a second; the Java admin exits on stdin EOF.
    const deadline = Date.now() + 20_000;
    while (jvms.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(jvms.filter(alive)).toEqual([]);
  });
});
