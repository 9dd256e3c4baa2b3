/**
 * The four Kafka compression codecs, both directions, with bounded decompression.
 *
 * Native napi libraries (snappy, lz4-napi, @mongodb-js/zstd) are loaded lazily on first use;
 * when one cannot load (no prebuilt binary for the platform) the pure-JS fallback takes over
 * (snappyjs, lz4js, fzstd). zstd has no pure-JS compressor: without the native module, zstd
 * compression throws `ERR_KAFKA_CODEC_UNSUPPORTED`. Decompression never trusts a declared
 * size: every codec stops at `maxBytes` and throws instead of allocating past it.
 */
import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';
import { CodecError } from '../errors.js';
import { decodeLz4Frame, encodeLz4Frame } from './lz4-frame.js';

/** A compression codec name, as in Kafka's `compression.type`. */
export type CompressionCodec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Codec names by their attribute id (attributes bits 0-2). */
export const COMPRESSION_CODECS: readonly CompressionCodec[] = [
  'none',
  'gzip',
  'snappy',
  'lz4',
  'zstd',
] as const;

/** The attribute id (bits 0-2) of each codec. */
export const CompressionId = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

/**
 * Which implementation backs snappy, lz4 and zstd: `auto` (native when it loads, else
 * pure JS; the default), `native` (throws when a native module cannot load) or `js`.
 */
export type CompressionBackend = 'auto' | 'native' | 'js';

interface SnappyNative {
  compressSync(b: Uint8Array): Buffer;
  uncompressSync(b: Uint8Array, o?: { asBuffer?: boolean }): Buffer | string;
}
interface Lz4Native {
  compressSync(b: Buffer): Buffer;
}
interface ZstdNative {
  compress(b: Buffer, level?: number): Promise<Buffer>;
}
interface SnappyJs {
  compress(b: Uint8Array): Uint8Array;
  uncompress(b: Uint8Array, maxLength?: number): Uint8Array;
}
interface Lz4Js {
  compressBound(n: number): number;
  compressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    hashTable: Uint32Array,
  ): number;
}
interface Fzstd {
  Decompress: new (
    ondata?: (data: Uint8Array, final?: boolean) => unknown,
  ) => { push(chunk: Uint8Array, final?: boolean): unknown };
}

const require = createRequire(import.meta.url);
let backend: CompressionBackend = 'auto';
const loaded = new Map<string, unknown>();

function load<T>(name: string): T | null {
  if (loaded.has(name)) return loaded.get(name) as T | null;
  let mod: T | null = null;
  try {
    mod = require(name) as T;
  } catch {
    mod = null;
  }
  loaded.set(name, mod);
  return mod;
}

function native<T>(name: string, codec: CompressionCodec): T | null {
  if (backend === 'js') return null;
  const mod = load<T>(name);
  if (mod === null && backend === 'native') {
    throw new CodecError('UNSUPPORTED', codec, `native module ${name} cannot be loaded`);
  }
  return mod;
}

function pureJs<T>(name: string, codec: CompressionCodec): T {
  const mod = load<T>(name);
  if (mod === null) {
    throw new CodecError(
      'UNSUPPORTED',
      codec,
      `neither the native module nor ${name} can be loaded`,
    );
  }
  return mod;
}

/**
 * Chooses the implementation behind snappy, lz4 and zstd for the whole process. Meant for
 * benchmarks and tests; the default `auto` is right for applications.
 */
export function setCompressionBackend(kind: CompressionBackend): void {
  backend = kind;
}

/** Which implementation each codec uses right now (`native` or `js`). */
export function compressionBackends(): Record<'snappy' | 'lz4' | 'zstd', 'native' | 'js'> {
  const pick = (name: string) => (backend !== 'js' && load(name) !== null ? 'native' : 'js');
  return { snappy: pick('snappy'), lz4: pick('lz4-napi'), zstd: pick('@mongodb-js/zstd') };
}

function tooLarge(codec: CompressionCodec, maxBytes: number, cause?: unknown): never {
  throw new CodecError(
    'INVALID_LENGTH',
    codec,
    `inflates past maxUncompressedBytes (${maxBytes} bytes)`,
    cause === undefined ? {} : { cause },
  );
}

