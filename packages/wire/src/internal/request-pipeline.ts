/** Slot states. A tombstone timed out and waits for its late response, which is discarded. */
export const SlotState = { Free: 0, Waiting: 1, Tombstone: 2 } as const;
export type SlotState = (typeof SlotState)[keyof typeof SlotState];

/**
 * One preallocated in-flight slot. Fields are rewritten in place for every request so the hot
 * path allocates nothing; `T` is whatever the owner keeps per request (its waiter).
 */
export interface PipelineSlot<T> {
  /** Position in the ring, fixed for the slot's life. */
  readonly index: number;
  state: SlotState;
  /** Correlation id of the request occupying the slot; `-1` when free. */
  correlationId: number;
  /** Absolute deadline in ms (the owner's clock). */
  deadlineMs: number;
  /** The owner's per-slot record, made once by the factory and rewritten per request. */
  readonly data: T;
}

/**
 * Ids of the ring live in [0, 2^30); the upper half of the positive int32 range is left to
 * requests that take no slot (Produce with acks=0), so the two can never collide.
 */
export const RING_ID_SPACE = 2 ** 30;

/**
 * The in-flight bookkeeping of one connection: a fixed ring of `maxInFlight` slots used in
 * FIFO order, because Kafka answers the requests of one connection in the order it got them.
 * The correlation id encodes the slot (`id % maxInFlight === slot index`, the quotient is a
 * generation that wraps inside int32), so a response finds its waiter in O(1) with no Map,
 * and any id other than the head's exposes a desynchronised stream at once.
 */
export class RequestPipeline<T> {
  readonly maxInFlight: number;
  private readonly slots: PipelineSlot<T>[];
  /** Largest multiple of maxInFlight within RING_ID_SPACE: ids wrap without breaking `id % n`. */
  private readonly idWrap: number;
  private head = 0;
  private count = 0;
  private nextId = 0;

  /**
   * @param maxInFlight slots, 1 to 2^16
   * @param makeData builds each slot's reusable record once, up front
   * @param firstCorrelationId where ids start (tests start near the wrap point); default 0
   */
  constructor(maxInFlight: number, makeData: (index: number) => T, firstCorrelationId = 0) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > 65536) {
      throw new RangeError(`maxInFlight must be an integer from 1 to 65536, got ${maxInFlight}`);
    }
    this.maxInFlight = maxInFlight;
    this.idWrap = Math.floor(RING_ID_SPACE / maxInFlight) * maxInFlight;
    this.nextId = Math.max(0, Math.min(firstCorrelationId, this.idWrap - 1));
    this.slots = new Array(maxInFlight);
    for (let i = 0; i < maxInFlight; i++) {
      this.slots[i] = {
        index: i,
        state: SlotState.Free,
        correlationId: -1,
        deadlineMs: 0,
        data: makeData(i),
      };
    }
  }

  /** Occupied slots, tombstones included. */
  get size(): number {
    return this.count;
  }

  /** True when no slot is free. */
  get isFull(): boolean {
    return this.count === this.maxInFlight;
  }

  /**
   * Takes the next slot and gives it a correlation id; `null` when every slot is occupied.
   * The caller fills its `data` record and `deadlineMs`.
   */
  acquire(): PipelineSlot<T> | null {
    if (this.count === this.maxInFlight) return null;
    const index = (this.head + this.count) % this.maxInFlight;
    const slot = this.slots[index] as PipelineSlot<T>;
    // Advance the id to the next value whose residue is this slot's index.
    let id = this.nextId - (this.nextId % this.maxInFlight) + index;
    if (id < this.nextId) id += this.maxInFlight;
    if (id >= this.idWrap) id = index;
    this.nextId = id + 1;
    slot.state = SlotState.Waiting;
    slot.correlationId = id;
    this.count++;
    return slot;
  }

  /** The oldest occupied slot (the one the next response must answer), or `null`. */
  peekHead(): PipelineSlot<T> | null {
    return this.count === 0 ? null : (this.slots[this.head] as PipelineSlot<T>);
  }

  /**
   * Takes the head slot out of the ring if `correlationId` is its id and returns it (`data`
   * and `state` intact: the caller reads them, clears `data`, then calls `release`); `null`
   * when the id is not the head's: the response is unknown, stale or out of order, and the
   * connection must be closed.
   */
  complete(correlationId: number): PipelineSlot<T> | null {
    if (this.count === 0) return null;
    const slot = this.slots[this.head] as PipelineSlot<T>;
    if (slot.correlationId !== correlationId) return null;
    this.head = (this.head + 1) % this.maxInFlight;
    this.count--;
    return slot;
  }

  /** Marks a completed slot free (the caller has cleared its `data`). */
  release(slot: PipelineSlot<T>): void {
    slot.state = SlotState.Free;
    slot.correlationId = -1;
  }

  /** Calls `fn` on every occupied slot, oldest first (timeout scans, failing all). */
  forEach(fn: (slot: PipelineSlot<T>) => void): void {
    for (let i = 0; i < this.count; i++) {
      fn(this.slots[(this.head + i) % this.maxInFlight] as PipelineSlot<T>);
    }
  }

  /**
   * Empties the ring (the connection is gone), calling `fn` on each occupied slot oldest
   * first before freeing it (`fn` clears `data`). Correlation ids keep counting so a stale frame cannot match.
   */
  drain(fn: (slot: PipelineSlot<T>) => void): void {
    while (this.count > 0) {
      const slot = this.slots[this.head] as PipelineSlot<T>;
      this.head = (this.head + 1) % this.maxInFlight;
      this.count--;
      fn(slot);
      this.release(slot);
    }
  }
}
