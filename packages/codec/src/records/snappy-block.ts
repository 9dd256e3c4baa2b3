/**
 * A raw snappy block decoder (the format of Google's snappy `format_description.txt`): a
 * uvarint of the uncompressed length, then literals and back-references with 1-, 2- or 4-byte
 * offsets. Ours so that reading snappy batches needs no package; it writes into a buffer of
 * exactly the declared length (which the caller has checked against its limit) and refuses
 * anything that would write past it, read past the input or copy from before the output.
 *
 * Literals and copies move in words of four bytes, two per step, each rounded up to a
 * multiple of eight bytes: the output has eight spare bytes past its declared length for
 * that, and a literal near the input's end is copied byte by byte instead. A copy four or
 * more bytes back reads each word before the position it writes, so it repeats its pattern as
 * a byte-by-byte copy would; a copy one to three bytes back goes byte by byte.
 */
import { CodecError } from '../errors.js';
import { copyWords } from './word-copy.js';

function fail(detail: string): never {
  throw new CodecError('CORRUPT', 'snappy', detail);
}

/**
 * Decodes the raw snappy block `src[start, end)` whose preamble declares `expected` bytes
 * after a `headerBytes`-byte length varint.
 *
 * @throws CodecError `CORRUPT` when the block does not decode to exactly `expected` bytes
 */
export function decodeSnappyBlock(
  src: Uint8Array,
  start: number,
  end: number,
  headerBytes: number,
  expected: number,
): Buffer {
  const out = Buffer.allocUnsafe(expected + 8);
  const ov = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const sv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const sLimit = src.length - 8;
  let s = start + headerBytes;
  let d = 0;
  while (s < end) {
    const tag = src[s++]!;
    const type = tag & 3;
    if (type === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const n = len - 59; // 1 to 4 little-endian length bytes follow
        if (s + n > end) fail('literal length runs past the input');
        len = 0;
        for (let i = n - 1; i >= 0; i--) len = len * 256 + src[s + i]!;
        s += n;
      }
      len += 1;
      if (s + len > end) fail('literal runs past the input');
      if (d + len > expected) fail(`block inflates past its declared ${expected} bytes`);
      if (len > 64) {
        out.set(src.subarray(s, s + len), d);
      } else if (s + len <= sLimit) {
        copyWords(ov, d, sv, s, len);
      } else {
        for (let i = 0; i < len; i++) out[d + i] = src[s + i]!;
      }
      s += len;
      d += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (type === 1) {
      if (s + 1 > end) fail('copy offset runs past the input');
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[s++]!;
    } else if (type === 2) {
      if (s + 2 > end) fail('copy offset runs past the input');
      len = 1 + (tag >>> 2);
      offset = src[s]! | (src[s + 1]! << 8);
      s += 2;
    } else {
      if (s + 4 > end) fail('copy offset runs past the input');
      len = 1 + (tag >>> 2);
      offset = (src[s]! | (src[s + 1]! << 8) | (src[s + 2]! << 16) | (src[s + 3]! << 24)) >>> 0;
      s += 4;
    }
    if (offset === 0 || offset > d) fail(`copy offset ${offset} at output byte ${d}`);
    if (d + len > expected) fail(`block inflates past its declared ${expected} bytes`);
    let m = d - offset;
    if (offset >= 4) {
      // Four or more bytes back: word copies repeat the pattern (see copyWords).
      copyWords(ov, d, ov, m, len);
      d += len;
    } else {
      // A copy 1 to 3 bytes back repeats a pattern shorter than a word: by byte.
      const stop = d + len;
      while (d < stop) out[d++] = out[m++]!;
    }
  }
  if (d !== expected) fail(`block inflates to ${d}, declared ${expected}`);
  return out.subarray(0, expected);
}
