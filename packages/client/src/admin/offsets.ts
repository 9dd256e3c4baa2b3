import type { KafkaError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';
import type { AdminCallOptions } from './admin-options.js';

/**
 * Which offset {@link Admin.listOffsets} asks for (Kafka's `OffsetSpec`):
 * - `earliest`: the log start offset;
 * - `latest`: the offset the next record will get (the high watermark, or the last stable
 *   offset with `read_committed`);
 * - `maxTimestamp`: the record with the largest timestamp (ListOffsets v7+, KIP-734);
 * - `earliestLocal`: the first offset still on local disk with tiered storage (v8+, KIP-405);
 * - `latestTiered`: the last offset copied to remote storage (v9+, KIP-1005);
 * - `{ timestamp }`: the first record whose timestamp is at or after it, ms since the epoch.
 */
export type OffsetSpec =
  | 'earliest'
  | 'latest'
  | 'maxTimestamp'
  | 'earliestLocal'
  | 'latestTiered'
  | { readonly timestamp: bigint };

/** One partition to ask about. */
export interface ListOffsetsRequestItem extends TopicPartition {
  readonly spec: OffsetSpec;
}

/** Kafka's `isolation.level`. */
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

/** Options of {@link Admin.listOffsets}. */
export interface ListOffsetsOptions extends AdminCallOptions {
  /** Default `read_uncommitted`, as Kafka's `ListOffsetsOptions`. */
  readonly isolationLevel?: IsolationLevel;
}

/** One partition's answer. */
export interface ListedOffset extends TopicPartition {
  /**
   * The offset; -1n when no record matches (a timestamp later than every record's, or
   * `maxTimestamp` of an empty partition).
   */
  readonly offset?: bigint;
  /** The matched record's timestamp, ms; -1n when not applicable (earliest, latest). */
  readonly timestamp?: bigint;
  /** The leader epoch of the matched offset, when the broker knows it. */
  readonly leaderEpoch?: number;
  /**
   * Why there is no answer: the broker's verdict on the partition (a `ProtocolError`:
   * TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION, ...), or the transport error its
   * leader kept failing with until the call's deadline (`OperationTimeoutError`).
   */
  readonly error?: KafkaError;
}

/** {@link Admin.listOffsets}' answer: one entry per requested partition, in request order. */
export interface ListOffsetsResult {
  readonly partitions: readonly ListedOffset[];
}

/** A partition's records to delete: every record before `beforeOffset`. */
export interface DeleteRecordsRequestItem extends TopicPartition {
  /** The new log start offset; -1n means the high watermark (delete everything). */
  readonly beforeOffset: bigint;
}

/** One partition's answer. */
export interface DeletedRecords extends TopicPartition {
  /** The partition's log start offset after the deletion. */
  readonly lowWatermark?: bigint;
  /** As in {@link ListedOffset.error} (OFFSET_OUT_OF_RANGE beyond the high watermark, ...). */
  readonly error?: KafkaError;
}

/** {@link Admin.deleteRecords}' answer: one entry per requested partition, in request order. */
export interface DeleteRecordsResult {
  readonly partitions: readonly DeletedRecords[];
}

/** Options of {@link Admin.describeProducers}. */
export interface DescribeProducersOptions extends AdminCallOptions {
  /**
   * Ask this broker instead of each partition's leader (a follower's view). Its
   * NOT_LEADER_OR_FOLLOWER is then final. Default: the leaders.
   */
  readonly brokerId?: number;
}

/** One producer's state on one partition (KIP-664), as the broker keeps it. */
export interface ProducerState {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** The sequence number of the last record written; -1 when none. */
  readonly lastSequence: number;
  /** The last write's timestamp, ms; -1n when unknown. */
  readonly lastTimestamp: bigint;
  /** The transaction coordinator's epoch; -1 when not transactional. */
  readonly coordinatorEpoch: number;
  /** The first offset of the open transaction; absent when none is open. */
  readonly currentTxnStartOffset?: bigint;
}

/** One partition's active producers. */
export interface PartitionProducers extends TopicPartition {
  /** Empty when `error` is set. */
  readonly activeProducers: readonly ProducerState[];
  readonly error?: KafkaError;
}

/** {@link Admin.describeProducers}' answer: one entry per requested partition, in request order. */
export interface DescribeProducersResult {
  readonly partitions: readonly PartitionProducers[];
}