function corrupt(codec: CompressionCodec, cause: unknown): never {
  const why = cause instanceof Error ? cause.message : String(cause);
  throw new CodecError('CORRUPT', codec, `cannot decompress: ${why}`, { cause });
}

// ---- snappy: Kafka (via snappy-java's SnappyOutputStream) writes xerial framing.
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_BLOCK = 32 * 1024; // snappy-java's default block size

function snappyCompressBlock(chunk: Buffer): Buffer {
  const n = native<SnappyNative>('snappy', 'snappy');
  if (n !== null) return n.compressSync(chunk);
  const out = pureJs<SnappyJs>('snappyjs', 'snappy').compress(chunk);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Reads the uncompressed length a raw snappy block declares (its leading uvarint). */
function snappyDeclaredLength(src: Buffer, start: number, end: number): number {
  let result = 0;
  for (let i = 0, shift = 0; i < 5; i++, shift += 7) {
    if (start + i >= end) break;
    const b = src[start + i]!;
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result;
  }
  throw new CodecError('CORRUPT', 'snappy', 'bad block length header');
}

function snappyUncompressBlock(block: Buffer, expected: number): Buffer {
  let out: Buffer;
  const n = native<SnappyNative>('snappy', 'snappy');
  try {
    if (n !== null) {
      out = n.uncompressSync(block, { asBuffer: true }) as Buffer;
    } else {
      const u = pureJs<SnappyJs>('snappyjs', 'snappy').uncompress(block, expected);
      out = Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    }
  } catch (e) {
    if (e instanceof CodecError) throw e;
    corrupt('snappy', e);
  }
  if (out.length !== expected) {
    throw new CodecError(
      'CORRUPT',
      'snappy',
      `block inflates to ${out.length}, declared ${expected}`,
    );
  }
  return out;
}

function snappyEncode(data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
  let total = 16;
  for (let off = 0; off < data.length; off += XERIAL_BLOCK) {
    const block = snappyCompressBlock(
      data.subarray(off, Math.min(off + XERIAL_BLOCK, data.length)),
    );
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
    total += 4 + block.length;
  }
  return Buffer.concat(parts, total);
}

function snappyDecode(src: Buffer, maxBytes: number): Buffer {
  if (src.length >= 16 && src.subarray(0, 8).equals(XERIAL_MAGIC)) {
    const blocks: Buffer[] = [];
    let total = 0;
    let s = 16;
    while (s < src.length) {
      if (s + 4 > src.length)
        throw new CodecError('CORRUPT', 'snappy', 'xerial chunk length truncated');
      const len = src.readInt32BE(s);
      s += 4;
      if (len < 0 || s + len > src.length) {
        throw new CodecError(
          'CORRUPT',
          'snappy',
          `xerial chunk of ${len} bytes runs past the input`,
        );
      }
      const declared = snappyDeclaredLength(src, s, s + len);
      if (total + declared > maxBytes) tooLarge('snappy', maxBytes);
      const block = snappyUncompressBlock(src.subarray(s, s + len), declared);
      blocks.push(block);
      total += block.length;
      s += len;
    }
    return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks, total);
  }
  // Raw snappy (no framing): Java's decoder accepts it too.
  const declared = snappyDeclaredLength(src, 0, src.length);
  if (declared > maxBytes) tooLarge('snappy', maxBytes);
  return snappyUncompressBlock(src, declared);
}

// ---- lz4
let lz4HashTable: Uint32Array | null = null;

function lz4CompressBlock(chunk: Buffer): Buffer | null {
  const n = native<Lz4Native>('lz4-napi', 'lz4');
  if (n !== null) {
    // lz4-napi prepends the uncompressed size as 4 little-endian bytes: strip it.
    return n.compressSync(chunk).subarray(4);
  }
  const js = pureJs<Lz4Js>('lz4js', 'lz4');
  lz4HashTable ??= new Uint32Array(1 << 16);
  lz4HashTable.fill(0);
  const dst = Buffer.allocUnsafe(js.compressBound(chunk.length));
  const n2 = js.compressBlock(chunk, dst, 0, chunk.length, lz4HashTable);
  return n2 === 0 ? null : dst.subarray(0, n2);
}

