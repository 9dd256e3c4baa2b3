import type { ApiDescriptor } from '@kafkats/codec';
import type { RequestTraceContext } from '../diagnostics.js';

/** Settles a request with its answer; `context` is what the caller gave with it. */
export type OnAnswer = (value: unknown, context: unknown) => void;
/** Settles a request with its failure; `context` is what the caller gave with it. */
export type OnFailure = (error: unknown, context: unknown) => void;

/**
 * One request the connection owes an answer: waiting in the queue for a slot (allocated then)
 * or on the wire in a ring slot (the slot's record, allocated once and rewritten per request).
 */
export interface PendingRequest {
  api: ApiDescriptor<unknown, unknown> | null;
  /** The message, while queued; dropped once encoded. */
  request: unknown;
  /** The version to send at; -1 = the highest both sides support, chosen when written. */
  version: number;
  /** Resolve with the raw frame instead of decoding it (the handshake's own requests). */
  raw: boolean;
  deadlineMs: number;
  timeoutMs: number;
  signal: AbortSignal | null;
  /** The abort listener registered on `signal`, removed when the request settles. */
  onAbort: (() => void) | null;
  /** False once settled (answered, timed out, aborted, failed); queued entries are skipped then. */
  live: boolean;
  /** Called with the answer and {@link context}: a promise's resolver, or a caller's handler. */
  resolve: OnAnswer | null;
  /** Called with the failure and {@link context}. */
  reject: OnFailure | null;
  /** What `resolve` and `reject` get as their second argument (`sendCallback`); else null. */
  context: unknown;
  /**
   * Sent by `sendCallback`: `reject` runs on a microtask, never inside the connection's own
   * teardown or the caller's send, and an exception from `resolve` does not reach the reader.
   */
  handler: boolean;
  /** The `kafkats:request` trace context when someone subscribes, else null. */
  trace: RequestTraceContext | null;
  /** `performance.now()` when written, for the latency histogram. */
  sentAtMs: number;
}

/** A cleared record, for the ring's slots. */
export function emptyPending(): PendingRequest {
  return {
    api: null,
    request: null,
    version: -1,
    raw: false,
    deadlineMs: 0,
    timeoutMs: 0,
    signal: null,
    onAbort: null,
    live: false,
    resolve: null,
    reject: null,
    context: null,
    handler: false,
    trace: null,
    sentAtMs: 0,
  };
}

/**
 * Marks the record settled: drops its callbacks (read them first), its message and its abort
 * listener, so nothing can settle it twice and a slot record holds nothing of a finished request.
 */
export function settle(p: PendingRequest): void {
  if (p.signal !== null && p.onAbort !== null) p.signal.removeEventListener('abort', p.onAbort);
  p.api = null;
  p.request = null;
  p.signal = null;
  p.onAbort = null;
  p.live = false;
  p.resolve = null;
  p.reject = null;
  p.context = null;
  p.handler = false;
  p.trace = null;
}

/**
 * The bounded FIFO of requests waiting for a slot or for the connection. Entries that settle
 * while queued (timed out, aborted) are marked dead and skipped; the array is compacted so its
 * memory follows the live count, not the number of sends that gave up.
 */
export class SendQueue {
  private items: (PendingRequest | undefined)[] = [];
  private head = 0;
  /** Live entries. */
  live = 0;

  push(p: PendingRequest): void {
    this.items.push(p);
    this.live++;
  }

  /** The oldest live entry, taken out of the queue; undefined when none. */
  shift(): PendingRequest | undefined {
    while (this.head < this.items.length) {
      const p = this.items[this.head];
      this.items[this.head] = undefined;
      this.head++;
      if (p?.live) {
        this.live--;
        this.compact();
        return p;
      }
    }
    this.compact();
    return undefined;
  }

  /** A queued entry settled (timed out or aborted): it no longer counts. */
  dropped(): void {
    this.live--;
    this.compact();
  }

  /** Calls `fn` on every live entry, oldest first. */
  forEach(fn: (p: PendingRequest) => void): void {
    for (let i = this.head; i < this.items.length; i++) {
      const p = this.items[i];
      if (p?.live) fn(p);
    }
  }

  /** Empties the queue, calling `fn` on every live entry, oldest first. */
  drain(fn: (p: PendingRequest) => void): void {
    const items = this.items;
    const from = this.head;
    this.items = [];
    this.head = 0;
    this.live = 0;
    for (let i = from; i < items.length; i++) {
      const p = items[i];
      if (p?.live) fn(p);
    }
  }

  private compact(): void {
    while (this.head < this.items.length && !this.items[this.head]?.live) this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.items.length - this.head > 2 * this.live + 64) {
      // Dead entries behind a live head (short timeouts queued after a long one) would pile
      // up for as long as the head waits.
      this.items = this.items.slice(this.head).filter((p) => p?.live);
      this.head = 0;
    } else if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
