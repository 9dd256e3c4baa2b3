import type { TopicPartition } from '../../../topic-partition.js';

/**
 * One member's subscription as the group leader sees it: what Kafka's
 * `ConsumerPartitionAssignor.Subscription` carries, decoded from the JoinGroup answer.
 */
export interface MemberSubscription {
  readonly memberId: string;
  /** Static membership (KIP-345): the member's `group.instance.id`, null for a dynamic member. */
  readonly groupInstanceId: string | null;
  /** Subscribed topics (ConsumerProtocolSubscription v0+). */
  readonly topics: readonly string[];
  /** Partitions the member owns now (v1+; empty for an eager member). */
  readonly ownedPartitions: readonly TopicPartition[];
  /** The generation the owned partitions were assigned in (v2+), -1 when unknown. */
  readonly generationId: number;
  /** KIP-881 `client.rack` (v3+), null when unset. */
  readonly rackId: string | null;
  /** The assignor's own bytes (`subscriptionUserData`), null when none. */
  readonly userData: Buffer | null;
}

/** Partition count of every subscribed topic the metadata knows (unknown topics left out). */
export type PartitionsPerTopic = ReadonlyMap<string, number>;

/** Member id to the partitions it gets. Every member of the input has an entry. */
export type GroupAssignment = Map<string, TopicPartition[]>;

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
