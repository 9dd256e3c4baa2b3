/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of v2 record batches,
 * and CRC-32 (IEEE) for legacy messages.
 *
 * CRC-32C runs natively (@node-rs/crc32, SSE4.2/ARMv8 CRC instructions, about 5 GB/s here)
 * from 256 bytes on, and in JS (slicing-by-8, about 0.8-1.2 GB/s) below that, where the napi
 * call costs more than the sum, or when the native module cannot load. Figures: the codec
 * README, "Record batches and compression".
 */
import { createRequire } from 'node:module';

const T0 = new Int32Array(256);
const T1 = new Int32Array(256);
const T2 = new Int32Array(256);
const T3 = new Int32Array(256);
const T4 = new Int32Array(256);
const T5 = new Int32Array(256);
const T6 = new Int32Array(256);
const T7 = new Int32Array(256);

function fillTables(poly: number, t: Int32Array[]): void {
  const t0 = t[0]!;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t0[n] = c;
  }
  for (let k = 1; k < t.length; k++) {
    const prev = t[k - 1]!;
    const cur = t[k]!;
    for (let n = 0; n < 256; n++) {
      const c = prev[n]!;
      cur[n] = (c >>> 8) ^ t0[c & 0xff]!;
    }
  }
}

fillTables(0x82f63b78, [T0, T1, T2, T3, T4, T5, T6, T7]);

/**
 * CRC-32C of `buf[start, end)` in portable JS (slicing-by-8): the fallback of
 * {@link crc32c}, exported so tests and benchmarks can compare the two.
 *
 * @param buf bytes to checksum (any Uint8Array, not copied)
 * @param start first byte, default 0
 * @param end one past the last byte, default `buf.length`
 * @returns the checksum as an unsigned 32-bit number
 */
export function crc32cJs(buf: Uint8Array, start = 0, end: number = buf.length): number {
  let crc = -1;
  let i = start;
  const stop8 = end - 8;
  while (i <= stop8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    crc =
      T7[a & 0xff]! ^
      T6[(a >>> 8) & 0xff]! ^
      T5[(a >>> 16) & 0xff]! ^
      T4[a >>> 24]! ^
      T3[buf[i + 4]!]! ^
      T2[buf[i + 5]!]! ^
      T1[buf[i + 6]!]! ^
      T0[buf[i + 7]!]!;
    i += 8;
  }
  while (i < end) {
    crc = T0[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
    i++;
  }
  return ~crc >>> 0;
}

type NativeCrc = (input: Uint8Array) => number;

/** Below this many bytes the JS loop beats the napi call overhead (about 130 ns). */
const NATIVE_FROM_BYTES = 256;

function loadNative(): NativeCrc | null {
  try {
    const mod = createRequire(import.meta.url)('@node-rs/crc32') as { crc32c?: NativeCrc };
    const fn = mod.crc32c;
    // Guard against a binary that loads but computes something else.
    return typeof fn === 'function' && fn(Buffer.from('123456789')) === 0xe3069283 ? fn : null;
  } catch {
    return null;
  }
}

let native: NativeCrc | null | undefined;

/**
 * CRC-32C of `buf[start, end)`: native when the @node-rs/crc32 binary loads and the range is
 * at least 256 bytes, JS otherwise. Same result either way.
 *
 * @param buf bytes to checksum (any Uint8Array, not copied)
 * @param start first byte, default 0
 * @param end one past the last byte, default `buf.length`
 * @returns the checksum as an unsigned 32-bit number
 */
export function crc32c(buf: Uint8Array, start = 0, end: number = buf.length): number {
  if (end - start >= NATIVE_FROM_BYTES) {
    if (native === undefined) native = loadNative();
    if (native !== null) {
      return native(start === 0 && end === buf.length ? buf : buf.subarray(start, end)) >>> 0;
    }
  }
  return crc32cJs(buf, start, end);
}

const I0 = new Int32Array(256);
const I1 = new Int32Array(256);
const I2 = new Int32Array(256);
const I3 = new Int32Array(256);
fillTables(0xedb88320, [I0, I1, I2, I3]);

/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of legacy v0/v1
 * messages. Slicing-by-4: legacy message sets are rare, so the smaller tables win.
 *
 * @param buf bytes to checksum (not copied)
 * @param start first byte, default 0
 * @param end one past the last byte, default `buf.length`
 * @returns the checksum as an unsigned 32-bit number
 */
export function crc32(buf: Uint8Array, start = 0, end: number = buf.length): number {
  let crc = -1;
  let i = start;
  const stop4 = end - 4;
  while (i <= stop4) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    crc = I3[a & 0xff]! ^ I2[(a >>> 8) & 0xff]! ^ I1[(a >>> 16) & 0xff]! ^ I0[a >>> 24]!;
    i += 4;
  }
  while (i < end) {
    crc = I0[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
    i++;
  }
  return ~crc >>> 0;
}
