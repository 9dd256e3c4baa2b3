/**
 * The wait between two heartbeats of a group membership: `pause(ms)` resolves after `ms`, at
 * once when `signal` aborts, or when `wake()` is called (an acknowledgement or a changed
 * subscription goes without waiting for the interval). The timer is not unref'd: a member
 * retrying a coordinator it cannot reach holds no socket, and the application awaiting its
 * records must not see the process exit.
 */
export class HeartbeatPause {
  readonly #signal: AbortSignal;
  #wake: (() => void) | undefined;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  async pause(ms: number): Promise<void> {
    if (ms <= 0 || this.#signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#wake = undefined;
        this.#signal.removeEventListener('abort', done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      this.#signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends the pause in progress, if any. */
  wake(): void {
    this.#wake?.();
  }
}
