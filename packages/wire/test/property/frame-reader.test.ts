import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, FrameSizeError } from '../../src/internal/frame-reader.js';

function framed(bodies: Buffer[]): Buffer {
  return Buffer.concat(
    bodies.map((b) => {
      const head = Buffer.alloc(4);
      head.writeInt32BE(b.length, 0);
      return Buffer.concat([head, b]);
    }),
  );
}

/** Cuts `data` at the given (sorted, deduplicated) offsets. */
function chunks(data: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    out.push(data.subarray(from, p));
    from = p;
  }
  out.push(data.subarray(from));
  return out;
}

describe('FrameReader (property)', () => {
  it('yields exactly the frames written, however the stream is chunked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 4, maxLength: 300 }), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (bodies, cuts) => {
          const want = bodies.map((b) => Buffer.from(b));
          const got: Buffer[] = [];
          const reader = new FrameReader(1024, (f) => got.push(Buffer.from(f)));
          for (const c of chunks(framed(want), cuts)) reader.push(c);
          expect(got).toEqual(want);
          expect(reader.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on arbitrary bytes either yields bounded frames or throws FrameSizeError, never anything else', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (bytes, cuts) => {
          const reader = new FrameReader(512, (f) => {
            expect(f.length).toBeGreaterThanOrEqual(4);
            expect(f.length).toBeLessThanOrEqual(512);
          });
          try {
            for (const c of chunks(Buffer.from(bytes), cuts)) reader.push(c);
          } catch (err) {
            expect(err).toBeInstanceOf(FrameSizeError);
          }
          expect(reader.bufferedBytes).toBeLessThanOrEqual(512 + 4);
        },
      ),
      { numRuns: 500 },
    );
  });
});
