/**
 * Remote log metadata suite (@kafkats/remote-log-metadata).
 *  1. The metadata event log on a real 3-node Kafka (testkit), the topic provisioned by
 *     `KafkaMetadataEventLog.start` (replication 3, min ISR 2):
 *     - writes through `KafkaMetadataEventLog.write` (idempotent acks=all producer, default
 *       linger/batch), a window of events in flight, issued in the order a workload generated
 *       them;
 *     - writes through the manager's add/update/delete calls, as a broker's tiering tasks make
 *       them: each user partition's events one after the other, each call resolving once the
 *       manager has read its record back, several user partitions at once;
 *     - reads from offset 0 to the high-water marks: the log's `read()` (every record
 *       deserialised), and a new manager materialising its state (every partition ready).
 *     Cross-checked: the high-water marks (ours and Kafka's Java admin) sum to the events
 *     written; every read yields that many events with the checksum of the bytes written.
 *  2. Materialising the manager's state for 1,000,000 events from offset 0 vs from a msgpack
 *     snapshot taken at the end (which loads the snapshot and reads 0 events), over an
 *     `InMemoryMetadataEventLog`: no broker, so it measures the state machine, the serde and
 *     the snapshot codec. Both paths must give the same answers for a sample of lookups, and
 *     the answers must match the workload's own model, before any figure is printed.
 * `--smoke` shrinks every count and runs part 1 on an InMemoryMetadataEventLog (no broker).
 */
import { createHash } from 'node:crypto';
import {
  deserializeMetadataEvent,
  InMemoryMetadataEventLog,
  KafkaMetadataEventLog,
  METADATA_TOPIC,
  type MetadataEventLog,
  metadataPartition,
  partitionName,
  RemoteLogMetadataError,
  type RemoteLogMetadataEvent,
  RemoteLogMetadataManager,
  type RemoteLogSegmentId,
  type RemoteLogSegmentState,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  remotePartitionDeleteMetadata,
  serializeMetadataEvent,
  type TopicIdPartition,
  topicIdPartitionOf,
} from '@kafkats/remote-log-metadata';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';

// ---------------------------------------------------------------- figures

interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]! };
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const int = (x: number | bigint) => x.toLocaleString('en-US');
const rate = (events: number, millis: number) =>
  millis > 0 ? int(Math.round(events / (millis / 1000))) : 'n/a';

/** Median and p99 of per-call latencies, ms. */
function latencyText(latencies: readonly number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN;
  return `median ${ms(spread(sorted).median)} ms, p99 ${ms(p99)} ms`;
}

function fail(what: string): never {
  throw new Error(`rlmm bench cross-check failed: ${what}`);
}

/** Order-independent checksum of a multiset of values: the sum of their sha256 prefixes mod 2^64. */
function checksum(values: Iterable<Buffer>): bigint {
  let sum = 0n;
  for (const v of values)
    sum = BigInt.asUintN(64, sum + createHash('sha256').update(v).digest().readBigUInt64BE(0));
  return sum;
}

// ---------------------------------------------------------------- workload

/** xorshift32: the same stream of 32-bit values for the same seed. */
class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = (Math.imul(seed, 0x9e3779b1) ^ 0x5bd1e995) >>> 0 || 1;
  }
  next(): number {
    let x = this.#s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#s = x >>> 0;
    return this.#s;
  }
  below(n: number): number {
    return this.next() % n;
  }
  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }
  uuid(): string {
    const b = Buffer.alloc(16);
    for (let i = 0; i < 16; i += 4) b.writeUInt32BE(this.next(), i);
    return b.toString('base64url');
  }
}

/** One user partition as the workload drives it; also the model its answers are checked against. */
interface PartitionModel {
  readonly tp: TopicIdPartition;
  /** Finished segments kept before the oldest is deleted (retention). */
  readonly retain: number;
  /** Near the end of the stream: deleted (MARKED, STARTED, FINISHED), only MARKED, or neither. */
  readonly fate: 'live' | 'deleted' | 'marked';
  nextOffset: bigint;
  epoch: number;
  pending: RemoteLogSegmentId | undefined;
  deleting: RemoteLogSegmentId | undefined;
  readonly finished: RemoteLogSegmentId[];
  head: number;
  deleteSteps: number;
  done: boolean;
}

