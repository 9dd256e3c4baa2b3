import type { ProducerOptions } from '@kafkats/client';
import type { ClusterConfig } from '@kafkats/meta';
import { RemoteLogMetadataError } from './errors.js';

/** Name of Kafka's internal metadata topic (`TopicBasedRemoteLogMetadataManagerConfig`). */
export const METADATA_TOPIC = '__remote_log_metadata';
/** Partitions of a created metadata topic: Kafka's `remote.log.metadata.topic.num.partitions` default. */
export const DEFAULT_NUM_PARTITIONS = 50;
/** Replication factor of a created metadata topic: `remote.log.metadata.topic.replication.factor` default. */
export const DEFAULT_REPLICATION = 3;
/** `min.insync.replicas` of a created metadata topic: Kafka 4.4's `remote.log.metadata.topic.min.isr` default. */
export const DEFAULT_MIN_ISR = 2;
/** `retention.ms` of a created metadata topic: `remote.log.metadata.topic.retention.ms` default, unlimited. */
export const DEFAULT_RETENTION_MS = -1;
/**
 * How long a manager's write waits to be read back, ms: `remote.log.metadata.consume.wait.ms`
 * default (2 minutes).
 */
export const DEFAULT_CONSUME_WAIT_MS = 120_000;
/** Per-partition budget of one metadata Fetch, bytes (1 MiB: thousands of events). */
export const DEFAULT_METADATA_FETCH_MAX_BYTES = 1_048_576;
/**
 * How long the broker may hold a metadata Fetch, ms: Kafka's consumer `fetch.max.wait.ms`. An
 * idle partition costs one request per interval; cancellation does not wait for it.
 */
export const DEFAULT_METADATA_FETCH_MAX_WAIT = 500;
/** First pause after a failed metadata Fetch, ms (Kafka's `retry.backoff.ms`); doubles up to 1 s. */
export const DEFAULT_METADATA_FETCH_RETRY_BACKOFF = 100;
/** Deadline of provisioning the metadata topic (CreateTopics and waiting for leaders), ms. */
export const DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT = 30_000;

/**
 * A positive integer bound on the batches fetched ahead of the reader (the fetch engine's
 * `capacity`). Build one with {@link MetadataEventQueueCapacity}.
 */
export type MetadataEventQueueCapacity = number & {
  readonly __brand: 'MetadataEventQueueCapacity';
};

/**
 * Checks a queue capacity.
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_CONFIG_INVALID` unless an integer >= 1
 */
export function MetadataEventQueueCapacity(value: number): MetadataEventQueueCapacity {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RemoteLogMetadataError(
      'ERR_KAFKA_RLMM_CONFIG_INVALID',
      `MetadataEventQueueCapacity must be a positive integer, got ${value}`,
    );
  }
  return value as MetadataEventQueueCapacity;
}

/** Default capacity of the metadata event queue: 64 batches. */
export const DEFAULT_METADATA_EVENT_QUEUE_CAPACITY: MetadataEventQueueCapacity =
  MetadataEventQueueCapacity(64);

/** How a {@link KafkaMetadataEventLog} reaches and provisions its topic. Every field but `bootstrap` has a default. */
export interface KafkaMetadataLogConfig {
  /** `host:port` list, as an array or comma-separated. */
  readonly bootstrap: string | readonly string[];
  /** Connection settings of the cluster the log opens (TLS, SASL, timeouts); `readOnly` is set by the log. */
  readonly cluster?: Omit<ClusterConfig, 'readOnly'>;
  /** The metadata topic. Default {@link METADATA_TOPIC}. */
  readonly topic?: string;
  /** Partitions when the topic is created. Default {@link DEFAULT_NUM_PARTITIONS}; an existing topic's own count wins. */
  readonly numPartitions?: number;
  /** Replication factor when created. Default {@link DEFAULT_REPLICATION}. */
  readonly replicationFactor?: number;
  /**
   * `min.insync.replicas` when created, at most `replicationFactor`. Default
   * {@link DEFAULT_MIN_ISR}, or `replicationFactor` when that is smaller.
   */
  readonly minInsyncReplicas?: number;
  /** `retention.ms` when created: -1 or > 0. Default {@link DEFAULT_RETENTION_MS}. */
  readonly retentionMs?: number;
  /** `cleanup.policy` when created. Default `delete`, as Kafka. */
  readonly cleanupPolicy?: string;
  /** Default {@link DEFAULT_METADATA_FETCH_MAX_BYTES}. */
  readonly fetchMaxBytes?: number;
  /** Default {@link DEFAULT_METADATA_FETCH_MAX_WAIT}. */
  readonly fetchMaxWaitMs?: number;
  /** Default {@link DEFAULT_METADATA_FETCH_RETRY_BACKOFF}. */
  readonly fetchRetryBackoffMs?: number;
  /** Default {@link DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT}. */
  readonly topicCreateTimeoutMs?: number;
  /** Default {@link DEFAULT_METADATA_EVENT_QUEUE_CAPACITY}. */
  readonly queueCapacity?: MetadataEventQueueCapacity;
  /**
   * Producer settings (linger, batch size, compression, timeouts). `acks` is always 'all' and
   * idempotence always on, as Kafka's RLMM producer forces them.
   */
  readonly producer?: Omit<
    ProducerOptions,
    'acks' | 'idempotent' | 'transactionalId' | 'transactionTimeoutMs'
  >;
}

