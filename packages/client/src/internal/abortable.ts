import { AbortedError } from '@kafkats/wire';

/**
 * Resolves after `ms`, or as soon as `signal` aborts (resolving, not rejecting: the caller
 * checks `signal.aborted`). The timer keeps Node alive, as `sleep` in meta does: a reader
 * backing off from a broker it cannot reach has no socket open, and a caller iterating it must
 * not see its process exit with the iteration unsettled.
 */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * `work`, unless `signal` aborts first: then rejects at once with `AbortedError`, and hands
 * whatever `work` later resolves with to `discard` (a connection nobody will use gets closed).
 * For steps that take no signal of their own (opening a connection, a metadata refresh).
 */
export function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  what: string,
  discard: (late: T) => void = () => {},
): Promise<T> {
  if (signal.aborted) {
    work.then(discard, () => {});
    return Promise.reject(new AbortedError(what, signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      settled = true;
      reject(new AbortedError(what, signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (settled) discard(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!settled) reject(error);
      },
    );
  });
}
