// `npm start`'s job itself: its own embedded single-node cluster (about a minute), the sample
// tiered-storage events, the cluster and segment tables; the CLI works against the broker it
// leaves up; Ctrl-C (SIGINT) stops it and no JVM outlives it. With --bootstrap it only reads.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sharedCluster } from '@kafkats/testkit';
import { describe, expect, it } from 'vitest';
import { jsonLines, kafkats } from '../support/run-cli.js';

const START = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NO_JVM = fileURLToPath(new URL('../../../testkit/bin/check-no-jvm.mjs', import.meta.url));

describe('npm start', () => {
  it('runs the embedded job, stays up for the CLI, and stops the broker on Ctrl-C', async () => {
    // No terminal here, so --stay keeps the broker up as it stays for a person at a terminal.
    const child = spawn(process.execPath, [START, '--stay', '--no-color'], {
      cwd: ROOT,
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
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    try {
      const deadline = Date.now() + 8 * 60_000;
      while (
        !stdout.includes('The broker stays up') &&
        child.exitCode === null &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(stdout, `${stdout}\n${stderr}`).toContain('The broker stays up');
      expect(stderr).toMatch(/starting a single-node Kafka \d+\.\d+\.\d+/);
      expect(stderr).toMatch(/Kafka \S+ up at 127\.0\.0\.1:\d+ in [\d.]+ s/);
      expect(stdout).toMatch(/__remote_log_metadata \S+: 50 partitions/);
      // Partition 0's oldest segment went through its whole life; the others are copied or copying.
      expect(stdout).toContain('DELETE_SEGMENT_FINISHED');
      expect(stdout).toMatch(/partition\s+orders-0 \S+ \(metadata partition \d+\)/);
      expect(stdout).toMatch(/SEGMENT\s+STATE\s+OFFSETS\s+EPOCHS\s+BYTES\s+BROKER\s+MAX-TIMESTAMP/);
      expect(stdout).toMatch(/\S+\s+COPY_SEGMENT_FINISHED\s+100-199\s+0@100\s+9600\s+1\s+/);
      expect(stdout).toMatch(/\S+\s+COPY_SEGMENT_STARTED\s+200-249\s+0@200\s+4800\s+1\s+/);
      expect(stdout).toMatch(/manager\s+caught up/);
      expect(stdout).not.toContain('\u001b');

      const bootstrap = /npx kafkats -b (\S+) topics/.exec(stdout)?.[1];
      expect(bootstrap).toBeDefined();
      const consumed = await kafkats([
        'consume',
        'orders',
        '--partition',
        '0',
        '--count',
        '3',
        '--json',
        '-b',
        bootstrap!,
      ]);
      expect(consumed.code).toBe(0);
      expect((jsonLines(consumed) as { key: string }[]).map((r) => r.key)).toEqual([
        'order-0-0',
        'order-0-1',
        'order-0-2',
      ]);

      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('stopping the broker');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
    const check = spawnSync(process.execPath, [NO_JVM], { encoding: 'utf8' });
    expect(check.status, check.stdout).toBe(0);
  });

  it('with --bootstrap, only reads: cluster, topics and the tiered-storage status', async () => {
    const shared = sharedCluster();
    const run = spawnSync(
      process.execPath,
      [START, '--bootstrap', shared.bootstrap, '--no-color'],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toContain(`read-only look at ${shared.bootstrap}`);
    expect(run.stdout).toContain(shared.clusterId);
    expect(run.stdout).toMatch(/TOPIC\s+PARTITIONS\s+RF/);
  });
});
