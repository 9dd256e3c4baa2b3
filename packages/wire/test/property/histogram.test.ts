import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Histogram } from '../../src/histogram.js';

/** The nearest-rank percentile of sorted values: the smallest v with >= p% of values <= v. */
function exactPercentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

// Latencies in µs spread over many powers of two, plus the small exact range and the top.
const value = fc.oneof(
  fc.integer({ min: 0, max: 64 }),
  fc.integer({ min: 0, max: 100_000 }),
  fc.integer({ min: 0, max: 0xffff_ffff }),
);

describe('Histogram', () => {
  it('reports every percentile at or above the true value and within the relative error', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (values, bits, p) => {
          const h = new Histogram(bits);
          for (const v of values) h.record(v);
          const sorted = [...values].sort((a, b) => a - b);
          const exact = exactPercentile(sorted, p);
          const reported = h.percentile(p);
          expect(reported).toBeGreaterThanOrEqual(exact);
          expect(reported).toBeLessThanOrEqual(sorted[sorted.length - 1] as number);
          // Strictly below exact * (1 + 2^-bits) for exact > 0; exact 0 is reported exactly.
          expect(reported - exact).toBeLessThanOrEqual(exact * h.relativeError);
        },
      ),
    );
  });

  it('reports min, max, mean and count exactly', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 200 }), (values) => {
        const h = new Histogram();
        for (const v of values) h.record(v);
        const s = h.snapshot();
        expect(s.count).toBe(values.length);
        expect(s.min).toBe(Math.min(...values));
        expect(s.max).toBe(Math.max(...values));
        expect(s.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 3);
        expect(s.p50).toBeLessThanOrEqual(s.p99);
        expect(s.p99).toBeLessThanOrEqual(s.max);
      }),
    );
  });

  it('keeps a fixed number of buckets however many and however large the values', () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 2000 }),
        fc.integer({ min: 1, max: 10 }),
        (values, bits) => {
          const h = new Histogram(bits);
          const before = h.bucketCount;
          for (const v of values) h.record(v);
          expect(h.bucketCount).toBe(before);
          expect(before).toBe((33 - bits) * 2 ** bits);
        },
      ),
    );
  });

  it('adds histograms as if every value had been recorded in one', () => {
    fc.assert(
      fc.property(
        fc.array(value),
        fc.array(value),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (a, b, p) => {
          const one = new Histogram();
          const two = new Histogram();
          const both = new Histogram();
          for (const v of a) {
            one.record(v);
            both.record(v);
          }
          for (const v of b) {
            two.record(v);
            both.record(v);
          }
          one.add(two);
          expect(one.snapshot()).toEqual(both.snapshot());
          expect(one.percentile(p)).toBe(both.percentile(p));
        },
      ),
    );
  });

  it('counts values above 2^32 - 1 in the top bucket, negatives as 0, fractions rounded down', () => {
    const h = new Histogram();
    h.record(-5);
    h.record(7.9);
    h.record(2 ** 40);
    expect(h.percentile(50)).toBe(7);
    expect(h.percentile(0)).toBe(0);
    expect(h.snapshot().max).toBe(2 ** 40);
    expect(h.percentile(100)).toBe(0xffff_ffff);
  });

  it('is empty after reset and reports zeros when empty', () => {
    const h = new Histogram();
    expect(h.snapshot()).toEqual({
      count: 0,
      min: 0,
      max: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p99: 0,
      p999: 0,
    });
    h.record(12);
    h.reset();
    expect(h.count).toBe(0);
    expect(h.percentile(99)).toBe(0);
  });

  it('refuses bad precisions, percentiles and mismatched adds with RangeError', () => {
    expect(() => new Histogram(0)).toThrow(RangeError);
    expect(() => new Histogram(11)).toThrow(RangeError);
    expect(() => new Histogram().percentile(101)).toThrow(RangeError);
    expect(() => new Histogram().percentile(Number.NaN)).toThrow(RangeError);
    expect(() => new Histogram(4).add(new Histogram(5))).toThrow(RangeError);
  });
});
