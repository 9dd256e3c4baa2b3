import { CodecError, type Reader, ZERO_UUID } from '@kafkats/codec';
import type { PartitionInfo } from './snapshot.js';

/** The empty list every partition without offline replicas (or ISR) shares. */
const NONE: readonly number[] = Object.freeze([]);

/** Whether `list` holds the `n` big-endian int32 ids at `p` of `view`. */
function sameIds(list: readonly number[], view: DataView, p: number, n: number): boolean {
  if (list.length !== n) return false;
  for (let i = 0; i < n; i++) if (list[i] !== view.getInt32(p + 4 * i)) return false;
  return true;
}

/**
 * A Metadata response's topics and partitions, indexed over the response bytes themselves:
 * what a `MetadataSnapshot` is built from when it comes straight from the wire. Decoding
 * checks every length and records where each partition starts; a partition's fields are
 * read from the bytes when asked for, and `TopicInfo` / `PartitionInfo` objects are made from
 * them only when somebody asks for those.
 *
 * Topic slot `t` (answer order, topics without a name left out): `names[t]`;
 * `topicInts[5t..5t+4]` = error code, isInternal (0/1), first partition slot, partition
 * count, offset of the topic id (-1 below v10). Partition slot `k` (a topic's partitions are
 * consecutive, in answer order) starts at `partAt[k]` in `bytes`.
 */
export class MetadataTable {
  readonly topicCount: number;
  readonly names: readonly string[];
  readonly topicInts: Int32Array;
  /** Per topic: 1 when its partition indexes strictly increase (the usual dense 0..n-1). */
  readonly topicSorted: Uint8Array;
  readonly #bytes: Buffer;
  readonly #view: DataView;
  readonly #partAt: Int32Array;
  readonly #version: number;
  /** Lists made so far by hash of their ids (see `#interned`). */
  #lists: Map<number, (readonly number[])[]> | undefined;
  /** Lists of 1, 2 and 3 ids below 1024 made so far, by their ids packed (see `#list`). */
  #small: Map<number, readonly number[]>[] | undefined;
  /** Where the list `#list` read last ends. */
  #after = 0;

  constructor(
    version: number,
    bytes: Buffer,
    names: string[],
    topicInts: Int32Array,
    topicSorted: Uint8Array,
    partAt: Int32Array,
  ) {
    this.#version = version;
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.names = names;
    this.topicCount = names.length;
    this.topicInts = topicInts;
    this.topicSorted = topicSorted;
    this.#partAt = partAt;
  }

  /** The partition index of slot `k`. */
  index(k: number): number {
    return this.#view.getInt32(this.#partAt[k]! + 2);
  }

  /** The leader id of slot `k` (-1: none). */
  leader(k: number): number {
    return this.#view.getInt32(this.#partAt[k]! + 6);
  }

  /** The leader epoch of slot `k` (-1 below v7). */
  epoch(k: number): number {
    return this.#version >= 7 ? this.#view.getInt32(this.#partAt[k]! + 10) : -1;
  }

  /**
   * The frozen `PartitionInfo` objects of partition slots `first` .. `first + n - 1`, in
   * answer order, read straight from the bytes (the decode that built the table checked every
   * length already). Replicas, ISR and offline replicas (empty below v5) are frozen lists
   * shared by every partition with the same ids (see `#list`).
   *
   * One pass per topic, not a call per field: a walk over every partition of a large cluster
   * makes 200k of these.
   */
  partitions(first: number, n: number): PartitionInfo[] {
    const view = this.#view;
    const partAt = this.#partAt;
    const version = this.#version;
    const hasEpoch = version >= 7;
    const hasOffline = version >= 5;
    const out = new Array<PartitionInfo>(n);
    for (let i = 0; i < n; i++) {
      const at = partAt[first + i]!;
      const errorCode = view.getInt16(at);
      const partition = view.getInt32(at + 2);
      const leader = view.getInt32(at + 6);
      const leaderEpoch = hasEpoch ? view.getInt32(at + 10) : -1;
      const replicas = this.#list(at + (hasEpoch ? 14 : 10));
      const isr = this.#list(this.#after);
      const offlineReplicas = hasOffline ? this.#list(this.#after) : NONE;
      // Two literals of fixed shape (with and without a leader), not a spread.
      out[i] = Object.freeze(
        leader >= 0
          ? { partition, leader, leaderEpoch, replicas, isr, offlineReplicas, errorCode }
          : { partition, leaderEpoch, replicas, isr, offlineReplicas, errorCode },
      );
    }
    return out;
  }

