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

/**
 * The records of one `sendBatch()` call: settles once every one of them has (delivered, or
 * failed: then with the first failure), through one promise or one callback.
 */
export class SendGroup implements SendBatchResult {
  readonly count: number;
  #remaining: number;
  #failure: Error | undefined;
  readonly #settle: (error: Error | undefined, result: SendBatchResult | undefined) => void;
  /** Per record of the call: its batch's outcome source and index, set as it is appended. */
  readonly #batches: ({ outcome: BatchOutcome | null } | undefined)[];
  readonly #indexes: Int32Array;

  constructor(
    count: number,
    settle: (error: Error | undefined, result: SendBatchResult | undefined) => void,
  ) {
    this.count = count;
    this.#remaining = count;
    this.#settle = settle;
    this.#batches = new Array(count);
    this.#indexes = new Int32Array(count);
  }

  /** Record `i` of the call went into `batch` at `index`. */
  placed(i: number, batch: { outcome: BatchOutcome | null }, index: number): void {
    this.#batches[i] = batch;
    this.#indexes[i] = index;
  }

  /**
   * Records at indexes `[start, end)` of `from` now travel in `to`, which begins at index
   * `offset` of `from` (a batch split after MESSAGE_TOO_LARGE): their results are read from
   * `to`. Rare, so a scan.
   */
  moved(
    from: { outcome: BatchOutcome | null },
    to: { outcome: BatchOutcome | null },
    start: number,
    end: number,
    offset: number,
  ): void {
    const batches = this.#batches;
    const indexes = this.#indexes;
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
    const outcome = this.#batches[index]?.outcome;
    if (outcome === null || outcome === undefined)
      throw new RangeError(`record ${index} has no delivery result`);
    return new DeliveredRecord(outcome, this.#indexes[index] as number);
  }

  *[Symbol.iterator](): Iterator<RecordMetadata> {
    for (let i = 0; i < this.count; i++) yield this.metadata(i);
  }
}

/** Whoever is told of a run of a batch's records. */
export type DeliveryListener = DeliveryCallback | PendingRecord | SendGroup;
