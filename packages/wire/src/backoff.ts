/**
 * Exponential backoff with jitter between reconnect attempts: attempt n waits about
 * `initialMs * 2^n`, capped at `maxMs`, spread by +/-20% so a fleet of clients that lost
 * the same broker does not come back in lock step. Reset after a successful connection.
 * Same shape as Kafka's `reconnect.backoff.ms` / `reconnect.backoff.max.ms`.
 */
export class ReconnectBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
  private readonly random: () => number;
  private failures = 0;

  /**
   * @param initialMs first delay in ms (Kafka default 50)
   * @param maxMs ceiling in ms (Kafka default 1000); raised to `initialMs` when lower
   * @param random source in [0, 1), injectable for tests
   */
  constructor(initialMs: number, maxMs: number, random: () => number = Math.random) {
    this.initialMs = Math.max(0, initialMs);
    this.maxMs = Math.max(this.initialMs, maxMs);
    this.random = random;
  }

  /** Consecutive failures since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /** Records one more failure and returns how long to wait before the next attempt, in ms. */
  next(): number {
    // 2^failures overflows to Infinity long after the cap applies; Math.min keeps it finite.
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.failures);
    this.failures++;
    const jittered = base * (0.8 + 0.4 * this.random());
    return Math.min(this.maxMs, Math.round(jittered));
  }

  /** Forgets past failures: the next delay starts from `initialMs` again. */
  reset(): void {
    this.failures = 0;
  }
}
