/**
 * The codec suite's workloads and contestants. Each workload is one logical input (the same
 * bytes for decoders, the same records for encoders); each contestant states what it does,
 * runs that work (`run`, the timed part) and reduces its own output to a {@link Summary}
 * (`summarize`, untimed) so the self-check can prove every contestant did the same work.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  crc32c,
  createFetchResponse,
  createFetchResponseFetchableTopicResponse,
  createFetchResponsePartitionData,
  createMetadataResponse,
  createMetadataResponseBroker,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  createProduceRequest,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  decodeFetchResponse,
  decodeMetadataResponse,
  decodeProduceRequest,
  decodeRecordBatches,
  encodeFetchResponse,
  encodeMetadataResponse,
  encodeProduceRequest,
  encodeRecordBatchSync,
  encodeRequestFrame,
  encodeRequestFrameChunks,
  type MetadataResponse,
  ProduceApi,
  Reader,
  RecordBatchBuilder,
  type RecordInput,
  Writer,
} from '@kafkats/codec';
import { decodeMetadataSnapshot, type MetadataSnapshot } from '@kafkats/meta';

const require = createRequire(import.meta.url);

/** What a contestant's output amounts to: counts plus an order-independent checksum. */
export interface Summary {
  counts: number[];
  checksum: number;
}

export interface Contestant {
  /** Library and version of the protocol it speaks. */
  name: string;
  /** The work `run` does, in words, printed in the table. */
  does: string;
  /** True for kafkats' own contestants (ratios are to the best of the others). */
  ours: boolean;
  /** Not compared in the self-check (a floor does not decode). */
  floor?: boolean;
  /**
   * A bound: the unavoidable part of the work without the rest, to show how fast any
   * contestant could be. A decoding bound keeps exactly what the decoders keep, without the
   * parsing (so it is in the self-check); an encoding bound only copies and checksums the
   * payload (its bytes are no valid request, so it has no summary). Its ratio to the best
   * peer is printed; it is never a peer.
   */
  bound?: boolean;
  /** The timed work; returns what it keeps. */
  run: () => unknown;
  /** Untimed: reduces what `run` returned to a summary. */
  summarize?: (out: unknown) => Summary | Promise<Summary>;
}

export interface Workload {
  id: string;
  title: string;
  /** Logical bytes per operation (for MB/s). */
  bytes: number;
  contestants: Contestant[];
}

// ---- checksums (untimed) ----

function mix(h: number, x: number): number {
  return Math.imul(h ^ (x | 0), 16777619) >>> 0;
}
function mixString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = mix(h, s.charCodeAt(i));
  return mix(h, s.length);
}
function mixBytes(h: number, b: Uint8Array | null | undefined): number {
  if (b === null || b === undefined) return mix(h, -1);
  for (let i = 0; i < b.length; i++) h = mix(h, b[i]!);
  return mix(h, b.length);
}
function mixBig(h: number, v: bigint | string | number): number {
  const b = BigInt(v);
  return mix(mix(h, Number(b & 0xffffffffn)), Number((b >> 32n) & 0xffffffffn));
}

/** A Metadata answer as a list of topics, for the summary. */
interface MetaView {
  brokers: { nodeId: number; host: string; port: number }[];
  topics: {
    name: string;
    partitions: {
      index: number;
      leader: number;
      epoch: number;
      replicas: ArrayLike<number>;
      isr: ArrayLike<number>;
    }[];
  }[];
}

function summarizeMetadata(v: MetaView): Summary {
  let partitions = 0;
  let replicas = 0;
  let isr = 0;
  // Sum of per-topic hashes: topic order does not matter, every field inside a topic does.
  let sum = 0;
  for (const b of v.brokers)
    sum = (sum + mix(mixString(mix(2166136261, b.nodeId), b.host), b.port)) >>> 0;
  for (const t of v.topics) {
    let h = mixString(2166136261, t.name);
    for (const p of [...t.partitions].sort((a, b) => a.index - b.index)) {
      partitions++;
      h = mix(mix(mix(h, p.index), p.leader), p.epoch);
      for (let i = 0; i < p.replicas.length; i++) h = mix(h, p.replicas[i]!);
      h = mix(h, -2);
      for (let i = 0; i < p.isr.length; i++) h = mix(h, p.isr[i]!);
      replicas += p.replicas.length;
      isr += p.isr.length;
    }
    sum = (sum + h) >>> 0;
  }
  return { counts: [v.brokers.length, v.topics.length, partitions, replicas, isr], checksum: sum };
}

