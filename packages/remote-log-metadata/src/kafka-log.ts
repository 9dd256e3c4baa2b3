import { Admin, MultiPartitionReader, type PartitionBatch, Producer } from '@kafkats/client';
import { ZERO_UUID } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { type KafkaMetadataLogConfig, type ResolvedLogConfig, resolveLogConfig } from './config.js';
import { RemoteLogMetadataError } from './errors.js';
import type {
  MetadataEventLog,
  MetadataLogBatch,
  MetadataLogRecord,
  MetadataLogWriteResult,
} from './event-log.js';
import { visitRange } from './range.js';
import { metadataLogRecord } from './serde.js';

const topicError = (detail: string, cause?: unknown) =>
  new RemoteLogMetadataError(
    'ERR_KAFKA_RLMM_TOPIC_INVALID',
    detail,
    cause === undefined ? {} : { cause },
  );

/** The topic as provisioning found or made it. */
interface TopicFacts {
  readonly topicId: string;
  readonly numPartitions: number;
}

async function describe(
  admin: Admin,
  topic: string,
  timeoutMs: number,
): Promise<TopicFacts | undefined> {
  const [d] = (await admin.describeTopics([topic], { timeoutMs })).topics;
  if (d === undefined || d.error?.errorName === 'UNKNOWN_TOPIC_OR_PARTITION') return undefined;
  if (d.error !== undefined)
    throw topicError(`cannot describe metadata topic ${topic}: ${d.error.message}`, d.error);
  if (d.topicId === ZERO_UUID) {
    // Fetch v13+ addresses the topic by id: a zero id would stall every read, not fail it.
    throw topicError(`metadata topic ${topic} has the zero topic id`);
  }
  return { topicId: d.topicId, numPartitions: d.partitions.length };
}

/**
 * Kafka's `TopicBasedRemoteLogMetadataManager` topic creation: an existing topic is reused as it
 * is (its partition count wins); an absent one is created with the cleanup policy, retention,
 * min ISR and `remote.storage.enable=false` (the broker never tiers this topic).
 */
async function provision(admin: Admin, c: ResolvedLogConfig): Promise<TopicFacts> {
  const existing = await describe(admin, c.topic, c.topicCreateTimeoutMs);
  if (existing !== undefined) return existing;
  const [created] = (
    await admin.createTopics(
      [
        {
          name: c.topic,
          numPartitions: c.numPartitions,
          replicationFactor: c.replicationFactor,
          configs: {
            'cleanup.policy': c.cleanupPolicy,
            'retention.ms': String(c.retentionMs),
            'min.insync.replicas': String(c.minInsyncReplicas),
            'remote.storage.enable': 'false',
          },
        },
      ],
      { timeoutMs: c.topicCreateTimeoutMs, waitForLeaders: true },
    )
  ).topics;
  if (created?.error?.errorName === 'INVALID_REPLICATION_FACTOR') {
    const brokers = admin.cluster.snapshot().brokers.length;
    throw topicError(
      `cannot create metadata topic ${c.topic}: replicationFactor ${c.replicationFactor} (and minInsyncReplicas ${c.minInsyncReplicas}) need at least ${c.replicationFactor} brokers, and the cluster has ${brokers}; set KafkaMetadataLogConfig replicationFactor and minInsyncReplicas to at most ${brokers}`,
      created.error,
    );
  }
  if (created?.error !== undefined && created.error.errorName !== 'TOPIC_ALREADY_EXISTS') {
    throw topicError(
      `cannot create metadata topic ${c.topic}: ${created.error.message}`,
      created.error,
    );
  }
  if (created?.error !== undefined)
    await admin.waitForTopics([c.topic], { timeoutMs: c.topicCreateTimeoutMs });
  const facts = await describe(admin, c.topic, c.topicCreateTimeoutMs);
  if (facts === undefined)
    throw topicError(`metadata topic ${c.topic} is not known after it was created`);
  return facts;
}

const toBatch = (b: PartitionBatch): MetadataLogBatch => ({
  partition: b.partition,
  records: b.records.map((r) => metadataLogRecord(r.offset, r.value, r.timestamp)),
  nextOffset: b.nextOffset,
});

