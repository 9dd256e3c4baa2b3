/**
 * Our snappy block decoder against the two compressors Kafka users have (the native snappy
 * binding, which matches snappy-java, and snappyjs): whatever either writes, ours reads back
 * exactly; and arbitrary bytes are refused with a CodecError, never with a crash or more
 * output than the limit.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError, compressSync, decompress } from '../../../src/index.js';

const require = createRequire(import.meta.url);
const native = require('snappy') as { compressSync(b: Buffer): Buffer };
const js = require('snappyjs') as { compress(b: Uint8Array): Uint8Array };
/** Our decoder: what runs when the native binding is absent. */
const OURS = { backend: 'js' } as const;

/** Data with long and short, near and far repeats: every copy kind and overlapping copies. */
const compressible = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
      fc
        .tuple(fc.uint8Array({ minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 3000 }))
        .map(([unit, times]) => Buffer.concat(Array.from({ length: times }, () => unit))),
      fc.constantFrom(Buffer.alloc(70_000, 7), Buffer.from('kafka '.repeat(15_000))),
    ),
    { maxLength: 12 },
  )
  .map((parts) => {
    const body = Buffer.concat(parts);
    // A far repeat: the start again after up to 70 KB (4-byte offsets when far enough).
    return Buffer.concat([body, body.subarray(0, Math.min(body.length, 5000))]);
  });

describe('snappy decoder', () => {
  it('reads exactly what the native binding and snappyjs write, raw and xerial-framed', () => {
    fc.assert(
      fc.property(compressible, (data) => {
        for (const raw of [native.compressSync(data), Buffer.from(js.compress(data))]) {
          expect(decompress('snappy', raw, data.length + 1, OURS).equals(data)).toBe(true);
        }
        const framed = compressSync('snappy', data);
        expect(decompress('snappy', framed, data.length + 1, OURS).equals(data)).toBe(true);
        expect(
          decompress('snappy', framed, data.length + 1, { backend: 'native' }).equals(data),
        ).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses corrupt input with a CodecError and never outputs past the limit', () => {
    fc.assert(
      fc.property(
        compressible,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(),
        (data, flips, cut) => {
          const raw = Buffer.from(native.compressSync(data));
          for (const [at, v] of flips) raw[at % raw.length] = v;
          const input = raw.subarray(0, raw.length - (cut % Math.max(1, raw.length)));
          const limit = data.length + 16;
          try {
            const out = decompress('snappy', input, limit, OURS);
            expect(out.length).toBeLessThanOrEqual(limit);
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a copy from before the output and a literal past the declared length', () => {
    // declared 4; copy (tag 01) of 4 bytes at offset 1 with nothing written yet
    expect(() => decompress('snappy', Buffer.from([4, 0x01, 0x01]), 100, OURS)).toThrow(
      /copy offset 1 at output byte 0/,
    );
    // declared 2; a 3-byte literal
    expect(() => decompress('snappy', Buffer.from([2, 0x08, 1, 2, 3]), 100, OURS)).toThrow(
      /inflates past its declared 2 bytes/,
    );
    // declared 5; a 3-byte literal, then the input ends
    expect(() => decompress('snappy', Buffer.from([5, 0x08, 1, 2, 3]), 100, OURS)).toThrow(
      /inflates to 3, declared 5/,
    );
  });
});
