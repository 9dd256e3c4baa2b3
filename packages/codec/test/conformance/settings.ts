import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The run's seed: fixed so runs are reproducible, overridable to explore. */
export const SEED = Number(process.env.KAFKATS_CONFORMANCE_SEED ?? 20260505);
/** Random messages drawn per (API, version, direction); at least 50, so every pair sees varied messages. */
export const RUNS = Number(process.env.KAFKATS_CONFORMANCE_RUNS ?? 50);
/** Extra messages per pair drawn at a neighbouring version, for the refusal comparison. */
export const CROSS_RUNS = Math.max(1, Math.ceil(RUNS / 5));

/** A stable 32-bit seed per case, so one pair can be replayed alone. */
export function caseSeed(label: string): number {
  let h = SEED | 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Hex dump helpers for mismatch reports. */
export function firstDifferingOffset(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/**
 * Records one suite's tally where `scripts/conformance.mjs` collects it for the single summary
 * line (KAFKATS_CONFORMANCE_OUT, set by that script); a no-op when run directly.
 */
export function writeTally(name: string, tally: { passed: number; total: number }): void {
  const dir = process.env.KAFKATS_CONFORMANCE_OUT;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(tally));
}
