import type { TopicPartition } from '../../../topic-partition.js';
import type {
  GroupAssignment,
  MemberSubscription,
  PartitionsPerTopic,
} from '../../partition-assignor.js';

export type { GroupAssignment, MemberSubscription, PartitionsPerTopic };

/**
 * A client-side assignor, as Kafka's `ConsumerPartitionAssignor`: the group leader runs the
 * one the coordinator chose (the JoinGroup answer's protocol name).
 */
export interface PartitionAssignor {
  /** The protocol name in JoinGroup (`range`, `cooperative-sticky`). */
  readonly name: string;
  /**
   * KIP-429: whether the assignor supports the COOPERATIVE rebalance protocol. Kafka's
   * `ConsumerCoordinator` runs cooperatively only when every configured assignor does.
   */
  readonly cooperative: boolean;
  /** The `userData` this member puts in its subscription for this assignor. */
  subscriptionUserData(generationId: number): Buffer | null;
  /** Computes every member's partitions. Pure: the same input gives the same output. */
  assign(
    partitionsPerTopic: PartitionsPerTopic,
    subscriptions: ReadonlyMap<string, MemberSubscription>,
  ): GroupAssignment;
}

/** `topic-partition` key, for sets and maps of partitions. */
export function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`;
}

/** Kafka's `TopicPartition` order: by topic, then partition. */
export function compareTopicPartition(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

/** Java's `String.compareTo` order (UTF-16 code units), which `<` on strings also follows. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