function kafkatsMetadataView(m: MetadataResponse): MetaView {
  return {
    brokers: m.brokers,
    topics: m.topics.map((t) => ({
      name: t.name ?? '',
      partitions: t.partitions.map((p) => ({
        index: p.partitionIndex,
        leader: p.leaderId,
        epoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
      })),
    })),
  };
}

function snapshotView(s: MetadataSnapshot): MetaView {
  return {
    brokers: [...s.brokers],
    topics: s.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        index: p.partition,
        leader: p.leader ?? -1,
        epoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
      })),
    })),
  };
}

/** Records in each Fetch workload's response: 10 partitions x 1,000. */
const FETCH_RECORDS = 10_000;

/**
 * What a `Kept` array is copied from: this (an array of `undefined`, made once) or an empty
 * array; a copy carries no V8 allocation site (see `Kept`).
 */
const SLOTS: readonly unknown[] = new Array(FETCH_RECORDS).fill(undefined);
const NO_VALUES: readonly unknown[] = [];

/** The heap-state label of the Fetch tasks timed with `setKeptGrowth(true)`. */
export const GROWN = 'records kept in arrays grown from empty';

/** How `Kept` arrays are made: sized up front (the main rows), or grown record by record. */
let keptGrowth = false;

/**
 * Makes every `Kept` made from now on start empty and grow record by record (true), or sized
 * for the records it will hold (false, the default): the codec child's heap-state task for
 * the first.
 */
export function setKeptGrowth(grow: boolean): void {
  keptGrowth = grow;
}

/**
 * Kept records of a Fetch decode: the same five parallel arrays for every contestant, filled
 * by `add`, made without a V8 allocation site, and sized up front.
 *
 * - **No allocation site.** An array or object literal is one, and V8 pretenures a site when
 *   nearly every object it made is still alive at a scavenge. That happens here to any
 *   contestant that allocates enough to scavenge about once every two calls, since its
 *   previous and its current result are then both alive at every scavenge. The next
 *   containers are then allocated in the old generation, and each one, once dead, still
 *   keeps every young view and bigint it points to alive through the remembered set until a
 *   full GC: they are promoted, the old generation fills, mark-compacts follow. Whether a
 *   process falls into that depends on where its scavenges fall, not on its work: the same
 *   kafkats task measured about 4 or about 10 ms per call from one process to the next, the
 *   slow ones with `--trace-pretenuring-statistics` showing six sites (these five arrays and
 *   their object) tenured and about 99% of what each scavenge kept promoted. Copies of an
 *   array and a class instance carry no site.
 * - **Sized up front.** Arrays grown by `push` from empty leave about 1.2 MB of outgrown
 *   backing stores per 10,000 records, and the half-grown stores of the call in progress are
 *   alive at a scavenge. That garbage is the harness's, yet what it costs a contestant depends
 *   on where its own allocation puts the scavenges: in one set of processes, sizing the
 *   arrays took 1.2-1.9 ms a call off kafkats, 0.6-0.7 ms off the bound and 0.3-1.9 ms off
 *   the peer. So the arrays are sized for the workload's records, and the grown arrays are
 *   timed as a heap-state row of their own (`setKeptGrowth`).
 */
class Kept {
  readonly offsets: unknown[];
  readonly timestamps: unknown[];
  readonly keys: unknown[];
  readonly values: unknown[];
  readonly headers: unknown[];
  /** Records added. */
  n = 0;
  constructor() {
    const from = keptGrowth ? NO_VALUES : SLOTS;
    this.offsets = from.slice();
    this.timestamps = from.slice();
    this.keys = from.slice();
    this.values = from.slice();
    this.headers = from.slice();
  }
  /** Keeps one record's five fields (past `FETCH_RECORDS`, the arrays grow). */
  add(offset: unknown, timestamp: unknown, key: unknown, value: unknown, headers: unknown): void {
    const i = this.n++;
    this.offsets[i] = offset;
    this.timestamps[i] = timestamp;
    this.keys[i] = key;
    this.values[i] = value;
    this.headers[i] = headers;
  }
}
function newKept(): Kept {
  return new Kept();
}
function summarizeKept(k: Kept): Summary {
  let h = 2166136261;
  let headers = 0;
  for (let i = 0; i < k.n; i++) {
    h = mixBig(h, k.offsets[i] as bigint);
    h = mixBig(h, k.timestamps[i] as bigint);
    h = mixBytes(h, k.keys[i] as Uint8Array | null);
    h = mixBytes(h, k.values[i] as Uint8Array | null);
    const hs = k.headers[i] as unknown[] | Record<string, unknown>;
    headers += Array.isArray(hs) ? hs.length : Object.keys(hs).length;
  }
  return { counts: [k.n, headers], checksum: h };
}

// ---- peers ----

