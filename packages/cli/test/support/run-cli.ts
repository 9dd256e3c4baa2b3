import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runKafkaTool } from '@kafkats/testkit';
import { expect } from 'vitest';

/** The built `kafkats` binary, as npm would link it. */
export const BIN = fileURLToPath(new URL('../../bin/kafkats.js', import.meta.url));

/** A topic name no other test uses. */
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the binary as a child process (stdout and stderr piped, so never a TTY) and collects
 * its output. A run that outlives `timeoutMs` is killed and reported with code null.
 */
export function kafkats(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Every line of stdout as JSON. */
export function jsonLines(run: CliRun): unknown[] {
  return run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** Kafka's `kafka-configs.sh --describe --entity-type users --entity-name USER` output. */
export async function describeUserWithKafka(bootstrap: string, user: string): Promise<string> {
  const run = await runKafkaTool('org.apache.kafka.tools.ConfigCommand', [
    '--bootstrap-server',
    bootstrap,
    '--describe',
    '--entity-type',
    'users',
    '--entity-name',
    user,
  ]);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}
