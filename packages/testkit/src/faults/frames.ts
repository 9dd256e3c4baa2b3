/**
 * Kafka framing on raw bytes (`int32 size` + body), for the fault tools: they must not import
 * the library packages (layering), so they split and build frames themselves.
 */

/** Splits a byte stream into frame bodies (without the size prefix), chunk by chunk. */
export class RawFrameSplitter {
  private buf: Buffer = Buffer.alloc(0);
  private readonly maxFrameBytes: number;

  /** @param maxFrameBytes a size prefix over this (or negative) makes `push` throw */
  constructor(maxFrameBytes = 256 * 1024 * 1024) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /**
   * Appends a chunk and returns every frame now complete.
   * @throws Error on a negative or oversized size prefix
   */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Buffer[] = [];
    let off = 0;
    while (this.buf.length - off >= 4) {
      const size = this.buf.readInt32BE(off);
      if (size < 0 || size > this.maxFrameBytes) throw new Error(`bad frame size ${size}`);
      if (this.buf.length - off - 4 < size) break;
      out.push(Buffer.from(this.buf.subarray(off + 4, off + 4 + size)));
      off += 4 + size;
    }
    this.buf = off === 0 ? this.buf : Buffer.from(this.buf.subarray(off));
    return out;
  }
}

/** The request header fields every request version starts with. */
export interface RawRequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
}

/** Reads apiKey, apiVersion and correlationId from a request frame body (no size prefix). */
export function readRequestHeader(frame: Buffer): RawRequestHeader {
  if (frame.length < 8) throw new Error(`request frame of ${frame.length} bytes has no header`);
  return {
    apiKey: frame.readInt16BE(0),
    apiVersion: frame.readInt16BE(2),
    correlationId: frame.readInt32BE(4),
  };
}

/** `int32 size` + `body`. */
export function frameOf(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/** A response frame: size, correlation id, then `payload` (response header rest + body). */
export function responseFrame(correlationId: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeInt32BE(4 + payload.length, 0);
  out.writeInt32BE(correlationId, 4);
  payload.copy(out, 8);
  return out;
}

/** Returns a copy of a response frame body (no size prefix) with another correlation id. */
export function withCorrelationId(responseBody: Buffer, correlationId: number): Buffer {
  const out = Buffer.from(responseBody);
  out.writeInt32BE(correlationId, 0);
  return out;
}

/**
 * Frames a hostile broker sends. Each is a complete byte sequence to write as is.
 */
export const hostileFrames = {
  /** A size prefix of -1. */
  negativeLength(): Buffer {
    return Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1]);
  },
  /** A size prefix of 2^31-1 (2 GiB) followed by a few bytes: must not be allocated. */
  hugeLength(): Buffer {
    return Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0]);
  },
  /** A frame that announces 64 bytes and carries 8: the peer then closes mid-frame. */
  truncatedBody(correlationId: number): Buffer {
    const out = Buffer.alloc(12);
    out.writeInt32BE(64, 0);
    out.writeInt32BE(correlationId, 4);
    return out;
  },
  /** A well-formed frame whose correlation id answers no request. */
  wrongCorrelationId(correlationId: number, payload: Buffer = Buffer.alloc(2)): Buffer {
    return responseFrame(correlationId, payload);
  },
  /** Deterministic pseudo-random bytes (xorshift32 from `seed`). */
  garbage(length: number, seed = 0x9e3779b9): Buffer {
    const out = Buffer.alloc(length);
    let x = seed >>> 0 || 1;
    for (let i = 0; i < length; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      out[i] = x & 0xff;
    }
    return out;
  },
} as const;
