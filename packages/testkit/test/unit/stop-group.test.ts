import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupThreadStates, killGroup, stopGroup } from '../../src/node-process.js';

describe('stopGroup', () => {
  it('returns once every thread of the group has stopped, and SIGCONT runs them again', async () => {
    // A group of two processes: a shell and a busy loop it started.
    const child = spawn('sh', ['-c', 'while :; do :; done & wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pgid = child.pid!;
    try {
      // Both processes exist before the stop.
      for (let i = 0; i < 100 && (groupThreadStates(pgid)?.length ?? 0) < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const before = groupThreadStates(pgid);
      expect(before?.length).toBeGreaterThanOrEqual(2);
      stopGroup(pgid);
      expect(groupThreadStates(pgid)?.every((s) => s === 'T' || s === 't')).toBe(true);
      killGroup(pgid, 'SIGCONT');
      let running = false;
      for (let i = 0; i < 100 && !running; i++) {
        running = (groupThreadStates(pgid) ?? []).some((s) => s !== 'T' && s !== 't');
        if (!running) await new Promise((r) => setTimeout(r, 20));
      }
      expect(running).toBe(true);
    } finally {
      killGroup(pgid);
    }
  });
});
