/**
 * Buffer views without `subarray`'s overhead. `Buffer#subarray` finds its constructor through
 * `Symbol.species` and normalises its arguments on every call; a record's key and value are
 * made in the hottest loop of a consumer, so they are built with Node's own Buffer class
 * (`Buffer[Symbol.species]`, the class every Buffer is an instance of) directly. Callers pass
 * positions already checked against the buffer. If a Node release ever stops exposing that
 * class, the module falls back to `subarray` (checked once, when the module loads: a probe
 * with no effect outside it).
 */

type ViewConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Buffer;

function pick(): (buf: Buffer, start: number, length: number) => Buffer {
  const species = (Buffer as unknown as Record<symbol, unknown>)[Symbol.species];
  if (typeof species === 'function') {
    const Ctor = species as ViewConstructor;
    try {
      const probe = Buffer.from([1, 2, 3]);
      const view = new Ctor(probe.buffer, probe.byteOffset + 1, 2);
      if (Buffer.isBuffer(view) && view.length === 2 && view[0] === 2 && view[1] === 3) {
        return (buf, start, length) => new Ctor(buf.buffer, buf.byteOffset + start, length);
      }
    } catch {
      // fall through to subarray
    }
  }
  return (buf, start, length) => buf.subarray(start, start + length);
}

/** `buf[start, start + length)` as a Buffer sharing `buf`'s memory; the range must be inside `buf`. */
export const view: (buf: Buffer, start: number, length: number) => Buffer = pick();
