import { describe, expect, it } from 'vitest';
import { FrameReader, FrameSizeError } from '../../../src/internal/frame-reader.js';

function frame(body: Buffer): Buffer {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

const bodies = [
  Buffer.from('00000001aabbcc', 'hex'),
  Buffer.from('00000002', 'hex'),
  Buffer.alloc(300, 7),
  Buffer.from('0000000301', 'hex'),
];
const stream = Buffer.concat(bodies.map(frame));

describe('FrameReader', () => {
  it('yields the same frames for the stream split at every index', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const got: Buffer[] = [];
      const reader = new FrameReader(1 << 20, (f) => got.push(Buffer.from(f)));
      reader.push(stream.subarray(0, cut));
      reader.push(stream.subarray(cut));
      expect(got, `cut at ${cut}`).toEqual(bodies);
      expect(reader.bufferedBytes).toBe(0);
    }
  });

  it('yields the same frames for the stream split at every pair of indexes', () => {
    for (let a = 0; a <= 24; a += 2) {
      for (let b = a; b <= stream.length; b += 13) {
        const got: Buffer[] = [];
        const reader = new FrameReader(1 << 20, (f) => got.push(Buffer.from(f)));
        reader.push(stream.subarray(0, a));
        reader.push(stream.subarray(a, b));
        reader.push(stream.subarray(b));
        expect(got).toEqual(bodies);
      }
    }
  });

  it('yields the same frames fed one byte at a time', () => {
    const got: Buffer[] = [];
    const reader = new FrameReader(1 << 20, (f) => got.push(Buffer.from(f)));
    for (let i = 0; i < stream.length; i++) reader.push(stream.subarray(i, i + 1));
    expect(got).toEqual(bodies);
  });

  it('hands out views of the chunk for whole frames (no copy)', () => {
    const chunk = frame(Buffer.from('00000009', 'hex'));
    let view: Buffer | undefined;
    new FrameReader(100, (f) => {
      view = f;
    }).push(chunk);
    expect(view?.buffer).toBe(chunk.buffer);
  });

  it.each([
    ['negative length', -1, false],
    ['2 GiB length', 0x7fffffff, true],
    ['length over the limit', 1025, true],
    ['length too short for a correlation id', 3, false],
  ])('refuses a %s with FrameSizeError before allocating', (_name, size, tooLarge) => {
    const head = Buffer.alloc(4);
    head.writeInt32BE(size, 0);
    const reader = new FrameReader(1024, () => {
      throw new Error('no frame expected');
    });
    let err: unknown;
    try {
      reader.push(head);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FrameSizeError);
    expect((err as FrameSizeError).tooLarge).toBe(tooLarge);
    expect((err as FrameSizeError).size).toBe(size);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('delivers nothing more after stop() inside a callback', () => {
    const got: Buffer[] = [];
    const reader = new FrameReader(1 << 20, (f) => {
      got.push(f);
      reader.stop();
    });
    reader.push(stream);
    expect(got.length).toBe(1);
  });
});
