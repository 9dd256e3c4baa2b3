/**
 * Why a frame's size prefix was refused. `size` is the raw int32 the peer sent.
 */
export class FrameSizeError extends Error {
  readonly size: number;
  readonly tooLarge: boolean;

  constructor(size: number, maxFrameBytes: number) {
    const tooLarge = size > maxFrameBytes;
    super(
      tooLarge
        ? `response frame of ${size} bytes exceeds maxResponseBytes ${maxFrameBytes}`
        : `response frame size ${size} is invalid (a response holds at least a 4-byte correlation id)`,
    );
    this.size = size;
    this.tooLarge = tooLarge;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Splits a byte stream into Kafka frames (`int32 size` + `size` bytes) as socket chunks
 * arrive. A frame wholly inside one chunk is handed out as a view of that chunk (no copy).
 * A frame that straddles chunks is assembled in a buffer that grows (doubling, capped at the
 * frame size) as its bytes arrive, so the memory it holds follows what the peer actually
 * sent: a header announcing 100 MiB followed by a trickle pins at most twice the trickle, not
 * 100 MiB. The size is still checked against `maxFrameBytes` at the header.
 *
 * `onFrame` receives the bytes after the size prefix (header + body). The view stays valid
 * as long as it is referenced: Node never reuses a socket chunk.
 */
export class FrameReader {
  private readonly maxFrameBytes: number;
  private readonly onFrame: (frame: Buffer) => void;
  private readonly header = Buffer.alloc(4);
  private headerFilled = 0;
  /** Size of the frame being collected; -1 when between frames. */
  private pendingSize = -1;
  private pending: Buffer = EMPTY;
  private pendingFilled = 0;
  private stopped = false;

  constructor(maxFrameBytes: number, onFrame: (frame: Buffer) => void) {
    this.maxFrameBytes = maxFrameBytes;
    this.onFrame = onFrame;
  }

  /** Bytes held for a frame not yet complete (diagnostics and tests). */
  get bufferedBytes(): number {
    return this.headerFilled + this.pendingFilled;
  }

  /** Forgets any partial frame and accepts frames again (a new socket). */
  reset(): void {
    this.stop();
    this.stopped = false;
  }

  /** Stops delivering frames, also in the middle of a `push` (the connection is closing). */
  stop(): void {
    this.stopped = true;
    this.pendingSize = -1;
    this.pending = EMPTY;
    this.headerFilled = 0;
    this.pendingFilled = 0;
  }

  /**
   * Feeds one chunk. Frames complete in it are delivered before `push` returns.
   *
   * @throws FrameSizeError on a negative, too short or too large size prefix; the stream
   *   cannot be resynchronised after that, so the caller closes the connection
   */
  push(chunk: Buffer): void {
    let off = 0;
    const end = chunk.length;
    while (off < end && !this.stopped) {
      if (this.pendingSize >= 0) {
        const take = Math.min(this.pendingSize - this.pendingFilled, end - off);
        const need = this.pendingFilled + take;
        if (need > this.pending.length) {
          const grown = Buffer.allocUnsafe(
            Math.min(this.pendingSize, Math.max(need, 2 * this.pending.length)),
          );
          this.pending.copy(grown, 0, 0, this.pendingFilled);
          this.pending = grown;
        }
        chunk.copy(this.pending, this.pendingFilled, off, off + take);
        this.pendingFilled = need;
        off += take;
        if (this.pendingFilled === this.pendingSize) {
          const frame = this.pending;
          this.pendingSize = -1;
          this.pending = EMPTY;
          this.pendingFilled = 0;
          this.onFrame(frame);
        }
        continue;
      }
      let size: number;
      if (this.headerFilled === 0 && end - off >= 4) {
        size = chunk.readInt32BE(off);
        off += 4;
      } else {
        const take = Math.min(4 - this.headerFilled, end - off);
        chunk.copy(this.header, this.headerFilled, off, off + take);
        this.headerFilled += take;
        off += take;
        if (this.headerFilled < 4) return;
        this.headerFilled = 0;
        size = this.header.readInt32BE(0);
      }
      if (size < 4 || size > this.maxFrameBytes) {
        this.stop();
        throw new FrameSizeError(size, this.maxFrameBytes);
      }
      if (end - off >= size) {
        const frame = chunk.subarray(off, off + size);
        off += size;
        this.onFrame(frame);
      } else {
        this.pendingSize = size;
        this.pendingFilled = 0;
      }
    }
  }
}
