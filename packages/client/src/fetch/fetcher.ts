import type { Cluster } from '@kafkats/meta';
import type { Logger } from '@kafkats/wire';
import type { TopicPartition } from '../topic-partition.js';
import type { IsolationLevelName, PartitionBatch } from './partition-batch.js';

// The fetch engine's front: what every reader of partitions (the group consumer, the partition
// reader, the multi-partition reader) asks of it, and the knobs it is built with.

/** The engine's knobs; the readers apply their defaults. */
export interface FetcherConfig {
  readonly cluster: Cluster;
  readonly isolationLevel: IsolationLevelName;
  /** Where to go after OFFSET_OUT_OF_RANGE: Kafka's `auto.offset.reset`. */
  readonly autoOffsetReset: 'earliest' | 'latest' | 'none';
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly partitionMaxBytes: number;
  /**
   * Bound on fetched-but-not-polled data: a partition with buffered batches is left out of the
   * next Fetch (as Kafka's `AbstractFetch` does), and no Fetch is sent while the buffered bytes
   * exceed this.
   */
  readonly maxBufferedBytes: number;
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly verifyCrc: boolean;
  readonly maxUncompressedBytes: number;
  /**
   * KIP-392 `client.rack`, sent in Fetch v11+; null sends ''. A leader whose
   * `replica.selector.class` picks a replica in this rack names it in its answer, and the
   * partition is then fetched from that replica.
   */
  readonly rackId: string | null;
  /**
   * How long a preferred read replica a leader named is fetched from before the leader is
   * asked again, ms (Kafka's consumer uses `metadata.max.age.ms`). Default 300000.
   */
  readonly readReplicaMaxAgeMs?: number;
  readonly random: () => number;
  /**
   * Fetch ahead of `poll` (default true): each partition's next answer is fetched while the
   * caller works on the last. False: a Fetch goes out only while a `poll` waits.
   */
  readonly prefetch?: boolean;
  /**
   * Bound on batches fetched and not yet polled, besides the byte bound: no Fetch goes out
   * while this many are buffered. Default no bound (each partition holds at most one anyway).
   */
  readonly maxBufferedBatches?: number;
  /**
   * The most records one batch holds: a partition's answer with more is handed out as several
   * batches of at most this many, in order, each with its own `fetchOffset` and `nextOffset`
   * (as Kafka's `max.poll.records` bounds a poll). Record objects made for one of them can then
   * be collected once it is processed, instead of living as long as the whole answer. Default
   * no bound: one batch per partition answer.
   */
  readonly maxBatchRecords?: number;
  /** Where retries (debug) and offset resets (info) are logged; default silent. */
  readonly logger?: Logger;
}

/** What the engine knows of one assigned partition's reading, for metrics and diagnostics. */
export interface FetchPartitionStats {
  /** From the latest answer for the partition; -1n before the first. */
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  /** The partition's leader, and the leader epoch sent (KIP-320); -1 when unknown. */
  readonly leaderId: number | undefined;
  readonly leaderEpoch: number;
  /**
   * KIP-392: the replica the leader named to fetch from instead (`preferredReadReplica`), while
   * the partition is fetched from it; undefined when fetched from the leader.
   */
  readonly readReplicaId: number | undefined;
  /** Answers for the partition handled, records and record bytes handed out, retries. */
  readonly fetches: number;
  readonly records: number;
  readonly bytes: number;
  readonly retries: number;
  /** The last error retried for it; undefined after a clean answer. */
  readonly lastError: Error | undefined;
}

/** Counters of the Fetch requests an engine sent (Kafka's `fetch-latency-avg` / `-max`). */
export interface FetchRequestStats {
  /** Fetches that were answered, and those whose send failed. */
  readonly requests: number;
  readonly failed: number;
  /** Send to answer, ms, over the answered ones (a long poll's wait included). */
  readonly latencyTotalMs: number;
  readonly latencyMaxMs: number;
}

/** Where a partition starts: an offset (with the leader epoch it was committed at), or a reset. */
export type FetchStart =
  | { readonly offset: bigint; readonly leaderEpoch?: number }
  | 'earliest'
  | 'latest';

/**
 * Reads the assigned partitions: one dedicated connection and one fetch session per leader
 * broker (KIP-227), one Fetch in flight per broker, bounded prefetch. Positions are what
 * {@link poll} delivered: a batch handed out moves its partition's position to the batch's
 * `nextOffset`.
 */
export interface Fetcher {
  /** Starts reading partitions (replacing the position of one already assigned). */
  assign(partitions: ReadonlyArray<TopicPartition & { readonly start: FetchStart }>): void;
  /** Stops reading partitions and drops what is buffered for them (in-flight answers too). */
  unassign(partitions: readonly TopicPartition[]): void;
  /** Moves a partition's position; buffered and in-flight data for it is dropped. */
  seek(partition: TopicPartition, offset: bigint): void;
  /** Stops delivering (and fetching) these partitions until resumed; positions are kept. */
  pause(partitions: readonly TopicPartition[]): void;
  resume(partitions: readonly TopicPartition[]): void;
  /** The next offset to deliver, with the leader epoch of the last delivered record; undefined when not assigned or not yet resolved. */
  position(partition: TopicPartition): { offset: bigint; leaderEpoch: number } | undefined;
  /**
   * Waits until at least one batch is buffered for an assigned, unpaused partition, then
   * returns what is buffered for at most `max` partitions, oldest answers first (one
   * partition's batches in offset order, all of them: an answer cut by `maxBatchRecords` is
   * handed out whole), and moves those partitions' positions. Resolves with [] when the
   * signal aborts. Rejects with the first error the fetcher cannot retry
   * (`OffsetOutOfRangeError` when `autoOffsetReset` is 'none', `FetchPartitionError`,
   * `FetchStateError`).
   */
  poll(signal?: AbortSignal, max?: number): Promise<PartitionBatch[]>;
  /** What the engine knows of an assigned partition's reading; undefined when not assigned. */
  partitionStats(partition: TopicPartition): FetchPartitionStats | undefined;
  /** Fetch requests answered or failed since the engine was made, and how long they took. */
  fetchStats(): FetchRequestStats;
  /** Stops every fetch, closes every fetch session (a final Fetch with epoch -1 is optional). */
  close(): Promise<void>;
}
