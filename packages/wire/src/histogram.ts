/** What a {@link Histogram} holds, summarised. Values in the histogram's unit (µs for latencies). */
export interface HistogramSnapshot {
  readonly count: number;
  /** Smallest and largest values recorded (as integers); 0 when empty. */
  readonly min: number;
  readonly max: number;
  /** Exact mean of the recorded values; 0 when empty. */
  readonly mean: number;
  /** Percentiles, each within the histogram's relative error above the true value, never above `max`. */
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
}

/** Values above this are counted as this (2^32 - 1: about 71.6 minutes in µs). */
const MAX_TRACKED = 0xffff_ffff;

/**
 * A log-linear histogram of non-negative integers, in the manner of HdrHistogram: values below
 * 2^`subBucketBits` each have a bucket of their own; above, every power of two is cut into
 * 2^`subBucketBits` equal buckets, so a bucket is never wider than 2^-`subBucketBits` of the
 * values in it. Memory is fixed at construction: `(33 - subBucketBits) * 2^subBucketBits`
 * counters (896 for the default 5 bits, 7 KiB), however many values are recorded.
 *
 * A percentile is reported as the top of the bucket holding it, capped at the exact maximum:
 * at or above the true value, and less than 2^-`subBucketBits` (3.1% by default) above it.
 * Recording is a few integer operations and no allocation.
 */
export class Histogram {
  /** Relative error bound of a reported percentile: 2^-subBucketBits. */
  readonly relativeError: number;
  readonly #bits: number;
  readonly #counts: Float64Array;
  #count = 0;
  #sum = 0;
  #min = Number.POSITIVE_INFINITY;
  #max = 0;

  /**
   * @param subBucketBits 1 to 10; default 5 (32 buckets per power of two, 3.1% error)
   * @throws RangeError for a `subBucketBits` outside 1 to 10
   */
  constructor(subBucketBits = 5) {
    if (!Number.isInteger(subBucketBits) || subBucketBits < 1 || subBucketBits > 10) {
      throw new RangeError(`subBucketBits must be an integer from 1 to 10, got ${subBucketBits}`);
    }
    this.#bits = subBucketBits;
    this.relativeError = 2 ** -subBucketBits;
    this.#counts = new Float64Array((33 - subBucketBits) << subBucketBits);
  }

  /** Values recorded. */
  get count(): number {
    return this.#count;
  }

  /** Counters held (fixed at construction: the memory bound). */
  get bucketCount(): number {
    return this.#counts.length;
  }

  /**
   * Records one value, rounded down to an integer (negatives and NaN as 0). Values above
   * 2^32 - 1 go in the top bucket; `max` and `mean` still see them as they are.
   */
  record(value: number): void {
    const v = Math.floor(Math.max(value, 0) || 0);
    this.#count++;
    this.#sum += v;
    if (v < this.#min) this.#min = v;
    if (v > this.#max) this.#max = v;
    const n = Math.min(v, MAX_TRACKED);
    const i = this.#index(n);
    this.#counts[i] = (this.#counts[i] as number) + 1;
  }

  /** Adds every value of `other` (same `subBucketBits`) to this histogram: per-broker totals. */
  add(other: Histogram): void {
    if (other.#bits !== this.#bits) {
      throw new RangeError(`cannot add a ${other.#bits}-bit histogram to a ${this.#bits}-bit one`);
    }
    if (other.#count === 0) return;
    const mine = this.#counts;
    const theirs = other.#counts;
    for (let i = 0; i < mine.length; i++) mine[i] = (mine[i] as number) + (theirs[i] as number);
    this.#count += other.#count;
    this.#sum += other.#sum;
    if (other.#min < this.#min) this.#min = other.#min;
    if (other.#max > this.#max) this.#max = other.#max;
  }

  /**
   * The smallest bucket top such that at least `p` percent of the values are at or below it,
   * capped at the exact maximum; 0 when empty.
   *
   * @throws RangeError for `p` outside [0, 100]
   */
  percentile(p: number): number {
    if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
    if (this.#count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.#count));
    const counts = this.#counts;
    let seen = 0;
    for (let i = 0; i < counts.length; i++) {
      seen += counts[i] as number;
      if (seen >= rank) return Math.min(this.#top(i), this.#max);
    }
    return this.#max;
  }

  /** Count, min, max, mean and p50/p90/p99/p99.9. */
  snapshot(): HistogramSnapshot {
    const empty = this.#count === 0;
    return {
      count: this.#count,
      min: empty ? 0 : this.#min,
      max: this.#max,
      mean: empty ? 0 : this.#sum / this.#count,
      p50: this.percentile(50),
      p90: this.percentile(90),
      p99: this.percentile(99),
      p999: this.percentile(99.9),
    };
  }

  /** Forgets every value. */
  reset(): void {
    this.#counts.fill(0);
    this.#count = 0;
    this.#sum = 0;
    this.#min = Number.POSITIVE_INFINITY;
    this.#max = 0;
  }

  /** Bucket of integer `n` in [0, 2^32 - 1]. */
  #index(n: number): number {
    const bits = this.#bits;
    if (n < 1 << bits) return n;
    const exponent = 31 - Math.clz32(n); // floor(log2(n)) >= bits
    const shift = exponent - bits;
    // (n >>> shift) is in [2^bits, 2^(bits+1)): its low bits pick the sub-bucket.
    return ((shift + 1) << bits) + ((n >>> shift) - (1 << bits));
  }

  /** The largest integer that falls in bucket `i`. */
  #top(i: number): number {
    const bits = this.#bits;
    if (i < 1 << bits) return i;
    const shift = (i >>> bits) - 1;
    const sub = i & ((1 << bits) - 1);
    return ((1 << bits) + sub + 1) * 2 ** shift - 1;
  }
}
