import type { DeliveryCallback, RecordMetadata, SendBatchResult } from '../producer-options.js';

/**
 * What the broker said of one batch: its base offset and, for a LogAppendTime topic, the time
 * it stamped; the records' own timestamps as runs (`[firstIndex, timestamp, ...]`, one pair
 * each time the clock moved between appends). Record results are made from it on access.
 */
export class BatchOutcome {
  readonly topic: string;
  readonly partition: number;
  readonly baseOffset: bigint;
  readonly logAppendTimeMs: bigint;
  readonly logStartOffset: bigint;
  readonly #timestamps: readonly number[];

  constructor(
    topic: string,
    partition: number,
    baseOffset: bigint,
    logAppendTimeMs: bigint,
    logStartOffset: bigint,
    timestamps: readonly number[],
  ) {
    this.topic = topic;
    this.partition = partition;
    this.baseOffset = baseOffset;
    this.logAppendTimeMs = logAppendTimeMs;
    this.logStartOffset = logStartOffset;
    this.#timestamps = timestamps;
  }

  /** The CreateTime of the record at `index` of the batch. */
  createTime(index: number): number {
    const runs = this.#timestamps;
    // Runs are few (a batch fills within milliseconds): the last one not after `index`.
    let i = runs.length - 2;
    while (i > 0 && (runs[i] as number) > index) i -= 2;
    return runs[i + 1] as number;
  }
}

/**
 * One delivered record's metadata, read from its batch's outcome when asked: nothing is
 * computed for a field the caller does not read (offsets and timestamps are bigints).
 */
export class DeliveredRecord implements RecordMetadata {
  readonly #outcome: BatchOutcome;
  readonly #index: number;

  constructor(outcome: BatchOutcome, index: number) {
    this.#outcome = outcome;
    this.#index = index;
  }

  get topic(): string {
    return this.#outcome.topic;
  }

  get partition(): number {
    return this.#outcome.partition;
  }

