import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError, compressSync, decompress } from '../../../src/index.js';

/**
 * Our lz4 and snappy decoders copy literals and back-references in words of four bytes, and
 * fall back to single bytes near the ends of their buffers and for references one to three
 * bytes back. These tests write blocks element by element (so every such case is reached on
 * purpose) and check each decoder against a plain reading of its format, byte by byte.
 */

/** One LZ4 sequence: literals, then (except for the last) a match `offset` back of `length`. */
interface Sequence {
  literals: Uint8Array;
  offset: number;
  length: number;
}

/** A length field: the token's nibble, then 255s and a final byte for what exceeds 15. */
function lengthBytes(extra: number): number[] {
  const out: number[] = [];
  let rest = extra - 15;
  while (rest >= 255) {
    out.push(255);
    rest -= 255;
  }
  out.push(rest);
  return out;
}

/** The raw block for `sequences` and the bytes it stands for (matches expanded one by one). */
function writeBlock(sequences: readonly Sequence[], tail: Uint8Array): [Buffer, Buffer] {
  const block: number[] = [];
  const plain: number[] = [];
  const put = (lit: Uint8Array, match: number) => {
    block.push((Math.min(lit.length, 15) << 4) | Math.min(match, 15));
    if (lit.length >= 15) block.push(...lengthBytes(lit.length));
    block.push(...lit);
    plain.push(...lit);
  };
  for (const seq of sequences) {
    const offset = Math.min(seq.offset, plain.length + seq.literals.length);
    if (offset === 0) continue; // nothing to refer back to yet
    put(seq.literals, seq.length - 4);
    block.push(offset & 0xff, offset >>> 8);
    if (seq.length - 4 >= 15) block.push(...lengthBytes(seq.length - 4));
    for (let i = 0; i < seq.length; i++) plain.push(plain[plain.length - offset]!);
  }
  put(tail, 0); // the last sequence: literals only, its token's match nibble unread
  return [Buffer.from(block), Buffer.from(plain)];
}

/** Kafka's frame header (FLG 0x60, BD 0x40 with its checksum), taken from a frame we write. */
const HEADER = compressSync('lz4', Buffer.from('header')).subarray(0, 7);

/** A frame holding the raw `blocks`, each with its size field. */
function frameOf(blocks: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(HEADER)];
  for (const b of blocks) {
    const size = Buffer.alloc(4);
    size.writeUInt32LE(b.length);
    parts.push(size, b);
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/**
 * The LZ4 block format read one byte at a time, with the decoder's limits: at most `room`
 * bytes out. Returns the bytes, or null where the block is malformed or needs more room.
 */
function referenceBlock(src: Uint8Array, room: number, out: number[]): boolean {
  const start = out.length;
  let s = 0;
  while (s < src.length) {
    const token = src[s++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (s >= src.length) return false;
        b = src[s++]!;
        lit += b;
      } while (b === 255);
    }
    if (s + lit > src.length || out.length - start + lit > room) return false;
    for (let k = 0; k < lit; k++) out.push(src[s++]!);
    if (s >= src.length) return true;
    if (s + 2 > src.length) return false;
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    if (offset === 0 || offset > out.length - start) return false;
    let len = token & 15;
    if (len === 15) {
      let b: number;
      do {
        if (s >= src.length) return false;
        b = src[s++]!;
        len += b;
      } while (b === 255);
    }
    len += 4;
    if (out.length - start + len > room) return false;
    for (let k = 0; k < len; k++) out.push(out[out.length - offset]!);
  }
  return true;
}

/** Up to four bytes to overwrite in a block: where (modulo its length) and with what. */
const damage = fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 });

/** `block` with each of `hits` written over it. */
function damaged(block: Buffer, hits: readonly (readonly [number, number])[]): Buffer {
  for (const [at, byte] of hits) block[at % block.length] = byte;
  return block;
}

/**
 * Checks a decode against the byte-by-byte reading: the same bytes, or (where the reading
 * finds the block malformed, `expected` null) a `CodecError`, never another error.
 */