interface Mix {
  segments: number;
  copyFinished: number;
  deleteStarted: number;
  deleteFinished: number;
  partitionDeletes: number;
}

const BASE_TS = 1_700_000_000_000n;
const DELETE_STEPS = ['DELETE_PARTITION_MARKED', 'DELETE_PARTITION_STARTED'] as const;

/**
 * A deterministic stream of tiering events over user partitions (topics of 20 partitions):
 * each pick of a partition moves it one step: a new segment (COPY_SEGMENT_STARTED, 2% of them
 * spanning a leader epoch change), its COPY_SEGMENT_FINISHED, and past a per-partition
 * retention of 50-199 segments, half the time, DELETE_SEGMENT_STARTED then FINISHED of the
 * oldest. In the last 10% of the stream 1% of the partitions are deleted
 * (DELETE_PARTITION_MARKED, STARTED, FINISHED) and 1% only marked.
 */
class Workload {
  readonly partitions: PartitionModel[] = [];
  readonly mix: Mix = {
    segments: 0,
    copyFinished: 0,
    deleteStarted: 0,
    deleteFinished: 0,
    partitionDeletes: 0,
  };
  readonly #rng: Rng;
  readonly #deletionFrom: number;
  #emitted = 0;

  constructor(seed: number, userPartitions: number, total: number) {
    this.#rng = new Rng(seed);
    this.#deletionFrom = Math.floor(total * 0.9);
    const period = Math.max(20, Math.min(200, userPartitions));
    let topicId = '';
    for (let i = 0; i < userPartitions; i++) {
      if (i % 20 === 0) topicId = this.#rng.uuid();
      this.partitions.push({
        tp: { topicId, topic: `tiered-${seed}-${Math.floor(i / 20)}`, partition: i % 20 },
        retain: 50 + this.#rng.below(150),
        fate: i % period === 7 ? 'deleted' : i % period === 17 ? 'marked' : 'live',
        nextOffset: 0n,
        epoch: 0,
        pending: undefined,
        deleting: undefined,
        finished: [],
        head: 0,
        deleteSteps: 0,
        done: false,
      });
    }
  }

