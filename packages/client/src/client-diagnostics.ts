import { type TracingChannel, tracingChannel } from 'node:diagnostics_channel';
import type { Logger } from '@kafkats/wire';

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

/**
 * Every record batch a `Producer` sends: `start` and `end` when the request goes, `error` (for
 * `'retry'` and `'error'`), `asyncStart` and `asyncEnd` once its answer has been handled.
 * Nothing is built or published while no one subscribes.
 */
export const produceChannel: TracingChannel<unknown, ProduceTraceContext> =
  tracingChannel(PRODUCE_CHANNEL);

/** Every partition of every Fetch the fetch engine sends, with the same event sequence. */
export const fetchChannel: TracingChannel<unknown, FetchTraceContext> =
  tracingChannel(FETCH_CHANNEL);

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
