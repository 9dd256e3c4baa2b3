/**
 * Client suite: produce and read throughput of whole clients against one real Kafka, kafkats
 * next to kafkajs, @platformatic/kafka and Kafka's own Java tools (ProducerPerformance,
 * ConsumerPerformance from the pinned release), in the same run, on the same broker.
 *
 * Same work for everyone:
 * - one topic with ONE partition (RF 1) per contestant, per case and per run, so no
 *   partitioner decides anything (every producer sends to partition 0);
 * - the same values: a pool of 1000 JSON-like texts per size, generated once (client-values.ts),
 *   record i carrying pool[i % 1000] (ProducerPerformance gets the pool as --payload-file and
 *   picks from it at random: same sizes and bytes per record, same mix);
 * - acks=all with idempotence on (kafkats Producer, kafkajs `idempotent: true`, platformatic
 *   `idempotent: true`, Java `enable.idempotence=true`); compression none or lz4;
 * - Kafka's batching defaults where a client has them (kafkats and Java: linger.ms 5,
 *   batch.size 16384, 5 in flight). kafkajs and platformatic have no accumulator: they get
 *   send() calls of ~16 KiB of records each (16384 / (value + 10) records), at most 5
 *   outstanding, and their own in-flight limits apply (both allow 1 in flight when idempotent);
 * - produce: `warmup + records` records, the clock on the last `records` (Java:
 *   --warmup-records, its steady-state line), stopped when every delivery is acknowledged.
 *   100 B: 1,200,000 timed after 300,000; 1 KiB: 240,000 after 60,000 (about 150 and 300 MB):
 *   long enough that the optimizing compilers are done before the clock starts. Windows of a
 *   quarter of that timed the JIT as much as the client (kafkats 1 KiB: 21.8 us of CPU per
 *   record over 60,000 records, 9.1 over 240,000; 100 B: 3.2 over 300,000, 1.9 over 1.2 M);
 * - read: the same prepared topic (written once per case by kafkats), `records` records from
 *   offset 0 to its end; no CRC checks (ConsumerPerformance forces check.crcs=false, kafkajs
 *   and platformatic never check; a kafkats row with checks on is shown apart); group
 *   consumers (kafkajs, platformatic, Java) are timed from the group join on;
 * - group consume: the same prepared topic, read from earliest to its end by group consumers
 *   that each join a fresh group (kafkats `Consumer` with groupProtocol 'consumer' and
 *   'classic', kafkajs and platformatic (classic), ConsumerPerformance with
 *   group.protocol=classic and =consumer); no auto-commit, same fetch settings (max wait 500 ms,
 *   1 MiB per partition, 50 MiB per fetch), no CRC checks; keys and values touched (values
 *   summed and checksummed, key lengths summed: all null). Timed from the first assignment to
 *   the last record (ConsumerPerformance: its fetch time, elapsed minus join); the join (subscribe
 *   to first assignment) is shown apart;
 * - share consume (KIP-932): a prepared topic of a quarter of the read count, read once by a
 *   kafkats `ShareConsumer` and by Kafka's ShareConsumerPerformance, each in a fresh share group
 *   set to read from earliest; implicit acknowledgement (each poll accepts the last), same
 *   fetch settings; the rate from the first records handed out to the last on both sides (a
 *   share group assigns on its own schedule, about a heartbeat interval after the join); the
 *   kafkats group Consumer reads the same topic beside them for reference;
 * - rebalance: two kafkats Consumers in one worker process; A reads a 6-partition topic alone
 *   while a producer writes 200 records/s to each partition, then B subscribes. Measured: from
 *   B's subscribe until A and B own disjoint shares covering the topic and both received records
 *   since, and A's longest stretch without a delivered record meanwhile (the stop-the-world gap),
 *   next to the same over the steady period before B. Variants: KIP-848 (the broker's uniform
 *   assignor), classic cooperative-sticky (KIP-429), classic eager (range). Cross-check: the group
 *   ends 3 + 3;
 * - Bun rows: the kafkats Producer (`await send(r, cb)`) and the KIP-848 Consumer contestants run
 *   by Bun instead of Node: the same worker file, job and options, the executable the pinned Bun
 *   of scripts/with-runtime.mjs (installed from the npm registry on first use); the worker's
 *   result names the runtime that ran it and must name that Bun. Measured, not tuned for;
 * - every run is a fresh process (Node or Bun worker, or JVM); the order of contestants rotates
 *   per run.
 * Cross-checks: after each produce run the topic's end offset (Java admin ListOffsets) must equal
 * the records sent and the partition's producer state (DescribeProducers) must show one
 * idempotent producer whose last sequence is records - 1; after each read run the count, value
 * bytes and value checksum (Node) or count and bytes (ConsumerPerformance) must match.
 * CPU: process.cpuUsage() of the Node worker over the timed window (user + system, every thread
 * of the process; on Bun, getrusage of the process too). The JVM's CPU comes from /proc (its
 * parent's cutime + cstime) and covers the whole JVM life (start-up, JIT, warm-up records):
 * shown, never compared. Allocation: the worker's heap growth between collections
 * (v8.GCProfiler); Bun's figure counts Buffer and typed-array contents, which V8 keeps off its
 * heap, so the Bun rows' is shown in brackets, not comparable.
 *
 * Full mode starts a 1-node cluster (or uses KAFKATS_BENCH_BROKER=host:port). `--smoke` runs
 * every contestant once with tiny counts on a 1-node cluster: there is no fake broker that all
 * four clients could produce to and consume from.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '@kafkats/client';
import { JavaAdmin, type KafkaCluster, kafkaDist, startCluster } from '@kafkats/testkit';
import { expectedChecksum, makeValues, writeValuesFile } from './client-values.js';
import type {
  Job,
  NodeClient,
  RebalanceJob,
  RebalanceResult,
  RebalanceVariant,
  WorkerResult,
} from './client-worker.js';

const LINGER_MS = 5;
const BATCH_SIZE = 16_384;
const MAX_IN_FLIGHT = 5;

type Compression = 'none' | 'lz4';
interface Case {
  valueSize: number;
  compression: Compression;
  /** Produce: records timed, after `warmup` untimed ones. */
  records: number;
  warmup: number;
  /** Read: records in the prepared topic (more than produced, for a longer timed window). */
  readRecords: number;
}
type Producer =
  | 'kafkats'
  | 'kafkats-warm'
  | 'kafkats-bun'
  | 'kafkats-batch'
  | 'kafkats-js'
  | 'kafkats-kafkajs'
  | 'kafkajs'
  | 'platformatic'
  | 'socket-floor'
  | 'java';
type Reader = Exclude<NodeClient, 'socket-floor'> | 'java';

/**
 * `kafkats-js` (the pure-JS lz4 a plain install has) runs in the lz4 cases only;
 * `socket-floor` (a bound: the loop and Node's socket, no client) in the uncompressed ones.
 */
