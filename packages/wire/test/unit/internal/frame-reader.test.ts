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
  // A broker (or anything on the port) announcing a 100 MiB frame and then trickling its body
  // pinned 100 MiB per connection when the reader allocated the announced size at the header.
  it('holds memory in proportion to the bytes received, not to the size announced', () => {
    const announced = 100 * 1024 * 1024;
    const reader = new FrameReader(announced, () => {
      throw new Error('no frame is complete');
    });
    const head = Buffer.alloc(4);
    head.writeInt32BE(announced, 0);
    reader.push(head);
    const held = () => (reader as unknown as { pending: Buffer }).pending.length;
    expect(held()).toBe(0);
    let received = 0;
    for (let i = 0; i < 1000; i++) {
      reader.push(Buffer.alloc(100, i));
      received += 100;
      expect(held()).toBeLessThanOrEqual(2 * received);
    }
    expect(reader.bufferedBytes).toBe(received);
  });

  it('assembles a frame trickled one byte at a time, byte for byte', () => {
    const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const bytes = frame(body);
    const got: Buffer[] = [];
    const reader = new FrameReader(1 << 20, (f) => got.push(Buffer.from(f)));
    for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
    expect(got).toEqual([body]);
    expect(reader.bufferedBytes).toBe(0);
  });

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
