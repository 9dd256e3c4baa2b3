/**
 * Kafka's default partitioning hash, byte for byte: keyed records go to
 * `toPositive(murmur2(keyBytes)) % numPartitions` (Kafka's `BuiltInPartitioner.partitionForKey`),
 * so a key lands on the partition the Java producer picks; Kafka's tiered-storage metadata
 * partitioner hashes with the same murmur2.
 */

// murmur2's constants as Kafka's Utils.murmur2 uses them (seed 0x9747b28c, m 0x5bd1e995, r 24).
const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/**
 * The 32-bit murmur2 hash of `data[start, end)` as Kafka's `Utils.murmur2` computes it
 * (little-endian 4-byte blocks, the tail mixed in Java's switch fall-through order), as a
 * signed int32.
 */
export function murmur2(data: Uint8Array, start = 0, end: number = data.length): number {
  const length = end - start;
  let h = (SEED ^ length) | 0;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = start + (i << 2);
    let k = data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = start + (blocks << 2);
  // The tail, as Java's fall-through switch mixes it: byte 2, then 1, then 0 and a multiply.
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not `Math.abs`, which fails on -2^31). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** Where a string key is written as UTF-8 to be hashed; grown as needed, reused. */
let keyScratch = Buffer.allocUnsafeSlow(1024);

/**
 * The partition Kafka's default partitioner picks for a key: `toPositive(murmur2(key)) %
 * numPartitions`, over all partitions whether or not they have a leader (as Java does, so a
 * key never moves while a broker is down). A string key is hashed as its UTF-8 bytes.
 *
 * @param key the serialized key bytes, or a string sent as UTF-8
 * @param numPartitions the topic's partition count, at least 1
 */
export function partitionForKey(key: Uint8Array | string, numPartitions: number): number {
  if (typeof key !== 'string') return toPositive(murmur2(key)) % numPartitions;
  if (key.length * 3 > keyScratch.length) {
    if (key.length > 16_384) return toPositive(murmur2(Buffer.from(key, 'utf8'))) % numPartitions;
    keyScratch = Buffer.allocUnsafeSlow(key.length * 3);
  }
  const n = keyScratch.write(key, 0, 'utf8');
  return toPositive(murmur2(keyScratch, 0, n)) % numPartitions;
}
