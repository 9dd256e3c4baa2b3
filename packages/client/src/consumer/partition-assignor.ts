import type { TopicPartition } from '../topic-partition.js';

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
 * A classic-protocol assignor of the application's own (Kafka's `ConsumerPartitionAssignor`,
 * named in `partition.assignment.strategy`), given in the consumer's `assignors` next to the
 * built-in names. The group leader runs the one the coordinator chose (JoinGroup's protocol
 * name); members offering it must agree on `name`, whatever their client.
 */
export interface PartitionAssignor {
  /** The JoinGroup protocol name (`range`, `cooperative-sticky`, `RoundRobinAssigner`, ...). */
  readonly name: string;
  /** KIP-429: whether it supports COOPERATIVE rebalances (false: eager). */
  readonly cooperative: boolean;
  /** The `userData` this member puts in its subscription, null for none. */
  subscriptionUserData(generationId: number): Buffer | null;
  /**
   * Every member's partitions (a member left out gets none). May be async; an error it throws
   * ends the rebalance as the consumer's error.
   */
  assign(
    partitionsPerTopic: PartitionsPerTopic,
    subscriptions: ReadonlyMap<string, MemberSubscription>,
  ): GroupAssignment | Promise<GroupAssignment>;
}
