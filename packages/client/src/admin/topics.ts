import type { ProtocolError } from '@kafkats/codec';
import type { AdminCallOptions } from './admin-options.js';
import type { ConfigSource } from './configs.js';

/** A topic to create (Kafka's `NewTopic`). */
export interface NewTopic {
  readonly name: string;
  /** Default: the broker's `num.partitions` (sent as -1). Leave out with `replicaAssignment`. */
  readonly numPartitions?: number;
  /** Default: the broker's `default.replication.factor` (-1). Leave out with `replicaAssignment`. */
  readonly replicationFactor?: number;
  /**
   * Explicit replicas per partition: `replicaAssignment[p]` lists partition p's broker ids,
   * the first being its preferred leader. Sets the partition count and replication factor.
   */
  readonly replicaAssignment?: readonly (readonly number[])[];
  /** Topic configs (`cleanup.policy`, `retention.ms`, ...); the rest take broker defaults. */
  readonly configs?: Readonly<Record<string, string>>;
}

/** Options of {@link Admin.createTopics}. */
export interface CreateTopicsOptions extends AdminCallOptions {
  /** Only validate: nothing is created. Default false. */
  readonly validateOnly?: boolean;
  /**
   * After a successful create, wait (within the call's deadline) until every broker's metadata
   * shows each created topic with a leader for every partition, as {@link Admin.waitForTopics}
   * does. Default false: CreateTopics answers once the controller has the topic, and another
   * broker may still answer UNKNOWN_TOPIC_OR_PARTITION for a moment.
   */
  readonly waitForLeaders?: boolean;
}

/** A config of a created topic as CreateTopics v5+ returns it. */
export interface CreatedTopicConfig {
  readonly name: string;
  /** Null when sensitive. */
  readonly value: string | null;
  readonly readOnly: boolean;
  readonly isSensitive: boolean;
  readonly source: ConfigSource;
}

/** One topic's outcome in {@link CreateTopicsResult}. */
export interface CreatedTopic {
  readonly name: string;
  /** Kafka's base64url uuid text; absent on error, with `validateOnly`, or below CreateTopics v7. */
  readonly topicId?: string;
  /** The broker's refusal (TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR, POLICY_VIOLATION...). */
  readonly error?: ProtocolError;
  /** What the topic was (or would be) created with (CreateTopics v5+). */
  readonly numPartitions?: number;
  readonly replicationFactor?: number;
  /** Every config of the topic, defaults included (v5+); absent when `configsError` is set. */
  readonly configs?: readonly CreatedTopicConfig[];
  /** Why the configs could not be returned (e.g. TOPIC_AUTHORIZATION_FAILED without DESCRIBE_CONFIGS). */
  readonly configsError?: ProtocolError;
}

/** {@link Admin.createTopics}' answer: one entry per requested topic, in request order. */
export interface CreateTopicsResult {
  readonly topics: readonly CreatedTopic[];
}

/** {@link Admin.deleteTopics}' answer: one entry per requested topic, in request order. */
export interface DeleteTopicsResult {
  readonly topics: readonly { readonly name: string; readonly error?: ProtocolError }[];
}

/** Options of {@link Admin.listTopics}. */
export interface ListTopicsOptions extends AdminCallOptions {
  /** Include internal topics (`__consumer_offsets`, ...). Default false. */
  readonly listInternal?: boolean;
}

/** A topic as {@link Admin.listTopics} lists it. */
export interface TopicListing {
  readonly name: string;
  /** Kafka's base64url uuid text. */
  readonly topicId: string;
  readonly isInternal: boolean;
}

/** {@link Admin.listTopics}' answer. */
export interface ListTopicsResult {
  /** Sorted by name. */
  readonly topics: readonly TopicListing[];
}

/** One partition of a described topic. */
export interface PartitionDescription {
  readonly partition: number;
  /** Absent when the partition has no leader. */
  readonly leader?: number;
  /** -1 when unknown. */
  readonly leaderEpoch: number;
  /** Broker ids; the first is the preferred leader. */
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
  /** A partition-level condition (LEADER_NOT_AVAILABLE, REPLICA_NOT_AVAILABLE). */
  readonly error?: ProtocolError;
}

/** A topic as {@link Admin.describeTopics} describes it. */
export interface TopicDescription {
  readonly name: string;
  /** Kafka's base64url uuid text (`AAAAAAAAAAAAAAAAAAAAAA` when the topic was not found). */
  readonly topicId: string;
  readonly isInternal: boolean;
  /** Sorted by partition; empty when `error` is set. */
  readonly partitions: readonly PartitionDescription[];
  /** UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED, INVALID_TOPIC_EXCEPTION... */
  readonly error?: ProtocolError;
}

/** {@link Admin.describeTopics}' answer: one entry per requested topic, in request order. */
export interface DescribeTopicsResult {
  readonly topics: readonly TopicDescription[];
}

/** A partition increase for {@link Admin.createPartitions} (Kafka's `NewPartitions`). */
export interface NewPartitions {
  readonly topic: string;
  /** The partition count after the increase. */
  readonly totalCount: number;
  /** Replicas of each new partition, in order; default: the controller places them. */
  readonly assignments?: readonly (readonly number[])[];
}

/** Options of {@link Admin.createPartitions}. */
export interface CreatePartitionsOptions extends AdminCallOptions {
  /** Only validate. Default false. */
  readonly validateOnly?: boolean;
}

/** {@link Admin.createPartitions}' answer: one entry per requested topic, in request order. */
export interface CreatePartitionsResult {
  readonly topics: readonly { readonly topic: string; readonly error?: ProtocolError }[];
}

/** A topic for {@link Admin.waitForTopics}: a name, or a name and the partition count to wait for. */
export type TopicToWaitFor = string | { readonly name: string; readonly partitions: number };

/** Options of {@link Admin.waitForTopics}. */
export type WaitForTopicsOptions = AdminCallOptions;
