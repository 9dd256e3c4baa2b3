/**
 * Slot states. A tombstone was given up by its caller (aborted) but is still on the wire: its
 * answer is read whole when it comes and discarded, so the stream stays in step.
 */
export const SlotState = { Free: 0, Waiting: 1, Tombstone: 2 } as const;
export type SlotState = (typeof SlotState)[keyof typeof SlotState];

/**
 * One preallocated in-flight slot. Fields are rewritten in place for every request so the hot
 * path allocates nothing; `T` is whatever the owner keeps per request.
 */
export interface PipelineSlot<T> {
  state: SlotState;
  /** Correlation id of the request occupying the slot; `-1` when free. */
  correlationId: number;
  /** Absolute deadline in ms (the owner's clock). */
  deadlineMs: number;
  /** The owner's per-slot record, made once by the factory and rewritten per request. */
  readonly data: T;
}

/** Correlation ids count up through the non-negative int32 range and wrap to 0. */
const ID_LIMIT = 0x7fff_ffff;

/**
 * The in-flight bookkeeping of one connection: a fixed ring of `maxInFlight` slots used in
 * FIFO order. Kafka answers the requests of one connection in the order it got them, so the
 * next response must carry the oldest slot's correlation id: finding its waiter is one
 * comparison (no Map), and any other id exposes a desynchronised stream at once.
 */
export class RequestPipeline<T> {
  readonly maxInFlight: number;
  private readonly slots: PipelineSlot<T>[];
  private head = 0;
  private count = 0;
  private lastId: number;

  /**
   * @param maxInFlight slots, 1 to 65536
   * @param makeData builds each slot's reusable record once, up front
   * @param firstCorrelationId the first id handed out (tests start near the wrap point); default 0
   */
  constructor(maxInFlight: number, makeData: (index: number) => T, firstCorrelationId = 0) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > 65536) {
      throw new RangeError(`maxInFlight must be an integer from 1 to 65536, got ${maxInFlight}`);
    }
    this.maxInFlight = maxInFlight;
    this.lastId = Math.max(0, Math.min(firstCorrelationId, ID_LIMIT)) - 1;
    this.slots = new Array(maxInFlight);
    for (let i = 0; i < maxInFlight; i++) {
      this.slots[i] = { state: SlotState.Free, correlationId: -1, deadlineMs: 0, data: makeData(i) };
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
   * The next correlation id, for a request that takes no slot (Produce with acks=0 gets no
   * answer). Shares the counter with the slots, so no id is ever in use twice.
   */
  nextId(): number {
    this.lastId = this.lastId >= ID_LIMIT ? 0 : this.lastId + 1;
    return this.lastId;
  }

  /**
   * Takes the next slot and gives it a correlation id; `null` when every slot is occupied.
   * The caller fills its `data` record and `deadlineMs`.
   */
  acquire(): PipelineSlot<T> | null {
    if (this.count === this.maxInFlight) return null;
    const slot = this.slots[(this.head + this.count) % this.maxInFlight] as PipelineSlot<T>;
    slot.state = SlotState.Waiting;
    slot.correlationId = this.nextId();
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

  /**
   * Hands back the tail slot just acquired when its request could not be written (it failed to
   * encode): nothing went on the wire, so the ring is as if `acquire` had not run.
   */
  unacquire(slot: PipelineSlot<T>): void {
    this.count--;
    this.release(slot);
  }

  /** Marks a completed slot free (the caller has cleared its `data`). */
  release(slot: PipelineSlot<T>): void {
    slot.state = SlotState.Free;
    slot.correlationId = -1;
  }

  /** Calls `fn` on every occupied slot, oldest first (timeout scans). */
  forEach(fn: (slot: PipelineSlot<T>) => void): void {
    for (let i = 0; i < this.count; i++) {
      fn(this.slots[(this.head + i) % this.maxInFlight] as PipelineSlot<T>);
    }
  }

  /**
   * Empties the ring (the connection is gone), calling `fn` on each occupied slot oldest
   * first before freeing it (`fn` clears `data`).
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
