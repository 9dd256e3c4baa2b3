/**
 * One run of one Node contestant of the client suite, in a process of its own (started by
 * client-suite.ts): `node client-worker.js '<job JSON>'`. Prints `RESULT <json>` on stdout.
 * The suite's Bun rows start this same file with Bun (`bun client-worker.js '<job JSON>'`): the
 * same code and job, another runtime; the result names the runtime that ran it.
 *
 * A fresh process per run gives every contestant the same start (cold JIT, empty heap, no
 * other client's garbage), as the JVM of Kafka's own tools has, and makes process.cpuUsage()
 * this contestant's alone. CPU is taken over the timed window only.
 *
 * produce: sends `warmup + records` records to partition 0 of `topic` (record i carries
 *   pool[i % pool]), the clock running from the first send after the warm-up (as
 *   ProducerPerformance's --warmup-records steady-state line) to the moment every record's
 *   delivery is acknowledged.
 * read: reads `records` records from offset 0 of partition 0 and returns their count, value
 *   bytes and value checksum (CRC-32C sum); the clock runs from reader start (group
 *   consumers: once the group is joined, as ConsumerPerformance's fetch time) to the last record.
 */
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import {
  Admin,
  Consumer,
  MultiPartitionReader,
  PartitionReader,
  Producer,
  ShareConsumer,
} from '@kafkats/client';
import {
  ApiVersionsApi,
  type CompressionCodec,
  compressionSupport,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  encodeRecordBatchSync,
  encodeRequestFrameChunks,
  InitProducerIdApi,
  ProduceApi,
  restampRecordBatch,
} from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { readValuesFile, valueChecksum } from './client-values.js';

const require = createRequire(import.meta.url);

/**
 * The Node contestants. `kafkats-batch` produces with `sendBatch` in the peers' chunks.
 * `kafkats-js` produces with `compressionBackend: 'js'` (lz4js, what a
 * plain install has) where `kafkats` takes the default `auto` (lz4-napi when it is installed,
 * as here). `kafkats-crc` reads with CRC checks on (the reader's default).
 * `kafkats-consumer` / `kafkats-classic`: the group `Consumer` with `groupProtocol` 'consumer'
 * (KIP-848) / 'classic' (role `group` only). `kafkats-share`: the `ShareConsumer` (role `share`).
 * `socket-floor` (produce, uncompressed): no client, a bound; see {@link socketFloorProduce}.
 */
export type NodeClient =
  | 'kafkats'
  | 'kafkats-js'
  | 'kafkats-batch'
  | 'kafkats-multi'
  | 'kafkats-crc'
  | 'kafkats-consumer'
  | 'kafkats-classic'
  | 'kafkats-share'
  | 'kafkajs'
  | 'kafkats-kafkajs'
  | 'platformatic'
  | 'socket-floor';

export interface Job {
  /**
   * `group`: a group consumer joins a fresh group and reads like `read`, key and value touched.
   * `share`: a share consumer (KIP-932) joins a fresh share group and reads every record once.
   */
  role: 'produce' | 'read' | 'group' | 'share';
  client: NodeClient;
  bootstrap: string;
  topic: string;
  valuesFile: string;
  compression: 'none' | 'lz4';
  /** produce: records sent before the clock starts. */
  warmup: number;
  /** Records timed (produce) or read (read). */
  records: number;
  /** produce, for the clients without an accumulator: records per send() call. */
  chunk: number;
  /** Kafka's defaults: linger.ms 5, batch.size 16384, max.in.flight 5. */
  lingerMs: number;
  batchSize: number;
  maxInFlight: number;
  /** The runtime the suite starts this worker with: Node (absent) or Bun (its pinned release). */
  runtime?: 'bun';
  /**
   * produce, `kafkats` only: run as Java's ProducerRounds does (benchmarks/java): the warm-up
   * flushed, then this many timed rounds of `records` in the same process, each until flushed.
   * The result's figures are round 1's and `rounds` lists every round.
   */
  rounds?: number;
}

export interface WorkerResult {
  /** What ran the worker: `node 20.19.0`, `bun 1.4.5`. */
  runtime: string;
  elapsedMs: number;
  /** user + system, µs, over the timed window. */
  cpuUs: number;
  /**
   * Bytes allocated on the V8 heap over the timed window: the heap's growth between
   * collections, summed (v8.GCProfiler). Buffer contents outside the heap are not counted.
   */
  heapBytes: number;
  /** produce: the compression implementation the client ran (lz4 cases). */
  backend?: string;
  /** produce with `rounds`: each round's figures, in order. */
  rounds?: Timed[];
  /** group: ms from subscribe to the first assignment (the join, outside the timed window). */
  joinMs?: number;
  /** share: ms from the first records handed out to the last, and how many came first. */
  steadyMs?: number;
  firstCount?: number;
  /** read: what was read. */
  count?: number;
  bytes?: number;
  checksum?: number;
}

