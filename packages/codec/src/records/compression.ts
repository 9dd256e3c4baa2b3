/**
 * The four Kafka compression codecs, both directions, with bounded decompression.
 *
 * What needs no package: gzip (node:zlib), lz4 decompression (our own frame and block
 * decoder) and, from Node 22.15 on, zstd both ways (node:zlib's zstd). The rest is loaded
 * lazily from packages, at the first batch that needs it, never at import: pure-JS ones
 * (snappyjs, lz4js, fzstd: optional dependencies, so a plain install has them) and native
 * accelerators the application may add (snappy, lz4-napi, @mongodb-js/zstd). A codec with no
 * implementation throws {@link CompressionUnavailableError} naming the package to add.
 * Decompression never trusts a declared size: every codec stops at `maxBytes` and throws
 * instead of allocating past it.
 */
import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';
import { CodecError } from '../errors.js';
import { readUvarint, type VarintSource } from '../varint.js';
import { decodeLz4Frame, encodeLz4Frame } from './lz4-frame.js';
import { decodeSnappyBlock } from './snappy-block.js';

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
 * Which implementations may back snappy, lz4 and zstd: `auto` (the default: node:zlib where
 * it has the codec, else a native addon when one loads, else pure JS), `native` (node:zlib
 * or a native addon only) or `js` (pure JS only: never a native addon nor node:zlib's zstd).
 * gzip always runs on node:zlib and lz4 always decodes with our own decoder.
 */
export type CompressionBackend = 'auto' | 'native' | 'js';

/** Configuration of the codecs, passed to each call that compresses or decompresses. */
export interface CompressionOptions {
  /** Which implementations may run; default `auto`. */
  readonly backend?: CompressionBackend;
}

/** Options of {@link compress} and {@link compressSync}. */
export interface CompressOptions extends CompressionOptions {
  /** gzip 1-9 (default 6), zstd -131072..22 (default 3); snappy and lz4 refuse one. */
  readonly level?: number;
}

/** Options of {@link decompress}. */
export interface DecompressOptions extends CompressionOptions {
  /** Accept the broken LZ4 header checksum of magic 0 messages. */
  readonly legacyLz4?: boolean;
}

/** Compressing or decompressing. */
export type CompressionOperation = 'compress' | 'decompress';

/**
 * A codec Kafka has but this process cannot run: no implementation of it is installed (or
 * the configured backend excludes the ones that are). `code` is
 * `ERR_KAFKA_CODEC_UNAVAILABLE`; `packages` lists what to add, the first being the one to
 * pick. Thrown by the call that needs the codec (a decode wraps it as the `cause` of a
 * `RecordBatchError` with the same code, naming the batch), never at import.
 */
export class CompressionUnavailableError extends CodecError {
  readonly codec: CompressionCodec;
  readonly operation: CompressionOperation;
  /** Packages that provide the codec, the first being the one to add. */
  readonly packages: readonly string[];

  constructor(
    codec: CompressionCodec,
    operation: CompressionOperation,
    packages: readonly string[],
    detail: string,
  ) {
    super('UNAVAILABLE', codec, detail);
    this.codec = codec;
    this.operation = operation;
    this.packages = packages;
  }
}

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

/** node:zlib gained zstd in Node 22.15 (bounded by maxOutputLength, native). */
const zlibZstd = zlib as unknown as {
  zstdDecompressSync?: (b: Buffer, o: { maxOutputLength: number }) => Buffer;
  zstdCompress?: (
    b: Buffer,
    o: { params: Record<number, number> },
    cb: (err: Error | null, out: Buffer) => void,
  ) => void;
  constants: { ZSTD_c_compressionLevel?: number };
};
const NODE_HAS_ZSTD =
  typeof zlibZstd.zstdDecompressSync === 'function' &&
  typeof zlibZstd.zstdCompress === 'function' &&
  typeof zlibZstd.constants.ZSTD_c_compressionLevel === 'number';

const require = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

/** A package, or null when it cannot be resolved or loaded (cached either way). */
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

type ImplKind = 'node' | 'native' | 'js';

/** One implementation of one codec direction: `node:zlib`, `kafkats` or a package. */
interface Impl {
  readonly name: string;
  readonly kind: ImplKind;
}

const NODE_ZLIB: Impl = { name: 'node:zlib', kind: 'node' };
const OURS: Impl = { name: 'kafkats', kind: 'js' };
const SNAPPY: Impl = { name: 'snappy', kind: 'native' };
const SNAPPYJS: Impl = { name: 'snappyjs', kind: 'js' };
const LZ4_NAPI: Impl = { name: 'lz4-napi', kind: 'native' };
const LZ4JS: Impl = { name: 'lz4js', kind: 'js' };
const MONGODB_ZSTD: Impl = { name: '@mongodb-js/zstd', kind: 'native' };
const FZSTD: Impl = { name: 'fzstd', kind: 'js' };

type OptionalCodec = 'snappy' | 'lz4' | 'zstd';

/**
 * Candidates in the order `auto` tries them: node:zlib, then a native addon the application
 * installed, then pure JS (our own snappy and lz4 decoders, or a package). lz4 decodes only
 * with ours and @mongodb-js/zstd never decompresses: their native decoders cannot stop at a
 * limit (the codec README has the figures and the trade-off).
 */
const CANDIDATES: Record<OptionalCodec, Record<CompressionOperation, readonly Impl[]>> = {
  snappy: { compress: [SNAPPY, SNAPPYJS], decompress: [SNAPPY, OURS] },
  lz4: { compress: [LZ4_NAPI, LZ4JS], decompress: [OURS] },
  zstd: {
    compress: NODE_HAS_ZSTD ? [NODE_ZLIB, MONGODB_ZSTD] : [MONGODB_ZSTD],
    decompress: NODE_HAS_ZSTD ? [NODE_ZLIB, FZSTD] : [FZSTD],
  },
};

function allowed(impl: Impl, backend: CompressionBackend, codec: OptionalCodec): boolean {
  if (backend === 'auto') return true;
  // lz4 decodes only with our own decoder, whichever backend is asked for.
  if (codec === 'lz4' && impl === OURS) return true;
  return backend === 'js' ? impl.kind === 'js' : impl.kind !== 'js';
}

function available(impl: Impl): boolean {
  return impl.kind === 'node' || impl === OURS || load(impl.name) !== null;
}

/** The implementation that runs for `codec` in this direction under `backend`, or null. */
function pick(
  codec: OptionalCodec,
  operation: CompressionOperation,
  backend: CompressionBackend,
): Impl | null {
  for (const impl of CANDIDATES[codec][operation]) {
    if (allowed(impl, backend, codec) && available(impl)) return impl;
  }
  return null;
}

/** Packages to recommend, best first: pure JS (installs everywhere), then native. */
function packagesFor(
  codec: OptionalCodec,
  operation: CompressionOperation,
  backend: CompressionBackend,
): string[] {
  return CANDIDATES[codec][operation]
    .filter((i) => i.kind !== 'node' && i !== OURS && allowed(i, backend, codec))
    .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'js' ? -1 : 1))
    .map((i) => i.name);
}

