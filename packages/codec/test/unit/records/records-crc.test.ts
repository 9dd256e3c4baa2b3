import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32, crc32c, crc32cJs } from '../../../src/index.js';

/** Bit-at-a-time reference: slow and obviously right. */
function reference(poly: number, buf: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of buf) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ poly : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32c', () => {
  it('matches the published check value of "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });
  it('matches the bitwise reference at every length and alignment up to 70 bytes', () => {
    const data = Buffer.alloc(80);
    for (let i = 0; i < data.length; i++) data[i] = (i * 151 + 7) & 0xff;
    for (let start = 0; start < 9; start++) {
      for (let len = 0; len <= 70; len++) {
        expect(crc32c(data, start, start + len)).toBe(
          reference(0x82f63b78, data.subarray(start, start + len)),
        );
      }
    }
  });
  it('native and JS paths agree on every length, offset and content', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat(), fc.nat(), (a, x, y) => {
        const buf = Buffer.from(a);
        const start = buf.length === 0 ? 0 : x % buf.length;
        const end = start + (buf.length === start ? 0 : y % (buf.length - start + 1));
        expect(crc32c(buf, start, end)).toBe(crc32cJs(buf, start, end));
      }),
      { numRuns: 300 },
    );
  });
  it('is 0 for empty input', () => {
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });
});

describe('crc32 (IEEE, legacy messages)', () => {
  it('matches the published check value of "123456789"', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
  it('matches the bitwise reference at every length up to 40 bytes', () => {
    const data = Buffer.alloc(40);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37 + 3) & 0xff;
    for (let len = 0; len <= 40; len++) {
      expect(crc32(data, 0, len)).toBe(reference(0xedb88320, data.subarray(0, len)));
    }
  });
});