  next(): RemoteLogMetadataEvent {
    const rng = this.#rng;
    let m: PartitionModel;
    do m = this.partitions[rng.below(this.partitions.length)]!;
    while (m.done);
    const now = BASE_TS + BigInt(this.#emitted++) * 7n;
    const brokerId = 1 + rng.below(3);
    const update = (id: RemoteLogSegmentId, state: RemoteLogSegmentState) =>
      remoteLogSegmentMetadataUpdate({
        remoteLogSegmentId: id,
        eventTimestampMs: now,
        state,
        brokerId,
      });
    if (m.fate !== 'live' && this.#emitted > this.#deletionFrom) {
      const state =
        m.fate === 'marked' || m.deleteSteps < 2
          ? DELETE_STEPS[m.deleteSteps]!
          : 'DELETE_PARTITION_FINISHED';
      m.deleteSteps++;
      m.done = m.fate === 'marked' || state === 'DELETE_PARTITION_FINISHED';
      this.mix.partitionDeletes++;
      return remotePartitionDeleteMetadata({
        topicIdPartition: m.tp,
        state,
        eventTimestampMs: now,
        brokerId,
      });
    }
    if (m.deleting !== undefined) {
      const id = m.deleting;
      m.deleting = undefined;
      this.mix.deleteFinished++;
      return update(id, 'DELETE_SEGMENT_FINISHED');
    }
    if (m.pending !== undefined) {
      const id = m.pending;
      m.pending = undefined;
      m.finished.push(id);
      this.mix.copyFinished++;
      return update(id, 'COPY_SEGMENT_FINISHED');
    }
    if (m.finished.length - m.head > m.retain && rng.chance(0.5)) {
      const id = m.finished[m.head++]!;
      m.deleting = id;
      this.mix.deleteStarted++;
      return update(id, 'DELETE_SEGMENT_STARTED');
    }
    const size = 1000 + rng.below(9000);
    const start = m.nextOffset;
    const epochs = [{ epoch: m.epoch, startOffset: start }];
    if (rng.chance(0.02)) {
      m.epoch++;
      epochs.push({ epoch: m.epoch, startOffset: start + BigInt(1 + rng.below(size - 1)) });
    }
    m.nextOffset = start + BigInt(size);
    const id = { topicIdPartition: m.tp, id: rng.uuid() };
    m.pending = id;
    this.mix.segments++;
    return remoteLogSegmentMetadata({
      remoteLogSegmentId: id,
      startOffset: start,
      endOffset: m.nextOffset - 1n,
      brokerId,
      maxTimestampMs: now - 1000n,
      eventTimestampMs: now,
      segmentLeaderEpochs: epochs,
      segmentSizeInBytes: size * 1024,
      txnIndexEmpty: !rng.chance(0.05),
    });
  }

  take(n: number): RemoteLogMetadataEvent[] {
    return Array.from({ length: n }, () => this.next());
  }
}

/** Segments a listing must show for the partition, or undefined when its deletion finished. */
function expectedListed(m: PartitionModel): number | undefined {
  if (m.fate === 'deleted' && m.done) return undefined;
  return (
    m.finished.length -
    m.head +
    (m.pending === undefined ? 0 : 1) +
    (m.deleting === undefined ? 0 : 1)
  );
}

/**
 * Answers of a sample of lookups (listings, per-epoch listings, highest offsets, sizes,
 * lookups at segment bounds and at spread offsets, deletion state), as one string; throws
 * when a listing disagrees with the workload's model.
 */
function sampleAnswers(
  m: RemoteLogMetadataManager,
  sample: readonly PartitionModel[],
): { text: string; lookups: number; hits: number } {
  let lookups = 0;
  let hits = 0;
  const rows: unknown[] = [];
  const find = (tp: TopicIdPartition, epoch: number, offset: bigint) => {
    lookups++;
    const s = m.remoteLogSegmentMetadata(tp, epoch, offset);
    if (s !== undefined) hits++;
    return s === undefined ? null : [s.remoteLogSegmentId.id, s.state, s.brokerId];
  };
  for (const model of sample) {
    const tp = model.tp;
    const row: Record<string, unknown> = { tp: partitionName(tp) };
    row.deletion = m.remotePartitionDeleteMetadata(tp)?.state ?? null;
    try {
      const all = m.listRemoteLogSegments(tp);
      if (all.length !== expectedListed(model))
        fail(`${partitionName(tp)} lists ${all.length}, expected ${expectedListed(model)}`);
      row.all = all.map((s) => [s.remoteLogSegmentId.id, s.state, s.eventTimestampMs]);
      row.edges = all
        .filter((_, i) => i < 3 || i >= all.length - 3)
        .map((s) => [
          find(tp, s.segmentLeaderEpochs[0]!.epoch, s.startOffset),
          find(tp, s.segmentLeaderEpochs[s.segmentLeaderEpochs.length - 1]!.epoch, s.endOffset),
        ]);
      for (let e = 0; e <= model.epoch + 1; e++) {
        const spreadOffsets = [0n, 1n, 2n, 3n].map((q) => (model.nextOffset * q) / 4n);
        row[`epoch ${e}`] = [
          m.listRemoteLogSegments(tp, e).map((s) => s.remoteLogSegmentId.id),
          m.highestOffsetForEpoch(tp, e),
          m.remoteLogSize(tp, e),
          spreadOffsets.map((o) => find(tp, e, o)),
          m.nextSegmentWithTxnIndex(tp, e, 0n)?.remoteLogSegmentId.id ?? null,
        ];
      }
    } catch (error) {
      if (!(error instanceof RemoteLogMetadataError)) throw error;
      if (expectedListed(model) !== undefined) throw error;
      row.error = error.code;
    }
    rows.push(row);
  }
  const text = JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
  return { text, lookups, hits };
}

// ---------------------------------------------------------------- logs

/** The log with a count of the records it hands to its reader. */
function counting(log: MetadataEventLog): { log: MetadataEventLog; records: () => number } {
  let n = 0;
  const wrapped: MetadataEventLog = {
    topicId: log.topicId,
    numPartitions: log.numPartitions,
    write: (p, v) => log.write(p, v),
    assign: (p, o) => log.assign(p, o),
    unassign: (p) => log.unassign(p),
    assigned: () => log.assigned(),
    read: async function* (signal) {
      for await (const b of log.read(signal)) {
        n += b.records.length;
        yield b;
      }
    },
    highWaterMarks: (ps) => log.highWaterMarks(ps),
    visitRange: (p, f, t, v, o) => log.visitRange(p, f, t, v, o),
    close: () => log.close(),
  };
  return { log: wrapped, records: () => n };
}

async function unassignAll(log: MetadataEventLog): Promise<void> {
  for (const p of log.assigned()) await log.unassign(p);
}

/** Builds a manager over `log` and waits until every given partition is ready. */
async function materialise(
  log: MetadataEventLog,
  tps: readonly TopicIdPartition[],
  snapshot?: Uint8Array,
): Promise<{ manager: RemoteLogMetadataManager; ms: number; read: number }> {
  const counter = counting(log);
  let dropped = 0;
  let bad = 0;
  const t0 = performance.now();
  const manager = new RemoteLogMetadataManager(counter.log, {
    ...(snapshot === undefined ? {} : { snapshot }),
    onBadRecord: () => bad++,
    onDroppedEvent: () => dropped++,
  });
  await manager.onPartitionLeadershipChanges(tps);
  await manager.waitUntilReady(tps, { timeoutMs: 600_000 });
  const elapsed = performance.now() - t0;
  if (dropped + bad > 0) fail(`${dropped} events dropped and ${bad} bad records while reading`);
  return { manager, ms: elapsed, read: counter.records() };
}

const NOISE =
  'figures are noisy: 2 cores shared with other engineers running Kafka; read the median with its min-max';

// ---------------------------------------------------------------- 2. materialise

async function materialiseSuite(smoke: boolean): Promise<void> {
  const total = smoke ? 20_000 : 1_000_000;
  const userPartitions = smoke ? 100 : 1_000;
  const runs = smoke ? 2 : 5;
  const log = new InMemoryMetadataEventLog('bSdH8cTxRHKuI6Ay5hvFLg', 50);
  const work = new Workload(1, userPartitions, total);
  let logBytes = 0;
  const values: Buffer[] = [];
  for (let i = 0; i < total; i++) {
    const event = work.next();
    const value = serializeMetadataEvent(event);
    logBytes += value.length;
    values.push(value);
    log.append(metadataPartition(topicIdPartitionOf(event), log.numPartitions), value);
  }
  const tps = work.partitions.map((p) => p.tp);
  const sample = work.partitions.filter((p, i) => i % 5 === 0 || p.fate !== 'live');

  // Verification (also the warm-up): both paths, same answers, the model's listings.
  await unassignAll(log);
  const zero = await materialise(log, tps);
  if (zero.read !== total) fail(`from offset 0 read ${zero.read} of ${total} events`);
  const snapshot = zero.manager.snapshot();
  const expected = sampleAnswers(zero.manager, sample);
  await zero.manager.close();
  await unassignAll(log);
  const resumed = await materialise(log, tps, snapshot);
  if (resumed.read !== 0) fail(`from the snapshot read ${resumed.read} events, expected 0`);
  const got = sampleAnswers(resumed.manager, sample);
  if (got.text !== expected.text) fail('the snapshot path answers differently from offset 0');
  await resumed.manager.close();

  const fromZero: number[] = [];
  const fromSnapshot: number[] = [];
  const encode: number[] = [];
  const serdeOnly: number[] = [];
  for (let r = 0; r < runs; r++) {
    await unassignAll(log);
    const a = await materialise(log, tps);
    if (a.read !== total) fail(`run ${r}: from offset 0 read ${a.read} of ${total} events`);
    fromZero.push(a.ms);
    const t0 = performance.now();
    const again = a.manager.snapshot();
    encode.push(performance.now() - t0);
    if (again.length !== snapshot.length) fail(`run ${r}: snapshot size changed`);
    await a.manager.close();
    await unassignAll(log);
    const b = await materialise(log, tps, snapshot);
    if (b.read !== 0) fail(`run ${r}: from the snapshot read ${b.read} events`);
    fromSnapshot.push(b.ms);
    await b.manager.close();
    const t1 = performance.now();
    for (const v of values) deserializeMetadataEvent(v);
    serdeOnly.push(performance.now() - t1);
  }
  await log.close();

  const z = spread(fromZero);
  const s = spread(fromSnapshot);
  const e = spread(encode);
  const d = spread(serdeOnly);
  const mix = work.mix;
  console.log(
    `suite: rlmm / materialise RemoteLogMetadataManager state: ${int(total)} events, ${int(userPartitions)} user partitions, 50 metadata partitions, InMemoryMetadataEventLog (no broker: state machine + serde + msgpack snapshot codec), ${runs} runs after a verifying warm-up`,
  );
  console.log(
    `  mix: ${int(mix.segments)} segment adds, ${int(mix.copyFinished)} COPY_SEGMENT_FINISHED, ${int(mix.deleteStarted)} DELETE_SEGMENT_STARTED, ${int(mix.deleteFinished)} DELETE_SEGMENT_FINISHED, ${int(mix.partitionDeletes)} partition deletion steps; log ${int(logBytes)} bytes of serialised events`,
  );
  console.log(
    `  cross-check: both paths gave identical answers to ${int(expected.lookups)} segment lookups (${int(expected.hits)} found) plus listings, per-epoch listings, highest offsets and sizes of ${sample.length} partitions; every listing matched the workload's model`,
  );
  console.table([
    {
      path: 'from offset 0: new manager, register all, wait until ready',
      'events read': int(total),
      'ms median': ms(z.median),
      'ms min-max': `${ms(z.min)}-${ms(z.max)}`,
      'events/s': rate(total, z.median),
    },
    {
      path: `from snapshot (${int(snapshot.length)} bytes msgpack): decode, register, ready`,
      'events read': '0',
      'ms median': ms(s.median),
      'ms min-max': `${ms(s.min)}-${ms(s.max)}`,
      'events/s': `n/a (${ms(z.median / s.median)}x faster than offset 0)`,
    },
    {
      path: `of which serde: deserializeMetadataEvent of the ${int(total)} values alone`,
      'events read': '',
      'ms median': ms(d.median),
      'ms min-max': `${ms(d.min)}-${ms(d.max)}`,
      'events/s': rate(total, d.median),
    },
    {
      path: 'manager.snapshot() encode at the end',
      'events read': '',
      'ms median': ms(e.median),
      'ms min-max': `${ms(e.min)}-${ms(e.max)}`,
      'events/s': '',
    },
  ]);
}

// ---------------------------------------------------------------- 1. event log

interface LogBackend {
  readonly label: string;
  readonly writer: MetadataEventLog;
  /** A log to read from offset 0 (a fresh read-only Kafka log, or the in-memory one reset). */
  openReader(): Promise<MetadataEventLog>;
  closeReader(log: MetadataEventLog): Promise<void>;
  /** Sum of the latest offsets by Kafka's Java admin; undefined without a broker. */
  javaEndSum(): Promise<bigint | undefined>;
  close(): Promise<void>;
}

async function kafkaBackend(numPartitions: number): Promise<LogBackend> {
  const t0 = performance.now();
  const cluster: KafkaCluster = await startCluster({ nodes: 3 });
  const started = performance.now() - t0;
  try {
    const t1 = performance.now();
    const writer = await KafkaMetadataEventLog.start({
      bootstrap: cluster.bootstrap,
      numPartitions,
      replicationFactor: 3,
    });
    const created = performance.now() - t1;
    return {
      label: `3-node Kafka (testkit, started in ${ms(started / 1000)} s), topic ${METADATA_TOPIC} with ${numPartitions} partitions x 3 replicas, min ISR 2 (created by KafkaMetadataEventLog.start in ${ms(created)} ms)`,
      writer,
      openReader: () =>
        KafkaMetadataEventLog.openReadOnly({ bootstrap: cluster.bootstrap, topic: writer.topic }),
      closeReader: (log) => log.close(),
      javaEndSum: async () => {
        const ends = await cluster.admin.listOffsets(writer.topic, 'latest');
        return ends.reduce((sum, p) => sum + p.offset, 0n);
      },
      close: async () => {
        await writer.close();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

function memoryBackend(numPartitions: number): LogBackend {
  const log = new InMemoryMetadataEventLog('bSdH8cTxRHKuI6Ay5hvFLg', numPartitions);
  return {
    label: `InMemoryMetadataEventLog with ${numPartitions} partitions (smoke: NO broker, the write/read paths' code only; figures mean nothing)`,
    writer: log,
    openReader: async () => {
      await unassignAll(log);
      return log;
    },
    closeReader: unassignAll,
    javaEndSum: async () => undefined,
    close: () => log.close(),
  };
}

/** Calls the manager's write for the event's kind (add, update or partition delete). */
function publish(m: RemoteLogMetadataManager, event: RemoteLogMetadataEvent): Promise<unknown> {
  switch (event.kind) {
    case 'segment':
      return m.addRemoteLogSegmentMetadata(event);
    case 'segment-update':
      return m.updateRemoteLogSegmentMetadata(event);
    case 'partition-delete':
      return m.putRemotePartitionDeleteMetadata(event);
  }
}

async function eventLogSuite(smoke: boolean): Promise<void> {
  const numPartitions = smoke ? 5 : 50;
  const runs = smoke ? 2 : 3;
  const userPartitions = smoke ? 20 : 200;
  const rawShapes = smoke
    ? [
        { window: 100, perRun: 500 },
        { window: 1_000, perRun: 1_000 },
      ]
    : [
        { window: 1_000, perRun: 10_000 },
        { window: 10_000, perRun: 50_000 },
      ];
  const managerShapes = smoke
    ? [
        { chains: 1, perRun: 100 },
        { chains: 20, perRun: 400 },
      ]
    : [
        { chains: 1, perRun: 300 },
        { chains: 64, perRun: 5_000 },
      ];
  const backend = smoke ? memoryBackend(numPartitions) : await kafkaBackend(numPartitions);
  const rows: Record<string, string>[] = [];
  const written: Buffer[] = [];
  const allTps: TopicIdPartition[] = [];
  let seed = 100;
  const workload = (n: number) => {
    const w = new Workload(seed++, userPartitions, n);
    allTps.push(...w.partitions.map((p) => p.tp));
    return w.take(n);
  };
  const row = (task: string, events: number, times: number[], extra = '') => {
    const t = spread(times);
    rows.push({
      task,
      'events/run': int(events),
      'ms median': ms(t.median),
      'ms min-max': `${ms(t.min)}-${ms(t.max)}`,
      'events/s': rate(events, t.median),
      'call latency': extra,
    });
  };
  try {
    const writer = backend.writer;
    // A. KafkaMetadataEventLog.write, a window of events in flight, after an untimed warm-up
    // (producer id, metadata, connections, JIT).
    const writeRaw = async (events: RemoteLogMetadataEvent[], window: number, lat: number[]) => {
      const values = events.map((e) => ({
        mp: metadataPartition(topicIdPartitionOf(e), writer.numPartitions),
        value: serializeMetadataEvent(e),
      }));
      written.push(...values.map((v) => v.value));
      let next = 0;
      const t0 = performance.now();
      const worker = async () => {
        while (next < values.length) {
          const v = values[next++]!;
          const s = performance.now();
          await writer.write(v.mp, v.value);
          lat.push(performance.now() - s);
        }
      };
      await Promise.all(Array.from({ length: window }, worker));
      return performance.now() - t0;
    };
    await writeRaw(workload(rawShapes[0]!.perRun), rawShapes[0]!.window, []);
    for (const shape of rawShapes) {
      const times: number[] = [];
      const latencies: number[] = [];
      for (let r = 0; r < runs; r++)
        times.push(await writeRaw(workload(shape.perRun), shape.window, latencies));
      row(
        `write: ${smoke ? 'InMemoryMetadataEventLog.write' : 'KafkaMetadataEventLog.write (acks=all, idempotent)'}, ${int(shape.window)} in flight`,
        shape.perRun,
        times,
        latencyText(latencies),
      );
    }

    // B. The manager's add/update/delete, each user partition's events in order, each call
    // resolving once read back; `chains` user partitions at a time.
    let dropped = 0;
    let bad = 0;
    const wm = new RemoteLogMetadataManager(writer, {
      onDroppedEvent: () => dropped++,
      onBadRecord: () => bad++,
    });
    for (const shape of managerShapes) {
      const times: number[] = [];
      const latencies: number[] = [];
      for (let r = 0; r < runs; r++) {
        const events = workload(shape.perRun);
        written.push(...events.map((e) => serializeMetadataEvent(e)));
        const byPartition = new Map<string, RemoteLogMetadataEvent[]>();
        for (const e of events) {
          const key = partitionName(topicIdPartitionOf(e));
          let list = byPartition.get(key);
          if (list === undefined) byPartition.set(key, (list = []));
          list.push(e);
        }
        const tps = [...byPartition.values()].map((l) => topicIdPartitionOf(l[0]!));
        await wm.onPartitionLeadershipChanges(tps);
        await wm.waitUntilReady(tps, { timeoutMs: 300_000 });
        const queue = [...byPartition.values()];
        const t0 = performance.now();
        const chain = async () => {
          for (let list = queue.shift(); list !== undefined; list = queue.shift()) {
            for (const e of list) {
              const s = performance.now();
              await publish(wm, e);
              latencies.push(performance.now() - s);
            }
          }
        };
        await Promise.all(Array.from({ length: shape.chains }, chain));
        times.push(performance.now() - t0);
      }
      row(
        `write: manager add/update/delete, ${shape.chains} user partition${shape.chains === 1 ? '' : 's'} at a time, each call awaits read-back`,
        shape.perRun,
        times,
        latencyText(latencies),
      );
    }
    await wm.close();
    await unassignAll(writer);
    if (dropped + bad > 0) fail(`the writing manager dropped ${dropped} events, ${bad} bad`);

    // Cross-check the writes: high-water marks, ours and Kafka's.
    const total = written.length;
    const ours = [...(await writer.highWaterMarks()).values()].reduce((a, b) => a + b, 0n);
    if (ours !== BigInt(total)) fail(`highWaterMarks() sum ${ours}, wrote ${total}`);
    const java = await backend.javaEndSum();
    if (java !== undefined && java !== BigInt(total))
      fail(`Kafka's listOffsets sum ${java}, wrote ${total}`);
    const sum = checksum(written);

    // C. The log's read path from offset 0 to the high-water marks.
    const readTimes: number[] = [];
    for (let r = 0; r < runs; r++) {
      const reader = await backend.openReader();
      const ends = await reader.highWaterMarks();
      const values: Buffer[] = [];
      const stop = new AbortController();
      const t0 = performance.now();
      const pending = new Set<number>();
      for (const [p, end] of ends) {
        if (end === 0n) continue;
        reader.assign(p, 0n);
        pending.add(p);
      }
      for await (const batch of reader.read(stop.signal)) {
        for (const record of batch.records) {
          deserializeMetadataEvent(record.value);
          values.push(record.value!);
        }
        if (batch.nextOffset >= (ends.get(batch.partition) ?? 0n)) pending.delete(batch.partition);
        if (pending.size === 0) break;
      }
      readTimes.push(performance.now() - t0);
      stop.abort();
      await backend.closeReader(reader);
      if (values.length !== total) fail(`log read ${values.length} events, wrote ${total}`);
      if (checksum(values) !== sum) fail('log read: the checksum differs from what was written');
    }
    row(
      `read: ${smoke ? 'log' : 'a new openReadOnly log'}.read() from offset 0 to the end, every record deserialised`,
      total,
      readTimes,
    );

    // D. A new manager materialising its state from offset 0.
    const managerTimes: number[] = [];
    for (let r = 0; r < runs; r++) {
      const reader = await backend.openReader();
      const built = await materialise(reader, allTps);
      managerTimes.push(built.ms);
      await built.manager.close();
      await backend.closeReader(reader);
      if (built.read !== total) fail(`the manager read ${built.read} events, wrote ${total}`);
    }
    row('read: new manager from offset 0, register all, wait until ready', total, managerTimes);

    console.log(`suite: rlmm / metadata event log on ${backend.label}; ${runs} runs per row`);
    console.log(
      "  writes: a deterministic workload's events (segment adds, COPY_SEGMENT_FINISHED, segment and partition deletes), fresh ones each run; 'in flight' = write() calls outstanding, issued in generation order; manager rows: each user partition's events one after another, each call resolving once the manager read its record back",
    );
    console.log(
      '  reads: timed from assign/construction until every metadata partition is read to the high-water marks taken before (connections to the leaders are opened inside the timing)',
    );
    console.log(
      `  cross-check: wrote ${int(total)} events over ${int(allTps.length)} user partitions; highWaterMarks() sum ${int(ours)}; ${java === undefined ? "Kafka's Java admin not run (no broker in smoke)" : `Kafka's Java admin listOffsets sum ${int(java)}`}; every read yielded ${int(total)} events with checksum ${sum.toString(16)} (sum of sha256 prefixes) as written`,
    );
    console.table(rows);
  } finally {
    await backend.close();
  }
}

/** Runs the remote log metadata suite and prints its tables. */
export async function runRlmmSuite(smoke: boolean): Promise<void> {
  console.log(`suite: rlmm (${NOISE})`);
  await eventLogSuite(smoke);
  await materialiseSuite(smoke);
}
