/**
 * The record decoders' position over `buf[pos, end)`: varints read through the codec's one
 * varint implementation (`../varint.ts`), errors re-thrown as `RecordBatchError` naming the
 * batch by `baseOffset`.
 */
import { CodecError, type CodecErrorReason } from '../errors.js';
import { readVarint, readVarlong } from '../varint.js';
import { RecordBatchError } from './record-batch-error.js';

export class Cursor {
  buf: Buffer;
  pos: number;
  end: number;
  /** Set by `readVarlong` when the value does not fit a safe integer. */
  big: bigint | null = null;
  readonly baseOffset: bigint | null;

  constructor(buf: Buffer, pos: number, end: number, baseOffset: bigint | null) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.baseOffset = baseOffset;
  }

  fail(reason: CodecErrorReason, detail: string): never {
    throw new RecordBatchError(reason, this.baseOffset, detail);
  }

  /** Reads a zig-zag varint (at most 5 bytes) as an int32. */
  readVarint(): number {
    try {
      return readVarint(this);
    } catch (e) {
      throw this.#asBatchError(e);
    }
  }

  /**
   * Reads a zig-zag varlong (at most 10 bytes). Returns it as a number when it is a safe
   * integer; otherwise returns NaN and leaves the exact value in `big`.
   */
  readVarlong(): number {
    try {
      return readVarlong(this);
    } catch (e) {
      throw this.#asBatchError(e);
    }
  }

  #asBatchError(e: unknown): unknown {
    return e instanceof CodecError && !(e instanceof RecordBatchError)
      ? new RecordBatchError(e.reason, this.baseOffset, e.message, { cause: e })
      : e;
  }
}
