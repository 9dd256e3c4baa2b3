import type { CoordinatorAnswer } from './find-coordinator.js';
import type { CoordinatorKind } from './routing.js';

/**
 * One FindCoordinator round for `keys`: each key's answer (or its own error), or a rejection
 * for all of them.
 */
export type LookupRound = (
  kind: CoordinatorKind,
  keys: readonly string[],
  deadline: number,
) => Promise<ReadonlyMap<string, CoordinatorAnswer | Error>>;

interface Waiter {
  readonly deadline: number;
  resolve(answer: CoordinatorAnswer): void;
  reject(error: unknown): void;
}

/**
 * Gathers the coordinator lookups asked for in one turn of the event loop and sends them as
 * one FindCoordinator per kind (v4+ `coordinatorKeys`, KIP-699), as Kafka's admin client
 * batches its lookups; every key gets its own answer or error. Two callers asking for the same
 * key share one slot of the request. A round never outlives the earliest deadline among its
 * waiters; a waiter with more time left retries in its own loop.
 */
export class CoordinatorBatcher {
  readonly #round: LookupRound;
  readonly #pending = new Map<CoordinatorKind, Map<string, Waiter[]>>();
  #scheduled = false;

  constructor(round: LookupRound) {
    this.#round = round;
  }

  /** The coordinator for `key`, from the next round. */
  lookup(kind: CoordinatorKind, key: string, deadline: number): Promise<CoordinatorAnswer> {
    return new Promise((resolve, reject) => {
      let byKey = this.#pending.get(kind);
      if (byKey === undefined) this.#pending.set(kind, (byKey = new Map()));
      const waiters = byKey.get(key);
      const waiter = { deadline, resolve, reject };
      if (waiters === undefined) byKey.set(key, [waiter]);
      else waiters.push(waiter);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const [kind, byKey] of pending) {
      let deadline = Number.POSITIVE_INFINITY;
      for (const waiters of byKey.values())
        for (const w of waiters) deadline = Math.min(deadline, w.deadline);
      this.#round(kind, [...byKey.keys()], deadline).then(
        (answers) => {
          for (const [key, waiters] of byKey) {
            const answer = answers.get(key);
            for (const w of waiters) {
              if (answer === undefined)
                w.reject(new Error(`the lookup round left ${JSON.stringify(key)} out`));
              else if (answer instanceof Error) w.reject(answer);
              else w.resolve(answer);
            }
          }
        },
        (error: unknown) => {
          for (const waiters of byKey.values()) for (const w of waiters) w.reject(error);
        },
      );
    }
  }
}