/** A contestant's figures; main adds the runtime. */
type Measured = Omit<WorkerResult, 'runtime'>;
type Timed = Pick<WorkerResult, 'elapsedMs' | 'cpuUs' | 'heapBytes'>;

interface Timer {
  start(): void;
  stop(): Timed;
}

const born = Date.now();
/** KAFKATS_BENCH_TRACE=1: phase times since process start, on stderr. */
function trace(what: string): void {
  if (process.env.KAFKATS_BENCH_TRACE === '1')
    process.stderr.write(`${what} +${Date.now() - born}ms\n`);
}

/**
 * Wall clock, process CPU and V8 heap allocation over the timed window. Allocation: what the
 * heap held before each collection minus what it held after the previous one (or at start),
 * plus the growth since the last collection; every Node contestant pays the profiler alike.
 * On Bun the same calls report JavaScriptCore's heap: Bun's node:v8 GCProfiler gives its
 * collections, and its heap sizes count Buffer and typed-array contents (which V8 keeps off its
 * heap); process.cpuUsage() is getrusage of the whole process, as on Node.
 */
function timer(): Timer {
  let t0 = 0n;
  let c0: NodeJS.CpuUsage | undefined;
  let heap0 = 0;
  let profiler: GCProfiler | undefined;
  return {
    start() {
      trace('clock start');
      profiler = new GCProfiler();
      heap0 = getHeapStatistics().used_heap_size;
      profiler.start();
      c0 = process.cpuUsage();
      t0 = process.hrtime.bigint();
    },
    stop() {
      const elapsedMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const c = process.cpuUsage(c0);
      const heapEnd = getHeapStatistics().used_heap_size;
      const gcs = profiler?.stop()?.statistics ?? [];
      let heapBytes = 0;
      let after = heap0;
      for (const gc of gcs) {
        heapBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - after);
        after = gc.afterGC.heapStatistics.usedHeapSize;
      }
      heapBytes += Math.max(0, heapEnd - after);
      trace('clock stop');
      return { elapsedMs, cpuUs: c.user + c.system, heapBytes };
    },
  };
}

// ------------------------------------------------------------------------------- kafkats

/**
 * The kafkats Producer as an application that awaits each send's acceptance: `send(record,
 * callback)` makes no promise per record (the promise awaited is shared while the buffer has
 * room) and the callback counts failures; the caller's own `await` costs about 200 B of heap
 * per record on Node 20. `kafkats-batch`: `sendBatch(records, callback)` per chunk, as the
 * peers send. `kafkats-js` compresses with the pure-JS backend.
 */
async function kafkatsProduce(job: Job, values: Buffer[]): Promise<Measured> {
  const cluster = await Cluster.connect(job.bootstrap);
  const compressionBackend = job.client === 'kafkats-js' ? 'js' : 'auto';
  const producer = new Producer(cluster, {
    acks: 'all',
    idempotent: true,
    lingerMs: job.lingerMs,
    batchSize: job.batchSize,
    maxInFlight: job.maxInFlight,
    compression: job.compression satisfies CompressionCodec,
    compressionBackend,
  });
  const t = timer();
  let failed: Error | undefined;
  const onDelivery = (e: Error | null) => {
    if (e !== null) failed ??= e;
  };
  const total = job.warmup + job.records;
  const pool = values.length;
  if (job.client === 'kafkats-batch') {
    // `chunk` records per call, as the peers get them; one callback per call.
    await chunkLoop(job, values, t, (records) => producer.sendBatch(records, onDelivery));
  } else if (job.rounds !== undefined) {
    // As ProducerRounds: warm-up, flush, then each round timed until its records are flushed.
    const rounds: Timed[] = [];
    let sent = 0;
    for (let round = 0; round <= job.rounds; round++) {
      const n = round === 0 ? job.warmup : job.records;
      if (round > 0) t.start();
      for (let i = 0; i < n; i++, sent++) {
        await producer.send(
          { topic: job.topic, partition: 0, value: values[sent % pool] as Buffer },
          onDelivery,
        );
      }
      await producer.flush();
      if (failed !== undefined) throw failed;
      if (round > 0) rounds.push(t.stop());
    }
    await producer.close();
    await cluster.close();
    return { ...(rounds[0] as Timed), rounds, ...lz4Backend(job, compressionBackend) };
  } else {
    for (let i = 0; i < total; i++) {
      if (i === job.warmup) t.start();
      await producer.send(
        { topic: job.topic, partition: 0, value: values[i % pool] as Buffer },
        onDelivery,
      );
    }
  }
  // Resolves once every record sent before it was acknowledged or failed.
  await producer.flush();
  const r = t.stop();
  await producer.close();
  await cluster.close();
  if (failed !== undefined) throw failed;
  return { ...r, ...lz4Backend(job, compressionBackend) };
}

