// Shared bits of the admin integration tests: unique names and bounded polling (a second
// client's view of a change lags by a metadata propagation; polling says so explicitly).
import { randomUUID } from 'node:crypto';

export const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * Calls `read` until `done(value)` holds (every 200 ms, for at most `timeoutMs`), then returns
 * the last value: the assertion that follows reports what was seen when it never held.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}