function unavailable(
  codec: OptionalCodec,
  operation: CompressionOperation,
  backend: CompressionBackend,
): never {
  const packages = packagesFor(codec, operation, backend);
  const zstdNode = codec === 'zstd' && !NODE_HAS_ZSTD && backend !== 'js';
  const what = `${codec} ${operation === 'compress' ? 'compression' : 'decompression'}`;
  let detail: string;
  if (packages.length === 0) {
    detail =
      `${what} has no ${backend === 'js' ? 'pure-JS' : 'native'} implementation (backend ` +
      `'${backend}')${zstdNode ? ' before Node 22.15 (node:zlib zstd)' : ''}`;
  } else {
    const alternatives = packages.length > 1 ? ` (or ${packages.slice(1).join(', ')})` : '';
    detail =
      `${what} needs the package ${packages[0]}${alternatives}` +
      `${zstdNode ? ' or Node 22.15+ (node:zlib zstd)' : ''}, which cannot be loaded: ` +
      `npm install ${packages[0]}`;
  }
  throw new CompressionUnavailableError(codec, operation, packages, detail);
}

/** The module behind `codec` in this direction; throws when none can run. */
function implFor(
  codec: OptionalCodec,
  operation: CompressionOperation,
  backend: CompressionBackend,
): Impl {
  return pick(codec, operation, backend) ?? unavailable(codec, operation, backend);
}