// ---- gzip
/**
 * Java's GZIPOutputStream writes OS byte 0xff ("unknown") where zlib writes 0x03 (Unix);
 * with it patched, our gzip batches are byte-identical to the Java producer's.
 */
function javaGzipHeader(out: Buffer): Buffer {
  out[9] = 0xff; // RFC 1952 header byte 9: OS
  return out;
}

function gzipDecode(data: Buffer, maxBytes: number): Buffer {
  try {
    // zlib stops inflating at maxOutputLength instead of growing without bound.
    return zlib.gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') tooLarge('gzip', maxBytes, e);
    corrupt('gzip', e);
  }
}

// ---- zstd
/** node:zlib gained zstd in Node 22.15 (bounded by maxOutputLength, native, sync). */
const zlibZstd = zlib as unknown as {
  zstdDecompressSync?: (b: Buffer, o: { maxOutputLength: number }) => Buffer;
};

/** zstd's largest window for levels up to 19 without long mode (windowLog 23). */
const ZSTD_USUAL_MAX_WINDOW = 8 * 1024 * 1024;

/**
 * Walks every frame header and block header before fzstd sees the bytes: fzstd allocates
 * the window a frame header declares (up to 2 GiB) before it produces a byte, so a 13-byte
 * frame could otherwise cost gigabytes. Windows (and single-segment content sizes) above
 * max(maxBytes, 8 MiB) are refused.
 */
function checkZstdFrames(src: Buffer, maxBytes: number): void {
  const limit = Math.max(maxBytes, ZSTD_USUAL_MAX_WINDOW);
  const bad = (detail: string): never => {
    throw new CodecError('CORRUPT', 'zstd', detail);
  };
  let p = 0;
  while (p < src.length) {
    if (p + 8 > src.length) bad('frame header truncated');
    const magic = src.readUInt32LE(p);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // skippable frame: magic, int32 size, payload
      p += 8 + src.readUInt32LE(p + 4);
      continue;
    }
    if (magic !== 0xfd2fb528) bad(`bad frame magic 0x${magic.toString(16)}`);
    const fhd = src[p + 4]!;
    const singleSegment = (fhd >>> 5) & 1;
    const fcsFlag = fhd >>> 6;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    const checksum = (fhd >>> 2) & 1;
    let q = p + 5;
    let window = 0;
    if (!singleSegment) {
      const wd = src[q++]!;
      const base = 2 ** (10 + (wd >>> 3));
      window = base + (base / 8) * (wd & 7);
    }
    q += dictBytes;
    const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
    if (q + fcsBytes > src.length) bad('frame header truncated');
    let fcs = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) fcs = fcs * 256 + src[q + i]!;
    if (fcsBytes === 2) fcs += 256;
    q += fcsBytes;
    if (singleSegment) window = fcs;
    if (window > limit) tooLarge('zstd', maxBytes);
    if (fcsFlag !== 0 && fcs > maxBytes) tooLarge('zstd', maxBytes);
    for (;;) {
      if (q + 3 > src.length) bad('block header truncated');
      const bh = src[q]! | (src[q + 1]! << 8) | (src[q + 2]! << 16);
      q += 3;
      const type = (bh >>> 1) & 3;
      if (type === 3) bad('reserved block type');
      q += type === 1 ? 1 : bh >>> 3; // RLE blocks carry one byte
      if (q > src.length) bad('block runs past the input');
      if (bh & 1) break;
    }
    p = q + checksum * 4;
  }
}

function zstdDecode(src: Buffer, maxBytes: number): Buffer {
  if (backend !== 'js' && typeof zlibZstd.zstdDecompressSync === 'function') {
    try {
      return zlibZstd.zstdDecompressSync(src, { maxOutputLength: Math.max(1, maxBytes) });
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') tooLarge('zstd', maxBytes, e);
      corrupt('zstd', e);
    }
  }
  // Node 20: @mongodb-js/zstd cannot stop at a limit, so the bounded pure-JS decoder runs.
  checkZstdFrames(src, maxBytes);
  const { Decompress } = pureJs<Fzstd>('fzstd', 'zstd');
  const chunks: Uint8Array[] = [];
  let total = 0;
  const d = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxBytes) tooLarge('zstd', maxBytes);
    chunks.push(chunk);
  });
  try {
    d.push(src, true);
  } catch (e) {
    if (e instanceof CodecError) throw e;
    corrupt('zstd', e);
  }
  if (chunks.length === 1) {
    const c = chunks[0]!;
    return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  }
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.length;
  }
  return out;
}

