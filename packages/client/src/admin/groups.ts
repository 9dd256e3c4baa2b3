import type { KafkaError, ProtocolError } from '@kafkats/codec';
import type { TopicPartition } from '../topic-partition.js';
import type { AdminCallOptions } from './admin-options.js';

/** Options of {@link Admin.listGroups}. */
export interface ListGroupsOptions extends AdminCallOptions {
  /** Only groups in these states (`Stable`, `Empty`, ...; ListGroups v4+). Default all. */
  readonly states?: readonly string[];
  /** Only groups of these types (`classic`, `consumer`, `share`, `streams`; v5+). Default all. */
  readonly types?: readonly string[];
}

/** A group as {@link Admin.listGroups} lists it. */
export interface GroupListing {
  readonly groupId: string;
  /** `consumer` for consumer groups, `connect`, ...; empty for a group that has none. */
  readonly protocolType: string;
  /** The group's state (ListGroups v4+). */
  readonly state?: string;
  /** `classic`, `consumer`, `share` or `streams` (ListGroups v5+). */
  readonly type?: string;
}

/** {@link Admin.listGroups}' answer: the groups of every broker that answered, and who did not. */
export interface ListGroupsResult {
  /** Sorted by group id. */
  readonly groups: readonly GroupListing[];
  /** Brokers whose groups are missing from `groups`, and why. */
  readonly errors: readonly { readonly brokerId: number; readonly error: KafkaError }[];
}

/** Options of {@link Admin.describeGroups}. */
export interface DescribeGroupsOptions extends AdminCallOptions {
  /** Also return `authorizedOperations` (DescribeGroups v3+). Default false. */
  readonly includeAuthorizedOperations?: boolean;
}

/** One member of a described group. */
export interface GroupMember {
  readonly memberId: string;
  /** The static member id (`group.instance.id`), or null. */
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /**
   * The member's subscription as its protocol encodes it (a copy). Empty for a member of a
   * `consumer` group (KIP-848): its subscription is `subscribedTopicNames` / `subscribedTopicRegex`.
   */
  readonly metadata: Buffer;
  /**
   * The member's assignment as its protocol encodes it (a copy). Empty for a member of a
   * `consumer` group (KIP-848), whose assignment comes as topic partitions.
   */
  readonly assignment: Buffer;
  /**
   * The partitions the member owns: `assignment` decoded for classic groups of protocol type
   * `consumer` (absent for other protocol types); for KIP-848 groups, the broker's list.
   */
  readonly assignedPartitions?: readonly TopicPartition[];
  /** KIP-848 groups: the member's epoch. */
  readonly memberEpoch?: number;
  /** KIP-848 groups: the member's rack (`client.rack`), or null. */
  readonly rackId?: string | null;
  /** KIP-848 groups: the topics the member subscribed to by name. */
  readonly subscribedTopicNames?: readonly string[];
  /** KIP-848 groups: the member's regex subscription, or null. */
  readonly subscribedTopicRegex?: string | null;
  /** KIP-848 groups: the partitions the coordinator is moving the member to. */
  readonly targetAssignment?: readonly TopicPartition[];
  /**
   * KIP-848 groups, from ConsumerGroupDescribe v1 (Kafka 4.0): `classic` for a member that
   * joined with the classic protocol (a group being upgraded), else `consumer`.
   */
  readonly memberType?: 'classic' | 'consumer';
}

/**
 * A group as {@link Admin.describeGroups} describes it: a KIP-848 `consumer` group by
 * ConsumerGroupDescribe, any other by the classic DescribeGroups, as Kafka's admin does.
 */
export interface GroupDescription {
  readonly groupId: string;
  /** GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND, COORDINATOR_NOT_AVAILABLE past the deadline... */
  readonly error?: KafkaError;
  /**
   * Which protocol the group runs, so which request described it: `consumer` (KIP-848,
   * ConsumerGroupDescribe) or `classic` (DescribeGroups). Absent on error.
   */
  readonly type?: 'classic' | 'consumer';
  /**
   * Classic: `Stable`, `Empty`, `PreparingRebalance`, `CompletingRebalance`, `Dead`. KIP-848:
   * `Stable`, `Empty`, `Assigning`, `Reconciling`, `Dead`. Empty on error.
   */
  readonly state: string;
  /** `consumer` for consumer groups (KIP-848 ones included), `connect`, ... */
  readonly protocolType: string;
  /** The chosen protocol: the assignor for consumer groups (`range`, `uniform`, ...). */
  readonly protocol: string;
  readonly members: readonly GroupMember[];
  /** KIP-848 groups: the group's epoch, and the epoch of its target assignment. */
  readonly groupEpoch?: number;
  readonly assignmentEpoch?: number;
  /** Kafka's `AclOperation` bit set, when asked for and returned. */
  readonly authorizedOperations?: number;
}

