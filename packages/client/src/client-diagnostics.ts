import type { TracingChannel } from 'node:diagnostics_channel';
import { createTracingChannel, type Logger } from '@kafkats/wire';

/**
 * The context of one `kafkats:produce` trace: one record batch for one partition, sent in a
 * Produce request, from the send to the handling of its answer. A retried batch starts a new
 * trace with `attempt` one higher.
 */
export interface ProduceTraceContext {
  readonly topic: string;
  readonly partition: number;
  /** The leader the batch was sent to. */
  readonly nodeId: number;
  /** Records in the batch and the encoded batch's size (compressed), bytes. */
  readonly records: number;
  readonly bytes: number;
  /** 1 for the first send of this batch. */
  readonly attempt: number;
  /** -1n / -1 without idempotence. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly transactionalId: string | null;
  /** Filled: the offset of the batch's first record; -1n until acknowledged (and with acks=0). */
  baseOffset: bigint;
  /** Filled: the partition's error code in the answer (0 = NONE); -1 when the request failed as a whole. */
  errorCode: number;
  /** Filled: `'ok'` acknowledged, `'retry'` failed and queued again, `'error'` failed for good. */
  outcome: 'pending' | 'ok' | 'retry' | 'error';
  /** Filled: ms from the send to the handling of the answer. */
  durationMs: number;
  /** Set with `outcome` `'retry'` or `'error'`: why. */
  error?: unknown;
}

/**
 * The context of one `kafkats:fetch` trace: one partition of one Fetch request the fetch engine
 * sends (for a `Consumer`, a `PartitionReader` or a `MultiPartitionReader`), and its answer for
 * that partition.
 */
export interface FetchTraceContext {
  readonly topic: string;
  readonly partition: number;
  /** The leader fetched from. */
  readonly nodeId: number;
  readonly fetchOffset: bigint;
  readonly isolationLevel: 'read_uncommitted' | 'read_committed';
  /** Filled: the Fetch version sent; -1 before. */
  version: number;
  /** Filled: the partition's error code (0 = NONE); -1 without an answer for it. */
  errorCode: number;
  /** Filled: records handed to the caller from this answer, and the record bytes it carried. */
  records: number;
  bytes: number;
  /** Filled: where the next Fetch starts (fetchOffset when nothing moved). */
  nextOffset: bigint;
  /** Filled: the partition's high-water mark in the answer; -1n without one. */
  highWatermark: bigint;
  /** Filled: `highWatermark - nextOffset` (0 when caught up); -1n without an answer. */
  lag: bigint;
  outcome: 'pending' | 'ok' | 'error';
  durationMs: number;
  /** Set by the channel: why the fetch failed (it is retried inside unless fatal). */
  error?: unknown;
  result?: unknown;
}

/** Name of the produce tracing channel (`node:diagnostics_channel`). */
export const PRODUCE_CHANNEL = 'kafkats:produce';
/** Name of the fetch tracing channel. */
export const FETCH_CHANNEL = 'kafkats:fetch';
/** Name of the group consumer's rebalance tracing channel. */
export const REBALANCE_CHANNEL = 'kafkats:rebalance';

/**
 * Every record batch a `Producer` sends: `start` and `end` when the request goes, `error` (for
 * `'retry'` and `'error'`), `asyncStart` and `asyncEnd` once its answer has been handled.
 * Nothing is built or published while no one subscribes.
 */
export const produceChannel: TracingChannel<unknown, ProduceTraceContext> =
  createTracingChannel(PRODUCE_CHANNEL);

/** Every partition of every Fetch the fetch engine sends, with the same event sequence. */
export const fetchChannel: TracingChannel<unknown, FetchTraceContext> =
  createTracingChannel(FETCH_CHANNEL);

/**
 * What a `kafkats:rebalance` trace carries: one change of a group consumer's assignment, from
 * the moment the group hands it over until the consumer has taken it in (partitions given:
 * their committed offsets fetched and the `onAssigned` listener run; taken away: finished
 * batches committed and `onRevoked` run; lost: `onLost` run, nothing committed).
 */
export interface RebalanceTraceContext {
  readonly groupId: string;
  readonly kind: 'assigned' | 'revoked' | 'lost';
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
  /** The assignment after the change, partitions owned. */
  ownedAfter: number;
  durationMs: number;
  error?: unknown;
  result?: unknown;
}