  /**
   * The node-id list (an array's length, then its ids) at `p` as a frozen list; sets
   * `#after` to where the list ends. The same array for every partition with the same list:
   * a cluster's partitions share few replica sets (brokers choose k of n), so a walk over
   * every partition makes a handful of arrays instead of two or three per partition.
   */
  #list(p: number): readonly number[] {
    const view = this.#view;
    let n: number;
    if (this.#version >= 9) {
      // A compact array: its length plus one as an unsigned varint.
      const bytes = this.#bytes;
      let b = bytes[p++]!;
      n = b & 0x7f;
      for (let shift = 7; b >= 0x80; shift += 7) {
        b = bytes[p++]!;
        n += (b & 0x7f) * 2 ** shift;
      }
      n -= 1;
    } else {
      n = view.getInt32(p);
      p += 4;
    }
    if (n <= 0) {
      this.#after = p;
      return NONE;
    }
    this.#after = p + 4 * n;
    if (n <= 3) {
      // Up to three ids below 1024 (the usual replica set) pack exactly into one small
      // integer: no hash to verify against the bytes.
      const a = view.getInt32(p);
      const b = n >= 2 ? view.getInt32(p + 4) : 0;
      const c = n === 3 ? view.getInt32(p + 8) : 0;
      if ((a | b | c) >>> 10 === 0) {
        const key = a | (b << 10) | (c << 20);
        const small = (this.#small ??= [new Map(), new Map(), new Map()])[n - 1]!;
        const known = small.get(key);
        if (known !== undefined) return known;
        const list = Object.freeze(n === 1 ? [a] : n === 2 ? [a, b] : [a, b, c]);
        small.set(key, list);
        return list;
      }
    }
    return this.#interned(p, n);
  }

  /** The `n` node ids at `p` as a frozen list, by hash of the ids (see `#list`). */
  #interned(p: number, n: number): readonly number[] {
    const view = this.#view;
    let hash = n;
    for (let i = 0; i < n; i++) hash = (Math.imul(hash, 31) + view.getInt32(p + 4 * i)) | 0;
    this.#lists ??= new Map();
    const bucket = this.#lists.get(hash);
    if (bucket !== undefined) {
      for (const known of bucket) if (sameIds(known, view, p, n)) return known;
    }
    const list = new Array<number>(n);
    for (let i = 0; i < n; i++) list[i] = view.getInt32(p + 4 * i);
    Object.freeze(list);
    if (bucket === undefined) this.#lists.set(hash, [list]);
    else bucket.push(list);
    return list;
  }

  /** The topic id of topic slot `t` in Kafka's text form (the zero uuid below v10). */
  topicId(t: number): string {
    const at = this.topicInts[t * 5 + 4]!;
    if (at < 0) return ZERO_UUID;
    const b = this.#bytes;
    for (let i = 0; i < 16; i++) if (b[at + i] !== 0) return b.toString('base64url', at, at + 16);
    return ZERO_UUID;
  }
}

/** The brokers and top-level fields of the same response. */
export interface MetadataHead {
  readonly throttleTimeMs: number;
  readonly brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  readonly clusterId: string | null;
  readonly controllerId: number;
  /** v13+: the top-level error code; 0 below. */
  readonly errorCode: number;
}

/** Skips a tagged-field section (every Metadata response tag is unknown to the snapshot). */
function skipTags(r: Reader): void {
  const n = r.readUvarint();
  for (let i = 0; i < n; i++) {
    r.readUvarint();
    r.pos = r.readTaggedSize();
  }
}

function atPath(e: unknown, path: string): unknown {
  if (e instanceof CodecError && e.path === '') {
    return new CodecError(e.reason, `MetadataResponse ${path}`, e.message, { cause: e });
  }
  return e;
}

/**
 * Reads a Metadata response body (any version 0-13) from `r` into a {@link MetadataTable}
 * and its {@link MetadataHead}, checking every length and count as the generated
 * `decodeMetadataResponse` does (same `CodecError` reasons) without making an object per
 * partition. Leaves `r.pos` after the body.
 *
 * The table keeps a view of `r.buf`, not a copy: the bytes must not change while the table
 * is in use. The wire hands every response frame out as a buffer it never reuses (a socket
 * chunk or a frame-sized buffer of its own), so a connection's answer qualifies.
 *
 * @throws CodecError VERSION_UNSUPPORTED, TRUNCATED, LENGTH_INVALID, NULL_NOT_ALLOWED
 */
