/**
 * A FIFO of at most `capacity` items between producers that wait when it is full and one
 * consumer that waits when it is empty: the back-pressure between partition tasks and the
 * caller of a multi-partition reader. Waits end early (false / undefined) when the queue is
 * closed or the waiter's signal aborts.
 */
export class BoundedQueue<T> {
  readonly capacity: number;
  readonly #items: T[] = [];
  #head = 0;
  readonly #putters: (() => void)[] = [];
  #taker: (() => void) | undefined;
  #closed = false;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Adds `item` once there is room; false when the queue closed or `signal` aborted first. */
  async put(item: T, signal: AbortSignal): Promise<boolean> {
    while (this.size >= this.capacity) {
      if (this.#closed || signal.aborted) return false;
      await this.#wait(this.#putters, signal);
    }
    if (this.#closed || signal.aborted) return false;
    this.#items.push(item);
    this.#wake();
    return true;
  }

  /** The oldest item, waiting for one; undefined when the queue closed or `signal` aborted. */
  async take(signal: AbortSignal): Promise<T | undefined> {
    while (this.size === 0) {
      if (this.#closed || signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          if (this.#taker === done) this.#taker = undefined;
          resolve();
        };
        this.#taker = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
    const item = this.#items[this.#head] as T;
    this.#items[this.#head] = undefined as T;
    this.#head++;
    if (this.#head > 64 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    this.#putters.shift()?.();
    return item;
  }

  /** Drops the queued items `predicate` selects (a partition removed from the reader). */
  remove(predicate: (item: T) => boolean): void {
    const kept = this.#items.slice(this.#head).filter((item) => !predicate(item));
    this.#items.length = 0;
    this.#items.push(...kept);
    this.#head = 0;
    while (this.#putters.length > 0 && this.size < this.capacity) this.#putters.shift()?.();
  }

  /** Wakes every waiter; later puts fail and takes drain what is left, then end. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#putters.splice(0)) wake();
    this.#wake();
  }

  #wake(): void {
    const taker = this.#taker;
    this.#taker = undefined;
    taker?.();
  }

  #wait(list: (() => void)[], signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        const at = list.indexOf(done);
        if (at >= 0) list.splice(at, 1);
        resolve();
      };
      list.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
