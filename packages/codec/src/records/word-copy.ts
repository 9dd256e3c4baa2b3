/**
 * The copy our lz4 and snappy decoders share: `n` (at least 1) bytes from `from` at `s` to
 * `to` at `d`, as pairs of little-endian 32-bit words, rounded up to a multiple of eight bytes.
 * The caller makes room for up to seven bytes more on both sides. When both views are of the
 * same bytes (a back-reference), each word is read before the word it feeds is written, so a
 * source four or more bytes back repeats its pattern as a byte-by-byte copy would.
 */
export function copyWords(to: DataView, d: number, from: DataView, s: number, n: number): void {
  let k = 0;
  do {
    to.setInt32(d + k, from.getInt32(s + k, true), true);
    to.setInt32(d + k + 4, from.getInt32(s + k + 4, true), true);
    k += 8;
  } while (k < n);
}