type AsyncFn = (b: Buffer) => Promise<unknown>;
interface PlatformaticApi {
  parseResponse(
    correlationId: number,
    apiKey: number,
    apiVersion: number,
    reader: unknown,
  ): unknown;
  createRequest(...args: unknown[]): { buffer: Buffer };
}

async function loadPeers() {
  const kjs = join(dirname(require.resolve('kafkajs')), 'src', 'protocol', 'requests');
  const pf = dirname(require.resolve('@platformatic/kafka'));
  const load = async <T>(p: string): Promise<T> =>
    (await import(pathToFileURL(join(pf, p)).href)) as T;
  const kjsResponse = (p: string) =>
    require(join(kjs, p)) as { decode: AsyncFn; parse: (decoded: unknown) => Promise<unknown> };
  return {
    kafkajs: {
      metadataV6: kjsResponse('metadata/v6/response.js'),
      fetchV11: kjsResponse('fetch/v11/response.js'),
      produceV7: require(join(kjs, 'produce/v7/request.js')) as (r: unknown) => {
        encode(): Promise<{ buffer: Buffer }>;
      },
    },
    platformatic: {
      Reader: (await load<{ Reader: { from(b: Buffer): unknown } }>('protocol/reader.js')).Reader,
      metadataV12: await load<PlatformaticApi>('apis/metadata/metadata-v12.js'),
      fetchV17: await load<PlatformaticApi>('apis/consumer/fetch-v17.js'),
      produceV11: await load<PlatformaticApi>('apis/producer/produce-v11.js'),
    },
  };
}

// ---- corpus ----

/** The size of a Metadata corpus. */
interface MetadataShape {
  readonly brokers: number;
  readonly topics: number;
  readonly partitions: number;
}

/** The usual corpus: 6 brokers, 1,000 topics x 10 partitions. */
const METADATA_10K: MetadataShape = { brokers: 6, topics: 1000, partitions: 10 };
/** A large cluster's answer: 1,000 brokers, 2,000 topics x 100 partitions (200k). */
const METADATA_200K: MetadataShape = { brokers: 1000, topics: 2000, partitions: 100 };

const metadataTopicName = (t: number) => `orders.region-${t % 7}.topic-${t}`;

/** `shape.topics` x `shape.partitions`, replicas and ISR of 3 out of `shape.brokers` brokers. */
function metadataCorpus(modern: boolean, shape: MetadataShape = METADATA_10K): MetadataResponse {
  const nb = shape.brokers;
  const brokers = [];
  for (let b = 0; b < nb; b++) {
    brokers.push(
      createMetadataResponseBroker({
        nodeId: b,
        host: `broker-${b}.kafka.svc`,
        port: 9092,
        rack: `rack-${b % 3}`,
      }),
    );
  }
  const topics = [];
  for (let t = 0; t < shape.topics; t++) {
    const partitions = [];
    for (let p = 0; p < shape.partitions; p++) {
      const replicas = [(t + p) % nb, (t + p + 1) % nb, (t + p + 2) % nb];
      partitions.push(
        createMetadataResponsePartition({
          partitionIndex: p,
          leaderId: replicas[0]!,
          leaderEpoch: modern ? 7 + (t % 5) : -1,
          replicaNodes: replicas,
          isrNodes: t % 3 === 0 ? replicas.slice(0, 2) : [...replicas],
        }),
      );
    }
    const id = Buffer.alloc(16);
    id.writeUInt32BE(t + 1, 12);
    topics.push(
      createMetadataResponseTopic({
        name: metadataTopicName(t),
        topicId: modern ? id.toString('base64url') : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions,
      }),
    );
  }
  return createMetadataResponse({ brokers, clusterId: 'kafkats-bench', controllerId: 1, topics });
}

/**
 * 100-byte values, 16-byte keys, one header on every tenth record, deterministic. `plain`: every
 * record at the same timestamp and none with headers (the peers' best case: their decoders
 * skip work for a zero timestamp delta and an empty header list).
 */
function recordsCorpus(n: number, seed: number, plain = false): RecordInput[] {
  const out: RecordInput[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      key: Buffer.from(`key-${String(i).padStart(12, '0')}`),
      value: Buffer.alloc(100, 97 + ((i + seed) % 26)),
      timestamp: 1_700_000_000_000 + (plain ? 0 : i),
      ...(!plain && i % 10 === 0
        ? { headers: [{ key: 'trace', value: Buffer.from(`t-${i}`) }] }
        : {}),
    });
  }
  return out;
}

function encode(f: (w: Writer) => void): Buffer {
  const w = new Writer(1 << 16);
  f(w);
  return Buffer.from(w.finish());
}

