/**
 * Message codec suite: decode a Metadata response of 1,000 topics x 10 partitions
 * x RF 3, encode a Produce request (10 partitions x 100 records of 100 B), decode a ~1 MiB
 * Fetch response; each against the memcpy of the same bytes (floor) and the peers' own
 * protocol codecs (kafkajs, @platformatic/kafka; reached through their internal modules) on
 * the same logical input, at the versions each peer speaks (checked before timing: every
 * task must read or write the same topics, partitions and records). "vs kafkats" = task time
 * / first task time of its group (above 1 = slower than kafkats); "vs floor" = task time /
 * memcpy time of the same bytes.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
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
  type MetadataResponse,
  Reader,
  type RecordInput,
  Writer,
} from '@kafkats/codec';
import { FLOOR, type Row, runGroup } from './harness.js';

const require = createRequire(import.meta.url);

type AsyncDecode = (b: Buffer) => Promise<unknown>;
interface PlatformaticApi {
  parseResponse(
    correlationId: number,
    apiKey: number,
    apiVersion: number,
    reader: unknown,
  ): unknown;
  createRequest(...args: unknown[]): { buffer: Buffer };
}
interface Peers {
  kafkajs: {
    metadataV6: AsyncDecode;
    fetchV11: AsyncDecode;
    produceV7: (r: unknown) => { encode(): Promise<{ buffer: Buffer }> };
  };
  platformatic: {
    Reader: { from(b: Buffer): unknown };
    metadataV12: PlatformaticApi;
    fetchV17: PlatformaticApi;
    produceV11: PlatformaticApi;
  };
}

async function loadPeers(): Promise<Peers> {
  const kjs = join(dirname(require.resolve('kafkajs')), 'src', 'protocol', 'requests');
  const pf = dirname(require.resolve('@platformatic/kafka'));
  const load = async <T>(p: string): Promise<T> =>
    (await import(pathToFileURL(join(pf, p)).href)) as T;
  return {
    kafkajs: {
      metadataV6: (require(join(kjs, 'metadata/v6/response.js')) as { decode: AsyncDecode }).decode,
      fetchV11: (require(join(kjs, 'fetch/v11/response.js')) as { decode: AsyncDecode }).decode,
      produceV7: require(join(kjs, 'produce/v7/request.js')) as Peers['kafkajs']['produceV7'],
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

/** "metadata-1k-10-rf3": 1,000 topics x 10 partitions, replicas and ISR of 3 out of 6 brokers. */
function metadataCorpus(modern: boolean): MetadataResponse {
  const brokers = [];
  for (let b = 0; b < 6; b++) {
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
  for (let t = 0; t < 1000; t++) {
    const partitions = [];
    for (let p = 0; p < 10; p++) {
      const replicas = [(t + p) % 6, (t + p + 1) % 6, (t + p + 2) % 6];
      partitions.push(
        createMetadataResponsePartition({
          partitionIndex: p,
          leaderId: replicas[0]!,
          leaderEpoch: modern ? 7 : -1,
          replicaNodes: replicas,
          isrNodes: [...replicas],
        }),
      );
    }
    const id = Buffer.alloc(16);
    id.writeUInt32BE(t + 1, 12);
    topics.push(
      createMetadataResponseTopic({
        name: `orders.region-${t % 7}.topic-${t}`,
        topicId: modern ? id.toString('base64url') : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions,
      }),
    );
  }
  return createMetadataResponse({ brokers, clusterId: 'kafkats-bench', controllerId: 1, topics });
}

/** 100-byte values, 16-byte keys, deterministic. */
function recordsCorpus(n: number, seed: number): RecordInput[] {
  const out: RecordInput[] = [];
  for (let i = 0; i < n; i++) {
    const value = Buffer.alloc(100, 97 + ((i + seed) % 26));
    out.push({
      key: Buffer.from(`key-${String(i).padStart(12, '0')}`),
      value,
      timestamp: 1_700_000_000_000 + i,
    });
  }
  return out;
}

function encode(f: (w: Writer) => void): Buffer {
  const w = new Writer(1 << 16);
  f(w);
  return Buffer.from(w.finish());
}

/**
 * Fails the run (smoke included) when a task did not read or write the logical input the
 * comparison claims: a peer that quietly decodes less would otherwise look fast.
 */
function expectSame(what: string, got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(
      `codec suite: ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
    );
  }
}

/** Runs the codec suite and prints its table. */
export async function runCodecSuite(smoke: boolean): Promise<void> {
  const peers = await loadPeers();
  const rows: Row[] = [];

  // ---- Metadata response: 1,000 topics x 10 partitions x RF 3 ----
  const v12 = encode((w) => encodeMetadataResponse(w, metadataCorpus(true), 12));
  const v6 = encode((w) => encodeMetadataResponse(w, metadataCorpus(false), 6));
  const copyTarget = Buffer.alloc(Math.max(v12.length, v6.length));
  // [topics, partitions, replicas] each decoder reads from the same response bytes.
  type Topics = { partitions: { replicaNodes: unknown[] }[] }[];
  const metadataShape = (topics: Topics): number[] => [
    topics.length,
    topics.reduce((n, t) => n + t.partitions.length, 0),
    topics.reduce((n, t) => n + t.partitions.reduce((m, p) => m + p.replicaNodes.length, 0), 0),
  ];
  const metadataWant = [1000, 10_000, 30_000];
  expectSame(
    'kafkats Metadata v12',
    metadataShape(decodeMetadataResponse(new Reader(v12), 12).topics),
    metadataWant,
  );
  expectSame(
    'kafkats Metadata v6',
    metadataShape(decodeMetadataResponse(new Reader(v6), 6).topics),
    metadataWant,
  );
  expectSame(
    '@platformatic/kafka Metadata v12',
    metadataShape(
      (
        peers.platformatic.metadataV12.parseResponse(
          1,
          3,
          12,
          peers.platformatic.Reader.from(v12),
        ) as {
          topics: Topics;
        }
      ).topics,
    ),
    metadataWant,
  );
  const kjsMetadata = (await peers.kafkajs.metadataV6(v6)) as {
    topicMetadata: { partitionMetadata: { replicas: unknown[] }[] }[];
  };
  expectSame(
    'kafkajs Metadata v6',
    metadataShape(
      kjsMetadata.topicMetadata.map((t) => ({
        partitions: t.partitionMetadata.map((p) => ({ replicaNodes: p.replicas })),
      })),
    ),
    metadataWant,
  );
  rows.push(
    ...(await runGroup(
      `decode Metadata v12 ${(v12.length / 1024).toFixed(0)} KiB`,
      smoke,
      v12.length,
      [
        ['kafkats', () => decodeMetadataResponse(new Reader(v12), 12)],
        [
          '@platformatic/kafka',
          () =>
            peers.platformatic.metadataV12.parseResponse(
              1,
              3,
              12,
              peers.platformatic.Reader.from(v12),
            ),
        ],
        [FLOOR, () => v12.copy(copyTarget)],
      ],
    )),
  );
  rows.push(
    ...(await runGroup(
      `decode Metadata v6 ${(v6.length / 1024).toFixed(0)} KiB`,
      smoke,
      v6.length,
      [
        ['kafkats', () => decodeMetadataResponse(new Reader(v6), 6)],
        ['kafkajs', () => peers.kafkajs.metadataV6(v6)],
        [FLOOR, () => v6.copy(copyTarget)],
      ],
    )),
  );

  // ---- Produce request: 1 topic x 10 partitions x 100 records of 100 B ----
  const partitionsRecords = Array.from({ length: 10 }, (_, p) => recordsCorpus(100, p));
  const batches = partitionsRecords.map((records) => encodeRecordBatchSync({ records }));
  const produceBytes = encode((w) => encodeProduceRequest(w, produceRequest(batches), 11)).length;
  const produceTarget = Buffer.alloc(produceBytes);
  const produceSource = Buffer.alloc(produceBytes, 1);
  const kjsTopicData = [
    {
      topic: 'orders',
      partitions: partitionsRecords.map((records, partition) => ({
        partition,
        messages: records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp })),
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
      headers: new Map(),
    })),
  );
  // Every encoder's bytes, read back by our decoder: [partitions, records].
  const produceShape = (bytes: Buffer, version: number): number[] => {
    const req = decodeProduceRequest(new Reader(bytes), version);
    let partitions = 0;
    let records = 0;
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        partitions++;
        if (p.records === null) continue;
        for (const batch of decodeRecordBatches(p.records)) records += [...batch.records()].length;
      }
    }
    return [partitions, records];
  };
  const produceWant = [10, 1000];
  expectSame(
    'kafkats Produce v11',
    produceShape(
      encode((w) => encodeProduceRequest(w, produceRequest(batches), 11)),
      11,
    ),
    produceWant,
  );
  const kjsProduce = await peers.kafkajs
    .produceV7({ acks: -1, timeout: 30000, topicData: kjsTopicData })
    .encode();
  expectSame('kafkajs Produce v7', produceShape(kjsProduce.buffer, 7), produceWant);
  expectSame(
    '@platformatic/kafka Produce v11',
    produceShape(peers.platformatic.produceV11.createRequest(-1, 30000, pfMessages, {}).buffer, 11),
    produceWant,
  );
  rows.push(
    ...(await runGroup(
      `encode Produce (10 x 100 x 100 B) ${(produceBytes / 1024).toFixed(0)} KiB`,
      smoke,
      produceBytes,
      [
        [
          'kafkats v11 (batches + request)',
          () => {
            const w = new Writer(1 << 17);
            encodeProduceRequest(
              w,
              produceRequest(
                partitionsRecords.map((records) => encodeRecordBatchSync({ records })),
              ),
              11,
            );
            return w.finish();
          },
        ],
        [
          'kafkats v11 (request around pre-built batches)',
          () => {
            const w = new Writer(1 << 17);
            encodeProduceRequest(w, produceRequest(batches), 11);
            return w.finish();
          },
        ],
        [
          'kafkajs v7 (batches + request)',
          async () =>
            (
              await peers.kafkajs
                .produceV7({ acks: -1, timeout: 30000, topicData: kjsTopicData })
                .encode()
            ).buffer,
        ],
        [
          '@platformatic/kafka v11 (batches + request)',
          () => peers.platformatic.produceV11.createRequest(-1, 30000, pfMessages, {}).buffer,
        ],
        [FLOOR, () => produceSource.copy(produceTarget)],
      ],
    )),
  );

  // ---- Fetch response: 1 topic x 8 partitions x one 1,000-record batch (~1 MiB) ----
  const fetchBatches = Array.from({ length: 8 }, (_, p) =>
    encodeRecordBatchSync({ baseOffset: BigInt(p * 1000), records: recordsCorpus(1000, p) }),
  );
  const fetch17 = encode((w) => encodeFetchResponse(w, fetchResponse(fetchBatches, true), 17));
  const fetch11 = encode((w) => encodeFetchResponse(w, fetchResponse(fetchBatches, false), 11));
  const fetchTarget = Buffer.alloc(fetch11.length + 64);
  const countRecords = (body: ReturnType<typeof decodeFetchResponse>): number => {
    let n = 0;
    for (const t of body.responses) {
      for (const p of t.partitions) {
        if (p.records === null) continue;
        for (const batch of decodeRecordBatches(p.records))
          for (const r of batch.records()) n += r.value === null ? 0 : 1;
      }
    }
    return n;
  };
  const fetchWant = 8000;
  expectSame(
    'kafkats Fetch v17',
    countRecords(decodeFetchResponse(new Reader(fetch17), 17)),
    fetchWant,
  );
  expectSame(
    'kafkats Fetch v11',
    countRecords(decodeFetchResponse(new Reader(fetch11), 11)),
    fetchWant,
  );
  const pfFetch = peers.platformatic.fetchV17.parseResponse(
    1,
    1,
    17,
    peers.platformatic.Reader.from(fetch17),
  ) as { responses: { partitions: { records: { records: unknown[] }[] | null }[] }[] };
  expectSame(
    '@platformatic/kafka Fetch v17',
    pfFetch.responses
      .flatMap((t) => t.partitions)
      .reduce((n, p) => n + (p.records ?? []).reduce((m, b) => m + b.records.length, 0), 0),
    fetchWant,
  );
  const kjsFetch = (await peers.kafkajs.fetchV11(fetch11)) as {
    responses: { partitions: { messages: unknown[] }[] }[];
  };
  expectSame(
    'kafkajs Fetch v11',
    kjsFetch.responses.flatMap((t) => t.partitions).reduce((n, p) => n + p.messages.length, 0),
    fetchWant,
  );
  rows.push(
    ...(await runGroup(
      `decode Fetch v17 ${(fetch17.length / 1024).toFixed(0)} KiB`,
      smoke,
      fetch17.length,
      [
        [
          'kafkats (message + every record)',
          () => countRecords(decodeFetchResponse(new Reader(fetch17), 17)),
        ],
        ['kafkats (message, records as views)', () => decodeFetchResponse(new Reader(fetch17), 17)],
        [
          '@platformatic/kafka (message + every record)',
          () =>
            peers.platformatic.fetchV17.parseResponse(
              1,
              1,
              17,
              peers.platformatic.Reader.from(fetch17),
            ),
        ],
        [FLOOR, () => fetch17.copy(fetchTarget)],
      ],
    )),
  );
  rows.push(
    ...(await runGroup(
      `decode Fetch v11 ${(fetch11.length / 1024).toFixed(0)} KiB`,
      smoke,
      fetch11.length,
      [
        [
          'kafkats (message + every record)',
          () => countRecords(decodeFetchResponse(new Reader(fetch11), 11)),
        ],
        ['kafkajs (message + every record)', () => peers.kafkajs.fetchV11(fetch11)],
        [FLOOR, () => fetch11.copy(fetchTarget)],
      ],
    )),
  );

  console.log(
    'suite: codec (vs kafkats = task time / first task time of its group, above 1 = slower than kafkats; vs floor = task time / memcpy of the same bytes)',
  );
  console.table(rows);
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
            highWatermark: 8000n,
            lastStableOffset: 8000n,
            logStartOffset: 0n,
            records,
          }),
        ),
      }),
    ],
  });
}