/** {@link Admin.describeGroups}' answer: one entry per requested group, in request order. */
export interface DescribeGroupsResult {
  readonly groups: readonly GroupDescription[];
}

/** Options of {@link Admin.listConsumerGroupOffsets}. */
export interface ListConsumerGroupOffsetsOptions extends AdminCallOptions {
  /** Only these partitions; default every partition the group has committed. */
  readonly partitions?: readonly TopicPartition[];
  /**
   * Wait for pending transactional commits (KIP-447): such partitions answer
   * UNSTABLE_OFFSET_COMMIT instead of the last stable offset. Default false.
   */
  readonly requireStable?: boolean;
}

/** One partition's committed offset. */
export interface CommittedOffset extends TopicPartition {
  /** -1n when the group has no commit for a partition asked for by name. */
  readonly offset: bigint;
  /** The leader epoch the commit was made in, when recorded. */
  readonly leaderEpoch?: number;
  /** The commit's metadata string. */
  readonly metadata: string | null;
  readonly error?: ProtocolError;
}

/** {@link Admin.listConsumerGroupOffsets}' answer. */
export interface ListConsumerGroupOffsetsResult {
  readonly groupId: string;
  /** Sorted by topic and partition. */
  readonly partitions: readonly CommittedOffset[];
}

/**
 * A member to remove with {@link Admin.removeMembersFromConsumerGroup} (Kafka's
 * `MemberToRemove`): a static member by its `group.instance.id`, or a dynamic one by member id.
 */
export type MemberToRemove = { readonly groupInstanceId: string } | { readonly memberId: string };

/** Options of {@link Admin.removeMembersFromConsumerGroup}. */
export interface RemoveMembersOptions {
  /** The members to remove; default every member the group has now (Kafka's `removeAll`). */
  readonly members?: readonly MemberToRemove[];
  /** Why, as the coordinator logs it (LeaveGroup v5+). Default a kafkats admin reason. */
  readonly reason?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** {@link Admin.removeMembersFromConsumerGroup}' answer: one entry per member removed or refused. */
export interface RemoveMembersResult {
  readonly groupId: string;
  readonly members: readonly {
    readonly memberId: string;
    readonly groupInstanceId: string | null;
    /** UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ... when that member was not removed. */
    readonly error?: KafkaError;
  }[];
}

/** {@link Admin.deleteGroups}' answer: one entry per requested group, in request order. */
export interface DeleteGroupsResult {
  readonly groups: readonly {
    readonly groupId: string;
    /**
     * Why that group was not deleted: NON_EMPTY_GROUP (it has members), GROUP_ID_NOT_FOUND,
     * GROUP_AUTHORIZATION_FAILED; or a coordinator that could not be reached.
     */
    readonly error?: KafkaError;
  }[];
}

/** {@link Admin.deleteConsumerGroupOffsets}' answer. */
export interface DeleteConsumerGroupOffsetsResult {
  readonly groupId: string;
  /**
   * One entry per partition asked for, in request order: `error` GROUP_SUBSCRIBED_TO_TOPIC
   * when a member of the group still subscribes to its topic (Kafka refuses to delete offsets
   * in use), UNKNOWN_TOPIC_OR_PARTITION, ...
   */
  readonly partitions: readonly (TopicPartition & { readonly error?: ProtocolError })[];
}

/** One offset to set in {@link Admin.alterConsumerGroupOffsets}. */
export interface GroupOffsetToSet extends TopicPartition {
  readonly offset: bigint;
  /** The leader epoch of the record at `offset - 1`, when known (KIP-320 validation). */
  readonly leaderEpoch?: number;
  /** The commit's metadata string; default empty. */
  readonly metadata?: string;
}

/** {@link Admin.alterConsumerGroupOffsets}' answer. */
export interface AlterConsumerGroupOffsetsResult {
  readonly groupId: string;
  /**
   * One entry per partition, in request order: `error` when refused (UNKNOWN_MEMBER_ID while
   * the group has members, as Kafka refuses commits from outside a live group;
   * TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION, ...).
   */
  readonly partitions: readonly (TopicPartition & { readonly error?: ProtocolError })[];
}
