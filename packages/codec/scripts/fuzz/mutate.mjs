// Byte-level mutations in the style of libFuzzer's MutationDispatcher, tuned to Kafka's
// encodings: big-endian int16/int32 lengths and counts, unsigned varints (compact lengths,
// tag numbers and sizes), zig-zag varints (record fields) and nullable markers (-1 / 0).
/** A small, fast, seedable PRNG (xorshift128+ folded to 32 bits): runs are reproducible. */
export class Rng {
  a;
  b;
  c;
  d;
  constructor(seed) {
    // splitmix32 spreads one seed over the four words.
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }
  /** A uniform uint32. */
  u32() {
    // xoshiro128** step.
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }
  /** A uniform integer in [0, n). */
  below(n) {
    return n <= 1 ? 0 : this.u32() % n;
  }
  chance(p) {
    return this.u32() / 4294967296 < p;
  }
}
function rotl(x, k) {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
const INTERESTING_8 = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff];
const INTERESTING_16 = [0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff];
const INTERESTING_32 = [0, 1, 2, 3, 16, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];
/** Varints: small counts, a compact null (0), over-long and over-large encodings. */
const INTERESTING_VARINTS = [
  [0x00],
  [0x01],
  [0x02],
  [0x7f],
  [0x80, 0x01],
  [0xff, 0x7f],
  [0xff, 0xff, 0xff, 0xff, 0x07],
  [0xff, 0xff, 0xff, 0xff, 0x0f],
  [0xff, 0xff, 0xff, 0xff, 0x1f],
  [0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
];
/**
 * Returns a mutated copy of `input` (1 to 4 stacked mutations). `other` is another corpus
 * entry of the same target, used for splicing. The result is at most `maxLength` bytes.
 */
export function mutate(rng, input, other, maxLength) {
  let out = Buffer.from(input);
  const rounds = 1 + rng.below(4);
  for (let i = 0; i < rounds; i++) out = mutateOnce(rng, out, other);
  return out.length > maxLength ? out.subarray(0, maxLength) : out;
}
function mutateOnce(rng, b, other) {
  const n = b.length;
  const at = rng.below(n);
  switch (rng.below(13)) {
    case 0: // flip one bit
      if (n > 0) b[at] = b[at] ^ (1 << rng.below(8));
      return b;
    case 1: // random byte
      if (n > 0) b[at] = rng.below(256);
      return b;
    case 2: // interesting byte
      if (n > 0) b[at] = INTERESTING_8[rng.below(INTERESTING_8.length)];
      return b;
    case 3: {
      // interesting int16 (big-endian, as Kafka writes it), sometimes negated
      if (n < 2) return b;
      let v = INTERESTING_16[rng.below(INTERESTING_16.length)];
      if (rng.chance(0.3)) v = -v & 0xffff;
      b.writeUInt16BE(v, rng.below(n - 1));
      return b;
    }
    case 4: {
      // interesting int32
      if (n < 4) return b;
      b.writeUInt32BE(INTERESTING_32[rng.below(INTERESTING_32.length)] >>> 0, rng.below(n - 3));
      return b;
    }
    case 5: // small arithmetic on a byte (off-by-one lengths and counts)
      if (n > 0) b[at] = (b[at] + (rng.chance(0.5) ? 1 : -1) * (1 + rng.below(4))) & 0xff;
      return b;
    case 6: {
      // insert random bytes
      const len = 1 + rng.below(4);
      const ins = Buffer.allocUnsafe(len);
      for (let i = 0; i < len; i++) ins[i] = rng.below(256);
      return Buffer.concat([b.subarray(0, at), ins, b.subarray(at)]);
    }
    case 7: {
      // erase a range
      if (n === 0) return b;
      const len = 1 + rng.below(Math.min(16, n - at));
      return Buffer.concat([b.subarray(0, at), b.subarray(at + len)]);
    }
    case 8: {
      // duplicate a chunk (repeated array elements, tagged fields)
      if (n === 0) return b;
      const from = rng.below(n);
      const len = 1 + rng.below(Math.min(64, n - from));
      const to = rng.below(n + 1);
      return Buffer.concat([b.subarray(0, to), b.subarray(from, from + len), b.subarray(to)]);
    }
    case 9: // truncate
      return b.subarray(0, at);
    case 10: {
      // splice: our prefix, the other entry's suffix
      if (other === undefined || other.length === 0) return b;
      return Buffer.concat([b.subarray(0, at), other.subarray(rng.below(other.length))]);
    }
    case 11: {
      // overwrite or insert a varint
      const v = Buffer.from(INTERESTING_VARINTS[rng.below(INTERESTING_VARINTS.length)]);
      if (rng.chance(0.5)) return Buffer.concat([b.subarray(0, at), v, b.subarray(at)]);
      return Buffer.concat([b.subarray(0, at), v, b.subarray(Math.min(n, at + v.length))]);
    }
    default: {
      // copy a chunk over another place
      if (n < 2) return b;
      const from = rng.below(n);
      const len = 1 + rng.below(Math.min(32, n - from));
      b.copy(b, rng.below(n), from, from + len);
      return b;
    }
  }
}
