import { AbortedError } from '@kafkats/wire';

/** How the cluster retries a routed request. Every field has a default. */
export interface RetryPolicy {
  /** Attempts per operation for ordinary retriable errors, first one included. Default 5. */
  readonly maxAttempts: number;
  /** Delay before the second attempt, ms; doubles per attempt. Default 100. */
  readonly backoffMs: number;
  /** Cap on the delay between attempts, ms. Default 1000. */
  readonly maxBackoffMs: number;
  /** +/- this fraction of random jitter on every delay (0..1). Default 0.2. */
  readonly jitter: number;
  /**
   * How long a coordinator move or load (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
   * COORDINATOR_LOAD_IN_PROGRESS) is waited out, ms, instead of counting attempts: an election
   * over 50 offsets partitions on a fresh cluster takes seconds, not five backoffs. Default 30000.
   */
  readonly coordinatorTimeoutMs: number;
  /** One deadline per operation, ms: no retry, refresh or coordinator lookup extends it. Default 60000. */
  readonly operationTimeoutMs: number;
}

/** The defaults. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  backoffMs: 100,
  maxBackoffMs: 1000,
  jitter: 0.2,
  coordinatorTimeoutMs: 30_000,
  operationTimeoutMs: 60_000,
});

/**
 * The delay before attempt number `attempt` (1-based), ms: 0 for the first, then
 * `backoffMs * 2^(attempt-2)` capped at `maxBackoffMs`, with jitter. Jitter spreads clients
 * that failed together so they do not come back together.
 *
 * @param random a source in [0, 1); injectable for tests
 */
export function retryDelayMs(
  policy: Pick<RetryPolicy, 'backoffMs' | 'maxBackoffMs' | 'jitter'>,
  attempt: number,
  random: () => number = Math.random,
): number {
  if (attempt <= 1) return 0;
  const exponent = Math.min(attempt - 2, 30);
  const base = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** exponent);
  const jitter = Math.min(Math.max(policy.jitter, 0), 1);
  const factor = 1 - jitter + 2 * jitter * random();
  return Math.max(0, Math.min(policy.maxBackoffMs, Math.round(base * factor)));
}

/**
 * Resolves after `ms`. Rejects with `AbortedError` (naming `what`) as soon as `signal` aborts.
 * The one retry wait of the stack: the dispatcher, the pool and the admin client's own rounds
 * use it. The timer keeps Node alive: a backoff is part of an operation someone awaits, and
 * with no socket open (a refused connect) it is all that stands between the caller's `await`
 * and a process that exits with the promise unsettled.
 */
export function sleep(ms: number, signal?: AbortSignal, what = 'retry backoff'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError(what, signal.reason));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(what, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