export function readMetadataTable(
  r: Reader,
  version: number,
): { head: MetadataHead; table: MetadataTable } {
  if (!(version >= 0 && version <= 13) || !Number.isInteger(version)) {
    throw new CodecError('VERSION_UNSUPPORTED', 'MetadataResponse', `version ${version} (0-13)`);
  }
  const flexible = version >= 9;
  const arrayLength = flexible ? () => r.readCompactArrayLength() : () => r.readArrayLength();
  const string = flexible ? () => r.readCompactString() : () => r.readString();
  const nullableString = flexible
    ? () => r.readNullableCompactString()
    : () => r.readNullableString();
  // Where a failure happened, for the error path; numbers, so the loop makes no strings.
  let where = 'header';
  let ti = -1;
  let pi = -1;
  try {
    const throttleTimeMs = version >= 3 ? r.readInt32() : 0;
    where = 'brokers';
    const brokerCount = arrayLength();
    const brokers: MetadataHead['brokers'] = [];
    for (let i = 0; i < brokerCount; i++) {
      const nodeId = r.readInt32();
      const host = string();
      const port = r.readInt32();
      const rack = version >= 1 ? nullableString() : null;
      if (flexible) skipTags(r);
      brokers.push({ nodeId, host, port, rack });
    }
    where = 'clusterId';
    const clusterId = version >= 2 ? nullableString() : null;
    const controllerId = version >= 1 ? r.readInt32() : -1;
    where = 'topics';
    const topicCount = arrayLength();
    // The topics' bytes are kept as a view, not copied (see readMetadataTable's contract);
    // partitions are found again by their offsets.
    const base = r.pos;
    const buf = r.buf;
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const end = r.end;
    // A partition takes at least 18 bytes on the wire.
    let partAt = new Int32Array(Math.max(16, Math.ceil((end - base) / 18)));
    const topicInts = new Int32Array(topicCount * 5);
    const topicSorted = new Uint8Array(topicCount);
    const names: string[] = [];
    let k = 0; // partition slots used
    let t = 0; // topics kept
    const hasEpoch = version >= 7;
    const lists = version >= 5 ? 3 : 2;
    const fixed = hasEpoch ? 14 : 10;
    for (ti = 0; ti < topicCount; ti++) {
      pi = -1;
      const errorCode = r.readInt16();
      const name = version >= 12 ? nullableString() : string();
      const idAt = r.pos;
      if (version >= 10) {
        r.need(16);
        r.pos += 16;
      }
      const isInternal = version >= 1 ? r.readBool() : false;
      const n = arrayLength();
      const first = k;
      if (k + n > partAt.length) {
        const grown = new Int32Array(Math.max(k + n, partAt.length * 2));
        grown.set(partAt);
        partAt = grown;
      }
      let sorted = 1;
      let previous = -1;
      for (pi = 0; pi < n; pi++) {
        let p = r.pos;
        partAt[k] = p - base;
        let index: number;
        // Fast path over bytes known to be there; anything else goes through the Reader,
        // which reads it or throws what the generic decoder throws.
        if (p + fixed <= end) {
          index = dv.getInt32(p + 2);
          r.pos = p + fixed;
        } else {
          r.readInt16();
          index = r.readInt32();
          r.readInt32();
          if (hasEpoch) r.readInt32();
        }
        if (index <= previous) sorted = 0;
        previous = index;
        for (let list = 0; list < lists; list++) {
          p = r.pos;
          if (flexible) {
            const b = p < end ? buf[p]! : 0;
            if (b > 0 && b < 0x80 && (b - 1) * 4 <= end - p - 1) {
              r.pos = p + 1 + (b - 1) * 4;
              continue;
            }
          } else if (p + 4 <= end) {
            const c = dv.getInt32(p);
            if (c >= 0 && c * 4 <= end - p - 4) {
              r.pos = p + 4 + c * 4;
              continue;
            }
          }
          const c = flexible ? r.readCompactArrayLength() : r.readArrayLength();
          // The count was checked against the bytes left (>= 1 per element); each id is 4.
          r.need(c * 4);
          r.pos += c * 4;
        }
        if (flexible) {
          // No tags (the usual case) is one zero byte.
          if (r.pos < end && buf[r.pos] === 0) r.pos++;
          else skipTags(r);
        }
        k++;
      }
      pi = -1;
      if (version >= 8) r.readInt32(); // topicAuthorizedOperations
      if (flexible) skipTags(r);
      // v12+ may answer by id only; a topic without a name cannot be looked up by name.
      if (name === null) {
        k = first;
        continue;
      }
      names.push(name);
      topicInts[t * 5] = errorCode;
      topicInts[t * 5 + 1] = isInternal ? 1 : 0;
      topicInts[t * 5 + 2] = first;
      topicInts[t * 5 + 3] = n;
      topicInts[t * 5 + 4] = version >= 10 ? idAt - base : -1;
      topicSorted[t] = sorted;
      t++;
    }
    const topicsEnd = r.pos;
    ti = -1;
    where = 'trailer';
    if (version >= 8 && version <= 10) r.readInt32(); // clusterAuthorizedOperations
    const errorCode = version >= 13 ? r.readInt16() : 0;
    if (flexible) skipTags(r);
    return {
      head: { throttleTimeMs, brokers, clusterId, controllerId, errorCode },
      table: new MetadataTable(
        version,
        buf.subarray(base, topicsEnd),
        names,
        topicInts.subarray(0, t * 5),
        topicSorted.subarray(0, t),
        partAt.subarray(0, k),
      ),
    };
  } catch (e) {
    throw atPath(e, ti < 0 ? where : pi < 0 ? `topics[${ti}]` : `topics[${ti}].partitions[${pi}]`);
  }
}