function produceRequest(batches: Buffer[]) {
  return createProduceRequest({
    acks: -1,
    timeoutMs: 30000,
    topicData: [
      createProduceRequestTopicProduceData({
        name: 'orders',
        partitionData: batches.map((records, index) =>
          createProduceRequestPartitionProduceData({ index, records }),
        ),
      }),
    ],
  });
}

function fetchResponse(batches: Buffer[], modern: boolean) {
  return createFetchResponse({
    responses: [
      createFetchResponseFetchableTopicResponse({
        topic: modern ? '' : 'orders',
        topicId: modern ? 'AAAAAAAAAAAAAAAAAAAAAQ' : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: batches.map((records, partitionIndex) =>
          createFetchResponsePartitionData({
            partitionIndex,
            highWatermark: 10000n,
            lastStableOffset: 10000n,
            logStartOffset: 0n,
            records,
          }),
        ),
      }),
    ],
  });
}

/** Every record batch of a kafkats Fetch body, partition by partition. */
function* batchesOf(body: ReturnType<typeof decodeFetchResponse>) {
  for (const t of body.responses) {
    for (const p of t.partitions) {
      if (p.records !== null) yield* decodeRecordBatches(p.records);
    }
  }
}

/** Every record of every batch of a kafkats Fetch body, all five fields read and kept. */
function keepKafkatsFetch(body: ReturnType<typeof decodeFetchResponse>): Kept {
  const k = newKept();
  for (const batch of batchesOf(body)) {
    for (const r of batch.records()) k.add(r.offset, r.timestamp, r.key, r.value, r.headers);
  }
  return k;
}

/** The same, read through each batch's record columns: no record object per record. */
function keepKafkatsFetchColumns(body: ReturnType<typeof decodeFetchResponse>): Kept {
  const k = newKept();
  for (const batch of batchesOf(body)) {
    const c = batch.columns();
    for (let i = 0; i < c.length; i++) {
      k.add(c.offset(i), c.timestamp(i), c.key(i), c.value(i), c.headers(i));
    }
  }
  return k;
}

type PfBatch = {
  firstOffset: bigint;
  firstTimestamp: bigint;
  records: {
    offsetDelta: number;
    timestampDelta: bigint;
    key: Buffer;
    value: Buffer;
    headers: unknown[];
  }[];
};
type PfFetch = { responses: { partitions: { records: PfBatch[] | null }[] }[] };

type KjsFetch = {
  responses: {
    partitions: {
      messages: {
        offset: string;
        timestamp: string;
        key: Buffer;
        value: Buffer;
        headers: object;
      }[];
    }[];
  }[];
};

/**
 * The least a Fetch decoder that hands out Buffers and bigints must do per record, with the
 * parsing taken away: where every record's key and value are (found once, untimed, by our
 * decoder), then per record, timed: two Buffer views (Node's Buffer class called directly,
 * the cheapest way to make one), offset and timestamp as int64 bigint sums, the record's
 * headers (decoded untimed; the shared empty array for most), all kept in the same five
 * arrays. No response parsing, no varints, no CRC.
 */
function viewBound(bytes: Buffer, version: number): Contestant {
  const View = (
    Buffer as unknown as Record<symbol, new (b: ArrayBufferLike, o: number, l: number) => Buffer>
  )[Symbol.species]!;
  const body = decodeFetchResponse(new Reader(bytes), version);
  const at: {
    base: bigint;
    ts: bigint;
    od: number[];
    td: bigint[];
    kp: number[];
    kl: number[];
    vp: number[];
    vl: number[];
    h: unknown[];
  }[] = [];
  for (const t of body.responses) {
    for (const p of t.partitions) {
      if (p.records === null) continue;
      for (const batch of decodeRecordBatches(p.records)) {
        const e = {
          base: batch.baseOffset,
          ts: batch.baseTimestamp,
          od: [] as number[],
          td: [] as bigint[],
          kp: [] as number[],
          kl: [] as number[],
          vp: [] as number[],
          vl: [] as number[],
          h: [] as unknown[],
        };
        for (const r of batch.records()) {
          e.od.push(r.offsetDelta);
          e.td.push(r.timestampDelta);
          e.kp.push(r.key === null ? 0 : r.key.byteOffset - bytes.byteOffset);
          e.kl.push(r.key === null ? -1 : r.key.length);
          e.vp.push(r.value === null ? 0 : r.value.byteOffset - bytes.byteOffset);
          e.vl.push(r.value === null ? -1 : r.value.length);
          e.h.push(r.headers);
        }
        at.push(e);
      }
    }
  }
  const ab = bytes.buffer;
  const off = bytes.byteOffset;
  return {
    name: 'bound: Buffer views + bigints, no parsing',
    does: 'no parsing, no CRC: per record two Buffer views at known positions (key, value), offset and timestamp as int64 bigint sums, headers decoded beforehand; kept in the same five arrays',
    ours: false,
    bound: true,
    run: () => {
      const k = newKept();
      for (const e of at) {
        const n = e.od.length;
        for (let i = 0; i < n; i++) {
          const kl = e.kl[i]!;
          const vl = e.vl[i]!;
          k.add(
            BigInt.asIntN(64, e.base + BigInt(e.od[i]!)),
            BigInt.asIntN(64, e.ts + e.td[i]!),
            kl < 0 ? null : new View(ab, off + e.kp[i]!, kl),
            vl < 0 ? null : new View(ab, off + e.vp[i]!, vl),
            e.h[i],
          );
        }
      }
      return k;
    },
    summarize: (o) => summarizeKept(o as Kept),
  };
}

