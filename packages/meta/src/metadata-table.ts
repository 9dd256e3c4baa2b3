import { CodecError, type Reader } from '@kafkats/codec';

/**
 * A Metadata response's topics and partitions in columns: what a `MetadataSnapshot` is built
 * from when it comes straight from response bytes. Objects (`TopicInfo`, `PartitionInfo`)
 * are made from it only when somebody asks for them.
 *
 * Topic `t` (in answer order, topics without a name left out):
 * `names[t]`; `topicInts[4t..4t+3]` = error code, isInternal (0/1), first partition slot,
 * partition count; `topicIds[16t..16t+15]` = the uuid's bytes (zero below v10).
 * Partition slot `k` (a topic's partitions are consecutive, in answer order):
 * `parts[5k..5k+4]` = partition index, leader id (-1 none), leader epoch, error code, offset
 * into `nodes` of its lists, laid out `[n, replicas..., n, isr..., n, offline...]`.
 */
export interface MetadataTable {
  readonly topicCount: number;
  readonly names: readonly string[];
  readonly topicInts: Int32Array;
  readonly topicIds: Uint8Array;
  /** Per topic: 1 when its partition indexes strictly increase (the usual dense 0..n-1). */
  readonly topicSorted: Uint8Array;
  readonly parts: Int32Array;
  readonly nodes: Int32Array;
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

function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
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
 * @throws CodecError UNSUPPORTED_VERSION, TRUNCATED, INVALID_LENGTH, NULL_NOT_ALLOWED
 */
export function readMetadataTable(
  r: Reader,
  version: number,
): { head: MetadataHead; table: MetadataTable } {
  if (!(version >= 0 && version <= 13) || !Number.isInteger(version)) {
    throw new CodecError('UNSUPPORTED_VERSION', 'MetadataResponse', `version ${version} (0-13)`);
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
    // Capacities from the bytes left: a partition takes at least 18 bytes on the wire.
    const left = r.end - r.pos;
    let parts = new Int32Array(Math.max(64, Math.ceil(left / 40) * 5));
    let nodes = new Int32Array(Math.max(64, Math.ceil(left / 4)));
    let topicInts = new Int32Array(topicCount * 4);
    let topicIds = new Uint8Array(topicCount * 16);
    const topicSorted = new Uint8Array(topicCount);
    const names: string[] = [];
    const buf = r.buf;
    let k = 0; // partition slots used
    let nodeAt = 0;
    let t = 0; // topics kept
    const hasEpoch = version >= 7;
    const hasOffline = version >= 5;
    const lists = hasOffline ? 3 : 2;
    const end = r.end;
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
      if ((k + n) * 5 > parts.length) parts = grow(parts, (k + n) * 5);
      let sorted = 1;
      let previous = -1;
      const fixed = hasEpoch ? 14 : 10;
      for (pi = 0; pi < n; pi++) {
        const o = k * 5;
        // Fast path over bytes known to be there; anything else goes through the Reader,
        // which reads it or throws what the generic decoder throws.
        let p = r.pos;
        if (p + fixed <= end) {
          parts[o + 3] = (((buf[p]! << 8) | buf[p + 1]!) << 16) >> 16;
          parts[o] = (buf[p + 2]! << 24) | (buf[p + 3]! << 16) | (buf[p + 4]! << 8) | buf[p + 5]!;
          parts[o + 1] =
            (buf[p + 6]! << 24) | (buf[p + 7]! << 16) | (buf[p + 8]! << 8) | buf[p + 9]!;
          parts[o + 2] = hasEpoch
            ? (buf[p + 10]! << 24) | (buf[p + 11]! << 16) | (buf[p + 12]! << 8) | buf[p + 13]!
            : -1;
          r.pos = p + fixed;
        } else {
          parts[o + 3] = r.readInt16();
          parts[o] = r.readInt32();
          parts[o + 1] = r.readInt32();
          parts[o + 2] = hasEpoch ? r.readInt32() : -1;
        }
        const index = parts[o]!;
        if (index <= previous) sorted = 0;
        previous = index;
        parts[o + 4] = nodeAt;
        for (let list = 0; list < lists; list++) {
          p = r.pos;
          let c: number;
          const b = p < end ? buf[p]! : 0;
          if (flexible && b > 0 && b < 0x80 && (b - 1) * 4 <= end - p - 1) {
            c = b - 1;
            r.pos = p + 1;
          } else {
            c = flexible ? r.readCompactArrayLength() : r.readArrayLength();
            // The count was checked against the bytes left (>= 1 per element); each id is 4.
            r.need(c * 4);
          }
          if (nodeAt + 1 + c > nodes.length) nodes = grow(nodes, nodeAt + 1 + c);
          nodes[nodeAt++] = c;
          p = r.pos;
          for (let j = 0; j < c; j++, p += 4) {
            nodes[nodeAt++] =
              (buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!;
          }
          r.pos = p;
        }
        if (!hasOffline) {
          if (nodeAt + 1 > nodes.length) nodes = grow(nodes, nodeAt + 1);
          nodes[nodeAt++] = 0;
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
      topicInts[t * 4] = errorCode;
      topicInts[t * 4 + 1] = isInternal ? 1 : 0;
      topicInts[t * 4 + 2] = first;
      topicInts[t * 4 + 3] = n;
      if (version >= 10) for (let i = 0; i < 16; i++) topicIds[t * 16 + i] = buf[idAt + i]!;
      topicSorted[t] = sorted;
      t++;
    }
    ti = -1;
    where = 'trailer';
    if (version >= 8 && version <= 10) r.readInt32(); // clusterAuthorizedOperations
    const errorCode = version >= 13 ? r.readInt16() : 0;
    if (flexible) skipTags(r);
    if (t < topicCount) {
      topicInts = topicInts.subarray(0, t * 4);
      topicIds = topicIds.subarray(0, t * 16);
    }
    return {
      head: { throttleTimeMs, brokers, clusterId, controllerId, errorCode },
      table: {
        topicCount: t,
        names,
        topicInts,
        topicIds,
        topicSorted,
        parts: parts.subarray(0, k * 5),
        nodes: nodes.subarray(0, nodeAt),
      },
    };
  } catch (e) {
    throw atPath(e, ti < 0 ? where : pi < 0 ? `topics[${ti}]` : `topics[${ti}].partitions[${pi}]`);
  }
}
