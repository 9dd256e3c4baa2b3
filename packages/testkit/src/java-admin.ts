import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { kafkaDist } from './dist.js';
import { JavaAdminError, TestkitError, TestkitErrorCode } from './errors.js';
import { compileJava, toolJvmFlags } from './java.js';
import { OWNER_PROPERTY, onProcessExit } from './reaper.js';

/** A topic as Kafka's AdminClient describes it. */
export interface JavaTopicDescription {
  name: string;
  /** Kafka's uuid text (URL-safe base64, 22 chars). */
  topicId: string;
  internal: boolean;
  partitions: { partition: number; leader: number; replicas: number[]; isr: number[] }[];
}

/** The cluster as Kafka's AdminClient describes it. `controller` is whatever the broker reports (in KRaft, a random broker). */
export interface JavaClusterDescription {
  clusterId: string;
  controller: number;
  nodes: { id: number; host: string; port: number; rack: string | null }[];
}

/** Bytes as given to {@link JavaAdmin.produce}: a string is UTF-8. */
export type BytesInput = Buffer | Uint8Array | string | null;

/** One record to produce. */
export interface ProduceRecord {
  key?: BytesInput;
  value: BytesInput;
  headers?: readonly { key: string; value: BytesInput }[];
  /** Explicit partition; default: Kafka's default partitioner. */
  partition?: number;
  /** CreateTime in ms since the epoch; default: now. */
  timestamp?: bigint | number;
}

/** Where a produced record landed. */
export interface ProducedRecord {
  partition: number;
  offset: bigint;
  timestamp: bigint;
}

/** A record read back by Kafka's KafkaConsumer. */
export interface ConsumedRecord {
  partition: number;
  offset: bigint;
  timestamp: bigint;
  timestampType: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
  leaderEpoch: number | null;
}

/** One active producer on a partition, as the leader reports it (DescribeProducers). */
export interface ProducerState {
  producerId: bigint;
  producerEpoch: number;
  /** Sequence number of the last batch's last record; -1 when none. */
  lastSequence: number;
  lastTimestamp: bigint;
  coordinatorEpoch: number | null;
  currentTransactionStartOffset: bigint | null;
}

/** Options of {@link JavaAdmin.produce}. */
export interface ProduceOptions {
  compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
  /** Default `all`. */
  acks?: 'all' | '1' | '0' | -1 | 0 | 1;
  /** Default true (Kafka's producer default). */
  idempotent?: boolean;
  lingerMs?: number;
  /** Delivery and max-block timeout in ms, default 30000. */
  timeoutMs?: number;
  /** Further producer properties (not transactional.id: use `transactionalId`). */
  configs?: Readonly<Record<string, string>>;
  /** Wrap the whole call in one transaction of this transactional id (committed unless `abort`). */
  transactionalId?: string;
  /** With `transactionalId`: abort instead of commit. */
  abort?: boolean;
}

/** Options of {@link JavaAdmin.consume}. Assign mode, no group, nothing committed. */
export interface ConsumeOptions {
  /** One partition; default every partition of the topic. */
  partition?: number;
  /** Offset to seek every assigned partition to. Default 0. */
  fromOffset?: bigint | number;
  /** Stop after this many records. Default: unlimited (until the timeout). */
  maxRecords?: number;
  /** Stop after this long even with fewer records (not an error). Default 10000. */
  timeoutMs?: number;
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  configs?: Readonly<Record<string, string>>;
}

/** An ACL binding in Kafka's enum names. */
export interface AclBindingSpec {
  /** TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, ... Default TOPIC. */
  resourceType?: string;
  name: string;
  /** LITERAL or PREFIXED. Default LITERAL. */
  patternType?: string;
  /** e.g. `User:alice`. */
  principal: string;
  host?: string;
  /** READ, WRITE, DESCRIBE, CREATE, ALL, ... */
  operation: string;
  /** ALLOW or DENY. Default ALLOW. */
  permission?: string;
}

/** An ACL filter; omitted fields match anything. */
export type AclFilterSpec = Partial<AclBindingSpec>;

/** How to start a Java admin process. */
export interface JavaAdminConfig {
  /** Java client properties shared by the admin, producers and consumers (bootstrap.servers at least). */
  clientConfig: Readonly<Record<string, string>>;
  /** Default per-request timeout in ms. Default 120000. */
  requestTimeoutMs?: number;
}

