/**
 * Buffer views without `subarray`'s overhead. `Buffer#subarray` finds its constructor through
 * `Symbol.species` and normalises its arguments on every call, and reading a Buffer's
 * `buffer` is a call too; a record's key and value are made in the hottest loop of a
 * consumer, so they are built from an ArrayBuffer and an offset known in advance, with Node's
 * own Buffer class (`Buffer[Symbol.species]`, the class every Buffer is an instance of).
 * Callers pass ranges already checked. Should a Node release stop exposing that class, the
 * module falls back to `Buffer.from(arrayBuffer, offset, length)`, also a view (checked once,
 * when the module loads: a probe with no effect outside it).
 */

type ViewConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Buffer;

/** The bytes a batch's records are views into, with what a view needs from them. */
export interface ViewSource {
  readonly buf: Buffer;
  readonly ab: ArrayBufferLike;
  /** `buf.byteOffset`. */
  readonly off: number;
}

export function viewSource(buf: Buffer): ViewSource {
  return { buf, ab: buf.buffer, off: buf.byteOffset };
}

/**
 * @internal exported for tests: the view maker for a given `Buffer[Symbol.species]` value
 * (Node's Buffer class, or anything else, which selects the fallback).
 */
export function pickViewMaker(
  species: unknown,
): (ab: ArrayBufferLike, byteOffset: number, length: number) => Buffer {
  if (typeof species === 'function') {
    const Ctor = species as ViewConstructor;
    try {
      const probe = Buffer.from([1, 2, 3]);
      const made = new Ctor(probe.buffer, probe.byteOffset + 1, 2);
      if (Buffer.isBuffer(made) && made.length === 2 && made[0] === 2 && made[1] === 3) {
        return (ab, byteOffset, length) => new Ctor(ab, byteOffset, length);
      }
    } catch {
      // not a Buffer class: fall through
    }
  }
  return (ab, byteOffset, length) => Buffer.from(ab as ArrayBuffer, byteOffset, length);
}

/** `length` bytes of `ab` from `byteOffset` as a Buffer sharing that memory. */
export const viewOf: (ab: ArrayBufferLike, byteOffset: number, length: number) => Buffer =
  pickViewMaker((Buffer as unknown as Record<symbol, unknown>)[Symbol.species]);

/** `src.buf[start, start + length)` as a Buffer sharing its memory; the range must be inside. */
export function view(src: ViewSource, start: number, length: number): Buffer {
  return viewOf(src.ab, src.off + start, length);
}