/** Every change of a group consumer's assignment: `start`, `end`, then `asyncStart`/`asyncEnd` (or `error`). */
export const rebalanceChannel: TracingChannel<unknown, RebalanceTraceContext> =
  createTracingChannel(REBALANCE_CHANNEL);

/** One owned partition in {@link ConsumerMetricsSnapshot}. */
export interface ConsumerPartitionMetrics {
  readonly topic: string;
  readonly partition: number;
  /** The next offset the consumer hands out; -1n while it has none yet. */
  readonly position: bigint;
  /** The last offset this member committed for it; -1n when none yet. */
  readonly committed: bigint;
  /** From the latest Fetch answer; -1n before the first. */
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  /**
   * Kafka's `records-lag`: the high-water mark (the last stable offset under read_committed)
   * minus the position, never below 0; -1n before both are known.
   */
  readonly lag: bigint;
  /** Records and record-batch bytes handed to the application since it was assigned. */
  readonly records: number;
  readonly bytes: number;
  /** The broker fetched from: the leader, or a preferred read replica (KIP-392). */
  readonly leaderId: number | undefined;
  readonly readReplicaId: number | undefined;
}

/** What {@link Consumer.metrics} reports. Counters since the consumer was made. */
export interface ConsumerMetricsSnapshot {
  /** Records and record-batch bytes handed to the application (Kafka's `records-consumed-total`). */
  readonly recordsConsumed: number;
  readonly bytesConsumed: number;
  /** Fetch requests sent and answered, failed sends, and their latency (`fetch-latency-avg/max`). */
  readonly fetches: number;
  readonly fetchesFailed: number;
  readonly fetchLatencyAvgMs: number;
  readonly fetchLatencyMaxMs: number;
  /**
   * Assignment changes taken in (partitions given, taken away or lost), and how long the
   * consumer took over them (committed offsets fetched, finished ones committed, listeners run);
   * see `kafkats:rebalance`.
   */
  readonly rebalances: number;
  readonly rebalanceLatencyAvgMs: number;
  readonly rebalanceLatencyMaxMs: number;
  /** Commits sent (OffsetCommit), those that failed, and their latency (`commit-latency-avg/max`). */
  readonly commits: number;
  readonly commitsFailed: number;
  readonly commitLatencyAvgMs: number;
  readonly commitLatencyMaxMs: number;
  /** The owned partitions, in assignment order. */
  readonly partitions: readonly ConsumerPartitionMetrics[];
  /** Sum of the partitions' lag (those that know theirs). */
  readonly lag: bigint;
}

/** What {@link Producer.metrics} reports. Counters since the producer was made. */
export interface ProducerMetricsSnapshot {
  /** Record batches sent (each retry counts again) and acknowledged. */
  readonly batchesSent: number;
  readonly batchesAcked: number;
  /** Records acknowledged, and records whose delivery failed for good. */
  readonly recordsAcked: number;
  readonly recordsFailed: number;
  /** Encoded batch bytes sent (retries included). */
  readonly bytesSent: number;
  /** Batches queued again after a failed send. */
  readonly retries: number;
  /**
   * Batches the broker refused as too large and that were sent again split (Kafka's
   * `batch-split-rate` counts the same events).
   */
  readonly batchesSplit: number;
  /** Produce requests in flight now. */
  readonly inFlightRequests: number;
  /** Bytes of `bufferMemory` held now. */
  readonly bufferedBytes: number;
}

/** What {@link PartitionReader.metrics} reports. */
export interface ReaderMetricsSnapshot {
  readonly topic: string;
  readonly partition: number;
  /** Fetch answers handled, records and record bytes handed out, failed fetches retried. */
  readonly fetches: number;
  readonly records: number;
  readonly bytes: number;
  readonly retries: number;
  /** The position the caller has reached; -1n before it is known. */
  readonly position: bigint;
  /** The high-water mark from the latest answer; -1n before the first. */
  readonly highWatermark: bigint;
  /** `highWatermark - position`, never below 0; -1n before both are known. */
  readonly lag: bigint;
}

/** The logger a client object uses: its own option, else the cluster's (silent by default). */
export function clusterLogger(cluster: object): Logger | undefined {
  const logger = (cluster as { readonly logger?: unknown }).logger;
  return typeof logger === 'object' && logger !== null ? (logger as Logger) : undefined;
}