const PRODUCERS: readonly Producer[] = [
  'kafkats',
  'kafkats-warm',
  'kafkats-bun',
  'kafkats-batch',
  'socket-floor',
  'kafkats-js',
  'kafkats-kafkajs',
  'kafkajs',
  'platformatic',
  'java',
];
/**
 * Rows of the produce table: the Java producer gives two, cold and warm, from one JVM;
 * `kafkats-warm` is the `kafkats` contestant run the same way (its warm row).
 */
type ProduceRow = Exclude<Producer, 'java'> | 'java-cold' | 'java-warm';
const PRODUCE_ROWS: readonly ProduceRow[] = [
  'kafkats',
  'kafkats-bun',
  'kafkats-batch',
  'socket-floor',
  'kafkats-js',
  'kafkats-kafkajs',
  'kafkajs',
  'platformatic',
  'java-cold',
  'kafkats-warm',
  'java-warm',
];
const PRODUCE_LABEL: Record<Exclude<ProduceRow, 'kafkats-bun'>, string> = {
  kafkats: 'kafkats, await send(r, cb)',
  'kafkats-batch': 'kafkats, sendBatch(chunk, cb)',
  'socket-floor': 'bound: sendBatch loop, net.Socket alone',
  'kafkats-js': 'kafkats, await send, JS lz4',
  'kafkats-kafkajs': '@kafkats/kafkajs (kafkajs API)',
  kafkajs: 'kafkajs 2.2.4',
  platformatic: '@platformatic/kafka 2.12.1',
  'java-cold': 'Java 4.4.0 KafkaProducer, cold',
  'kafkats-warm': 'kafkats, await send(r, cb), warm',
  'java-warm': 'Java 4.4.0 KafkaProducer, warm',
};
const produceLabel = (row: ProduceRow, bun: string): string =>
  row === 'kafkats-bun' ? `kafkats on Bun ${bun}, await send(r, cb)` : PRODUCE_LABEL[row];
/**
 * The Java producer's rounds of `records` in one JVM: round 1 is the cold row (after the same
 * warm-up the Node contestants get), the median of the last JAVA_WARM_ROUNDS the warm row.
 * `kafkats-warm` runs the `kafkats` contestant the same way in one process, for the warm row
 * that Java's is compared with.
 */
const JAVA_ROUNDS = 8;
const JAVA_WARM_ROUNDS = 3;
/** What each contestant compresses lz4 with (kafkats and kafkats-js: as the worker reports). */
const JAVA_LZ4 = 'lz4-java (JNI)';
const READERS: readonly Reader[] = [
  'kafkats',
  'kafkats-multi',
  'kafkats-crc',
  'kafkajs',
  'platformatic',
  'java',
];
/** Group consumers: each joins a fresh group and reads the prepared topic from earliest. */
type GroupReader =
  | 'kafkats-consumer'
  | 'kafkats-consumer-bun'
  | 'kafkats-classic'
  | 'kafkats-kafkajs'
  | 'kafkajs'
  | 'platformatic'
  | 'java-classic'
  | 'java-consumer';
const GROUP_READERS: readonly GroupReader[] = [
  'kafkats-consumer',
  'kafkats-consumer-bun',
  'kafkats-classic',
  'kafkats-kafkajs',
  'kafkajs',
  'platformatic',
  'java-classic',
  'java-consumer',
];
const GROUP_LABEL: Record<Exclude<GroupReader, 'kafkats-consumer-bun'>, string> = {
  'kafkats-consumer': 'kafkats Consumer, KIP-848',
  'kafkats-classic': 'kafkats Consumer, classic',
  'kafkats-kafkajs': '@kafkats/kafkajs eachBatch (classic)',
  kafkajs: 'kafkajs 2.2.4 (classic)',
  platformatic: '@platformatic/kafka 2.12.1 (classic)',
  'java-consumer': 'Java 4.4.0 tool, KIP-848',
  'java-classic': 'Java 4.4.0 tool, classic',
};
const groupLabel = (who: GroupReader, bun: string): string =>
  who === 'kafkats-consumer-bun' ? `kafkats Consumer, KIP-848, on Bun ${bun}` : GROUP_LABEL[who];

/** Share-group consumers (KIP-932): each joins a fresh share group reading from earliest. */
type ShareReader = 'kafkats-share' | 'java-share' | 'kafkats-group';
const SHARE_READERS: readonly ShareReader[] = ['kafkats-share', 'java-share', 'kafkats-group'];
const SHARE_LABEL: Record<ShareReader, string> = {
  'kafkats-share': 'kafkats ShareConsumer',
  'java-share': 'Java 4.4.0 ShareConsumerPerformance',
  'kafkats-group': 'kafkats Consumer, KIP-848 group (reference)',
};

const LABEL: Record<Reader, string> = {
  kafkats: 'kafkats',
  'kafkats-js': 'kafkats, JS lz4',
  'kafkats-batch': 'kafkats, sendBatch',
  'kafkats-multi': 'kafkats MultiPartitionReader',
  'kafkats-crc': 'kafkats, CRC checked (not compared)',
  'kafkats-consumer': 'kafkats Consumer, KIP-848',
  'kafkats-classic': 'kafkats Consumer, classic',
  'kafkats-share': 'kafkats ShareConsumer',
  'kafkats-kafkajs': '@kafkats/kafkajs (kafkajs API)',
  kafkajs: 'kafkajs 2.2.4',
  platformatic: '@platformatic/kafka 2.12.1',
  java: 'Java 4.4.0 tool',
};

interface Sample {
  /** Timed records per second. */
  rate: number;
  /**
   * Node: CPU µs per timed record; Java producer: process CPU µs per record over the round;
   * Java tools: whole-JVM CPU µs per record read.
   */
  cpu: number;
  /** Bytes allocated per timed record (Node: V8 heap; Java: ThreadMXBean), when measured. */
  heap?: number;
  /** The compression implementation the contestant ran, when it compresses. */
  backend?: string;
  /** Group consumers: ms from subscribe to the first assignment (outside the timed window). */
  joinMs?: number;
}

/** KAFKATS_BENCH_TRACE=1 prints each run's phases and wall time (stderr). */
const trace = (line: string): void => {
  if (process.env.KAFKATS_BENCH_TRACE === '1') process.stderr.write(`  ${line}\n`);
};

// ------------------------------------------------------------------------------- processes

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runProcess(command: string, args: readonly string[], timeoutMs: number): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const workerPath = fileURLToPath(new URL('./client-worker.js', import.meta.url));

/** A runtime other than this Node that runs workers: its binary and its version. */
interface Runtime {
  bin: string;
  version: string;
}

/** The part of scripts/with-runtime.mjs the suite uses. */
interface WithRuntime {
  ensureRuntime(runtime: 'bun'): string;
  RUNTIME_VERSIONS: { bun: string };
}

/** The pinned Bun, installed from the npm registry on first use (scripts/with-runtime.mjs). */
async function pinnedBun(): Promise<Runtime> {
  const url = new URL('../../scripts/with-runtime.mjs', import.meta.url);
  const withRuntime = (await import(url.href)) as WithRuntime;
  return { bin: withRuntime.ensureRuntime('bun'), version: withRuntime.RUNTIME_VERSIONS.bun };
}