interface Pending {
  op: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Reply {
  id: number | null;
  ok?: boolean;
  ready?: boolean;
  result?: unknown;
  error?: { type: string; message: string };
}

function encodeBytes(value: BytesInput | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('base64');
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
}

function decodeBytes(value: string | null): Buffer | null {
  return value === null ? null : Buffer.from(value, 'base64');
}

/**
 * Apache Kafka's own Java AdminClient, KafkaProducer and KafkaConsumer (from the pinned
 * release's jars), driven over JSON lines: the independent second client that integration
 * tests assert with. One long-lived JVM (java/JavaAdmin.java) per instance, started on the
 * first request; requests run concurrently inside it. Errors from Kafka reject with
 * {@link JavaAdminError} (`javaType` is the exception's class name).
 */
export class JavaAdmin {
  readonly clientConfig: Readonly<Record<string, string>>;
  private readonly requestTimeoutMs: number;
  private child: ChildProcessWithoutNullStreams | null = null;
  private starting: Promise<ChildProcessWithoutNullStreams> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  private closed = false;
  private unhook: (() => void) | null = null;

  constructor(config: JavaAdminConfig) {
    this.clientConfig = { ...config.clientConfig };
    this.requestTimeoutMs = config.requestTimeoutMs ?? 120_000;
  }

  /** The bootstrap servers this admin talks to. */
  get bootstrap(): string {
    return this.clientConfig['bootstrap.servers'] ?? '';
  }

  private start(): Promise<ChildProcessWithoutNullStreams> {
    if (this.child !== null) return Promise.resolve(this.child);
    if (this.starting === null) {
      this.starting = this.spawnProcess().finally(() => {
        this.starting = null;
      });
    }
    return this.starting;
  }

  private async spawnProcess(): Promise<ChildProcessWithoutNullStreams> {
    const classes = await compileJava('JavaAdmin');
    if (this.closed)
      throw new TestkitError(TestkitErrorCode.JavaAdminUnavailable, 'java admin is closed');
    const dist = kafkaDist();
    const child = spawn(
      'java',
      [
        ...toolJvmFlags(),
        `-D${OWNER_PROPERTY}=${process.pid}`,
        '-cp',
        `${classes}:${dist.classpath}`,
        'JavaAdmin',
        JSON.stringify(this.clientConfig),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child = child;
    this.unhook = onProcessExit(() => child.kill('SIGKILL'));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-4000);
    });
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    child.on('error', (error) => this.onExit(`cannot start java: ${error.message}`));
    child.on('exit', (code, signal) => this.onExit(`exited (${code ?? signal})`));
    child.stdin.on('error', () => {
      // the process died; onExit reports it
    });
    return child;
  }

  private onLine(line: string): void {
    let reply: Reply;
    try {
      reply = JSON.parse(line) as Reply;
    } catch {
      this.stderrTail = `${this.stderrTail}\n(stdout) ${line}`.slice(-4000);
      return;
    }
    if (reply.ready === true || reply.id === null) return;
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    this.pending.delete(reply.id);
    clearTimeout(pending.timer);
    this.updateRef();
    if (reply.ok === true) pending.resolve(reply.result);
    else
      pending.reject(
        new JavaAdminError(pending.op, reply.error?.type ?? 'Unknown', reply.error?.message ?? ''),
      );
  }

