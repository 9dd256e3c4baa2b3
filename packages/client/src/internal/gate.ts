/**
 * A promise its holders wait on and its owner settles once, when what held them is over (the
 * producer's held sends: a broker's queue behind `maxInFlight`, batches still compressing).
 */
export interface Gate {
  readonly promise: Promise<void>;
  resolve(): void;
}

/** A new, unsettled gate. */
export function gate(): Gate {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