/** What runs each codec in one direction: `node:zlib`, `kafkats` or a package name. */
export interface CodecImplementations {
  /** null: unavailable (the call throws {@link CompressionUnavailableError}). */
  readonly compress: string | null;
  /** null: unavailable (the call throws {@link CompressionUnavailableError}). */
  readonly decompress: string | null;
}

/**
 * Which implementation each codec would use in this process, without compressing anything;
 * null where the codec is unavailable. Loads the candidate packages to find out.
 *
 * @param options the backend to ask about; default `auto`
 */
export function compressionSupport(
  options: CompressionOptions = {},
): Readonly<Record<Exclude<CompressionCodec, 'none'>, CodecImplementations>> {
  const backend = options.backend ?? 'auto';
  const both = (codec: OptionalCodec): CodecImplementations => ({
    compress: pick(codec, 'compress', backend)?.name ?? null,
    decompress: pick(codec, 'decompress', backend)?.name ?? null,
  });
  return {
    gzip: { compress: 'node:zlib', decompress: 'node:zlib' },
    snappy: both('snappy'),
    lz4: both('lz4'),
    zstd: both('zstd'),
  };
}

function tooLarge(codec: CompressionCodec, maxBytes: number, cause?: unknown): never {
  throw new CodecError(
    'LENGTH_INVALID',
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

function snappyBlockCompressor(backend: CompressionBackend): (chunk: Buffer) => Buffer {
  if (implFor('snappy', 'compress', backend) === SNAPPY) {
    const n = load('snappy') as SnappyNative;
    return (chunk) => n.compressSync(chunk);
  }
  const js = load('snappyjs') as SnappyJs;
  return (chunk) => {
    const out = js.compress(chunk);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  };
}

/**
 * Reads the uncompressed length a raw snappy block declares (its leading uvarint).
 * @returns the length and the number of bytes of the varint
 */
function snappyDeclaredLength(src: Buffer, start: number, end: number): [number, number] {
  const at: VarintSource = { buf: src, pos: start, end };
  try {
    return [readUvarint(at), at.pos - start];
  } catch (e) {
    throw new CodecError('CORRUPT', 'snappy', `bad block length header (${(e as Error).message})`, {
      cause: e,
    });
  }
}

function snappyUncompressBlock(
  block: Buffer,
  [expected, headerBytes]: [number, number],
  impl: Impl,
): Buffer {
  if (impl === OURS) return decodeSnappyBlock(block, 0, block.length, headerBytes, expected);
  let out: Buffer;
  try {
    out = (load('snappy') as SnappyNative).uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (e) {
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

/** @param headroom bytes left unwritten before the framing (see `compressSyncWithHeadroom`) */
function snappyEncode(data: Buffer, backend: CompressionBackend, headroom = 0): Buffer {
  const compressBlock = snappyBlockCompressor(backend);
  const blocks: Buffer[] = [];
  let total = 16; // magic, version, compatible version
  for (let off = 0; off < data.length; off += XERIAL_BLOCK) {
    const block = compressBlock(data.subarray(off, Math.min(off + XERIAL_BLOCK, data.length)));
    blocks.push(block);
    total += 4 + block.length;
  }
  const out = Buffer.allocUnsafe(headroom + total);
  let pos = headroom + XERIAL_MAGIC.copy(out, headroom);
  pos = out.writeInt32BE(1, pos); // xerial version
  pos = out.writeInt32BE(1, pos); // compatible version
  for (const block of blocks) {
    pos = out.writeInt32BE(block.length, pos);
    pos += block.copy(out, pos);
  }
  return out;
}

function snappyDecode(src: Buffer, maxBytes: number, backend: CompressionBackend): Buffer {
  const impl = implFor('snappy', 'decompress', backend);
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
      if (total + declared[0] > maxBytes) tooLarge('snappy', maxBytes);
      const block = snappyUncompressBlock(src.subarray(s, s + len), declared, impl);
      blocks.push(block);
      total += block.length;
      s += len;
    }
    return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks, total);
  }
  // Raw snappy (no framing): Java's decoder accepts it too.
  const declared = snappyDeclaredLength(src, 0, src.length);
  if (declared[0] > maxBytes) tooLarge('snappy', maxBytes);
  return snappyUncompressBlock(src, declared, impl);
}

// ---- lz4
let lz4HashTable: Uint32Array | null = null;

function lz4BlockCompressor(backend: CompressionBackend): (chunk: Buffer) => Buffer | null {
  if (implFor('lz4', 'compress', backend) === LZ4_NAPI) {
    const n = load('lz4-napi') as Lz4Native;
    // lz4-napi prepends the uncompressed size as 4 little-endian bytes: strip it.
    return (chunk) => n.compressSync(chunk).subarray(4);
  }
  const js = load('lz4js') as Lz4Js;
  return (chunk) => {
    lz4HashTable ??= new Uint32Array(1 << 16);
    lz4HashTable.fill(0);
    const dst = Buffer.allocUnsafe(js.compressBound(chunk.length));
    const n = js.compressBlock(chunk, dst, 0, chunk.length, lz4HashTable);
    return n === 0 ? null : dst.subarray(0, n);
  };
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

function zstdDecode(src: Buffer, maxBytes: number, backend: CompressionBackend): Buffer {
  if (implFor('zstd', 'decompress', backend) === NODE_ZLIB) {
    try {
      return zlibZstd.zstdDecompressSync!(src, { maxOutputLength: Math.max(1, maxBytes) });
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') tooLarge('zstd', maxBytes, e);
      corrupt('zstd', e);
    }
  }
  // Before Node 22.15: @mongodb-js/zstd cannot stop at a limit, so the bounded fzstd runs.
  checkZstdFrames(src, maxBytes);
  const { Decompress } = load('fzstd') as Fzstd;
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
    throw new CodecError('VALUE_INVALID', codec, `compression level ${level} is not supported`);
  return level;
}

/**
 * Compresses `data` synchronously with `codec` in Kafka's framing for it.
 *
 * @param options `level`: gzip 1-9 (default 6), other codecs refuse one here; `backend`
 * @throws CompressionUnavailableError `ERR_KAFKA_CODEC_UNAVAILABLE` when no implementation of
 *   the codec can load (it names the package to add)
 * @throws CodecError `UNSUPPORTED` for zstd (its compressor is async only: use
 *   {@link compress}); `VALUE_INVALID` for a level the codec does not take
 */
export function compressSync(
  codec: CompressionCodec,
  data: Buffer,
  options: CompressOptions = {},
): Buffer {
  const lvl = levelFor(codec, options.level);
  const backend = options.backend ?? 'auto';
  switch (codec) {
    case 'none':
      return data;
    case 'gzip':
      return javaGzipHeader(zlib.gzipSync(data, lvl === undefined ? {} : { level: lvl }));
    case 'snappy':
      return snappyEncode(data, backend);
    case 'lz4':
      return encodeLz4Frame(data, lz4BlockCompressor(backend));
    case 'zstd':
      throw new CodecError('UNSUPPORTED', 'zstd', 'zstd compression is async only: use compress()');
  }
}

/**
 * As {@link compressSync}, into a buffer whose first `headroom` bytes are left for the caller
 * (a record batch's header, so the batch is not copied once more to put it in front).
 */
export function compressSyncWithHeadroom(
  codec: CompressionCodec,
  data: Buffer,
  options: CompressOptions,
  headroom: number,
): Buffer {
  const backend = options.backend ?? 'auto';
  if (codec === 'lz4') {
    levelFor(codec, options.level);
    return encodeLz4Frame(data, lz4BlockCompressor(backend), headroom);
  }
  if (codec === 'snappy') {
    levelFor(codec, options.level);
    return snappyEncode(data, backend, headroom);
  }
  const framed = compressSync(codec, data, options);
  const out = Buffer.allocUnsafe(headroom + framed.length);
  framed.copy(out, headroom);
  return out;
}

/**
 * Compresses `data` with `codec`; gzip and zstd run off the main thread.
 *
 * @param options `level`: gzip 1-9 (default 6), zstd -131072..22 (default 3), snappy and lz4
 *   refuse one; `backend`
 * @throws CompressionUnavailableError `ERR_KAFKA_CODEC_UNAVAILABLE` when no implementation of
 *   the codec can load (it names the package to add)
 * @throws CodecError `VALUE_INVALID` for a level the codec does not take
 */
export async function compress(
  codec: CompressionCodec,
  data: Buffer,
  options: CompressOptions = {},
): Promise<Buffer> {
  const lvl = levelFor(codec, options.level);
  if (codec === 'gzip') {
    return new Promise((resolve, reject) => {
      zlib.gzip(data, lvl === undefined ? {} : { level: lvl }, (err, out) =>
        err ? reject(err) : resolve(javaGzipHeader(out)),
      );
    });
  }
  if (codec === 'zstd') {
    // Level 3 is zstd's (and Kafka's) default.
    const level = lvl ?? 3;
    if (implFor('zstd', 'compress', options.backend ?? 'auto') === NODE_ZLIB) {
      const params = { [zlibZstd.constants.ZSTD_c_compressionLevel!]: level };
      return new Promise((resolve, reject) => {
        zlibZstd.zstdCompress!(data, { params }, (err, out) => (err ? reject(err) : resolve(out)));
      });
    }
    return (load('@mongodb-js/zstd') as ZstdNative).compress(data, level);
  }
  return compressSync(codec, data, options);
}

/**
 * Decompresses `data` written by any Kafka client, producing at most `maxBytes` bytes.
 *
 * @param options `legacyLz4`: accept the broken LZ4 header checksum of magic 0 messages;
 *   `backend`
 * @returns a new buffer (or `data` itself for `none`)
 * @throws CompressionUnavailableError `ERR_KAFKA_CODEC_UNAVAILABLE` when no implementation of
 *   the codec can load (it names the package to add)
 * @throws CodecError `LENGTH_INVALID` when the output would pass `maxBytes`, `CORRUPT` for
 *   malformed input
 */
export function decompress(
  codec: CompressionCodec,
  data: Buffer,
  maxBytes: number,
  options: DecompressOptions = {},
): Buffer {
  const backend = options.backend ?? 'auto';
  switch (codec) {
    case 'none':
      if (data.length > maxBytes) tooLarge('none', maxBytes);
      return data;
    case 'gzip':
      return gzipDecode(data, maxBytes);
    case 'snappy':
      return snappyDecode(data, maxBytes, backend);
    case 'lz4':
      return decodeLz4Frame(data, maxBytes, options.legacyLz4 ?? false);
    case 'zstd':
      return zstdDecode(data, maxBytes, backend);
  }
}
