import type { KafkaError, ProtocolError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';
import type { AdminCallOptions } from './admin-options.js';

// KIP-932 share groups, as Kafka's Admin (listGroups for share groups, describeShareGroups,
// listShareGroupOffsets, alterShareGroupOffsets, deleteShareGroupOffsets, deleteShareGroups)
// sees them. Every call checks first that the brokers offer the API it needs: Kafka 3.9 and
// 4.0 do not (their share group APIs are unstable and not advertised).

/** Options of {@link Admin.listShareGroups}. */
export interface ListShareGroupsOptions extends AdminCallOptions {
  /** Only groups in these states (`Empty`, `Stable`, `Dead`). Default all. */
  readonly states?: readonly string[];
}

/** A share group as {@link Admin.listShareGroups} lists it. */
export interface ShareGroupListing {
  readonly groupId: string;
  /** `Empty`, `Stable` or `Dead`. */
  readonly state: string;
}

/** {@link Admin.listShareGroups}' answer. */
export interface ListShareGroupsResult {
  /** Sorted by group id. */
  readonly groups: readonly ShareGroupListing[];
  /** Brokers whose groups are missing from `groups`, and why. */
  readonly errors: readonly { readonly brokerId: number; readonly error: KafkaError }[];
}

/** Options of {@link Admin.describeShareGroups}. */
export interface DescribeShareGroupsOptions extends AdminCallOptions {
  /** Also return `authorizedOperations`. Default false. */
  readonly includeAuthorizedOperations?: boolean;
}

/** One member of a share group (ShareGroupDescribe `Member`). */
export interface ShareGroupMember {
  readonly memberId: string;
  readonly clientId: string;
  readonly clientHost: string;
  /** The member's `client.rack`, or null. */
  readonly rackId: string | null;
  readonly memberEpoch: number;
  /** The topics the member subscribed to. */
  readonly subscribedTopicNames: readonly string[];
  /** The partitions assigned to the member, sorted; several members may share a partition. */
  readonly assignment: readonly TopicPartition[];
}

/** A share group as {@link Admin.describeShareGroups} describes it. */
export interface ShareGroupDescription {
  readonly groupId: string;
  /**
   * Why the group was not described: GROUP_ID_NOT_FOUND (no such group, or not a share
   * group), GROUP_AUTHORIZATION_FAILED, or a coordinator that could not be reached.
   */
  readonly error?: KafkaError;
  /** `Empty`, `Stable` or `Dead`; empty on error. */
  readonly state: string;
  /** -1 on error. */
  readonly groupEpoch: number;
  /** The epoch of the group's target assignment; -1 on error. */
  readonly assignmentEpoch: number;
  /** The server-side assignor (`simple`); empty on error. */
  readonly assignor: string;
  /** Sorted by member id. */
  readonly members: readonly ShareGroupMember[];
  /** The group's coordinator, as Kafka's `ShareGroupDescription.coordinator()`; absent on error. */
  readonly coordinator?: { readonly nodeId: number; readonly host: string; readonly port: number };
  /** Kafka's `AclOperation` bit set, when asked for and returned. */
  readonly authorizedOperations?: number;
}

/** {@link Admin.describeShareGroups}' answer: one entry per requested group, in request order. */
export interface DescribeShareGroupsResult {
  readonly groups: readonly ShareGroupDescription[];
}

/** Options of {@link Admin.describeShareGroupOffsets}. */
export interface DescribeShareGroupOffsetsOptions extends AdminCallOptions {
  /** Only these partitions; default every partition the group has state for. */
  readonly partitions?: readonly TopicPartition[];
}

/** One partition's share-group state (Kafka's `SharePartitionOffsetInfo`). */
export interface ShareGroupPartitionOffset extends TopicPartition {
  /**
   * The share-partition start offset: records before it are delivered and acknowledged. Null
   * when the group has no state for the partition yet (or `error` is set).
   */
  readonly startOffset: bigint | null;
  /** The leader epoch the state was written in, when known. */
  readonly leaderEpoch?: number;
  /**
   * The records from the start offset to the high watermark not yet acknowledged
   * (DescribeShareGroupOffsets v1+, KIP-1226); absent when the broker does not say.
   */
  readonly lag?: bigint;
  /** The partition's error (UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED, ...). */
  readonly error?: ProtocolError;
}

/** {@link Admin.describeShareGroupOffsets}' answer. */
export interface DescribeShareGroupOffsetsResult {
  readonly groupId: string;
  /** Sorted by topic and partition. */
  readonly partitions: readonly ShareGroupPartitionOffset[];
}

/** One start offset to set with {@link Admin.alterShareGroupOffsets}. */
export interface ShareGroupOffsetToSet extends TopicPartition {
  /** The new share-partition start offset. */
  readonly offset: bigint;
}

/** {@link Admin.alterShareGroupOffsets}' answer. */
export interface AlterShareGroupOffsetsResult {
  readonly groupId: string;
  /**
   * One entry per partition, in request order: `error` when refused. A refusal of the whole
   * request (NON_EMPTY_GROUP while the group has members, GROUP_AUTHORIZATION_FAILED, ...) is
   * every partition's error, as Kafka's admin reports it.
   */
  readonly partitions: readonly (TopicPartition & { readonly error?: ProtocolError })[];
}

/** {@link Admin.deleteShareGroupOffsets}' answer. */
export interface DeleteShareGroupOffsetsResult {
  readonly groupId: string;
  /** One entry per topic, in request order: `error` when refused (UNKNOWN_TOPIC_OR_PARTITION, ...). */
  readonly topics: readonly { readonly topic: string; readonly error?: ProtocolError }[];
}