function decodesAsReference(decode: () => Buffer, expected: Buffer | null): void {
  let got: Buffer | CodecError;
  try {
    got = decode();
  } catch (err) {
    expect(err).toBeInstanceOf(CodecError);
    got = err as CodecError;
  }
  if (expected === null) expect(got).toBeInstanceOf(CodecError);
  else expect(got).toEqual(expected);
}

const bytesOf = (max: number) =>
  fc.uint8Array({ minLength: 0, maxLength: max }).map((b) => b.map((x) => 97 + (x % 4)));

const sequence: fc.Arbitrary<Sequence> = fc.record({
  literals: fc.oneof(bytesOf(20), bytesOf(300)),
  // Short offsets repeat a pattern the match itself writes; 8 is where word copies start.
  offset: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 2000 })),
  length: fc.oneof(fc.integer({ min: 4, max: 24 }), fc.integer({ min: 4, max: 600 })),
});

describe('lz4 block decoding (our decoder)', () => {
  it('decodes any sequence of literals and matches, at any room left', () => {
    fc.assert(
      fc.property(
        fc.array(sequence, { maxLength: 40 }),
        bytesOf(40),
        fc.nat(16),
        (sequences, tail, slack) => {
          const [block, plain] = writeBlock(sequences, tail);
          fc.pre(plain.length <= 64 * 1024);
          const frame = frameOf([block]);
          // With a limit at or just over the output's size, the output buffer has no spare
          // bytes at its end, so the last sequences take the single-byte paths.
          const out = decompress('lz4', frame, plain.length + slack);
          expect(out.equals(plain)).toBe(true);
          expect(decompress('lz4', frame, 1 << 20).equals(plain)).toBe(true);
          if (plain.length > 0) {
            expect(() => decompress('lz4', frame, plain.length - 1)).toThrow(
              expect.objectContaining({ code: 'ERR_KAFKA_CODEC_LENGTH_INVALID' }),
            );
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('decodes what both block compressors write, across several 64 KiB blocks', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.nat(200_000),
        (pattern, noise, length) => {
          // A repeated pattern with noise every 997 bytes: long matches, short ones, literals.
          const data = Buffer.alloc(length);
          for (let i = 0; i < length; i++) data[i] = pattern[i % pattern.length]!;
          for (let i = 0; i < length; i += 997) data.set(noise.subarray(0, length - i), i);
          for (const backend of ['native', 'js'] as const) {
            const frame = compressSync('lz4', data, { backend });
            expect(decompress('lz4', frame, data.length).equals(data)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('damaged blocks decode as the byte-by-byte reading does, or fail as CodecError', () => {
    fc.assert(
      fc.property(
        fc.array(sequence, { minLength: 1, maxLength: 20 }),
        damage,
        fc.nat(2000),
        (sequences, hits, room) => {
          const block = damaged(writeBlock(sequences, new Uint8Array(0))[0], hits);
          const expected: number[] = [];
          const ok = referenceBlock(block, Math.min(room, 64 * 1024), expected);
          decodesAsReference(
            () => decompress('lz4', frameOf([block]), room),
            ok ? Buffer.from(expected) : null,
          );
        },
      ),
      { numRuns: 600 },
    );
  });
});

/** One snappy element: a literal, or a copy `offset` back of `length` with a 1, 2 or 4-byte offset. */
type SnappyElement =
  | { literal: Uint8Array }
  | { offset: number; length: number; offsetBytes: 1 | 2 | 4 };

function uvarint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The raw snappy block for `elements` (preamble included) and the bytes it stands for. */
function writeSnappy(elements: readonly SnappyElement[]): [Buffer, Buffer] {
  const body: number[] = [];
  const plain: number[] = [];
  for (const e of elements) {
    if ('literal' in e) {
      if (e.literal.length === 0) continue;
      const n = e.literal.length - 1;
      if (n < 60) body.push(n << 2);
      else if (n < 256) body.push(60 << 2, n);
      else body.push(61 << 2, n & 0xff, n >>> 8);
      body.push(...e.literal);
      plain.push(...e.literal);
      continue;
    }
    if (plain.length === 0) continue;
    const offset = Math.min(e.offset, plain.length);
    let length = e.length;
    if (e.offsetBytes === 1 && offset < 2048) {
      length = 4 + ((length - 4) & 7);
      body.push(((offset >>> 8) << 5) | ((length - 4) << 2) | 1, offset & 0xff);
    } else if (e.offsetBytes === 2) {
      body.push(((length - 1) << 2) | 2, offset & 0xff, offset >>> 8);
    } else {
      body.push(((length - 1) << 2) | 3, offset & 0xff, (offset >>> 8) & 0xff, 0, 0);
    }
    for (let i = 0; i < length; i++) plain.push(plain[plain.length - offset]!);
  }
  return [Buffer.from([...uvarint(plain.length), ...body]), Buffer.from(plain)];
}

/** The snappy block format read one byte at a time: the bytes, or null where malformed. */
function referenceSnappy(src: Uint8Array): Buffer | null {
  let declared = 0;
  let s = 0;
  for (let shift = 0; ; shift += 7) {
    if (s >= src.length || shift > 28) return null;
    const b = src[s++]!;
    declared += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out: number[] = [];
  while (s < src.length) {
    const tag = src[s++]!;
    let length: number;
    let offset: number;
    if ((tag & 3) === 0) {
      length = tag >>> 2;
      if (length >= 60) {
        const n = length - 59;
        if (s + n > src.length) return null;
        length = 0;
        for (let i = n - 1; i >= 0; i--) length = length * 256 + src[s + i]!;
        s += n;
      }
      length += 1;
      if (s + length > src.length || out.length + length > declared) return null;
      for (let i = 0; i < length; i++) out.push(src[s++]!);
      continue;
    }
    if ((tag & 3) === 1) {
      if (s + 1 > src.length) return null;
      length = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[s++]!;
    } else {
      const n = (tag & 3) === 2 ? 2 : 4;
      if (s + n > src.length) return null;
      length = 1 + (tag >>> 2);
      offset = 0;
      for (let i = n - 1; i >= 0; i--) offset = offset * 256 + src[s + i]!;
      s += n;
    }
    if (offset === 0 || offset > out.length || out.length + length > declared) return null;
    for (let i = 0; i < length; i++) out.push(out[out.length - offset]!);
  }
  return out.length === declared ? Buffer.from(out) : null;
}

const snappyElement: fc.Arbitrary<SnappyElement> = fc.oneof(
  fc.record({ literal: fc.oneof(bytesOf(20), bytesOf(400)) }),
  fc.record({
    // Short offsets repeat a pattern the copy itself writes; 4 is where word copies start.
    offset: fc.oneof(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 3000 })),
    length: fc.integer({ min: 4, max: 64 }),
    offsetBytes: fc.constantFrom(1 as const, 2 as const, 4 as const),
  }),
);

describe('snappy block decoding (our decoder)', () => {
  it('decodes any sequence of literals and copies', () => {
    fc.assert(
      fc.property(fc.array(snappyElement, { maxLength: 60 }), (elements) => {
        const [block, plain] = writeSnappy(elements);
        const out = decompress('snappy', block, plain.length, { backend: 'js' });
        expect(out.equals(plain)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('damaged blocks decode as the byte-by-byte reading does, or fail as CodecError', () => {
    fc.assert(
      fc.property(
        fc.array(snappyElement, { minLength: 1, maxLength: 30 }),
        damage,
        (elements, hits) => {
          const block = damaged(writeSnappy(elements)[0], hits);
          decodesAsReference(
            () => decompress('snappy', block, 1 << 20, { backend: 'js' }),
            referenceSnappy(block),
          );
        },
      ),
      { numRuns: 600 },
    );
  });
});