/**
 * The loop of `kafkats-batch` and of the bound: `chunk` records per call, made as the peers'
 * loops make them (an object per record, partition 0, `values[i % pool]`), one `await` per
 * call; the clock starts at the first call after the warm-up.
 */
async function chunkLoop(
  job: Job,
  values: Buffer[],
  t: Timer,
  send: (records: { topic: string; partition: number; value: Buffer }[]) => unknown,
): Promise<void> {
  const total = job.warmup + job.records;
  const pool = values.length;
  for (let i = 0; i < total; ) {
    if (i === job.warmup) t.start();
    const end = Math.min(total, i + job.chunk, i < job.warmup ? job.warmup : total);
    const records = [];
    for (; i < end; i++)
      records.push({ topic: job.topic, partition: 0, value: values[i % pool] as Buffer });
    await send(records);
  }
}

/**
 * A bound, not a client: what the application's loop and Node's socket cost with nothing of a
 * producer between them. The same loop as `kafkats-batch` (an array of `chunk` record objects
 * per call, one `await` per call) hands each chunk to a writer that sends one prebuilt Produce
 * frame per chunk on a plain `net.Socket`: idempotent (one InitProducerId up front), acks=all,
 * `maxInFlight` frames in flight. A frame is built once per in-flight slot; a send only writes
 * the correlation id and restamps the batch's base sequence and CRC in place (the batch is
 * `values[0..chunk)` whatever the chunk holds), and answers are counted by their length
 * prefix, not decoded. The suite checks the topic's offsets and last sequence as for every
 * contestant, so a refused frame fails the run. Uncompressed only: with compression the
 * records per request would differ from the clients'.
 */
async function socketFloorProduce(job: Job, values: Buffer[]): Promise<Measured> {
  if (job.compression !== 'none') throw new Error('socket-floor runs uncompressed cases only');
  const cluster = await Cluster.connect(job.bootstrap);
  const leader = cluster.snapshot().partition(job.topic, 0)?.leader ?? -1;
  const broker = cluster.snapshot().broker(leader);
  if (broker === undefined) throw new Error(`socket-floor: no leader for ${job.topic}-0`);
  const theirs = (
    await cluster.sendToNode(
      leader,
      ApiVersionsApi,
      ApiVersionsApi.createRequest({
        clientSoftwareName: 'kafkats-bench',
        clientSoftwareVersion: '1.0',
      }),
    )
  ).apiKeys.find((k) => k.apiKey === ProduceApi.apiKey);
  if (theirs === undefined) throw new Error('socket-floor: the broker takes no Produce');
  const version = Math.min(theirs.maxVersion, ProduceApi.maxVersion);
  const ids = await cluster.sendAny(
    InitProducerIdApi,
    InitProducerIdApi.createRequest({ transactionalId: null, transactionTimeoutMs: -1 }),
  );
  const topicId = cluster.snapshot().topic(job.topic)?.topicId;
  await cluster.close();
  const { producerId, producerEpoch } = ids;
  /** One contiguous frame of `n` records and the view of its batch, restamped per send. */
  const frameOf = (n: number): { frame: Buffer; batch: Buffer } => {
    const now = Date.now();
    const records = [];
    for (let i = 0; i < n; i++)
      records.push({ value: values[i % values.length] as Buffer, timestamp: now });
    const batch = encodeRecordBatchSync({
      producerId,
      producerEpoch,
      baseSequence: 0,
      records,
    });
    const topic = createProduceRequestTopicProduceData({
      name: job.topic,
      partitionData: [createProduceRequestPartitionProduceData({ index: 0, records: batch })],
    });
    if (topicId !== undefined) topic.topicId = topicId;
    const request = ProduceApi.createRequest({
      transactionalId: null,
      acks: -1,
      timeoutMs: 30_000,
      topicData: [topic],
    });
    const pieces = encodeRequestFrameChunks(ProduceApi, version, 0, 'kafkats-bench', request);
    const frame = Buffer.concat(pieces);
    const at = frame.indexOf(batch);
    if (at < 0) throw new Error('socket-floor: the batch is not in its frame');
    return { frame, batch: frame.subarray(at, at + batch.length) };
  };
  const slots = Array.from({ length: job.maxInFlight + 1 }, () => frameOf(job.chunk));
  const socket: Socket = connect(broker.port, broker.host);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let correlationId = 1;
  let sequence = 0;
  let next = 0;
  let inFlight = 0;
  let held = 0;
  let resume: (() => void) | null = null;
  let drained: (() => void) | null = null;
  const write = (n: number): void => {
    const slot = n === job.chunk ? (slots[next++ % slots.length] as (typeof slots)[0]) : frameOf(n);
    slot.frame.writeInt32BE(correlationId++, 8);
    restampRecordBatch(slot.batch, producerId, producerEpoch, sequence);
    sequence += n;
    inFlight++;
    socket.write(slot.frame);
  };
  // Answers counted by their size prefix, read across chunk boundaries without copying.
  let sizeBytes = 0;
  let size = 0;
  let left = 0;
  socket.on('data', (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      if (sizeBytes < 4) {
        size = (size << 8) | (chunk[at++] as number);
        if (++sizeBytes === 4) left = size;
        continue;
      }
      const take = Math.min(left, chunk.length - at);
      at += take;
      left -= take;
      if (left > 0) continue;
      sizeBytes = 0;
      size = 0;
      inFlight--;
      if (held > 0) {
        write(held);
        held = 0;
        const r = resume as () => void;
        resume = null;
        r();
      } else if (inFlight === 0 && drained !== null) drained();
    }
  });
  let handed = 0;
  const send = (records: readonly unknown[]): Promise<void> | undefined => {
    handed += records.length;
    const n = records.length;
    if (inFlight < job.maxInFlight) {
      write(n);
      return undefined;
    }
    held = n;
    return new Promise<void>((resolve) => {
      resume = resolve;
    });
  };
  const t = timer();
  await chunkLoop(job, values, t, send);
  const total = job.warmup + job.records;
  if (inFlight > 0) {
    await new Promise<void>((resolve) => {
      drained = resolve;
    });
  }
  const r = t.stop();
  socket.destroy();
  if (handed !== total) throw new Error(`socket-floor: handed ${handed} of ${total} records`);
  return r;
}