/**
 * The least a Produce encoder that copies its input must do: every record's key and value
 * copied (`TypedArray#set`, the cheapest copy for ~100 B) to where kafkats's frame has them,
 * then one CRC-32C per batch over the range the batch's CRC covers, in a frame buffer of the
 * same size. Positions are found once, untimed, by decoding kafkats's own frame. No varints,
 * no headers, no record or batch headers, no request encoding: its bytes are not a valid
 * request, so it has no self-check; a bound, never a peer.
 */
function copyBound(frame: Buffer, bodyAt: number, inputs: RecordInput[][]): Contestant {
  const body = frame.subarray(bodyAt);
  const req = decodeProduceRequest(new Reader(body), 11);
  const srcs: Uint8Array[] = [];
  const at: number[] = [];
  const crcFrom: number[] = [];
  const crcTo: number[] = [];
  let p = 0;
  for (const t of req.topicData) {
    for (const part of t.partitionData) {
      if (part.records === null) continue;
      const recs = inputs[p++]!;
      let n = 0;
      for (const batch of decodeRecordBatches(part.records)) {
        const start = batch.buffer.byteOffset - frame.byteOffset;
        // A v2 batch's CRC covers everything from its attributes (byte 21) on.
        crcFrom.push(start + 21);
        crcTo.push(start + batch.buffer.length);
        for (const r of batch.records()) {
          const input = recs[n++]!;
          if (r.key !== null && input.key != null) {
            srcs.push(input.key as Uint8Array);
            at.push(r.key.byteOffset - frame.byteOffset);
          }
          if (r.value !== null && input.value != null) {
            srcs.push(input.value as Uint8Array);
            at.push(r.value.byteOffset - frame.byteOffset);
          }
        }
      }
    }
  }
  const set = Uint8Array.prototype.set;
  const size = frame.length;
  return {
    name: 'bound: key and value copies + CRC-32C, no encoding',
    does: 'no encoding: per record key and value copied (TypedArray#set) to their places in a new buffer of the frame size, one CRC-32C per batch over its checksummed range',
    ours: false,
    bound: true,
    run: () => {
      const out = Buffer.allocUnsafe(size);
      for (let i = 0; i < srcs.length; i++) set.call(out, srcs[i]!, at[i]!);
      let crc = 0;
      for (let i = 0; i < crcFrom.length; i++) crc ^= crc32c(out, crcFrom[i]!, crcTo[i]!);
      return crc === -1 ? null : out;
    },
  };
}

