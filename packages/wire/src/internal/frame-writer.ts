/** The part of a socket the writer uses. */
export interface WritableSink {
  /** False when the socket's buffer is past its high-water mark (node:stream semantics). */
  write(chunk: Buffer): boolean;
  cork(): void;
  uncork(): void;
  /** Registers a one-shot 'drain' listener: the buffer went back under the high-water mark. */
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Frames (and the pieces of zero-copy frames) up to this total are joined into one buffer;
 * beyond it they go out corked (writev), each by reference.
 */
const CONCAT_LIMIT_BYTES = 64 * 1024;
/**
 * A piece this large (a record batch the codec hands over by reference) is never copied into a
 * joined buffer: what holds one goes out corked (writev) whatever the total.
 */
const BY_REFERENCE_BYTES = 4 * 1024;

/** What `enqueue` chains the flush on. */
const SETTLED: Promise<void> = Promise.resolve();
/** What a written slot of the queue holds until it is filled again. */
const EMPTY = Buffer.alloc(0);
/** A queue list up to this long is kept for the next flush; a longer one (a burst) is dropped. */
const REUSED_QUEUE_SLOTS = 64;

/**
 * Coalesces request frames: frames queued together leave in one `write` (small bursts are
 * joined into one buffer; large ones, and any holding a record batch passed by reference, are
 * written under `cork` so the kernel sees one writev and the batch is not copied).
 * The flush is a microtask, queued behind the synchronous burst and the promise continuations
 * already queued, so a loop of `send` calls costs one syscall. A microtask rather than
 * `process.nextTick`: Node runs the tick queue only once the microtask queue is empty, so a
 * caller looping on resolved promises (`await producer.send(...)` with room in the buffer) would
 * hold every request back until the loop stops; a microtask goes out between its iterations.
 */
export class CoalescingWriter {
  /** Socket `write` calls made (one per flush). */
  writes = 0;
  /** Bytes handed to the socket. */
  bytes = 0;
  private sink: WritableSink | null = null;
  /**
   * The pieces to write: the first `queued` slots. The list and the one flushed before it
   * take turns, their slots cleared rather than their length (which would drop the backing
   * store: a push onto an empty list makes room for 16).
   */
  private queue: Buffer[] = [];
  private queued = 0;
  private spare: Buffer[] = [];
  private queuedBytes = 0;
  /** A piece of at least BY_REFERENCE_BYTES is queued. */
  private queuedLarge = false;
  private scheduled = false;
  private afterFlush: ((dropped: unknown) => void)[] = [];
  /**
   * `onWritten` callbacks held back until the socket drains: an acks=0 send resolves only once
   * the kernel is keeping up, so a caller awaiting each send cannot pile unbounded bytes into
   * the socket buffer of a broker that stopped reading.
   */
  private afterDrain: ((dropped: unknown) => void)[] = [];
  private waitingForDrain = false;
  private readonly flushBound = () => this.flush();

  /**
   * Points the writer at a new socket; frames still queued for the old one are dropped and
   * their `onWritten` callbacks get `dropError` (an acks=0 send must settle, not hang).
   */
  attach(sink: WritableSink | null, dropError: unknown = new Error('connection closed')): void {
    const dropped = this.afterDrain.concat(this.afterFlush);
    this.sink = sink;
    this.queue = [];
    this.queued = 0;
    this.queuedBytes = 0;
    this.queuedLarge = false;
    this.afterFlush = [];
    this.afterDrain = [];
    this.waitingForDrain = false;
    for (let i = 0; i < dropped.length; i++) (dropped[i] as (e: unknown) => void)(dropError);
  }

  /**
   * Queues one frame as the pieces `encodeRequestFrameChunks` gives (written in order, by
   * reference: the caller leaves them unchanged until written); `onWritten(null)`
   * runs once it has been handed to the socket and the socket's buffer is under its
   * high-water mark (at once, or on the next 'drain'), or `onWritten(error)` when the socket
   * went away first (acks=0).
   */
  enqueue(pieces: readonly Buffer[], onWritten?: (dropped: unknown) => void): void {
    const queue = this.queue;
    let n = this.queued;
    for (let i = 0; i < pieces.length; i++, n++) {
      const piece = pieces[i] as Buffer;
      if (n < queue.length) queue[n] = piece;
      else queue.push(piece);
      this.queuedBytes += piece.length;
      if (piece.length >= BY_REFERENCE_BYTES) this.queuedLarge = true;
    }
    this.queued = n;
    if (onWritten !== undefined) this.afterFlush.push(onWritten);
    if (!this.scheduled) {
      this.scheduled = true;
      // A reaction on a settled promise, not queueMicrotask: Node wraps each queueMicrotask
      // callback in an AsyncResource and a bound function (about 300 bytes per flush).
      SETTLED.then(this.flushBound);
    }
  }

  /** Writes everything queued now. */
  flush(): void {
    this.scheduled = false;
    const sink = this.sink;
    const queue = this.queue;
    const n = this.queued;
    if (sink === null || n === 0) return;
    const total = this.queuedBytes;
    const large = this.queuedLarge;
    this.queue = this.spare;
    this.queued = 0;
    this.queuedBytes = 0;
    this.queuedLarge = false;
    let underHighWaterMark: boolean;
    if (n === 1) {
      underHighWaterMark = sink.write(queue[0] as Buffer);
    } else if (total <= CONCAT_LIMIT_BYTES && !large) {
      // Slots past `n` hold EMPTY, and `total` bounds the copy either way.
      underHighWaterMark = sink.write(Buffer.concat(queue, total));
    } else {
      sink.cork();
      underHighWaterMark = true;
      for (let i = 0; i < n; i++) underHighWaterMark = sink.write(queue[i] as Buffer);
      sink.uncork();
    }
    if (queue.length <= REUSED_QUEUE_SLOTS) {
      // Cleared, so the list kept does not hold the written buffers alive.
      for (let i = 0; i < n; i++) queue[i] = EMPTY;
      this.spare = queue;
    } else {
      this.spare = [];
    }
    this.writes++;
    this.bytes += total;
    if (this.afterFlush.length === 0) return;
    const callbacks = this.afterFlush;
    this.afterFlush = [];
    if (underHighWaterMark && !this.waitingForDrain) {
      for (let i = 0; i < callbacks.length; i++) (callbacks[i] as (e: unknown) => void)(null);
      return;
    }
    for (let i = 0; i < callbacks.length; i++)
      this.afterDrain.push(callbacks[i] as (e: unknown) => void);
    if (!this.waitingForDrain) {
      this.waitingForDrain = true;
      // A 'drain' from a socket we have since left must not release the new socket's waiters.
      sink.once('drain', () => {
        if (this.sink === sink) this.drained();
      });
    }
  }

  private drained(): void {
    this.waitingForDrain = false;
    const callbacks = this.afterDrain;
    this.afterDrain = [];
    for (let i = 0; i < callbacks.length; i++) (callbacks[i] as (e: unknown) => void)(null);
  }
}