/** The lz4 compressor kafkats ran with, in the lz4 cases. */
function lz4Backend(job: Job, backend: 'js' | 'auto'): { backend?: string } {
  if (job.compression !== 'lz4') return {};
  return { backend: compressionSupport({ backend }).lz4.compress ?? 'none' };
}

async function kafkatsRead(job: Job): Promise<Measured> {
  const cluster = await Cluster.connect(job.bootstrap);
  const options = {
    maxWaitMs: 500,
    partitionMaxBytes: 1_048_576,
    maxBytes: 52_428_800,
    // ConsumerPerformance sets check.crcs=false; kafkajs and platformatic do not check.
    checkCrcs: job.client === 'kafkats-crc',
  };
  const t = timer();
  t.start();
  const reader =
    job.client === 'kafkats-multi'
      ? new MultiPartitionReader(cluster, [{ topic: job.topic, partition: 0, startOffset: 0n }], {
          ...options,
        })
      : new PartitionReader(cluster, {
          topic: job.topic,
          partition: 0,
          startOffset: 0n,
          ...options,
        });
  let count = 0;
  let bytes = 0;
  let checksum = 0;
  outer: for await (const batch of reader) {
    for (const record of batch.records) {
      const v = record.value as Uint8Array;
      count++;
      bytes += v.length;
      checksum += valueChecksum(v);
      if (count >= job.records) break outer;
    }
  }
  const r = t.stop();
  await reader.close();
  await cluster.close();
  return { ...r, count, bytes, checksum };
}

/**
 * The group Consumer: joins a fresh group (`start()` resolves at the first assignment, with the
 * committed offsets looked up), then reads from earliest. Same fetch settings as the readers;
 * no auto-commit (as the peers here).
 */
async function kafkatsGroupRead(job: Job): Promise<Measured> {
  const cluster = await Cluster.connect(job.bootstrap);
  const consumer = new Consumer(cluster, {
    groupId: `bench-${job.client}-${job.topic}-${process.pid}`,
    groupProtocol: job.client === 'kafkats-classic' ? 'classic' : 'consumer',
    topics: [job.topic],
    autoOffsetReset: 'earliest',
    enableAutoCommit: false,
    fetchMaxWaitMs: 500,
    maxPartitionFetchBytes: 1_048_576,
    fetchMaxBytes: 52_428_800,
    checkCrcs: false,
  });
  const joinStarted = performance.now();
  await consumer.start();
  const joinMs = performance.now() - joinStarted;
  const t = timer();
  t.start();
  let count = 0;
  let bytes = 0;
  let checksum = 0;
  let keyBytes = 0;
  outer: for await (const batch of consumer) {
    for (const record of batch.records) {
      if (record.key !== null) keyBytes += record.key.length;
      const v = record.value as Uint8Array;
      count++;
      bytes += v.length;
      checksum += valueChecksum(v);
      if (count >= job.records) break outer;
    }
  }
  const r = t.stop();
  await consumer.close();
  await cluster.close();
  if (keyBytes !== 0) throw new Error(`unexpected keys: ${keyBytes} bytes`);
  return { ...r, joinMs, count, bytes, checksum };
}

