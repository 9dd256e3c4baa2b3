/**
 * A first-in first-out queue whose `shift` costs O(1): an array read from a moving head,
 * compacted once the consumed part is the larger half. (`Array#shift` moves every element: a
 * producer with 100,000 sends waiting for buffer memory spent seconds in it.)
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The first item, or undefined when empty. */
  first(): T | undefined {
    return this.#items[this.#head];
  }

  /** The last item, or undefined when empty. */
  last(): T | undefined {
    return this.length === 0 ? undefined : this.#items[this.#items.length - 1];
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head++;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Empties the queue and returns what it held, first to last. */
  drain(): T[] {
    const items = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return items;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i] as T;
  }
}