async function runWorker(job: Job, executable?: string): Promise<WorkerResult>;
async function runWorker(job: RebalanceJob): Promise<RebalanceResult>;
async function runWorker(
  job: Job | RebalanceJob,
  executable = process.execPath,
): Promise<WorkerResult | RebalanceResult> {
  const exit = await runProcess(executable, [workerPath, JSON.stringify(job)], 600_000);
  const line = exit.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  const who =
    job.role === 'rebalance'
      ? job.variant
      : `${job.client}${job.runtime === undefined ? '' : ` on ${job.runtime}`}`;
  if (exit.status !== 0 || line === undefined) {
    throw new Error(
      `${job.role} ${who} on ${job.topic} failed (exit ${exit.status}): ${exit.stderr.slice(-3000)}`,
    );
  }
  trace(`${who}: ${exit.stderr.trim().split('\n').join(', ')}`);
  return JSON.parse(line.slice('RESULT '.length)) as WorkerResult | RebalanceResult;
}

/** Runs `job` in a worker started by the pinned Bun; fails unless the worker ran on that Bun. */
async function runBunWorker(ctx: Context, job: Job): Promise<WorkerResult> {
  if (ctx.bun === undefined) throw new Error(`${job.role} ${job.client} on Bun: Bun not set up`);
  const r = await runWorker({ ...job, runtime: 'bun' }, ctx.bun.bin);
  if (r.runtime !== `bun ${ctx.bun.version}`) {
    throw new Error(`${job.role} ${job.client} on ${ctx.bun.bin} ran on ${r.runtime}`);
  }
  return r;
}

/**
 * JVM flags of Kafka's bin/kafka-producer-perf-test.sh and kafka-consumer-perf-test.sh
 * (KAFKA_HEAP_OPTS -Xmx512M, kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS). Not the
 * testkit's runKafkaTool: its flags (C1 only, SerialGC, 256 MiB) suit short admin tools and
 * would understate Java's throughput.
 */
const JVM_FLAGS = [
  '-Xmx512M',
  '-server',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:MaxInlineLevel=15',
  '-Djava.awt.headless=true',
];

let clockTicks: number | undefined;

/**
 * Runs a Kafka tool class under `sh`, which prints its own cutime + cstime (the JVM it waited
 * for) from /proc once the JVM has exited: the JVM's whole CPU time.
 */
async function runJava(
  log4j: string,
  mainClass: string,
  args: readonly string[],
  classes?: string,
): Promise<Exit & { cpuUs: number }> {
  clockTicks ??= Number((await runProcess('getconf', ['CLK_TCK'], 10_000)).stdout.trim()) || 100;
  const script =
    'java "$@"; s=$?; echo "KAFKATS_CPU_TICKS $(cut -d" " -f16,17 /proc/$$/stat)"; exit $s';
  const exit = await runProcess(
    'sh',
    [
      '-c',
      script,
      'sh',
      ...JVM_FLAGS,
      `-Dlog4j2.configurationFile=${log4j}`,
      '-cp',
      classes === undefined ? kafkaDist().classpath : `${classes}:${kafkaDist().classpath}`,
      mainClass,
      ...args,
    ],
    600_000,
  );
  const ticks = /KAFKATS_CPU_TICKS (\d+) (\d+)/.exec(exit.stdout);
  if (exit.status !== 0 || ticks === null) {
    throw new Error(
      `${mainClass} failed (exit ${exit.status}): ${exit.stdout.slice(-2000)} ${exit.stderr.slice(-2000)}`,
    );
  }
  trace(`java: ${exit.stdout.trim().split('\n').slice(-2).join(' | ')}`);
  const cpuUs = ((Number(ticks[1]) + Number(ticks[2])) * 1e6) / clockTicks;
  return { ...exit, cpuUs };
}

/** Compiles the Java producer contestant (benchmarks/java/ProducerRounds.java) into `dir`. */
async function compileProducerRounds(dir: string): Promise<string> {
  const source = fileURLToPath(new URL('../java/ProducerRounds.java', import.meta.url));
  const out = join(dir, 'classes');
  const exit = await runProcess(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '-cp', kafkaDist().classpath, '-d', out, source],
    120_000,
  );
  if (exit.status !== 0) throw new Error(`javac ProducerRounds.java failed: ${exit.stderr}`);
  return out;
}

// ------------------------------------------------------------------------------- checks

