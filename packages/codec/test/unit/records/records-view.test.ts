import { describe, expect, it } from 'vitest';
import { pickViewMaker, viewOf } from '../../../src/records/view.js';

describe('record views', () => {
  const bytes = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7]);
  const check = (make: (ab: ArrayBufferLike, off: number, len: number) => Buffer) => {
    const v = make(bytes.buffer, bytes.byteOffset + 2, 3);
    expect(Buffer.isBuffer(v)).toBe(true);
    expect([...v]).toEqual([2, 3, 4]);
    expect(v.buffer).toBe(bytes.buffer);
    bytes[3] = 42; // a view, not a copy
    expect(v[1]).toBe(42);
    bytes[3] = 3;
  };

  it("use Node's Buffer class when it is what Buffer[Symbol.species] gives", () => {
    const species = (Buffer as unknown as Record<symbol, unknown>)[Symbol.species];
    expect(typeof species).toBe('function');
    check(viewOf);
    check(pickViewMaker(species));
  });

  it('fall back to Buffer.from(arrayBuffer, offset, length) for anything else', () => {
    for (const species of [undefined, Uint8Array, () => 1, Array]) {
      check(pickViewMaker(species));
    }
  });
});