/** The config with every default filled in, validated. */
export interface ResolvedLogConfig {
  readonly topic: string;
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
  readonly retentionMs: number;
  readonly cleanupPolicy: string;
  readonly fetchMaxBytes: number;
  readonly fetchMaxWaitMs: number;
  readonly fetchRetryBackoffMs: number;
  readonly topicCreateTimeoutMs: number;
  readonly queueCapacity: MetadataEventQueueCapacity;
}

/**
 * Fills in the defaults and validates as Kafka's config does.
 * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_CONFIG_INVALID`
 */
export function resolveLogConfig(config: KafkaMetadataLogConfig): ResolvedLogConfig {
  const bad = (what: string) =>
    new RemoteLogMetadataError('ERR_KAFKA_RLMM_CONFIG_INVALID', `KafkaMetadataLogConfig: ${what}`);
  const int = (name: string, value: number | undefined, fallback: number, min: number) => {
    const v = value ?? fallback;
    if (!Number.isInteger(v) || v < min || v > 0x7fffffff)
      throw bad(`${name} must be an integer >= ${min}, got ${v}`);
    return v;
  };
  const retentionMs = config.retentionMs ?? DEFAULT_RETENTION_MS;
  if (!Number.isInteger(retentionMs) || (retentionMs !== -1 && retentionMs <= 0)) {
    throw bad(`retentionMs must be -1 or > 0, got ${retentionMs}`);
  }
  const topic = config.topic ?? METADATA_TOPIC;
  if (topic.length === 0) throw bad('topic must not be empty');
  const replicationFactor = int(
    'replicationFactor',
    config.replicationFactor,
    DEFAULT_REPLICATION,
    1,
  );
  // Writes use acks=all: with more in-sync replicas required than there are replicas, every
  // write of the created topic would fail NOT_ENOUGH_REPLICAS.
  const minInsyncReplicas = int(
    'minInsyncReplicas',
    config.minInsyncReplicas,
    Math.min(DEFAULT_MIN_ISR, replicationFactor),
    1,
  );
  if (minInsyncReplicas > replicationFactor)
    throw bad(
      `minInsyncReplicas ${minInsyncReplicas} exceeds replicationFactor ${replicationFactor}: every acks=all write would be refused`,
    );
  return {
    topic,
    numPartitions: int('numPartitions', config.numPartitions, DEFAULT_NUM_PARTITIONS, 1),
    replicationFactor,
    minInsyncReplicas,
    retentionMs,
    cleanupPolicy: config.cleanupPolicy ?? 'delete',
    fetchMaxBytes: int('fetchMaxBytes', config.fetchMaxBytes, DEFAULT_METADATA_FETCH_MAX_BYTES, 1),
    fetchMaxWaitMs: int(
      'fetchMaxWaitMs',
      config.fetchMaxWaitMs,
      DEFAULT_METADATA_FETCH_MAX_WAIT,
      0,
    ),
    fetchRetryBackoffMs: int(
      'fetchRetryBackoffMs',
      config.fetchRetryBackoffMs,
      DEFAULT_METADATA_FETCH_RETRY_BACKOFF,
      0,
    ),
    topicCreateTimeoutMs: int(
      'topicCreateTimeoutMs',
      config.topicCreateTimeoutMs,
      DEFAULT_METADATA_TOPIC_CREATE_TIMEOUT,
      1,
    ),
    queueCapacity: MetadataEventQueueCapacity(
      config.queueCapacity ?? DEFAULT_METADATA_EVENT_QUEUE_CAPACITY,
    ),
  };
}
