/**
 * A script awaiting `Cluster.connect` on a wrong port exited silently: code 13 from an ES
 * module (a top-level await left unsettled), code 0 from CommonJS, and the `catch` never ran.
 * With the connect refused no socket was open, and every retry backoff waited on an unref'd
 * timer, so nothing kept Node alive while the connect was retried. Backoffs now keep the
 * process alive: the user's `catch` runs and prints the connection error.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'library-user');

/** A loopback port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function run(script: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [join(fixtures, script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('regression: a refused bootstrap connect reaches the caller', () => {
  it.each(['connect.mjs', 'connect.cjs'])(
    '%s: the catch prints ERR_KAFKA_CONNECTION_FAILED and the process exits 1',
    async (script) => {
      const port = await closedPort();
      const { code, stdout, stderr } = await run(script, [`127.0.0.1:${port}`]);
      expect(stdout).toBe('');
      expect(stderr).toContain('ERR_KAFKA_CONNECTION_FAILED');
      expect(stderr).toContain(`127.0.0.1:${port}`);
      expect(stderr).toContain('ECONNREFUSED');
      expect(code).toBe(1);
    },
  );
});