/**
 * The share consumer (KIP-932): a fresh share group reading from earliest (its
 * `share.auto.offset.reset` set first), implicit acknowledgement (each poll accepts the last),
 * as ShareConsumerPerformance reads. CPU is taken from `start()` to the last record; `joinMs`
 * is the time to the first records handed out (`firstCount` of them), `steadyMs` the time from
 * there to the last record.
 */
async function kafkatsShareRead(job: Job): Promise<Measured> {
  const cluster = await Cluster.connect(job.bootstrap);
  const groupId = `bench-share-${job.topic}-${process.pid}`;
  const set = await new Admin(cluster).incrementalAlterConfigs([
    {
      type: 'GROUP',
      name: groupId,
      ops: [{ name: 'share.auto.offset.reset', op: 'SET', value: 'earliest' }],
    },
  ]);
  const refused = set.resources[0]?.error;
  if (refused !== undefined) throw refused;
  const consumer = new ShareConsumer(cluster, {
    groupId,
    topics: [job.topic],
    fetchMaxWaitMs: 500,
    fetchMaxBytes: 52_428_800,
  });
  const t = timer();
  t.start();
  const started = performance.now();
  await consumer.start();
  let joinMs = -1;
  let firstCount = 0;
  let count = 0;
  let bytes = 0;
  let checksum = 0;
  let keyBytes = 0;
  outer: for await (const records of consumer) {
    if (joinMs < 0) {
      joinMs = performance.now() - started;
      firstCount = records.length;
    }
    for (const record of records) {
      if (record.key !== null) keyBytes += record.key.length;
      const v = record.value as Uint8Array;
      count++;
      bytes += v.length;
      checksum += valueChecksum(v);
      if (count >= job.records) break outer;
    }
  }
  const r = t.stop();
  const steadyMs = performance.now() - started - joinMs;
  await consumer.close();
  await cluster.close();
  if (keyBytes !== 0) throw new Error(`unexpected keys: ${keyBytes} bytes`);
  return { ...r, joinMs, steadyMs, firstCount, count, bytes, checksum };
}

// ------------------------------------------------------------------------------- kafkajs

interface KafkajsMessage {
  key?: Buffer | null;
  value: Buffer | null;
  partition?: number;
}
interface KafkajsModule {
  Kafka: new (
    o: unknown,
  ) => {
    producer(o: unknown): {
      connect(): Promise<void>;
      disconnect(): Promise<void>;
      send(r: {
        topic: string;
        acks: number;
        compression: number;
        messages: KafkajsMessage[];
      }): Promise<unknown>;
    };
    consumer(o: unknown): {
      connect(): Promise<void>;
      disconnect(): Promise<void>;
      subscribe(o: { topic: string; fromBeginning: boolean }): Promise<void>;
      run(o: {
        autoCommit: boolean;
        eachBatch: (p: { batch: { messages: KafkajsMessage[] } }) => Promise<void>;
      }): Promise<void>;
      on(event: string, listener: () => void): unknown;
      events: { GROUP_JOIN: string };
    };
  };
  CompressionTypes: { None: number; LZ4: number };
  CompressionCodecs: Record<number, () => unknown>;
  logLevel: { NOTHING: number };
}

function loadKafkajs(): KafkajsModule {
  const kafkajs = require('kafkajs') as KafkajsModule;
  // kafkajs ships no LZ4 codec; this is what the kafkajs-lz4 plugin does, with lz4-napi's
  // LZ4 frame functions (native, like kafkats' block compressor).
  const lz4 = require('lz4-napi') as {
    compressFrame(b: Buffer): Promise<Buffer>;
    decompressFrame(b: Buffer): Promise<Buffer>;
  };
  kafkajs.CompressionCodecs[kafkajs.CompressionTypes.LZ4] = () => ({
    compress: (encoder: { buffer: Buffer }) => lz4.compressFrame(encoder.buffer),
    decompress: (buffer: Buffer) => lz4.decompressFrame(buffer),
  });
  return kafkajs;
}

/**
 * kafkajs, or `@kafkats/kafkajs` (kafkajs's API on kafkats) for `kafkats-kafkajs`: the same
 * calls, options and handler code run on both. The facade compresses with kafkats's own codecs
 * and needs no codec registered.
 */
async function kafkajsClient(job: Job) {
  const kafkajs =
    job.client === 'kafkats-kafkajs'
      ? ((await import('@kafkats/kafkajs')) as unknown as KafkajsModule)
      : loadKafkajs();
  const kafka = new kafkajs.Kafka({
    clientId: 'bench-kafkajs',
    brokers: job.bootstrap.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  });
  return { kafkajs, kafka };
}

