/**
 * Kafka's LZ4 framing: the standard LZ4 frame (magic 0x184D2204), written the way Kafka's
 * KafkaLZ4BlockOutputStream writes it (FLG 0x60: version 01 + independent blocks, BD 0x40:
 * 64 KiB blocks, no checksums). Blocks come from a native or pure-JS block compressor; the
 * decoder is ours so that it can stop at a byte limit instead of trusting the input.
 */
import { CodecError } from '../errors.js';
import { copyWords } from './word-copy.js';

const MAGIC = 0x184d2204;
const BLOCK_SIZE = 64 * 1024;
const PRIME1 = 0x9e3779b1;
const PRIME2 = 0x85ebca77;
const PRIME3 = 0xc2b2ae3d;
const PRIME4 = 0x27d4eb2f;
const PRIME5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function readU32LE(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** xxHash32 with seed 0 of `b[start, end)`; used for the 1-byte frame header checksum. */
export function xxh32(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let h: number;
  if (end - start >= 16) {
    let v1 = (PRIME1 + PRIME2) | 0;
    let v2 = PRIME2;
    let v3 = 0;
    let v4 = -PRIME1 | 0;
    while (i + 16 <= end) {
      v1 = Math.imul(rotl((v1 + Math.imul(readU32LE(b, i), PRIME2)) | 0, 13), PRIME1);
      v2 = Math.imul(rotl((v2 + Math.imul(readU32LE(b, i + 4), PRIME2)) | 0, 13), PRIME1);
      v3 = Math.imul(rotl((v3 + Math.imul(readU32LE(b, i + 8), PRIME2)) | 0, 13), PRIME1);
      v4 = Math.imul(rotl((v4 + Math.imul(readU32LE(b, i + 12), PRIME2)) | 0, 13), PRIME1);
      i += 16;
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = PRIME5;
  }
  h = (h + (end - start)) | 0;
  while (i + 4 <= end) {
    h = Math.imul(rotl((h + Math.imul(readU32LE(b, i), PRIME3)) | 0, 17), PRIME4);
    i += 4;
  }
  while (i < end) {
    h = Math.imul(rotl((h + Math.imul(b[i]!, PRIME5)) | 0, 11), PRIME1);
    i++;
  }
  h ^= h >>> 15;
  h = Math.imul(h, PRIME2);
  h ^= h >>> 13;
  h = Math.imul(h, PRIME3);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Compresses one block; returns the raw LZ4 block or null when it did not shrink. */
export type Lz4BlockCompressor = (chunk: Buffer) => Buffer | null;

/**
 * Writes `data` as a Kafka-style LZ4 frame using `compressBlock` for each 64 KiB block.
 *
 * @param headroom bytes left unwritten before the frame, for a header the caller puts there
 *   (a record batch's): the frame starts at that offset of the buffer returned
 */
export function encodeLz4Frame(
  data: Buffer,
  compressBlock: Lz4BlockCompressor,
  headroom = 0,
): Buffer {
  const blocks: (Buffer | null)[] = [];
  let total = 7 + 4; // frame header, end mark
  for (let off = 0; off < data.length; off += BLOCK_SIZE) {
    const chunkLength = Math.min(BLOCK_SIZE, data.length - off);
    let block = compressBlock(data.subarray(off, off + chunkLength));
    if (block !== null && block.length >= chunkLength) block = null;
    blocks.push(block);
    total += 4 + (block === null ? chunkLength : block.length);
  }
  const out = Buffer.allocUnsafe(headroom + total);
  let pos = headroom;
  out.writeUInt32LE(MAGIC, pos);
  out[pos + 4] = 0x60; // FLG: bits 7-6 version 01, bit 5 independent blocks
  out[pos + 5] = 0x40; // BD: bits 6-4 = 4, 64 KiB maximum block size
  out[pos + 6] = (xxh32(out, pos + 4, pos + 6) >>> 8) & 0xff;
  pos += 7;
  for (let i = 0, off = 0; i < blocks.length; i++, off += BLOCK_SIZE) {
    const block = blocks[i] as Buffer | null;
    if (block === null) {
      // Stored uncompressed: the length's high bit says so.
      const end = Math.min(off + BLOCK_SIZE, data.length);
      out.writeUInt32LE(((end - off) | 0x80000000) >>> 0, pos);
      pos += 4 + data.copy(out, pos + 4, off, end);
    } else {
      out.writeUInt32LE(block.length, pos);
      pos += 4 + block.copy(out, pos + 4);
    }
  }
  out.writeUInt32LE(0, pos); // end mark
  return out;
}

function lz4Fail(detail: string): never {
  throw new CodecError('CORRUPT', 'lz4 frame', detail);
}

/** A little-endian view of `b`'s bytes, for copying them four at a time. */
function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Decodes one raw LZ4 block from `src[s, sEnd)` into `dst` at `d`, never writing at or past
 * `dEnd`. Returns the new output position, or -1 when the output would pass `dEnd`.
 *
 * Literals and matches are copied in words of four bytes, two per step, each copy rounded up
 * to a multiple of eight bytes. That may read up to seven bytes past the literals (still inside
 * `src`) and write up to seven past the sequence (still inside `dst`): the bytes written there
 * are overwritten by the sequences that follow, or lie past the output's end. A match four or
 * more bytes back reads each word before the position it writes, so it repeats its pattern as
 * a byte-by-byte copy would. Near the ends of either buffer, and for a match one to three
 * bytes back, bytes are copied one at a time.
 */
function decodeLz4Block(
  src: Uint8Array,
  sv: DataView,
  s: number,
  sEnd: number,
  dst: Uint8Array,
  dv: DataView,
  d: number,
  dEnd: number,
): number {
  const dStart = d;
  const sLimit = src.length - 8;
  const dLimit = dst.length - 8;
  while (s < sEnd) {
    const token = src[s++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (s >= sEnd) lz4Fail('literal length runs past the block');
        b = src[s++]!;
        lit += b;
      } while (b === 255);
    }
    if (s + lit > sEnd) lz4Fail('literals run past the block');
    if (d + lit > dEnd) return -1;
    if (lit !== 0) {
      if (s + lit <= sLimit && d + lit <= dLimit) {
        copyWords(dv, d, sv, s, lit);
      } else {
        for (let k = 0; k < lit; k++) dst[d + k] = src[s + k]!;
      }
      s += lit;
      d += lit;
    }
    if (s >= sEnd) break; // the last sequence carries literals only
    if (s + 2 > sEnd) lz4Fail('match offset runs past the block');
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    if (offset === 0 || offset > d - dStart)
      lz4Fail(`match offset ${offset} points before the block`);
    let mlen = token & 15;
    if (mlen === 15) {
      let b: number;
      do {
        if (s >= sEnd) lz4Fail('match length runs past the block');
        b = src[s++]!;
        mlen += b;
      } while (b === 255);
    }
    mlen += 4;
    if (d + mlen > dEnd) return -1;
    let m = d - offset;
    if (offset >= 4 && d + mlen <= dLimit) {
      // Four or more bytes back: word copies repeat the pattern (see copyWords).
      if (mlen > 64 && offset >= mlen) {
        dst.copyWithin(d, m, m + mlen);
      } else {
        copyWords(dv, d, dv, m, mlen);
      }
      d += mlen;
    } else {
      const stop = d + mlen;
      while (d < stop) dst[d++] = dst[m++]!;
    }
  }
  return d;
}

/**
 * Decodes a whole LZ4 frame, refusing to produce more than `maxBytes`.
 *
 * @param brokenHeaderChecksum accept Kafka's pre-0.10 header checksum (computed over the
 *   magic too, KAFKA-3160) as well as the correct one; only magic 0 messages need it.
 * @throws CodecError `CORRUPT` for a malformed frame, `LENGTH_INVALID` past `maxBytes`
 */
export function decodeLz4Frame(
  src: Buffer,
  maxBytes: number,
  brokenHeaderChecksum = false,
): Buffer {
  const end = src.length;
  if (end < 7) lz4Fail('shorter than a frame header');
  if (src.readUInt32LE(0) !== MAGIC) lz4Fail('bad magic number');
  const flg = src[4]!;
  const bd = src[5]!;
  if (flg >>> 6 !== 1) lz4Fail(`unsupported frame version ${flg >>> 6}`);
  if (flg & 0x02 || bd & 0x8f) lz4Fail('reserved bits set');
  if (flg & 0x01) lz4Fail('dictionary ids are not supported');
  const blockChecksum = (flg & 0x10) !== 0;
  const contentSize = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  const blockMax = 1 << (8 + 2 * ((bd >>> 4) & 7));
  if (((bd >>> 4) & 7) < 4) lz4Fail('bad block maximum size');
  let s = 6;
  if (contentSize) s += 8;
  if (s >= end) lz4Fail('frame header truncated');
  const hc = src[s]!;
  if (hc !== ((xxh32(src, 4, s) >>> 8) & 0xff)) {
    if (!brokenHeaderChecksum || hc !== ((xxh32(src, 0, s) >>> 8) & 0xff)) {
      lz4Fail('frame header checksum mismatch');
    }
  }
  s++;
  let cap = Math.min(maxBytes, Math.max(blockMax, end * 4));
  let out = Buffer.allocUnsafe(cap);
  let outView = viewOf(out);
  const srcView = viewOf(src);
  let d = 0;
  for (;;) {
    if (s + 4 > end) lz4Fail('block size runs past the frame');
    const raw = src.readUInt32LE(s);
    s += 4;
    if (raw === 0) break;
    const stored = (raw & 0x80000000) !== 0;
    const size = raw & 0x7fffffff;
    if (size > blockMax) lz4Fail(`block of ${size} bytes exceeds the frame's ${blockMax}`);
    if (s + size > end) lz4Fail('block runs past the frame');
    if (d + blockMax > cap && cap < maxBytes) {
      cap = Math.min(maxBytes, Math.max(cap * 2, d + blockMax));
      const grown = Buffer.allocUnsafe(cap);
      out.copy(grown, 0, 0, d);
      out = grown;
      outView = viewOf(out);
    }
    if (stored) {
      if (d + size > cap) tooLarge(maxBytes);
      src.copy(out, d, s, s + size);
      d += size;
    } else {
      const dEnd = Math.min(cap, d + blockMax);
      const nd = decodeLz4Block(src, srcView, s, s + size, out, outView, d, dEnd);
      if (nd < 0) {
        if (d + blockMax > cap) tooLarge(maxBytes);
        lz4Fail('block decodes past the block maximum size');
      }
      d = nd;
    }
    s += size;
    if (blockChecksum) s += 4;
  }
  if (contentChecksum) s += 4;
  if (s > end) lz4Fail('frame checksum runs past the end');
  return out.subarray(0, d);
}

function tooLarge(maxBytes: number): never {
  throw new CodecError(
    'LENGTH_INVALID',
    'lz4 frame',
    `inflates past maxUncompressedBytes (${maxBytes} bytes)`,
  );
}
