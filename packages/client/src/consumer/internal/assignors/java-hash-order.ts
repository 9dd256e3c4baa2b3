/**
 * Java's `String.hashCode`: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, in int32.
 */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order in which a `java.util.HashMap` created with the default capacity (16, load factor
 * 0.75) iterates string keys put in the given order: by bucket `(h ^ h >>> 16) & (capacity - 1)`,
 * insertion order within a bucket, the table doubling once size exceeds 3/4 of it. Kafka's
 * sticky assignor walks its members in this order where the order decides the outcome (which
 * of several over-quota members keeps its extra partition), so following it gives Kafka's
 * answer for the same input. Bins that Java turns into trees (8+ colliding keys) are not modelled.
 */
export function javaHashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16;
  let buckets: string[][] = Array.from({ length: capacity }, () => []);
  const spread = (k: string): number => {
    const h = javaStringHash(k);
    return h ^ (h >>> 16);
  };
  let size = 0;
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    buckets[spread(key) & (capacity - 1)]!.push(key);
    if (++size > capacity * 0.75) {
      // Java's resize splits each bin into a low and a high bin, keeping relative order.
      const next: string[][] = Array.from({ length: capacity * 2 }, () => []);
      for (const bin of buckets) for (const k of bin) next[spread(k) & (capacity * 2 - 1)]!.push(k);
      capacity *= 2;
      buckets = next;
    }
  }
  return buckets.flat();
}