/**
 * Clients without an accumulator: `chunk` records per send() call (one batch each, since
 * every record goes to partition 0), at most `maxInFlight` calls outstanding.
 */
async function chunkedProduce(
  job: Job,
  values: Buffer[],
  send: (chunk: Buffer[]) => Promise<unknown>,
): Promise<Measured> {
  const t = timer();
  const total = job.warmup + job.records;
  const pool = values.length;
  const inFlight = new Set<Promise<unknown>>();
  let failed: unknown;
  for (let i = 0; i < total; ) {
    if (i === job.warmup) t.start();
    const end = Math.min(total, i + job.chunk, i < job.warmup ? job.warmup : total);
    const chunk: Buffer[] = [];
    for (; i < end; i++) chunk.push(values[i % pool] as Buffer);
    const p = send(chunk).then(
      () => {
        inFlight.delete(p);
      },
      (e: unknown) => {
        failed ??= e;
        inFlight.delete(p);
      },
    );
    inFlight.add(p);
    if (inFlight.size >= job.maxInFlight) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const r = t.stop();
  if (failed !== undefined) throw failed;
  return r;
}

async function kafkajsProduce(job: Job, values: Buffer[]): Promise<Measured> {
  const { kafkajs, kafka } = await kafkajsClient(job);
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: job.maxInFlight,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  const compression =
    job.compression === 'lz4' ? kafkajs.CompressionTypes.LZ4 : kafkajs.CompressionTypes.None;
  const r = await chunkedProduce(job, values, (chunk) =>
    producer.send({
      topic: job.topic,
      acks: -1,
      compression,
      messages: chunk.map((value) => ({ value, partition: 0 })),
    }),
  );
  await producer.disconnect();
  if (job.compression !== 'lz4') return r;
  const backend =
    job.client === 'kafkats-kafkajs'
      ? (compressionSupport({ backend: 'auto' }).lz4.compress ?? 'none')
      : 'lz4-napi frame (native)';
  return { ...r, backend };
}

async function kafkajsRead(job: Job): Promise<Measured> {
  const { kafka } = await kafkajsClient(job);
  const consumer = kafka.consumer({
    groupId: `bench-kafkajs-${job.topic}-${process.pid}`,
    // The facade checks CRCs by default; kafkajs never does, nor does the plain kafkats group
    // reader here: every contestant skips the check (kafkajs ignores an option it lacks).
    checkCrcs: false,
    maxWaitTimeInMs: 500,
    minBytes: 1,
    maxBytes: 52_428_800,
    maxBytesPerPartition: 1_048_576,
  });
  await consumer.connect();
  const t = timer();
  let joinStarted = 0;
  let joinMs = 0;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joinMs = performance.now() - joinStarted;
    t.start();
  });
  let count = 0;
  let bytes = 0;
  let checksum = 0;
  let keyBytes = 0;
  let r: Timed | undefined;
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  joinStarted = performance.now();
  await consumer.subscribe({ topic: job.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      if (r !== undefined) return;
      for (const m of batch.messages) {
        if (m.key != null) keyBytes += m.key.length;
        const v = m.value as Buffer;
        count++;
        bytes += v.length;
        checksum += valueChecksum(v);
        if (count >= job.records) {
          r = t.stop();
          finish();
          return;
        }
      }
    },
  });
  await done;
  await consumer.disconnect();
  if (keyBytes !== 0) throw new Error(`unexpected keys: ${keyBytes} bytes`);
  return {
    ...(r as Timed),
    joinMs,
    count,
    bytes,
    checksum,
  };
}

// ------------------------------------------------------------------------ @platformatic/kafka

/** @platformatic/kafka 2.x calls Node 22's Promise.withResolvers; Node 20 lacks it. */
function polyfillWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = () => {
    let resolve: unknown;
    let reject: unknown;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

interface PlatformaticModule {
  Producer: new (
    o: unknown,
  ) => {
    send(o: { messages: { topic: string; partition: number; value: Buffer }[] }): Promise<unknown>;
    close(): Promise<void>;
  };
  Consumer: new (
    o: unknown,
  ) => {
    consume(
      o: unknown,
    ): Promise<AsyncIterable<{ key: Buffer | null; value: Buffer }> & { close(): Promise<void> }>;
    close(force?: boolean): Promise<void>;
  };
}

async function loadPlatformatic(): Promise<PlatformaticModule> {
  polyfillWithResolvers();
  return (await import('@platformatic/kafka')) as unknown as PlatformaticModule;
}

async function platformaticProduce(job: Job, values: Buffer[]): Promise<Measured> {
  const pf = await loadPlatformatic();
  const producer = new pf.Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: job.bootstrap.split(','),
    idempotent: true,
    acks: -1,
    autocreateTopics: false,
    ...(job.compression === 'lz4' ? { compression: 'lz4' } : {}),
  });
  const r = await chunkedProduce(job, values, (chunk) =>
    producer.send({
      messages: chunk.map((value) => ({ topic: job.topic, partition: 0, value })),
    }),
  );
  await producer.close();
  // Its lz4 is @platformatic/wasm-utils' lz4Compress (WebAssembly).
  return job.compression === 'lz4' ? { ...r, backend: '@platformatic/wasm-utils (WASM)' } : r;
}

