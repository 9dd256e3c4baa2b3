/**
 * A wait that something else can cut short: `wait(ms)` resolves after `ms` or at the next
 * `notify()`, whichever comes first; `notify()` wakes every current waiter, and one made with
 * nobody waiting is kept for the next wait.
 */
export class Wakeup {
  readonly #waiters = new Set<() => void>();
  #pending = false;

  notify(): void {
    if (this.#waiters.size === 0) {
      this.#pending = true;
      return;
    }
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(
        () => {
          this.#waiters.delete(wake);
          resolve();
        },
        Math.max(0, ms),
      );
      this.#waiters.add(wake);
    });
  }
}