/**
 * The metadata event log in a Kafka topic (`__remote_log_metadata` by default), as Kafka's
 * topic-based RLMM keeps it: values serialised by Kafka's serde, null keys, each written to an
 * explicit partition by an idempotent acks=all producer.
 *
 * Reads: the client's fetch engine over every assigned partition ({@link MultiPartitionReader}):
 * one connection and one fetch session per leader broker (a long Fetch would hold up every
 * other request on a shared connection), a bounded number of batches fetched ahead. No
 * consumer group and no committed offsets: the caller assigns
 * partitions at the offsets it owns. Positions deleted by retention restart at the earliest
 * offset.
 */
export class KafkaMetadataEventLog implements MetadataEventLog {
  readonly topicId: string;
  readonly numPartitions: number;
  /** The cluster the log talks through (owned: closed by {@link close}). */
  readonly cluster: Cluster;
  readonly #config: ResolvedLogConfig;
  readonly #admin: Admin;
  readonly #producer: Producer | undefined;
  readonly #reader: MultiPartitionReader;
  readonly #assigned = new Set<number>();
  #closed = false;

  private constructor(
    cluster: Cluster,
    config: ResolvedLogConfig,
    facts: TopicFacts,
    producer: Producer | undefined,
  ) {
    this.cluster = cluster;
    this.#config = config;
    this.#admin = new Admin(cluster);
    this.topicId = facts.topicId;
    this.numPartitions = facts.numPartitions;
    this.#producer = producer;
    this.#reader = new MultiPartitionReader(cluster, [], {
      capacity: config.queueCapacity,
      partitionMaxBytes: config.fetchMaxBytes,
      maxWaitMs: config.fetchMaxWaitMs,
      retryBackoffMs: config.fetchRetryBackoffMs,
      offsetOutOfRange: 'earliest',
    });
  }

  /**
   * Connects, provisions the topic once through the admin client (reuse or create), learns
   * its id, and opens the idempotent producer.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_CONFIG_INVALID`, `ERR_KAFKA_RLMM_TOPIC_INVALID`
   *   (zero topic id, creation refused: cause is the broker's ProtocolError); the cluster's
   *   connect errors
   */
  static async start(config: KafkaMetadataLogConfig): Promise<KafkaMetadataEventLog> {
    const resolved = resolveLogConfig(config);
    const cluster = await Cluster.connect(config.bootstrap, { ...config.cluster });
    try {
      const facts = await provision(new Admin(cluster), resolved);
      const producer = new Producer(cluster, { ...config.producer, acks: 'all', idempotent: true });
      return new KafkaMetadataEventLog(cluster, resolved, facts, producer);
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  /**
   * Opens an existing topic for reading only: no producer and no provisioning, on a cluster
   * opened read-only, so that nothing but reads (Metadata, ListOffsets, Fetch, ApiVersions)
   * is ever sent: a principal with READ and DESCRIBE on the topic is enough.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_TOPIC_INVALID` when the topic does not exist
   *   or is not visible; the cluster's connect errors
   */
  static async openReadOnly(config: KafkaMetadataLogConfig): Promise<KafkaMetadataEventLog> {
    const resolved = resolveLogConfig(config);
    const cluster = await Cluster.connect(config.bootstrap, { ...config.cluster, readOnly: true });
    try {
      const facts = await describe(
        new Admin(cluster),
        resolved.topic,
        resolved.topicCreateTimeoutMs,
      );
      if (facts === undefined) throw topicError(`metadata topic ${resolved.topic} does not exist`);
      return new KafkaMetadataEventLog(cluster, resolved, facts, undefined);
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  /** The topic's name. */
  get topic(): string {
    return this.#config.topic;
  }

  /** True when opened with {@link openReadOnly}. */
  get readOnly(): boolean {
    return this.#producer === undefined;
  }

  #ensureOpen(): void {
    if (this.#closed)
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_STATE',
        `metadata log ${this.topic} is closed`,
      );
  }

  /**
   * Writes a value with a null key to `partition` and resolves with its offset once every
   * in-sync replica has it. The offset is -1n in the one case Kafka's producer does not learn
   * it (a retried batch the broker reports as a duplicate).
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_STATE` when read-only or closed; the
   *   producer's errors (DeliveryTimeoutError, the broker's ProtocolError...)
   */
  async write(partition: number, value: Buffer): Promise<MetadataLogWriteResult> {
    this.#ensureOpen();
    if (this.#producer === undefined) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_STATE',
        `metadata log ${this.topic} was opened read-only`,
      );
    }
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.numPartitions) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_CONFIG_INVALID',
        `metadata partition ${partition} is not in [0, ${this.numPartitions})`,
      );
    }
    const sent = await this.#producer.send({ topic: this.topic, partition, key: null, value });
    return { partition: sent.partition, offset: sent.offset };
  }

  /**
   * Starts reading `partition` at `fromOffset`.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_STATE` when it is read already or the log is closed
   */
  assign(partition: number, fromOffset: bigint): void {
    this.#ensureOpen();
    if (this.#assigned.has(partition)) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_STATE',
        `metadata partition ${partition} is read already`,
      );
    }
    this.#assigned.add(partition);
    this.#reader.add({ topic: this.topic, partition, startOffset: fromOffset });
  }

  /** Stops reading the partition and drops what was fetched of it. */
  async unassign(partition: number): Promise<void> {
    if (!this.#assigned.delete(partition)) return;
    await this.#reader.remove(this.topic, partition);
  }

  assigned(): number[] {
    return [...this.#assigned].sort((a, b) => a - b);
  }

  /**
   * Batches of every assigned partition. Ends when `signal` aborts (at once, even while
   * waiting) or the log closes; throws an error the fetch engine could not retry (e.g.
   * TOPIC_AUTHORIZATION_FAILED).
   */
  async *read(signal?: AbortSignal): AsyncGenerator<MetadataLogBatch, void, undefined> {
    const it = this.#reader[Symbol.asyncIterator]();
    let stop: () => void = () => {};
    const stopped = new Promise<undefined>((resolve) => {
      stop = () => resolve(undefined);
    });
    if (signal?.aborted) return;
    signal?.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        const next = await Promise.race([it.next(), stopped]);
        if (next === undefined) {
          // Abandon the pending take: it settles when the log closes or a batch arrives.
          void it.return?.().catch(() => {});
          return;
        }
        if (next.done) return;
        if (!this.#assigned.has(next.value.partition)) continue;
        yield toBatch(next.value);
      }
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * The high-water mark of each partition (default all), from one ListOffsets(latest) round:
   * no partition needs to have been read.
   * @throws the partition's error (TOPIC_AUTHORIZATION_FAILED, OperationTimeoutError...)
   */
  async highWaterMarks(partitions?: readonly number[]): Promise<Map<number, bigint>> {
    this.#ensureOpen();
    const which = partitions ?? Array.from({ length: this.numPartitions }, (_, i) => i);
    const result = await this.#admin.listOffsets(
      which.map((partition) => ({ topic: this.topic, partition, spec: 'latest' as const })),
    );
    const out = new Map<number, bigint>();
    for (const p of result.partitions) {
      if (p.error !== undefined) throw p.error;
      out.set(p.partition, p.offset ?? 0n);
    }
    return out;
  }

  /**
   * Visits the records of `[from, to)` of one partition, stopping early at the high-water mark
   * the read started with; a page (one Fetch answer) at a time from the leader, following it
   * when it moves.
   */
  async visitRange(
    partition: number,
    from: bigint,
    to: bigint,
    visitor: (record: MetadataLogRecord) => void | Promise<void>,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#ensureOpen();
    const hwm = (await this.highWaterMarks([partition])).get(partition) ?? 0n;
    const end = to < hwm ? to : hwm;
    await visitRange(this.cluster, this.#config, partition, from, end, visitor, options.signal);
  }

  /** Stops reading, flushes and closes the producer, closes the cluster. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader.close();
    await this.#producer?.close();
    await this.cluster.close();
  }
}
