/**
 * Reads the big-endian int64 at `buf[p, p + 8)` as a bigint. Node's `readBigInt64BE` makes
 * four bigints per call (two halves, a shift, a sum); the values Kafka sends in int64 fields
 * (offsets, timestamps, producer ids, -1) nearly always lie within ±2^53, where the two halves
 * make one exact double and so one bigint. Others take the two-halves path.
 * The caller has checked that the eight bytes are there.
 */
export function int64At(buf: Uint8Array, p: number): bigint {
  const high = (buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!;
  const low = ((buf[p + 4]! << 24) | (buf[p + 5]! << 16) | (buf[p + 6]! << 8) | buf[p + 7]!) >>> 0;
  // high * 2^32 + low is exact while |high| < 2^21 (the sum stays below 2^53 in magnitude).
  if (high >= -0x200000 && high < 0x200000) return BigInt(high * 4294967296 + low);
  return (BigInt(high) << 32n) + BigInt(low);
}
