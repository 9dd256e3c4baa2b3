import { describe, expect, it } from 'vitest';
import { ReconnectBackoff } from '../../src/backoff.js';

describe('ReconnectBackoff', () => {
  it('doubles from initialMs up to maxMs with the jitter at its midpoint', () => {
    const b = new ReconnectBackoff(50, 1000, () => 0.5);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([
      50, 100, 200, 400, 800, 1000, 1000,
    ]);
    expect(b.attempts).toBe(7);
  });

  it('spreads each delay within +/-20% and never over maxMs', () => {
    const low = new ReconnectBackoff(100, 1000, () => 0);
    const high = new ReconnectBackoff(100, 1000, () => 0.999999);
    expect(low.next()).toBe(80);
    expect(high.next()).toBe(120);
    for (let i = 0; i < 10; i++) high.next();
    expect(high.next()).toBe(1000);
  });

  it('starts over after reset', () => {
    const b = new ReconnectBackoff(10, 500, () => 0.5);
    b.next();
    b.next();
    b.next();
    b.reset();
    expect(b.attempts).toBe(0);
    expect(b.next()).toBe(10);
  });

  it('stays finite after thousands of failures', () => {
    const b = new ReconnectBackoff(50, 1000, () => 0.5);
    for (let i = 0; i < 5000; i++) b.next();
    expect(b.next()).toBe(1000);
  });
});