/** Builds every workload and its contestants (corpus encoded once, untimed). */
export async function buildWorkloads(): Promise<Workload[]> {
  const peers = await loadPeers();
  const pfRead = (b: Buffer) => peers.platformatic.Reader.from(b);
  const workloads: Workload[] = [];

  // ---- Metadata ----
  for (const [version, peer, shape] of [
    [12, 'platformatic', METADATA_10K],
    [6, 'kafkajs', METADATA_10K],
    [12, 'platformatic', METADATA_200K],
  ] as const) {
    const bytes = encode((w) =>
      encodeMetadataResponse(w, metadataCorpus(version >= 7, shape), version),
    );
    const topicNames = Array.from({ length: shape.topics }, (_, t) => metadataTopicName(t));
    const copy = Buffer.alloc(bytes.length);
    const contestants: Contestant[] = [
      {
        name: `kafkats v${version} generic decoder`,
        does: 'every field into MetadataResponse objects (an object per partition, arrays of replicas/ISR/offline)',
        ours: true,
        run: () => decodeMetadataResponse(new Reader(bytes), version),
        summarize: (o) => summarizeMetadata(kafkatsMetadataView(o as MetadataResponse)),
      },
      {
        name: `kafkats v${version} meta snapshot`,
        does: 'bytes to the MetadataSnapshot meta installs (every field checked and kept in typed arrays; topic/partition objects materialised on first access) + one leaderFor lookup',
        ours: true,
        run: () => {
          const s = decodeMetadataSnapshot(bytes, version, 0);
          s.leaderFor('orders.region-3.topic-500', 7);
          return s;
        },
        summarize: (o) => summarizeMetadata(snapshotView(o as MetadataSnapshot)),
      },
      {
        name: `kafkats v${version} meta snapshot + leaderFor of every partition`,
        does: 'as the snapshot, then the leader of every partition looked up (what a producer writing to every partition pays; no objects made)',
        ours: true,
        run: () => {
          const s = decodeMetadataSnapshot(bytes, version, 0);
          let sum = 0;
          for (const name of topicNames)
            for (let p = 0; p < shape.partitions; p++) sum += s.leaderFor(name, p) ?? 0;
          return sum === -1 ? undefined : s;
        },
        summarize: (o) => summarizeMetadata(snapshotView(o as MetadataSnapshot)),
      },
      {
        name: `kafkats v${version} meta snapshot + every partition materialised`,
        does: 'as the snapshot, then every TopicInfo/PartitionInfo object built (the worst case of a reader walking all of it)',
        ours: true,
        run: () => {
          const s = decodeMetadataSnapshot(bytes, version, 0);
          let n = 0;
          for (const t of s.topics) n += t.partitions.length;
          return n === -1 ? undefined : s;
        },
        summarize: (o) => summarizeMetadata(snapshotView(o as MetadataSnapshot)),
      },
    ];
    if (peer === 'platformatic') {
      contestants.push({
        name: '@platformatic/kafka 2.12.1 v12',
        does: 'parseResponse: every field into plain objects (an object per partition, arrays)',
        ours: false,
        run: () => peers.platformatic.metadataV12.parseResponse(1, 3, 12, pfRead(bytes)),
        summarize: (o) => {
          const m = o as {
            brokers: MetaView['brokers'];
            topics: {
              name: string;
              partitions: {
                partitionIndex: number;
                leaderId: number;
                leaderEpoch: number;
                replicaNodes: number[];
                isrNodes: number[];
              }[];
            }[];
          };
          return summarizeMetadata({
            brokers: m.brokers,
            topics: m.topics.map((t) => ({
              name: t.name,
              partitions: t.partitions.map((p) => ({
                index: p.partitionIndex,
                leader: p.leaderId,
                epoch: p.leaderEpoch,
                replicas: p.replicaNodes,
                isr: p.isrNodes,
              })),
            })),
          });
        },
      });
    } else {
      contestants.push({
        name: 'kafkajs 2.2.4 v6',
        does: 'decode + parse (every field into plain objects; parse checks error codes)',
        ours: false,
        run: async () =>
          peers.kafkajs.metadataV6.parse(await peers.kafkajs.metadataV6.decode(bytes)),
        summarize: (o) => {
          const m = o as {
            brokers: MetaView['brokers'];
            topicMetadata: {
              topic: string;
              partitionMetadata: {
                partitionId: number;
                leader: number;
                replicas: number[];
                isr: number[];
              }[];
            }[];
          };
          return summarizeMetadata({
            brokers: m.brokers,
            topics: m.topicMetadata.map((t) => ({
              name: t.topic,
              partitions: t.partitionMetadata.map((p) => ({
                index: p.partitionId,
                leader: p.leader,
                epoch: -1,
                replicas: p.replicas,
                isr: p.isr,
              })),
            })),
          });
        },
      });
    }
    contestants.push({
      name: 'memcpy of the same bytes',
      does: 'Buffer.copy (floor)',
      ours: false,
      floor: true,
      run: () => bytes.copy(copy),
    });
    const large = shape === METADATA_200K;
    workloads.push({
      id: `metadata-v${version}${large ? '-200k' : ''}`,
      title: `Metadata response v${version} decode, ${shape.brokers.toLocaleString('en-US')} brokers, ${shape.topics.toLocaleString('en-US')} topics x ${shape.partitions} partitions x RF 3 (${(bytes.length / 1024).toFixed(0)} KiB)`,
      bytes: bytes.length,
      contestants,
    });
  }

  // ---- Fetch ----
  // Each version twice: our corpus (timestamps that differ, a header on every tenth record),
  // and the peers' best case (equal timestamps, no headers).
  for (const [version, peer, plain] of [
    [17, 'platformatic', false],
    [11, 'kafkajs', false],
    [17, 'platformatic', true],
    [11, 'kafkajs', true],
  ] as const) {
    const fetchBatches = Array.from({ length: 10 }, (_, p) =>
      encodeRecordBatchSync({
        baseOffset: BigInt(p * 1000),
        records: recordsCorpus(1000, p, plain),
      }),
    );
    const bytes = encode((w) =>
      encodeFetchResponse(w, fetchResponse(fetchBatches, version >= 13), version),
    );
    const copy = Buffer.alloc(bytes.length);
    const contestants: Contestant[] = [
      {
        name: `kafkats v${version}`,
        does: 'decodeFetchResponse + decodeRecordBatches (CRC-32C verified); every record: offset, timestamp (bigint), key, value (views), headers read and kept',
        ours: true,
        run: () => keepKafkatsFetch(decodeFetchResponse(new Reader(bytes), version)),
        summarize: (o) => summarizeKept(o as Kept),
      },
      {
        name: `kafkats v${version}, record columns`,
        does: 'decodeFetchResponse + decodeRecordBatches (CRC-32C verified); batch.columns(), no record object: every record: offset, timestamp (bigint), key, value (views), headers read and kept',
        ours: true,
        run: () => keepKafkatsFetchColumns(decodeFetchResponse(new Reader(bytes), version)),
        summarize: (o) => summarizeKept(o as Kept),
      },
    ];
    if (peer === 'platformatic') {
      contestants.push({
        name: '@platformatic/kafka 2.12.1 v17',
        does: 'parseResponse (records parsed, CRC NOT verified); every record: offset and timestamp made absolute (bigint), key, value, headers read and kept',
        ours: false,
        run: () => {
          const res = peers.platformatic.fetchV17.parseResponse(1, 1, 17, pfRead(bytes)) as PfFetch;
          const k = newKept();
          for (const t of res.responses) {
            for (const p of t.partitions) {
              for (const b of p.records ?? []) {
                for (const r of b.records) {
                  k.add(
                    b.firstOffset + BigInt(r.offsetDelta),
                    b.firstTimestamp + r.timestampDelta,
                    r.key,
                    r.value,
                    r.headers,
                  );
                }
              }
            }
          }
          return k;
        },
        summarize: (o) => summarizeKept(o as Kept),
      });
    } else {
      contestants.push({
        name: 'kafkajs 2.2.4 v11',
        does: 'decode + parse (records parsed, CRC NOT verified; offsets/timestamps as strings); every record: offset, timestamp, key, value, headers read and kept',
        ours: false,
        run: async () => {
          const res = (await peers.kafkajs.fetchV11.parse(
            await peers.kafkajs.fetchV11.decode(bytes),
          )) as KjsFetch;
          const k = newKept();
          for (const t of res.responses) {
            for (const p of t.partitions) {
              for (const r of p.messages) {
                k.add(r.offset, r.timestamp, r.key, r.value, r.headers);
              }
            }
          }
          return k;
        },
        summarize: (o) => summarizeKept(o as Kept),
      });
    }
    contestants.push({
      name: 'memcpy of the same bytes',
      does: 'Buffer.copy (floor)',
      ours: false,
      floor: true,
      run: () => bytes.copy(copy),
    });
    if (version === 17) contestants.push(viewBound(bytes, version));
    workloads.push({
      id: `fetch-v${version}${plain ? '-plain' : ''}`,
      title: `Fetch response v${version} decode, 10 partitions x 1,000 records (16 B key, 100 B value${plain ? "; equal timestamps, no headers: the peers' best case" : '; a header on every tenth record'}) (${(bytes.length / 1024).toFixed(0)} KiB)`,
      bytes: bytes.length,
      contestants,
    });
  }

  // ---- Produce ----
  const partitionsRecords = Array.from({ length: 10 }, (_, p) => recordsCorpus(100, p));
  const ourProduceRequest = () =>
    produceRequest(partitionsRecords.map((records) => encodeRecordBatchSync({ records })));
  const produceBytes = encode((w) => encodeProduceRequest(w, ourProduceRequest(), 11)).length;
  const produceCopy = [Buffer.alloc(produceBytes, 1), Buffer.alloc(produceBytes)] as const;
  const summarizeProduce = (bytes: Buffer, version: number): Summary => {
    const req = decodeProduceRequest(new Reader(bytes), version);
    const k = newKept();
    let partitions = 0;
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        partitions++;
        if (p.records === null) continue;
        for (const batch of decodeRecordBatches(p.records)) {
          for (const r of batch.records()) {
            // Offsets are the producer's deltas; only their order and the payload matter.
            k.add(BigInt(r.offsetDelta), r.timestamp, r.key, r.value, r.headers);
          }
        }
      }
    }
    const s = summarizeKept(k);
    return { counts: [partitions, ...s.counts], checksum: s.checksum };
  };
  const kjsTopicData = [
    {
      topic: 'orders',
      partitions: partitionsRecords.map((records, partition) => ({
        partition,
        messages: records.map((r) => ({
          key: r.key,
          value: r.value,
          timestamp: r.timestamp,
          ...(r.headers === undefined
            ? {}
            : { headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value])) }),
        })),
      })),
    },
  ];
  const pfMessages = partitionsRecords.flatMap((records, partition) =>
    records.map((r) => ({
      topic: 'orders',
      partition,
      key: r.key,
      value: r.value,
      timestamp: BigInt(r.timestamp!),
      headers: new Map((r.headers ?? []).map((h) => [Buffer.from(h.key), h.value])),
    })),
  );
  // The producer's path: each record written once into a batchSize (16 KiB) buffer as it is
  // appended, the header and CRC-32C at build; the same batches as encodeRecordBatchSync's.
  const builderRecords = partitionsRecords.map((records) =>
    records.map((r) => ({
      timestamp: Number(r.timestamp),
      key: r.key ?? null,
      value: r.value ?? null,
      headers: r.headers ?? null,
    })),
  );
  const builderProducePieces = () => {
    const batches: Buffer[] = [];
    for (const records of builderRecords) {
      const b = new RecordBatchBuilder(Buffer.allocUnsafeSlow(16_384));
      for (const r of records) b.append(r.timestamp, r.key, r.value, r.headers);
      batches.push(b.build());
    }
    return encodeRequestFrameChunks(ProduceApi, 11, 1, 'bench', produceRequest(batches));
  };
  const ourProduceFrame = () => encodeRequestFrame(ProduceApi, 11, 1, 'bench', ourProduceRequest());
  const ourProducePieces = () =>
    encodeRequestFrameChunks(ProduceApi, 11, 1, 'bench', ourProduceRequest());
  // The summary reads the request body: the frame less its size, header and tag byte.
  const ourBodyAt = 4 + 2 + 2 + 4 + 2 + 5 + 1;
  workloads.push({
    id: 'produce',
    title: `Produce request encode, 10 partitions x 100 records (16 B key, 100 B value), framed record batches (${(produceBytes / 1024).toFixed(0)} KiB)`,
    bytes: produceBytes,
    contestants: [
      {
        name: 'kafkats v11',
        does: "encodeRecordBatchSync per partition (CRC-32C) + encodeRequestFrameChunks (size, request header, request; batches by reference): the buffers the producer hands the socket for one writev, as Kafka's SendBuilder sends records",
        ours: true,
        run: ourProducePieces,
        summarize: (o) => summarizeProduce(Buffer.concat(o as Buffer[]).subarray(ourBodyAt), 11),
      },
      {
        name: 'kafkats v11, RecordBatchBuilder',
        does: "RecordBatchBuilder per partition over a 16 KiB buffer (each record written once as appended; header + CRC-32C at build) + encodeRequestFrameChunks: the producer's own path",
        ours: true,
        run: builderProducePieces,
        summarize: (o) => summarizeProduce(Buffer.concat(o as Buffer[]).subarray(ourBodyAt), 11),
      },
      {
        name: 'kafkats v11, one buffer',
        does: 'encodeRecordBatchSync per partition (CRC-32C) + encodeRequestFrame (size, request header, request) with the batches copied into one buffer',
        ours: true,
        run: ourProduceFrame,
        summarize: (o) => summarizeProduce((o as Buffer).subarray(ourBodyAt), 11),
      },
      {
        name: 'kafkajs 2.2.4 v7',
        does: 'request encode: record batches (CRC-32C) + request into one buffer',
        ours: false,
        run: async () =>
          (
            await peers.kafkajs
              .produceV7({ acks: -1, timeout: 30000, topicData: kjsTopicData })
              .encode()
          ).buffer,
        summarize: (o) => summarizeProduce(o as Buffer, 7),
      },
      {
        name: '@platformatic/kafka 2.12.1 v11',
        does: 'createRequest: record batches (CRC-32C) + request into one buffer',
        ours: false,
        run: () => peers.platformatic.produceV11.createRequest(-1, 30000, pfMessages, {}).buffer,
        summarize: (o) => summarizeProduce(o as Buffer, 11),
      },
      {
        name: 'memcpy of the same bytes',
        does: 'Buffer.copy (floor)',
        ours: false,
        floor: true,
        run: () => produceCopy[0].copy(produceCopy[1]),
      },
      copyBound(ourProduceFrame(), ourBodyAt, partitionsRecords),
    ],
  });
  return workloads;
}