/**
 * Checks a compression level against Kafka's ranges (KIP-390): gzip 1-9 (default 6, Java's
 * Deflater default), zstd -131072..22 (default 3). snappy has no levels; lz4's block
 * compressor here has one (Kafka's default level 9 uses lz4-java's high-compression mode,
 * which neither native nor pure-JS backend offers), so a level for either is refused.
 */
function levelFor(codec: CompressionCodec, level: number | undefined): number | undefined {
  if (level === undefined) return undefined;
  const ok =
    Number.isInteger(level) &&
    ((codec === 'gzip' && level >= 1 && level <= 9) ||
      (codec === 'zstd' && level >= -131072 && level <= 22));
  if (!ok)
    throw new CodecError('INVALID_VALUE', codec, `compression level ${level} is not supported`);
  return level;
}

/**
 * Compresses `data` synchronously with `codec` in Kafka's framing for it.
 *
 * @param level gzip 1-9 (default 6); other codecs refuse a level here
 * @throws CodecError `UNSUPPORTED` for zstd (its compressor is async only: use
 *   {@link compress}) or when no implementation of the codec can load; `INVALID_VALUE` for
 *   a level the codec does not take
 */
export function compressSync(codec: CompressionCodec, data: Buffer, level?: number): Buffer {
  const lvl = levelFor(codec, level);
  switch (codec) {
    case 'none':
      return data;
    case 'gzip':
      return javaGzipHeader(zlib.gzipSync(data, lvl === undefined ? {} : { level: lvl }));
    case 'snappy':
      return snappyEncode(data);
    case 'lz4':
      return encodeLz4Frame(data, lz4CompressBlock);
    case 'zstd':
      throw new CodecError('UNSUPPORTED', 'zstd', 'zstd compression is async only: use compress()');
  }
}

/**
 * Compresses `data` with `codec`; gzip and zstd run off the main thread.
 *
 * @param level gzip 1-9 (default 6), zstd -131072..22 (default 3); snappy and lz4 refuse one
 * @throws CodecError `UNSUPPORTED` when no implementation of the codec can load,
 *   `INVALID_VALUE` for a level the codec does not take
 */
export async function compress(
  codec: CompressionCodec,
  data: Buffer,
  level?: number,
): Promise<Buffer> {
  const lvl = levelFor(codec, level);
  if (codec === 'gzip') {
    return new Promise((resolve, reject) => {
      zlib.gzip(data, lvl === undefined ? {} : { level: lvl }, (err, out) =>
        err ? reject(err) : resolve(javaGzipHeader(out)),
      );
    });
  }
  if (codec === 'zstd') {
    const n = native<ZstdNative>('@mongodb-js/zstd', 'zstd');
    if (n === null) {
      throw new CodecError('UNSUPPORTED', 'zstd', 'zstd compression needs @mongodb-js/zstd');
    }
    // Level 3 is zstd's (and Kafka's) default.
    return n.compress(data, lvl ?? 3);
  }
  return compressSync(codec, data);
}

/**
 * Decompresses `data` written by any Kafka client, producing at most `maxBytes` bytes.
 *
 * @param legacyLz4 accept the broken LZ4 header checksum of magic 0 messages
 * @returns a new buffer (or `data` itself for `none`)
 * @throws CodecError `INVALID_LENGTH` when the output would pass `maxBytes`, `CORRUPT` for
 *   malformed input, `UNSUPPORTED` when no implementation of the codec can load
 */
export function decompress(
  codec: CompressionCodec,
  data: Buffer,
  maxBytes: number,
  legacyLz4 = false,
): Buffer {
  switch (codec) {
    case 'none':
      if (data.length > maxBytes) tooLarge('none', maxBytes);
      return data;
    case 'gzip':
      return gzipDecode(data, maxBytes);
    case 'snappy':
      return snappyDecode(data, maxBytes);
    case 'lz4':
      return decodeLz4Frame(data, maxBytes, legacyLz4);
    case 'zstd':
      return zstdDecode(data, maxBytes);
  }
}