async function platformaticRead(job: Job): Promise<Measured> {
  const pf = await loadPlatformatic();
  const consumer = new pf.Consumer({
    clientId: 'bench-platformatic',
    groupId: `bench-platformatic-${job.topic}-${process.pid}`,
    bootstrapBrokers: job.bootstrap.split(','),
    autocommit: false,
    minBytes: 1,
    maxBytes: 52_428_800,
    maxWaitTime: 500,
  });
  // consume() joins the group before it returns the stream.
  const joinStarted = performance.now();
  const stream = await consumer.consume({
    topics: [job.topic],
    mode: 'earliest',
    autocommit: false,
    maxBytesPerPartition: 1_048_576,
  });
  const joinMs = performance.now() - joinStarted;
  const t = timer();
  t.start();
  let count = 0;
  let bytes = 0;
  let checksum = 0;
  let keyBytes = 0;
  for await (const m of stream) {
    if (m.key != null) keyBytes += m.key.length;
    const v = m.value;
    count++;
    bytes += v.length;
    checksum += valueChecksum(v);
    if (count >= job.records) break;
  }
  const r = t.stop();
  await stream.close().catch(() => {});
  await consumer.close(true);
  if (keyBytes !== 0) throw new Error(`unexpected keys: ${keyBytes} bytes`);
  return { ...r, joinMs, count, bytes, checksum };
}

// ------------------------------------------------------------------------------- rebalance

/** How the rebalance task's two kafkats Consumers form their group. */
export type RebalanceVariant = 'classic-eager' | 'classic-cooperative' | 'consumer';

export interface RebalanceJob {
  role: 'rebalance';
  variant: RebalanceVariant;
  bootstrap: string;
  topic: string;
  partitions: number;
  /** Records produced per partition per second while the task runs. */
  ratePerPartition: number;
  /** ms A consumes alone (all partitions, records flowing) before B subscribes. */
  steadyMs: number;
}

export interface RebalanceResult {
  /** B's subscribe to: the two assignments disjoint and covering the topic, and both got records since. */
  rebalanceMs: number;
  /** B's subscribe to B's first non-empty assignment. */
  assignedMs: number;
  /** A's longest interval without a delivered record between B's subscribe and the end. */
  gapMs: number;
  /** A's longest interval without a delivered record in the steadyMs before B's subscribe. */
  baselineGapMs: number;
  /** Partitions A and B ended with. */
  ownedA: number;
  ownedB: number;
}

interface Member {
  consumer: Consumer;
  cluster: Cluster;
  /** performance.now() of every delivered batch with records. */
  deliveries: number[];
  loop: Promise<void>;
}