  private onExit(reason: string): void {
    this.child = null;
    this.unhook?.();
    this.unhook = null;
    const error = new TestkitError(
      TestkitErrorCode.JavaAdminUnavailable,
      `java admin for ${this.bootstrap} ${reason}; stderr tail:\n${this.stderrTail}`,
    );
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(error);
    }
  }

  // The JVM must not keep a plain script alive when idle, yet must while a request is out.
  private updateRef(): void {
    const child = this.child;
    if (child === null) return;
    const streams = [child.stdout, child.stderr, child.stdin] as unknown as {
      ref?(): void;
      unref?(): void;
    }[];
    if (this.pending.size > 0) {
      child.ref();
      for (const s of streams) s.ref?.();
    } else {
      child.unref();
      for (const s of streams) s.unref?.();
    }
  }

  /**
   * Sends one request to the Java side. Public for ops not wrapped below; prefer the typed methods.
   * @throws JavaAdminError when Kafka's client threw; TestkitError ERR_KAFKA_TESTKIT_JAVA_ADMIN_UNAVAILABLE on timeout or a dead process.
   */
  async request<T>(
    op: string,
    args: Record<string, unknown> = {},
    timeoutMs = this.requestTimeoutMs,
  ): Promise<T> {
    if (this.closed)
      throw new TestkitError(TestkitErrorCode.JavaAdminUnavailable, 'java admin is closed');
    const child = await this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.updateRef();
        reject(
          new TestkitError(
            TestkitErrorCode.JavaAdminUnavailable,
            `java admin ${op} on ${this.bootstrap} did not answer in ${timeoutMs} ms; stderr tail:\n${this.stderrTail}`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { op, resolve: resolve as (v: unknown) => void, reject, timer });
      this.updateRef();
      child.stdin.write(`${JSON.stringify({ id, op, args })}\n`);
    });
  }

  /** Resolves once the JVM answers (useful to pay the start-up cost up front). */
  async ping(): Promise<void> {
    await this.request('ping');
  }

  /**
   * Creates a topic and (by default) waits until every partition has a leader; resolves with
   * the description that showed it (a later describe may reach a broker that lags behind).
   * `assignments[p]` lists partition p's replicas and excludes partitions/replicationFactor.
   */
  createTopic(
    name: string,
    options: {
      partitions?: number;
      replicationFactor?: number;
      configs?: Readonly<Record<string, string>>;
      assignments?: readonly (readonly number[])[];
      waitForLeaders?: boolean;
    } = {},
  ): Promise<JavaTopicDescription> {
    return this.request('createTopic', { name, ...options });
  }

  /** Describes one topic (partitions, leaders, replicas, ISR, topic id). */
  describeTopic(name: string): Promise<JavaTopicDescription> {
    return this.request('describeTopic', { name });
  }

  /** Topic names, sorted; internal topics only when asked. */
  listTopics(options: { internal?: boolean } = {}): Promise<string[]> {
    return this.request('listTopics', { internal: options.internal ?? false });
  }

  /** Deletes one topic. */
  async deleteTopic(name: string): Promise<void> {
    await this.request('deleteTopic', { name });
  }

  /** Cluster id, reported controller and the registered brokers (sorted by id). */
  describeCluster(): Promise<JavaClusterDescription> {
    return this.request('describeCluster');
  }

  /** Raises a topic's partition count to `totalCount`. */
  async createPartitions(name: string, totalCount: number): Promise<void> {
    await this.request('createPartitions', { name, totalCount });
  }

  /** A topic's or broker's effective configuration (name -> value, null when sensitive/unset). */
  describeConfigs(type: 'topic' | 'broker', name: string): Promise<Record<string, string | null>> {
    return this.request('describeConfigs', { type, name });
  }

  /** IncrementalAlterConfigs: SET the given keys, DELETE the listed ones. */
  async alterConfigs(
    type: 'topic' | 'broker',
    name: string,
    set: Readonly<Record<string, string>>,
    remove: readonly string[] = [],
  ): Promise<void> {
    await this.request('alterConfigs', { type, name, set, delete: remove });
  }

  /** Preferred (default) or unclean leader election; `error` is null per partition on success. */
  electLeaders(
    topic: string,
    options: { partitions?: readonly number[]; type?: 'preferred' | 'unclean' } = {},
  ): Promise<{ partition: number; error: string | null }[]> {
    return this.request('electLeaders', { topic, ...options });
  }

  /** Starts reassignments: partition -> new replica list. Poll {@link listReassignments}. */
  async reassignPartitions(
    topic: string,
    assignments: Readonly<Record<number, readonly number[]>>,
  ): Promise<void> {
    await this.request('reassignPartitions', { topic, assignments });
  }

  /** Reassignments in progress. */
  listReassignments(): Promise<{ topic: string; partition: number; replicas: number[] }[]> {
    return this.request('listReassignments');
  }

  /** ListOffsets for every (or the given) partition: earliest, latest, maxTimestamp or a timestamp. */
  async listOffsets(
    topic: string,
    spec: 'earliest' | 'latest' | 'maxTimestamp' | bigint | number = 'latest',
    options: { partitions?: readonly number[] } = {},
  ): Promise<{ partition: number; offset: bigint; timestamp: bigint }[]> {
    const raw = await this.request<{ partition: number; offset: string; timestamp: string }[]>(
      'listOffsets',
      {
        topic,
        spec: String(spec),
        ...options,
      },
    );
    return raw.map((r) => ({
      partition: r.partition,
      offset: BigInt(r.offset),
      timestamp: BigInt(r.timestamp),
    }));
  }

  /**
   * DescribeProducers (KIP-664): the idempotent/transactional producer state each partition
   * leader keeps, to check producer ids, epochs and sequences from outside our own client.
   */
  async describeProducers(
    topic: string,
    options: { partitions?: readonly number[] } = {},
  ): Promise<{ partition: number; producers: ProducerState[] }[]> {
    const raw = await this.request<
      {
        partition: number;
        producers: {
          producerId: string;
          producerEpoch: number;
          lastSequence: number;
          lastTimestamp: string;
          coordinatorEpoch: number | null;
          currentTransactionStartOffset: string | null;
        }[];
      }[]
    >('describeProducers', { topic, ...options });
    return raw.map((p) => ({
      partition: p.partition,
      producers: p.producers.map((s) => ({
        producerId: BigInt(s.producerId),
        producerEpoch: s.producerEpoch,
        lastSequence: s.lastSequence,
        lastTimestamp: BigInt(s.lastTimestamp),
        coordinatorEpoch: s.coordinatorEpoch,
        currentTransactionStartOffset:
          s.currentTransactionStartOffset === null ? null : BigInt(s.currentTransactionStartOffset),
      })),
    }));
  }

  /** Creates ACL bindings (the cluster needs `acls: true`). */
  async createAcls(acls: readonly AclBindingSpec[]): Promise<void> {
    await this.request('createAcls', { acls });
  }

  /** Deletes the bindings matching a filter and returns them. */
  deleteAcls(filter: AclFilterSpec = {}): Promise<Required<AclBindingSpec>[]> {
    return this.request('deleteAcls', { filter });
  }

  /** Lists the bindings matching a filter. */
  describeAcls(filter: AclFilterSpec = {}): Promise<Required<AclBindingSpec>[]> {
    return this.request('describeAcls', { filter });
  }

  /**
   * Produces with a real KafkaProducer (one per call, flushed and closed before resolving).
   * Resolves with each record's partition, offset and timestamp, in input order.
   */
  async produce(
    topic: string,
    records: readonly ProduceRecord[],
    options: ProduceOptions = {},
  ): Promise<ProducedRecord[]> {
    const wire = records.map((r) => ({
      key: encodeBytes(r.key),
      value: encodeBytes(r.value),
      headers: (r.headers ?? []).map((h) => ({ key: h.key, value: encodeBytes(h.value) })),
      partition: r.partition ?? null,
      timestamp: r.timestamp === undefined ? null : String(r.timestamp),
    }));
    const args: Record<string, unknown> = { topic, records: wire };
    if (options.compression !== undefined) args.compression = options.compression;
    if (options.acks !== undefined) args.acks = String(options.acks);
    if (options.idempotent !== undefined) args.idempotent = options.idempotent;
    if (options.lingerMs !== undefined) args.lingerMs = String(options.lingerMs);
    if (options.timeoutMs !== undefined) args.timeoutMs = String(options.timeoutMs);
    if (options.configs !== undefined) args.configs = options.configs;
    if (options.transactionalId !== undefined) args.transactionalId = options.transactionalId;
    if (options.abort !== undefined) args.abort = options.abort;
    const raw = await this.request<{ partition: number; offset: string; timestamp: string }[]>(
      'produce',
      args,
      (options.timeoutMs ?? 30_000) + 60_000,
    );
    return raw.map((r) => ({
      partition: r.partition,
      offset: BigInt(r.offset),
      timestamp: BigInt(r.timestamp),
    }));
  }

  /**
   * Reads with a real KafkaConsumer in assign mode (no group, nothing committed), from
   * `fromOffset` on every assigned partition, until `maxRecords` or `timeoutMs`. Fewer records
   * than asked is not an error: assert on the count.
   */
  async consume(topic: string, options: ConsumeOptions = {}): Promise<ConsumedRecord[]> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const args: Record<string, unknown> = {
      topic,
      timeoutMs,
      fromOffset: String(options.fromOffset ?? 0),
    };
    if (options.partition !== undefined) args.partition = options.partition;
    if (options.maxRecords !== undefined) args.maxRecords = options.maxRecords;
    if (options.isolationLevel !== undefined) args.isolationLevel = options.isolationLevel;
    if (options.configs !== undefined) args.configs = options.configs;
    const raw = await this.request<
      {
        partition: number;
        offset: string;
        timestamp: string;
        timestampType: string;
        key: string | null;
        value: string | null;
        headers: { key: string; value: string | null }[];
        leaderEpoch?: number;
      }[]
    >('consume', args, timeoutMs + 60_000);
    return raw.map((r) => ({
      partition: r.partition,
      offset: BigInt(r.offset),
      timestamp: BigInt(r.timestamp),
      timestampType: r.timestampType,
      key: decodeBytes(r.key),
      value: decodeBytes(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: decodeBytes(h.value) })),
      leaderEpoch: r.leaderEpoch ?? null,
    }));
  }

  /** Ends the JVM (graceful, then SIGKILL after 5 s). Further requests reject. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const child =
      this.child ?? (this.starting === null ? null : await this.starting.catch(() => null));
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.stdin.end(`${JSON.stringify({ id: 0, op: 'close' })}\n`);
    });
  }
}