async function verifyProduced(admin: JavaAdmin, topic: string, expected: number): Promise<void> {
  const [latest] = await admin.listOffsets(topic, 'latest');
  const [earliest] = await admin.listOffsets(topic, 'earliest');
  if (latest?.offset !== BigInt(expected) || earliest?.offset !== 0n) {
    throw new Error(
      `${topic}: offsets ${earliest?.offset}..${latest?.offset}, expected 0..${expected}`,
    );
  }
  const [state] = await admin.describeProducers(topic);
  const producers = state?.producers ?? [];
  const last = producers[0]?.lastSequence;
  if (producers.length !== 1 || last !== expected - 1) {
    throw new Error(
      `${topic}: expected one idempotent producer with last sequence ${expected - 1}, got ${JSON.stringify(producers, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
    );
  }
}

function verifyRead(who: string, r: WorkerResult, c: Case, checksum: number): void {
  const bytes = c.records * c.valueSize;
  if (r.count !== c.records || r.bytes !== bytes || r.checksum !== checksum) {
    throw new Error(
      `${who}: read ${r.count} records / ${r.bytes} bytes / checksum ${r.checksum}, expected ${c.records} / ${bytes} / ${checksum}`,
    );
  }
}

// ------------------------------------------------------------------------------- runs

interface Context {
  bootstrap: string;
  /** Where ProducerRounds.class was compiled. */
  javaClasses: string;
  admin: JavaAdmin;
  dir: string;
  log4j: string;
  valuesFile: Map<number, string>;
  topicSeq: number;
  /** The Bun that runs the Bun rows (set up when the produce or read part runs). */
  bun?: Runtime;
}

function newTopic(ctx: Context, what: string): string {
  return `bench-${what}-${process.pid}-${ctx.topicSeq++}`;
}

function baseJob(ctx: Context, c: Case, topic: string): Omit<Job, 'role' | 'client'> {
  return {
    bootstrap: ctx.bootstrap,
    topic,
    valuesFile: ctx.valuesFile.get(c.valueSize) as string,
    compression: c.compression,
    warmup: c.warmup,
    records: c.records,
    chunk: Math.max(1, Math.floor(BATCH_SIZE / (c.valueSize + 10))),
    lingerMs: LINGER_MS,
    batchSize: BATCH_SIZE,
    maxInFlight: MAX_IN_FLIGHT,
  };
}

/** One produce run; the Java producer's run gives its cold and its warm sample. */
async function produceOnce(ctx: Context, c: Case, who: Producer): Promise<[ProduceRow, Sample][]> {
  const topic = newTopic(ctx, `p-${who}`);
  await ctx.admin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
  let samples: [ProduceRow, Sample][];
  let total = c.warmup + c.records;
  if (who === 'java') {
    total = c.warmup + JAVA_ROUNDS * c.records;
    const exit = await runJava(
      ctx.log4j,
      'ProducerRounds',
      [
        ctx.bootstrap,
        topic,
        ctx.valuesFile.get(c.valueSize) as string,
        String(c.warmup),
        String(c.records),
        String(JAVA_ROUNDS),
        c.compression,
        String(LINGER_MS),
        String(BATCH_SIZE),
        String(MAX_IN_FLIGHT),
      ],
      ctx.javaClasses,
    );
    const rounds = [...exit.stdout.matchAll(/^ROUND (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$/gm)].map(
      (m) => ({ rate: Number(m[2]), cpu: Number(m[3]), heap: Number(m[4]) }),
    );
    if (rounds.length !== JAVA_ROUNDS) {
      throw new Error(`ProducerRounds: expected ${JAVA_ROUNDS} rounds: ${exit.stdout}`);
    }
    const backend = c.compression === 'lz4' ? { backend: JAVA_LZ4 } : {};
    const warm = rounds.slice(-JAVA_WARM_ROUNDS);
    samples = [
      ['java-cold', { ...(rounds[0] as Sample), ...backend }],
      [
        'java-warm',
        {
          rate: median(warm.map((r) => r.rate)),
          cpu: median(warm.map((r) => r.cpu)),
          heap: median(warm.map((r) => r.heap)),
          ...backend,
        },
      ],
    ];
  } else if (who === 'kafkats-warm') {
    total = c.warmup + JAVA_ROUNDS * c.records;
    const job: Job = {
      ...baseJob(ctx, c, topic),
      role: 'produce',
      client: 'kafkats',
      rounds: JAVA_ROUNDS,
    };
    const r = await runWorker(job);
    const rounds = (r.rounds ?? []).map((x) => ({
      rate: c.records / (x.elapsedMs / 1000),
      cpu: x.cpuUs / c.records,
      heap: x.heapBytes / c.records,
    }));
    if (rounds.length !== JAVA_ROUNDS) {
      throw new Error(`kafkats rounds: expected ${JAVA_ROUNDS}, got ${rounds.length}`);
    }
    const warm = rounds.slice(-JAVA_WARM_ROUNDS);
    const sample: Sample = {
      rate: median(warm.map((x) => x.rate)),
      cpu: median(warm.map((x) => x.cpu)),
      heap: median(warm.map((x) => x.heap)),
    };
    if (r.backend !== undefined) sample.backend = r.backend;
    samples = [['kafkats-warm', sample]];
  } else {
    // The Bun row: the `kafkats` contestant's job, run by Bun.
    const bun = who === 'kafkats-bun';
    const job: Job = { ...baseJob(ctx, c, topic), role: 'produce', client: bun ? 'kafkats' : who };
    // The bound writes uncompressed frames (in the smoke run's lz4 case too).
    if (who === 'socket-floor') job.compression = 'none';
    const r = bun ? await runBunWorker(ctx, job) : await runWorker(job);
    const sample: Sample = {
      rate: c.records / (r.elapsedMs / 1000),
      cpu: r.cpuUs / c.records,
      heap: r.heapBytes / c.records,
    };
    if (r.backend !== undefined) sample.backend = r.backend;
    samples = [[who, sample]];
  }
  await verifyProduced(ctx.admin, topic, total);
  await ctx.admin.deleteTopic(topic);
  return samples;
}

/** `(text)` when `bracket`: a figure shown but not comparable with the column's others. */
const bracketIf = (bracket: boolean, text: string): string => (bracket ? `(${text})` : text);

/** How a worker names its lz4 implementation, with the kind of code it is. */
function backendLabel(name: string): string {
  if (name === 'lz4js') return 'lz4js (JS)';
  if (name === 'lz4-napi') return 'lz4-napi block (native)';
  return name;
}

/** The produce table: every row against the kafkats Producer (the first row). */
function produceRows(c: Case, samples: Map<ProduceRow, Sample[]>, bun: string): string[][] {
  const rows: string[][] = [];
  const ours = samples.get('kafkats') ?? [];
  const oursWarm = samples.get('kafkats-warm') ?? [];
  const oursBatch = samples.get('kafkats-batch') ?? [];
  for (const who of PRODUCE_ROWS) {
    const xs = samples.get(who) ?? [];
    if (xs.length === 0) continue;
    // Java's warm row against ours, run the same way; the bound against `sendBatch`, which
    // runs its loop; every other row against `kafkats`.
    const base = who === 'java-warm' ? oursWarm : who === 'socket-floor' ? oursBatch : ours;
    const oursRate = median(base.map((s) => s.rate));
    const oursCpu = median(base.map((s) => s.cpu));
    const rate = median(xs.map((s) => s.rate));
    const cpu = median(xs.map((s) => s.cpu));
    const heaps = xs.flatMap((s) => (s.heap === undefined ? [] : [s.heap]));
    const backends = [...new Set(xs.flatMap((s) => (s.backend ? [backendLabel(s.backend)] : [])))];
    const compared = who !== 'kafkats' && who !== 'kafkats-warm' && base.length > 0;
    rows.push([
      `${c.valueSize === 1024 ? '1 KiB' : `${c.valueSize} B`} ${c.compression}`,
      produceLabel(who, bun),
      c.compression === 'none' ? '-' : backends.join(' / '),
      k(rate),
      minMax(
        xs.map((s) => s.rate),
        k,
      ),
      ((rate * c.valueSize) / 1e6).toFixed(1),
      cpu.toFixed(2),
      minMax(
        xs.map((s) => s.cpu),
        (x) => x.toFixed(2),
      ),
      heaps.length === 0 ? '-' : bracketIf(who === 'kafkats-bun', median(heaps).toFixed(0)),
      compared ? (oursRate / rate).toFixed(2) : '',
      compared ? (oursCpu / cpu).toFixed(2) : '',
    ]);
  }
  return rows;
}

const PRODUCE_HEADER = [
  'case',
  'client',
  'lz4 backend',
  'rec/s',
  'min-max',
  'MB/s',
  'CPU µs/rec',
  'min-max',
  'alloc B/rec',
  'ours/peer rate',
  'ours/peer CPU',
];

async function readOnce(
  ctx: Context,
  c: Case,
  topic: string,
  checksum: number,
  who: Reader,
): Promise<Sample> {
  if (who === 'java') {
    const exit = await runJava(ctx.log4j, 'org.apache.kafka.tools.ConsumerPerformance', [
      '--bootstrap-server',
      ctx.bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(c.records),
      '--group',
      `bench-java-${topic}-${ctx.topicSeq++}`,
      '--timeout',
      '60000',
      '--hide-header',
      '--command-property',
      'enable.auto.commit=false',
      'fetch.max.wait.ms=500',
    ]);
    // start, end, MB, MB/s, nMsg, nMsg/s, rebalance ms, fetch ms, fetch MB/s, fetch nMsg/s
    const line = exit.stdout
      .trim()
      .split('\n')
      .find((l) => l.split(',').length === 10);
    const f = (line ?? '').split(',').map((s) => s.trim());
    const count = Number(f[4]);
    const mb = Number(f[2]);
    const fetchMs = Number(f[7]);
    const expectedMb = (c.records * c.valueSize) / (1024 * 1024);
    if (line === undefined || count !== c.records || Math.abs(mb - expectedMb) > 1e-3) {
      throw new Error(`ConsumerPerformance: expected ${c.records} records: ${exit.stdout}`);
    }
    return { rate: c.records / (fetchMs / 1000), cpu: exit.cpuUs / c.records };
  }
  const r = await runWorker({
    ...baseJob(ctx, c, topic),
    warmup: 0,
    role: 'read',
    client: who,
  });
  verifyRead(`${who} on ${topic}`, r, c, checksum);
  return { rate: c.records / (r.elapsedMs / 1000), cpu: r.cpuUs / c.records };
}

/**
 * One group consumer run: a fresh group on the prepared topic, `records` records from earliest.
 * The rate is over the time from the first assignment to the last record (ConsumerPerformance:
 * its fetch time, i.e. elapsed minus the time spent in the join); the join is shown apart.
 */
async function groupOnce(
  ctx: Context,
  c: Case,
  topic: string,
  checksum: number,
  who: GroupReader,
): Promise<Sample> {
  if (who === 'java-classic' || who === 'java-consumer') {
    const exit = await runJava(ctx.log4j, 'org.apache.kafka.tools.ConsumerPerformance', [
      '--bootstrap-server',
      ctx.bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(c.records),
      '--group',
      `bench-${who}-${topic}-${ctx.topicSeq++}`,
      '--timeout',
      '60000',
      '--hide-header',
      '--command-property',
      `group.protocol=${who === 'java-consumer' ? 'consumer' : 'classic'}`,
      'auto.offset.reset=earliest',
      'enable.auto.commit=false',
      'fetch.max.wait.ms=500',
    ]);
    const line = exit.stdout
      .trim()
      .split('\n')
      .find((l) => l.split(',').length === 10);
    const f = (line ?? '').split(',').map((s) => s.trim());
    const count = Number(f[4]);
    const mb = Number(f[2]);
    const expectedMb = (c.records * c.valueSize) / (1024 * 1024);
    if (line === undefined || count !== c.records || Math.abs(mb - expectedMb) > 1e-3) {
      throw new Error(
        `ConsumerPerformance (${who}): expected ${c.records} records: ${exit.stdout}`,
      );
    }
    return {
      rate: c.records / (Number(f[7]) / 1000),
      cpu: exit.cpuUs / c.records,
      joinMs: Number(f[6]),
    };
  }
  // The Bun row: the `kafkats-consumer` contestant's job, run by Bun.
  const bun = who === 'kafkats-consumer-bun';
  const client = bun ? 'kafkats-consumer' : who;
  const job: Job = { ...baseJob(ctx, c, topic), warmup: 0, role: 'group', client };
  const r = bun ? await runBunWorker(ctx, job) : await runWorker(job);
  verifyRead(`${who} (group) on ${topic}`, r, c, checksum);
  return {
    rate: c.records / (r.elapsedMs / 1000),
    cpu: r.cpuUs / c.records,
    joinMs: r.joinMs ?? 0,
  };
}

/** Makes `group` read from the start: `share.auto.offset.reset` is a group config (KIP-932). */
async function shareFromEarliest(ctx: Context, group: string): Promise<void> {
  const admin = await Admin.connect(ctx.bootstrap);
  try {
    const set = await admin.incrementalAlterConfigs([
      {
        type: 'GROUP',
        name: group,
        ops: [{ name: 'share.auto.offset.reset', op: 'SET', value: 'earliest' }],
      },
    ]);
    const refused = set.resources[0]?.error;
    if (refused !== undefined) throw refused;
  } finally {
    await admin.close();
  }
}

/** `yyyy-MM-dd HH:mm:ss:SSS` (Kafka's perf tools' date format), local time, as epoch ms. */
function toolTime(text: string): number {
  const m = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+):(\d+)$/.exec(text.trim());
  if (m === null) return Number.NaN;
  const [, y, mo, d, h, mi, sec, ms] = m.map(Number) as number[];
  return new Date(y!, mo! - 1, d!, h!, mi!, sec!, ms!).getTime();
}

/**
 * One share consumer run: a fresh share group on the prepared topic, implicit acknowledgement,
 * every record once. A share group assigns on its own schedule (its first assignment often
 * comes a heartbeat interval, 5 s, after the join), so the rate is taken from the first records
 * handed out to the last, on both sides: kafkats from its worker's clock; Kafka's
 * ShareConsumerPerformance from its detailed stats every 100 ms (the end of the first interval
 * that holds records, and their count, to the end of the run). The time to the first records is
 * shown apart.
 */
async function shareOnce(
  ctx: Context,
  c: Case,
  topic: string,
  checksum: number,
  who: ShareReader,
): Promise<Sample> {
  // The group Consumer on the same topic, as the group table times it: what reading costs
  // without acquisition and acknowledgement.
  if (who === 'kafkats-group') return groupOnce(ctx, c, topic, checksum, 'kafkats-consumer');
  if (who === 'java-share') {
    const group = `bench-java-share-${topic}-${ctx.topicSeq++}`;
    await shareFromEarliest(ctx, group);
    const exit = await runJava(ctx.log4j, 'org.apache.kafka.tools.ShareConsumerPerformance', [
      '--bootstrap-server',
      ctx.bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(c.records),
      '--group',
      group,
      '--timeout',
      '60000',
      '--hide-header',
      '--show-detailed-stats',
      '--reporting-interval',
      '100',
    ]);
    // start, end, MB, MB/s, nMsg/s, nMsg (so far), interval ms [for share consumer N]
    const lines = exit.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(',').map((x) => x.trim()))
      .filter((f) => f.length === 7);
    const first = lines.find((f) => f[6]!.includes('for share consumer') && Number(f[5]) > 0);
    const total = lines.find((f) => !f[6]!.includes('for share consumer'));
    const count = Number(total?.[5]);
    const mb = Number(total?.[2]);
    const expectedMb = (c.records * c.valueSize) / (1024 * 1024);
    if (
      first === undefined ||
      total === undefined ||
      count !== c.records ||
      Math.abs(mb - expectedMb) > 1e-3
    )
      throw new Error(`ShareConsumerPerformance: expected ${c.records} records: ${exit.stdout}`);
    const firstAt = toolTime(first[1]!);
    const steadyMs = toolTime(total[1]!) - firstAt;
    return {
      rate: (c.records - Number(first[5])) / (steadyMs / 1000),
      cpu: exit.cpuUs / c.records,
      joinMs: firstAt - toolTime(total[0]!),
    };
  }
  const r = await runWorker({ ...baseJob(ctx, c, topic), warmup: 0, role: 'share', client: who });
  verifyRead(`${who} (share) on ${topic}`, r, c, checksum);
  return {
    rate: (c.records - (r.firstCount ?? 0)) / ((r.steadyMs ?? r.elapsedMs) / 1000),
    cpu: r.cpuUs / c.records,
    joinMs: r.joinMs ?? 0,
  };
}

/**
 * The columns every read table starts with: case, client, rec/s and its min-max, MB/s, CPU
 * µs/rec (in brackets for a JVM, whose CPU includes its start) and its min-max.
 */
function readColumns(c: Case, label: string, xs: readonly Sample[], java: boolean): string[] {
  const rate = median(xs.map((s) => s.rate));
  const cpu = median(xs.map((s) => s.cpu));
  return [
    `${c.valueSize === 1024 ? '1 KiB' : `${c.valueSize} B`} ${c.compression}`,
    label,
    k(rate),
    minMax(
      xs.map((s) => s.rate),
      k,
    ),
    ((rate * c.valueSize) / 1e6).toFixed(1),
    java ? `(${cpu.toFixed(2)})` : cpu.toFixed(2),
    minMax(
      xs.map((s) => s.cpu),
      (x) => x.toFixed(2),
    ),
  ];
}

function shareRows(c: Case, samples: Map<string, Sample[]>): string[][] {
  const rows: string[][] = [];
  const oursRate = median((samples.get('kafkats-share') ?? []).map((s) => s.rate));
  for (const who of SHARE_READERS) {
    const xs = samples.get(who) ?? [];
    if (xs.length === 0) continue;
    const rate = median(xs.map((s) => s.rate));
    const java = who === 'java-share';
    const group = who === 'kafkats-group';
    rows.push([
      ...readColumns(c, SHARE_LABEL[who], xs, java),
      group ? '-' : median(xs.map((s) => s.joinMs ?? 0)).toFixed(0),
      java ? (oursRate / rate).toFixed(2) : '',
    ]);
  }
  return rows;
}

function groupRows(c: Case, samples: Map<string, Sample[]>, bun: string): string[][] {
  const rows: string[][] = [];
  const ours = samples.get('kafkats-consumer') ?? [];
  const oursRate = median(ours.map((s) => s.rate));
  const oursCpu = median(ours.map((s) => s.cpu));
  for (const who of GROUP_READERS) {
    const xs = samples.get(who) ?? [];
    if (xs.length === 0) continue;
    const rate = median(xs.map((s) => s.rate));
    const cpu = median(xs.map((s) => s.cpu));
    const java = who.startsWith('java');
    const compared = who !== 'kafkats-consumer';
    rows.push([
      ...readColumns(c, groupLabel(who, bun), xs, java),
      median(xs.map((s) => s.joinMs ?? 0)).toFixed(0),
      compared ? (oursRate / rate).toFixed(2) : '',
      compared && !java ? (oursCpu / cpu).toFixed(2) : '',
    ]);
  }
  return rows;
}

/** Rotates the order per run so that no contestant always goes first or after another. */
function rotate<T>(xs: readonly T[], run: number): T[] {
  const k = run % xs.length;
  const out = [...xs.slice(k), ...xs.slice(0, k)];
  return run % 2 === 1 ? out.reverse() : out;
}

// ------------------------------------------------------------------------------- report

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const k = (x: number): string => (x >= 10_000 ? `${(x / 1000).toFixed(0)}k` : x.toFixed(0));
const minMax = (xs: readonly number[], f: (x: number) => string): string =>
  `${f(Math.min(...xs))}-${f(Math.max(...xs))}`;

function printTable(title: string, rows: string[][]): void {
  const widths = (rows[0] as string[]).map((_, i) =>
    Math.max(...rows.map((r) => (r[i] ?? '').length)),
  );
  console.log(title);
  for (const r of rows) {
    console.log(
      r
        .map((cell, i) =>
          i < 2 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number),
        )
        .join('  '),
    );
  }
}

function tableRows(
  c: Case,
  samples: Map<string, Sample[]>,
  order: readonly Reader[],
  base: Reader,
): string[][] {
  const rows: string[][] = [];
  const ours = samples.get(base) ?? [];
  const oursRate = median(ours.map((s) => s.rate));
  const oursCpu = median(ours.map((s) => s.cpu));
  for (const who of order) {
    const xs = samples.get(who) ?? [];
    if (xs.length === 0) continue;
    const rate = median(xs.map((s) => s.rate));
    const cpu = median(xs.map((s) => s.cpu));
    const java = who === 'java';
    const compared = who !== base && who !== 'kafkats-crc';
    rows.push([
      ...readColumns(c, LABEL[who], xs, java),
      compared ? (oursRate / rate).toFixed(2) : '',
      compared && !java ? (oursCpu / cpu).toFixed(2) : '',
    ]);
  }
  return rows;
}

const HEADER = [
  'case',
  'client',
  'rec/s',
  'min-max',
  'MB/s',
  'CPU µs/rec',
  'min-max',
  'ours/peer rate',
  'ours/peer CPU',
];

const GROUP_HEADER = [
  'case',
  'client',
  'rec/s',
  'min-max',
  'MB/s',
  'CPU µs/rec',
  'min-max',
  'join ms',
  'KIP-848/peer rate',
  'KIP-848/peer CPU',
];

const SHARE_HEADER = [
  'case',
  'client',
  'rec/s',
  'min-max',
  'MB/s',
  'CPU µs/rec',
  'min-max',
  'first records ms',
  'ours/Java rate',
];

// ------------------------------------------------------------------------------- rebalance

const REBALANCE_VARIANTS: readonly RebalanceVariant[] = [
  'consumer',
  'classic-cooperative',
  'classic-eager',
];
const REBALANCE_LABEL: Record<RebalanceVariant, string> = {
  consumer: 'KIP-848 (broker uniform assignor)',
  'classic-cooperative': 'classic, cooperative-sticky',
  'classic-eager': 'classic eager (range)',
};
const REBALANCE_PARTITIONS = 6;

/**
 * A member joins a group that is consuming: per variant, a fresh 6-partition topic with a
 * producer writing to every partition, kafkats Consumer A alone on it, then B subscribes
 * (both in one worker process). Smoke: one run per variant, the variants side by side.
 */
async function rebalanceTable(ctx: Context, smoke: boolean): Promise<string[][]> {
  const runs = smoke ? 1 : 3;
  const results = new Map<RebalanceVariant, RebalanceResult[]>();
  const once = async (variant: RebalanceVariant) => {
    const topic = newTopic(ctx, `rb-${variant}`);
    await ctx.admin.createTopic(topic, {
      partitions: REBALANCE_PARTITIONS,
      replicationFactor: 1,
    });
    const started = Date.now();
    const r = await runWorker({
      role: 'rebalance',
      variant,
      bootstrap: ctx.bootstrap,
      topic,
      partitions: REBALANCE_PARTITIONS,
      ratePerPartition: 200,
      steadyMs: smoke ? 300 : 3000,
    });
    trace(`rebalance ${variant}: ${Date.now() - started} ms ${JSON.stringify(r)}`);
    // Cross-check: the settled group splits the topic 3 + 3.
    if (r.ownedA !== REBALANCE_PARTITIONS / 2 || r.ownedB !== REBALANCE_PARTITIONS / 2)
      throw new Error(`rebalance ${variant}: settled as ${r.ownedA} + ${r.ownedB} partitions`);
    results.set(variant, [...(results.get(variant) ?? []), r]);
    // Smoke: the cluster goes away with its topics.
    if (!smoke) await ctx.admin.deleteTopic(topic);
  };
  if (smoke) await Promise.all(REBALANCE_VARIANTS.map(once));
  else
    for (let run = 0; run < runs; run++)
      for (const v of rotate(REBALANCE_VARIANTS, run)) await once(v);
  const rows: string[][] = [
    [
      'protocol',
      'assignor',
      'rebalance ms',
      'min-max',
      'B assigned ms',
      "A's gap ms",
      'min-max',
      'gap before B',
    ],
  ];
  const ms = (x: number) => x.toFixed(0);
  for (const v of REBALANCE_VARIANTS) {
    const xs = results.get(v) ?? [];
    const [protocol, assignor] = REBALANCE_LABEL[v].split(/, | \(/) as [string, string];
    rows.push([
      protocol,
      assignor.replace(/\)$/, ''),
      ms(median(xs.map((r) => r.rebalanceMs))),
      minMax(
        xs.map((r) => r.rebalanceMs),
        ms,
      ),
      ms(median(xs.map((r) => r.assignedMs))),
      ms(median(xs.map((r) => r.gapMs))),
      minMax(
        xs.map((r) => r.gapMs),
        ms,
      ),
      ms(median(xs.map((r) => r.baselineGapMs))),
    ]);
  }
  return rows;
}

// ------------------------------------------------------------------------------- suite

/** Runs the client suite and prints its tables. */
export async function runClientSuite(smoke: boolean): Promise<void> {
  const runs = smoke ? 1 : 3;
  // KAFKATS_BENCH_PARTS, a comma list: produce (the produce table), read (the read, group and
  // rebalance tables), share (the share-group table); default all three.
  const parts = new Set((process.env.KAFKATS_BENCH_PARTS ?? 'produce,read,share').split(','));
  const cases: Case[] = [];
  // Smoke: one case (the one with compression and the larger values), every contestant once.
  const only = (process.env.KAFKATS_BENCH_CASES ?? (smoke ? '1024-lz4' : '')).split(',');
  for (const valueSize of [100, 1024]) {
    for (const compression of ['none', 'lz4'] as const) {
      if (only[0] !== '' && !only.includes(`${valueSize}-${compression}`)) continue;
      const records = smoke ? 1_000 : valueSize === 100 ? 1_200_000 : 240_000;
      const readRecords = smoke ? 1_000 : valueSize === 100 ? 2_000_000 : 300_000;
      cases.push({ valueSize, compression, records, warmup: Math.floor(records / 4), readRecords });
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'kafkats-bench-client-'));
  const log4j = join(dir, 'log4j2.properties');
  writeFileSync(
    log4j,
    'rootLogger.level = WARN\nrootLogger.appenderRef.err.ref = ERR\n' +
      'appender.err.type = Console\nappender.err.name = ERR\nappender.err.target = SYSTEM_ERR\n' +
      'appender.err.layout.type = PatternLayout\nappender.err.layout.pattern = %d %p %c %m%n\n',
  );
  const valuesFile = new Map<number, string>();
  const pools = new Map<number, Buffer[]>();
  for (const size of [100, 1024]) {
    const values = makeValues(size);
    pools.set(size, values);
    const file = join(dir, `values-${size}.txt`);
    writeValuesFile(file, values);
    valuesFile.set(size, file);
  }

  // The Bun rows (produce and group tables) need the pinned Bun: set up before Kafka starts.
  const bun = parts.has('produce') || parts.has('read') ? await pinnedBun() : undefined;
  const bunVersion = bun?.version ?? 'not set up';
  let cluster: KafkaCluster | undefined;
  let admin: JavaAdmin;
  let bootstrap: string;
  const given = process.env.KAFKATS_BENCH_BROKER;
  if (given !== undefined && given !== '') {
    bootstrap = given;
    admin = new JavaAdmin({ clientConfig: { 'bootstrap.servers': given } });
  } else {
    const started = Date.now();
    cluster = await startCluster({ nodes: 1 });
    trace(`cluster: ${Date.now() - started} ms`);
    bootstrap = cluster.bootstrap;
    admin = cluster.admin;
  }
  const loadAtStart = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const javaClasses = await compileProducerRounds(dir);
  const ctx: Context = {
    bootstrap,
    admin,
    dir,
    log4j,
    javaClasses,
    valuesFile,
    topicSeq: 0,
    ...(bun === undefined ? {} : { bun }),
  };
  const produceTable: string[][] = [PRODUCE_HEADER];
  const readRows: string[][] = [HEADER];
  const groupTable: string[][] = [GROUP_HEADER];
  const shareTable: string[][] = [SHARE_HEADER];
  let rebalanceRows: string[][] = [];
  console.log(
    `suite: client (${smoke ? 'SMOKE: tiny counts, 1 run, figures mean nothing' : `${runs} runs per contestant, median and min-max`}; ` +
      `${given ? `broker ${given}` : '1-node Kafka 4.4.0 (testkit), RF 1'}, one 1-partition topic per run)\n` +
      '  2 shared cores, other engineers run Kafka on this machine: figures are noisy.\n' +
      `  produce: acks=all + idempotence, linger 5 ms / batch 16384 (kafkats, Java); kafkajs and platformatic: send() of ${Math.floor(BATCH_SIZE / 110)} (100 B) / ${Math.floor(BATCH_SIZE / 1034)} (1 KiB) records, 5 outstanding;\n` +
      "    kafkats: `await send(record, callback)` per record, or `await sendBatch(chunk, callback)` in the peers' chunks; Java: KafkaProducer.send(record, callback) per record, flush() per round (benchmarks/java/ProducerRounds.java);\n" +
      "    @kafkats/kafkajs (kafkajs 2.2 API on kafkats): the kafkajs contestant's code unchanged (same send() chunks and options, same eachBatch handler), only the import differs;\n" +
      `    timed: the records after a 1/4 warm-up, until all acknowledged. Java: one JVM, the same warm-up, then ${JAVA_ROUNDS} rounds of the same count: cold = round 1, warm = median of the last ${JAVA_WARM_ROUNDS}.\n` +
      `    kafkats warm: the \`await send\` contestant run as Java's (one process, the warm-up flushed, ${JAVA_ROUNDS} rounds, median of the last ${JAVA_WARM_ROUNDS}); Java warm's ratios are against it, every other row's against kafkats' first row.\n` +
      '    bound (uncompressed cases): the sendBatch loop (the same record objects and awaits) handing each chunk to one prebuilt idempotent Produce frame per request,\n' +
      '      written on a net.Socket with its sequence and CRC restamped, answers counted, not decoded: no client, what the loop and Node alone cost; its ratios are against sendBatch.\n' +
      '    CPU: the process, every thread (Node: process.cpuUsage; Java: OperatingSystemMXBean.getProcessCpuTime), over the timed records only.\n' +
      '    alloc B/rec: Node: V8 heap growth between collections (v8.GCProfiler; Buffer contents off the heap not counted); Java: ThreadMXBean allocated bytes of every thread.\n' +
      `  Bun ${bunVersion} rows: the worker of the kafkats Producer (produce) and of the KIP-848 Consumer (group consume), same code, job and options, run by Bun; ours = kafkats on Node.\n` +
      "    CPU: process.cpuUsage (getrusage: the process, every thread, as on Node); (alloc B/rec): JavaScriptCore's heap growth between collections as Bun's v8.GCProfiler reports it,\n" +
      '    not comparable with the Node rows: it counts Buffer and typed-array contents (a 1024-byte Uint8Array: 1097 B on Bun 1.4.5, 184 B of V8 heap on Node 20).\n' +
      '  read: the same prepared topic from offset 0, no CRC checks.\n' +
      '  ours/peer rate > 1: kafkats faster; ours/peer CPU < 1: kafkats uses less. (Java CPU) in read tables = whole JVM incl. start-up/JIT, not compared.',
  );
  try {
    for (const c of cases) {
      const name = `${c.valueSize} B ${c.compression}`;
      // produce
      const produced = new Map<ProduceRow, Sample[]>();
      // The smoke run's one case is lz4: the bound runs there uncompressed, so its code runs.
      const producers = PRODUCERS.filter((p) =>
        p === 'kafkats-js'
          ? c.compression === 'lz4'
          : p !== 'socket-floor' || c.compression === 'none' || smoke,
      );
      for (let run = 0; parts.has('produce') && run < runs; run++) {
        for (const who of rotate(producers, run)) {
          const started = Date.now();
          for (const [row, s] of await produceOnce(ctx, c, who)) {
            trace(`produce ${name} ${row}: ${Date.now() - started} ms`);
            produced.set(row, [...(produced.get(row) ?? []), s]);
          }
        }
      }
      produceTable.push(...produceRows(c, produced, bunVersion));
      if (parts.has('share')) {
        // share: a prepared topic of a quarter of the read count, read once by each share
        // group (a share consumer acknowledges every record: slower than a group read)
        const sc: Case = { ...c, records: Math.floor(c.readRecords / 4), warmup: 0 };
        const topic = newTopic(ctx, 's');
        await admin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
        await runWorker({ ...baseJob(ctx, sc, topic), role: 'produce', client: 'kafkats' });
        await verifyProduced(admin, topic, sc.records);
        const checksum = expectedChecksum(pools.get(c.valueSize) as Buffer[], sc.records);
        const shared = new Map<string, Sample[]>();
        for (let run = 0; run < runs; run++) {
          for (const who of rotate(SHARE_READERS, run)) {
            const started = Date.now();
            const s = await shareOnce(ctx, sc, topic, checksum, who);
            trace(`share ${name} ${who}: ${Date.now() - started} ms`);
            shared.set(who, [...(shared.get(who) ?? []), s]);
          }
        }
        shareTable.push(...shareRows(sc, shared));
        await admin.deleteTopic(topic);
      }
      if (!parts.has('read')) continue;
      // read: one prepared topic, written by kafkats, verified like a produce run
      const rc: Case = { ...c, records: c.readRecords, warmup: 0 };
      const topic = newTopic(ctx, 'r');
      await admin.createTopic(topic, { partitions: 1, replicationFactor: 1 });
      await runWorker({ ...baseJob(ctx, rc, topic), role: 'produce', client: 'kafkats' });
      await verifyProduced(admin, topic, rc.records);
      const checksum = expectedChecksum(pools.get(c.valueSize) as Buffer[], rc.records);
      const read = new Map<string, Sample[]>();
      for (let run = 0; run < runs; run++) {
        for (const who of rotate(READERS, run)) {
          const started = Date.now();
          const s = await readOnce(ctx, rc, topic, checksum, who);
          trace(`read ${name} ${who}: ${Date.now() - started} ms`);
          read.set(who, [...(read.get(who) ?? []), s]);
        }
      }
      readRows.push(...tableRows(c, read, READERS, 'kafkats'));
      const group = new Map<string, Sample[]>();
      for (let run = 0; run < runs; run++) {
        for (const who of rotate(GROUP_READERS, run)) {
          const started = Date.now();
          const s = await groupOnce(ctx, rc, topic, checksum, who);
          trace(`group ${name} ${who}: ${Date.now() - started} ms`);
          group.set(who, [...(group.get(who) ?? []), s]);
        }
      }
      groupTable.push(...groupRows(c, group, bunVersion));
      await admin.deleteTopic(topic);
      trace(`done: ${name}`);
    }
    if (parts.has('read')) rebalanceRows = await rebalanceTable(ctx, smoke);
  } finally {
    if (cluster === undefined) await admin.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const load = (): string =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  console.log(`  load average at the end: ${load()} (at the start: ${loadAtStart})`);
  const sizes = [...new Map(cases.map((c) => [c.valueSize, c])).values()];
  const produced = sizes.map((c) => `${c.records} x ${c.valueSize} B (+${c.warmup} warm-up)`);
  const read = sizes.map((c) => `${c.readRecords} x ${c.valueSize} B`);
  if (parts.has('produce'))
    printTable(`suite: client / produce, ${produced.join(', ')} per run`, produceTable);
  if (parts.has('share')) {
    const shareCounts = sizes.map((c) => `${Math.floor(c.readRecords / 4)} x ${c.valueSize} B`);
    printTable(
      `suite: client / share consume ${shareCounts.join(', ')} (KIP-932): each run joins a fresh share group (share.auto.offset.reset=earliest) on one prepared 1-partition topic ` +
        'and reads every record once, each poll accepting the last (implicit acknowledgement), key and value touched; rec/s from the first records handed out to the last ' +
        '(Java: ShareConsumerPerformance detailed stats every 100 ms, from the end of the first interval with records); first records ms: subscribe to them (the share group assigns ' +
        'on its own schedule, about one heartbeat interval); CPU: subscribe to the last record. (Java CPU) = whole JVM, not compared. ' +
        'kafkats Consumer (reference): a fresh KIP-848 consumer group reading the same topic, no acknowledgements, timed from its first assignment as in the group table',
      shareTable,
    );
  }
  if (!parts.has('read')) return;
  printTable(
    `suite: client / read ${read.join(', ')} from offset 0 to the end (no warm-up; group consumers timed from the join)`,
    readRows,
  );
  printTable(
    `suite: client / group consume ${read.join(', ')}: each run joins a fresh group on the same prepared topic and reads from earliest to the end, key and value touched; ` +
      'timed from the first assignment (join ms: subscribe to first assignment, shown apart); Java: ConsumerPerformance fetch time, group.protocol as named',
    groupTable,
  );
  printTable(
    `suite: client / rebalance when a member joins (${runs} runs per protocol, median and min-max): kafkats Consumer A reads a ${REBALANCE_PARTITIONS}-partition topic ` +
      'while 200 records/s/partition are produced, then B subscribes to the group. rebalance ms: B subscribes -> A and B own disjoint shares covering the topic ' +
      "and both received records since; A's gap: A's longest stretch without records meanwhile (gap before B: the same over the steady period before). " +
      'Intervals: classic heartbeat.interval.ms 3000 (client), KIP-848 group.consumer.heartbeat.interval.ms 5000 (broker default)',
    rebalanceRows,
  );
}
