/** The part of a socket the writer uses. */
export interface WritableSink {
  write(chunk: Buffer): boolean;
  cork(): void;
  uncork(): void;
}

/** Frames up to this total are joined into one buffer; beyond it they go out corked (writev). */
const CONCAT_LIMIT_BYTES = 64 * 1024;

/**
 * Coalesces request frames: frames queued in one tick leave in one `write` (small bursts are
 * joined into one buffer; large ones are written under `cork` so the kernel sees one writev).
 * The flush runs on `process.nextTick`, after the synchronous burst and the promise
 * continuations already queued, so a loop of `send` calls costs one syscall.
 */
export class CoalescingWriter {
  /** Socket `write` calls made (one per flush). */
  writes = 0;
  /** Bytes handed to the socket. */
  bytes = 0;
  private sink: WritableSink | null = null;
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private afterFlush: ((dropped: unknown) => void)[] = [];
  private readonly flushBound = () => this.flush();

  /**
   * Points the writer at a new socket; frames still queued for the old one are dropped and
   * their `onWritten` callbacks get `dropError` (an acks=0 send must settle, not hang).
   */
  attach(sink: WritableSink | null, dropError: unknown = new Error('connection closed')): void {
    const dropped = this.afterFlush;
    this.sink = sink;
    this.queue = [];
    this.queuedBytes = 0;
    this.afterFlush = [];
    for (let i = 0; i < dropped.length; i++) (dropped[i] as (e: unknown) => void)(dropError);
  }

  /**
   * Queues one frame; `onWritten(null)` runs once it has been handed to the socket, or
   * `onWritten(error)` when the socket went away first (acks=0).
   */
  enqueue(frame: Buffer, onWritten?: (dropped: unknown) => void): void {
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    if (onWritten !== undefined) this.afterFlush.push(onWritten);
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flushBound);
    }
  }

  /** Writes everything queued now. */
  flush(): void {
    this.scheduled = false;
    const sink = this.sink;
    const queue = this.queue;
    if (sink === null || queue.length === 0) return;
    const total = this.queuedBytes;
    this.queue = [];
    this.queuedBytes = 0;
    if (queue.length === 1) {
      sink.write(queue[0] as Buffer);
    } else if (total <= CONCAT_LIMIT_BYTES) {
      sink.write(Buffer.concat(queue, total));
    } else {
      sink.cork();
      for (let i = 0; i < queue.length; i++) sink.write(queue[i] as Buffer);
      sink.uncork();
    }
    this.writes++;
    this.bytes += total;
    if (this.afterFlush.length > 0) {
      const callbacks = this.afterFlush;
      this.afterFlush = [];
      for (let i = 0; i < callbacks.length; i++) (callbacks[i] as (e: unknown) => void)(null);
    }
  }
}