  get offset(): bigint {
    const base = this.#outcome.baseOffset;
    return base < 0n ? -1n : base + BigInt(this.#index);
  }

  get timestamp(): bigint {
    const o = this.#outcome;
    return o.logAppendTimeMs >= 0n ? o.logAppendTimeMs : BigInt(o.createTime(this.#index));
  }

  get timestampType(): 'CreateTime' | 'LogAppendTime' {
    return this.#outcome.logAppendTimeMs >= 0n ? 'LogAppendTime' : 'CreateTime';
  }

  get logStartOffset(): bigint {
    return this.#outcome.logStartOffset;
  }

  /**
   * The fields as a plain object: what `JSON.stringify` writes, and what to spread (the fields
   * are getters, which spreading the record itself does not copy).
   */
  toJSON(): RecordMetadata {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: this.offset,
      timestamp: this.timestamp,
      timestampType: this.timestampType,
      logStartOffset: this.logStartOffset,
    };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): RecordMetadata {
    return this.toJSON();
  }
}

/** A record waiting for its own promise (`send(record)` without a callback). */
export interface PendingRecord {
  readonly resolve: (metadata: RecordMetadata) => void;
  readonly reject: (error: Error) => void;
}

/** What a record of a `sendBatch` call went into: a batch, whose outcome it is read from. */
interface Placement {
  readonly outcome: BatchOutcome | null;
}

/**
 * One shared frozen empty list, for lists of the producer that start empty and are made as a
 * literal of their first entries (a push onto [] makes room for 16): nothing is added to it.
 */
export const NO_ENTRIES: readonly never[] = Object.freeze([]);
/** Runs kept before a `SendGroup` keeps a batch and an index per record instead. */
const MAX_RUNS = 8;

/**
 * The records of one `sendBatch()` call: settles once every one of them has (delivered, or
 * failed: then with the first failure), through one promise or one callback.
 */
export class SendGroup implements SendBatchResult {
  readonly count: number;
  #remaining: number;
  #failure: Error | undefined;
  readonly #settle: (error: Error | undefined, result: SendBatchResult | undefined) => void;
  /**
   * Where the records went, as runs: records placed one after another into one batch are one
   * run, `[first record of the call, records, first index in the batch]` here and the batch
   * in `#runBatches`. A call of one partition's records is a run per batch it fills.
   */
  #runs: number[] = NO_ENTRIES as never[];
  #runBatches: Placement[] = NO_ENTRIES as never[];
  /**
   * Per record, once runs are given up (more than MAX_RUNS, or records moved by a split):
   * its batch and its index there.
   */
  #batches: (Placement | undefined)[] | null = null;
  #indexes: Int32Array | null = null;

  constructor(
    count: number,
    settle: (error: Error | undefined, result: SendBatchResult | undefined) => void,
  ) {
    this.count = count;
    this.#remaining = count;
    this.#settle = settle;
  }

  /** Record `i` of the call went into `batch` at `index` (records are placed in call order). */
  placed(i: number, batch: Placement, index: number): void {
    const batches = this.#batches;
    if (batches !== null) {
      batches[i] = batch;
      (this.#indexes as Int32Array)[i] = index;
      return;
    }
    const runs = this.#runs;
    const n = runs.length;
    if (n === 0) {
      this.#runs = [i, 1, index];
      this.#runBatches = [batch];
      return;
    }
    const length = runs[n - 2] as number;
    if (
      this.#runBatches[n / 3 - 1] === batch &&
      (runs[n - 3] as number) + length === i &&
      (runs[n - 1] as number) + length === index
    ) {
      runs[n - 2] = length + 1;
      return;
    }
    if (n === MAX_RUNS * 3) {
      this.#perRecord();
      this.placed(i, batch, index);
      return;
    }
    runs.push(i, 1, index);
    this.#runBatches.push(batch);
  }

  /** Gives up the runs for a batch and an index per record. */
  #perRecord(): void {
    const batches: (Placement | undefined)[] = new Array(this.count);
    const indexes = new Int32Array(this.count);
    const runs = this.#runs;
    for (let r = 0; r < runs.length; r += 3) {
      const first = runs[r] as number;
      const length = runs[r + 1] as number;
      const at = runs[r + 2] as number;
      const batch = this.#runBatches[r / 3] as Placement;
      for (let k = 0; k < length; k++) {
        batches[first + k] = batch;
        indexes[first + k] = at + k;
      }
    }
    this.#batches = batches;
    this.#indexes = indexes;
    this.#runs = NO_ENTRIES as never[];
    this.#runBatches = NO_ENTRIES as never[];
  }

  /**
   * Records at indexes `[start, end)` of `from` now travel in `to`, which begins at index
   * `offset` of `from` (a batch split after MESSAGE_TOO_LARGE): their results are read from
   * `to`. Rare, so a scan, over a batch and an index per record.
   */
  moved(from: Placement, to: Placement, start: number, end: number, offset: number): void {
    if (this.#batches === null) this.#perRecord();
    const batches = this.#batches as (Placement | undefined)[];
    const indexes = this.#indexes as Int32Array;
    for (let i = 0; i < this.count; i++) {
      const index = indexes[i] as number;
      if (batches[i] === from && index >= start && index < end) {
        batches[i] = to;
        indexes[i] = index - offset;
      }
    }
  }

  /** `n` records of the call were delivered, or failed with `error`. */
  settled(n: number, error: Error | undefined): void {
    if (error !== undefined) this.#failure ??= error;
    this.#remaining -= n;
    if (this.#remaining === 0) {
      if (this.#failure !== undefined) this.#settle(this.#failure, undefined);
      else this.#settle(undefined, this);
    }
  }

  metadata(index: number): RecordMetadata {
    if (!Number.isInteger(index) || index < 0 || index >= this.count)
      throw new RangeError(`record index ${index} is not in [0, ${this.count})`);
    let batch: Placement | undefined;
    let at = -1;
    if (this.#batches !== null) {
      batch = this.#batches[index];
      at = (this.#indexes as Int32Array)[index] as number;
    } else {
      const runs = this.#runs;
      for (let r = 0; r < runs.length; r += 3) {
        const first = runs[r] as number;
        if (index >= first && index < first + (runs[r + 1] as number)) {
          batch = this.#runBatches[r / 3];
          at = (runs[r + 2] as number) + index - first;
          break;
        }
      }
    }
    const outcome = batch?.outcome;
    if (outcome === null || outcome === undefined)
      throw new RangeError(`record ${index} has no delivery result`);
    return new DeliveredRecord(outcome, at);
  }

  *[Symbol.iterator](): Iterator<RecordMetadata> {
    for (let i = 0; i < this.count; i++) yield this.metadata(i);
  }
}

/** Whoever is told of a run of a batch's records. */
export type DeliveryListener = DeliveryCallback | PendingRecord | SendGroup;