async function member(job: RebalanceJob, groupId: string): Promise<Member> {
  const cluster = await Cluster.connect(job.bootstrap);
  const consumer = new Consumer(cluster, {
    groupId,
    groupProtocol: job.variant === 'consumer' ? 'consumer' : 'classic',
    // Eager: 'range' alone (every member revokes everything); cooperative: KIP-429 needs
    // every listed assignor cooperative.
    assignors: job.variant === 'classic-eager' ? ['range'] : ['cooperative-sticky'],
    topics: [job.topic],
    autoOffsetReset: 'latest',
  });
  const deliveries: number[] = [];
  const loop = (async () => {
    for await (const batch of consumer) {
      if (batch.records.length > 0) deliveries.push(performance.now());
    }
  })();
  return { consumer, cluster, deliveries, loop };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Consumer A reads a topic alone while a producer writes to every partition; B subscribes to
 * the same group; measures how long until the group is settled and records flow to both again,
 * and A's longest stretch without records meanwhile (the stop-the-world gap).
 */
async function rebalanceTask(job: RebalanceJob): Promise<RebalanceResult> {
  const groupId = `bench-rebalance-${job.variant}-${job.topic}-${process.pid}`;
  const cluster = await Cluster.connect(job.bootstrap);
  const producer = new Producer(cluster, { acks: 1, idempotent: false, lingerMs: 5 });
  let producing = true;
  const value = Buffer.alloc(100, 120);
  const tick = 20;
  const perTick = Math.max(1, Math.round((job.ratePerPartition * tick) / 1000));
  const produced = (async () => {
    while (producing) {
      for (let p = 0; p < job.partitions; p++)
        for (let i = 0; i < perTick; i++)
          (await producer.enqueue({ topic: job.topic, partition: p, value })).result.catch(
            () => {},
          );
      await sleep(tick);
    }
  })();
  const deadline = Date.now() + 120_000;
  const waitFor = async (what: string, ok: () => boolean) => {
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`rebalance ${job.variant}: timed out: ${what}`);
      await sleep(2);
    }
  };
  trace('producing');
  const a = await member(job, groupId);
  await waitFor('A owns every partition', () => a.consumer.assignment().length === job.partitions);
  trace('A owns every partition');
  await waitFor('A gets records', () => a.deliveries.length > 0);
  trace('A gets records');
  await sleep(job.steadyMs);
  const subscribed = performance.now();
  const b = await member(job, groupId);
  let assignedAt = 0;
  let stableAt = 0;
  await waitFor('the group settles and records flow to both', () => {
    const now = performance.now();
    const ownedA = a.consumer.assignment();
    const ownedB = b.consumer.assignment();
    if (assignedAt === 0 && ownedB.length > 0) assignedAt = now;
    const keys = new Set([...ownedA, ...ownedB].map((p) => p.partition));
    const settled =
      ownedA.length > 0 &&
      ownedB.length > 0 &&
      keys.size === job.partitions &&
      ownedA.length + ownedB.length === job.partitions;
    if (!settled) {
      stableAt = 0;
      return false;
    }
    if (stableAt === 0) stableAt = now;
    const since = (d: number[]) => (d.at(-1) ?? 0) > stableAt;
    return since(a.deliveries) && since(b.deliveries);
  });
  trace('settled');
  const flowing = Math.max(
    a.deliveries.find((t) => t > stableAt) as number,
    b.deliveries.find((t) => t > stableAt) as number,
  );
  const maxGap = (from: number, to: number) => {
    let gap = 0;
    let previous: number | undefined;
    for (const t of a.deliveries) {
      if (previous !== undefined && t > from && previous < to) gap = Math.max(gap, t - previous);
      previous = t;
    }
    return gap;
  };
  const result: RebalanceResult = {
    rebalanceMs: flowing - subscribed,
    assignedMs: assignedAt - subscribed,
    gapMs: maxGap(subscribed, flowing),
    baselineGapMs: maxGap(subscribed - job.steadyMs, subscribed),
    ownedA: a.consumer.assignment().length,
    ownedB: b.consumer.assignment().length,
  };
  producing = false;
  await produced;
  await Promise.all([b.consumer.close(), a.consumer.close()]);
  await Promise.all([a.loop, b.loop]);
  trace('consumers closed');
  await producer.close();
  await Promise.all([a.cluster.close(), b.cluster.close(), cluster.close()]);
  return result;
}

// ------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const parsed = JSON.parse(process.argv[2] ?? '') as Job | RebalanceJob;
  trace('started');
  if (parsed.role === 'rebalance') {
    const r = await rebalanceTask(parsed);
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
    process.exit(0);
  }
  const job = parsed;
  const values = readValuesFile(job.valuesFile);
  let result: Measured;
  if (job.role === 'produce') {
    if (job.client === 'kafkats' || job.client === 'kafkats-js' || job.client === 'kafkats-batch')
      result = await kafkatsProduce(job, values);
    else if (job.client === 'kafkajs' || job.client === 'kafkats-kafkajs')
      result = await kafkajsProduce(job, values);
    else if (job.client === 'platformatic') result = await platformaticProduce(job, values);
    else if (job.client === 'socket-floor') result = await socketFloorProduce(job, values);
    else throw new Error(`no producer for ${job.client}`);
  } else if (job.client === 'kafkajs' || job.client === 'kafkats-kafkajs')
    result = await kafkajsRead(job);
  else if (job.client === 'kafkats-consumer' || job.client === 'kafkats-classic')
    result = await kafkatsGroupRead(job);
  else if (job.client === 'kafkats-share') result = await kafkatsShareRead(job);
  else if (job.client === 'platformatic') result = await platformaticRead(job);
  else result = await kafkatsRead(job);
  trace('closed');
  const bun = (process.versions as { bun?: string }).bun;
  const runtime = bun === undefined ? `node ${process.versions.node}` : `bun ${bun}`;
  process.stdout.write(`RESULT ${JSON.stringify({ runtime, ...result })}\n`);
  // Peers may leave timers (heartbeats, metadata refresh) behind after close.
  process.exit(0);
}

await main();
