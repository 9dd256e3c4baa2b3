import type { KafkaError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';

/**
 * One partition to move (Kafka's `NewPartitionReassignment`): its new replica list, the first
 * the preferred leader; `null` cancels the partition's ongoing reassignment.
 */
export interface PartitionReassignment extends TopicPartition {
  readonly replicas: readonly number[] | null;
}

/** {@link Admin.alterPartitionReassignments}' answer: one entry per partition, in request order. */
export interface AlterPartitionReassignmentsResult {
  readonly partitions: readonly (TopicPartition & { readonly error?: KafkaError })[];
}

/** An ongoing reassignment (Kafka's `PartitionReassignment`). */
export interface OngoingReassignment extends TopicPartition {
  /** The replica set now: the old replicas and the ones being added. */
  readonly replicas: readonly number[];
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
}

/** {@link Admin.listPartitionReassignments}' answer. */
export interface ListPartitionReassignmentsResult {
  /** Sorted by topic and partition. */
  readonly reassignments: readonly OngoingReassignment[];
}
