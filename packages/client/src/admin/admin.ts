import { Cluster } from '@kafkats/meta';
import { requireCluster } from '../internal/require-cluster.js';
import type { TopicPartition } from '../topic-partition.js';
import type {
  AclBindingFilter,
  AclBindingInput,
  CreateAclsResult,
  DeleteAclsResult,
  DescribeAclsResult,
} from './acls.js';
import { type AdminCallOptions, AdminClosedError, type AdminOptions } from './admin-options.js';
import type {
  ClusterDescription,
  DescribeClusterOptions,
  DescribeLogDirsOptions,
  DescribeLogDirsResult,
  ElectLeadersOptions,
  ElectLeadersResult,
} from './cluster.js';
import type {
  AlterConfigsOptions,
  AlterConfigsResource,
  AlterConfigsResult,
  DescribeConfigsOptions,
  DescribeConfigsResource,
  DescribeConfigsResult,
} from './configs.js';
import type {
  DescribeFeaturesResult,
  FeatureUpdate,
  UpdateFeaturesOptions,
  UpdateFeaturesResult,
} from './features.js';
import type {
  AlterConsumerGroupOffsetsResult,
  DeleteConsumerGroupOffsetsResult,
  DeleteGroupsResult,
  DescribeGroupsOptions,
  DescribeGroupsResult,
  GroupOffsetToSet,
  ListConsumerGroupOffsetsOptions,
  ListConsumerGroupOffsetsResult,
  ListGroupsOptions,
  ListGroupsResult,
  RemoveMembersOptions,
  RemoveMembersResult,
} from './groups.js';
import * as acls from './internal/acl-requests.js';
import { AdminCall } from './internal/admin-call.js';
import * as clusterOps from './internal/cluster-requests.js';
import * as configs from './internal/config-requests.js';
import * as features from './internal/feature-requests.js';
import * as groups from './internal/group-requests.js';
import * as offsets from './internal/offset-requests.js';
import * as quotas from './internal/quota-requests.js';
import * as reassign from './internal/reassignment-requests.js';
import * as scram from './internal/scram-requests.js';
import * as shareGroups from './internal/share-group-requests.js';
import * as topics from './internal/topic-requests.js';
import * as txns from './internal/transaction-requests.js';
import type {
  DeleteRecordsRequestItem,
  DeleteRecordsResult,
  DescribeProducersOptions,
  DescribeProducersResult,
  ListOffsetsOptions,
  ListOffsetsRequestItem,
  ListOffsetsResult,
} from './offsets.js';
import type {
  AlterClientQuotasOptions,
  AlterClientQuotasResult,
  ClientQuotaAlteration,
  ClientQuotaFilter,
  DescribeClientQuotasResult,
} from './quotas.js';
import type {
  AlterPartitionReassignmentsResult,
  ListPartitionReassignmentsResult,
  PartitionReassignment,
} from './reassignments.js';
import type {
  AlterUserScramCredentialsResult,
  DescribeUserScramCredentialsResult,
  UserScramCredentialAlteration,
} from './scram.js';
import type {
  AlterShareGroupOffsetsResult,
  DeleteShareGroupOffsetsResult,
  DescribeShareGroupOffsetsOptions,
  DescribeShareGroupOffsetsResult,
  DescribeShareGroupsOptions,
  DescribeShareGroupsResult,
  ListShareGroupsOptions,
  ListShareGroupsResult,
  ShareGroupOffsetToSet,
} from './share-groups.js';
import type {
  CreatePartitionsOptions,
  CreatePartitionsResult,
  CreateTopicsOptions,
  CreateTopicsResult,
  DeleteTopicsResult,
  DescribeTopicsResult,
  ListTopicsOptions,
  ListTopicsResult,
  NewPartitions,
  NewTopic,
  TopicToWaitFor,
  WaitForTopicsOptions,
} from './topics.js';
import type {
  AbortTransactionSpec,
  DescribeTransactionsResult,
  ListTransactionsOptions,
  ListTransactionsResult,
} from './transactions.js';

/**
 * Kafka's admin operations over a {@link Cluster}, each request routed as Kafka routes it:
 * topic creation, deletion, partition increases and elections to the controller; configs,
 * ACLs, client quotas, metadata and DescribeCluster to any broker (a broker's own configs to
 * that broker); ListOffsets, DeleteRecords and DescribeProducers grouped per partition leader;
 * group APIs, share groups' (KIP-932) included, to the group's coordinator; DescribeLogDirs
 * and ListGroups to each broker.
 *
 * Error model: partial success is normal. Each result lists every item asked for (topic,
 * partition, resource, group) with an `error` field when that item failed: a `ProtocolError`
 * carrying Kafka's name (`errorName: 'TOPIC_ALREADY_EXISTS'`) and `retriable`. A method
 * rejects only when the call failed as a whole: the request could not be sent or answered
 * within the call's `timeoutMs` (`OperationTimeoutError`, `ConnectionError`), authentication
 * failed (`AuthenticationError`), a top-level error refused the whole request
 * (`ProtocolError`, e.g. CLUSTER_AUTHORIZATION_FAILED), the call was aborted
 * (`AbortedError`), or the admin is closed (`AdminClosedError`). Fan-out calls (per leader,
 * per broker, per group) reject only when no item got an answer; otherwise the items whose
 * broker could not be reached carry that error.
 *
 * Offsets and timestamps are `bigint`; topic ids are Kafka's base64url text.
 */
export class Admin {
  /** The cluster this admin sends through. */
  readonly cluster: Cluster;
  #owned = false;
  #closed = false;

  /**
   * Borrows a connected cluster: `close()` then leaves the cluster open for its owner.
   */
  constructor(cluster: Cluster) {
    requireCluster('Admin', cluster);
    this.cluster = cluster;
  }

  /**
   * Connects to a cluster this admin owns (closed by `close()`).
   *
   * @param bootstrap `host:port` list, as an array or comma-separated
   * @throws the cluster's connect errors (`ERR_KAFKA_BOOTSTRAP_INVALID`, connection,
   *   authentication, `OperationTimeoutError`)
   */
  static async connect(
    bootstrap: string | readonly string[],
    options: AdminOptions = {},
  ): Promise<Admin> {
    const admin = new Admin(await Cluster.connect(bootstrap, options));
    admin.#owned = true;
    return admin;
  }

  /** True after `close()`. */
  get closed(): boolean {
    return this.#closed;
  }

  #call(what: string, options: AdminCallOptions): AdminCall {
    if (this.#closed) throw new AdminClosedError(what);
    return new AdminCall(this.cluster, what, options);
  }

  /**
   * Creates topics (CreateTopics, to the controller). Topics answered NOT_CONTROLLER or
   * THROTTLING_QUOTA_EXCEEDED are sent again alone within the deadline. A created topic may
   * not be in every broker's metadata yet: pass `waitForLeaders` or call {@link waitForTopics}.
   *
   * @returns one entry per topic: its id, partitions, replication factor and configs, or its
   *   `error` (TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR, INVALID_CONFIG, ...)
   * @throws OperationTimeoutError when `waitForLeaders` ran out of time (the topics exist)
   */
  async createTopics(
    newTopics: readonly NewTopic[],
    options: CreateTopicsOptions = {},
  ): Promise<CreateTopicsResult> {
    return topics.createTopics(this.#call('createTopics', options), newTopics, options);
  }

  /**
   * Deletes topics by name (DeleteTopics, to the controller); NOT_CONTROLLER and throttled
   * topics are sent again alone.
   *
   * @returns one entry per name, with `error` UNKNOWN_TOPIC_OR_PARTITION,
   *   TOPIC_AUTHORIZATION_FAILED, ... when that topic was not deleted
   */
  async deleteTopics(
    names: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DeleteTopicsResult> {
    return topics.deleteTopics(this.#call('deleteTopics', options), names);
  }

  /** Lists the topics the principal may describe (Metadata for all topics, any broker), sorted by name. */
  async listTopics(options: ListTopicsOptions = {}): Promise<ListTopicsResult> {
    return topics.listTopics(this.#call('listTopics', options), options);
  }

  /**
   * Describes topics: id, partitions, leaders, leader epochs, replicas, ISR and offline
   * replicas (Metadata, any broker). A topic the answering broker does not know yet has
   * `error` UNKNOWN_TOPIC_OR_PARTITION.
   */
  async describeTopics(
    names: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DescribeTopicsResult> {
    return topics.describeTopics(this.#call('describeTopics', options), names);
  }

  /**
   * Waits until every broker's metadata shows each topic with all its partitions led (and at
   * least `partitions` partitions, when given), polling every broker with the retry backoff
   * (100 ms doubling to 1 s); then merges the topics into the cluster's snapshot. Bounded by
   * the call's `timeoutMs` (default the operation timeout, 60 s).
   *
   * @throws OperationTimeoutError at the deadline (cause: what a broker still lacked); a
   *   non-retriable error a broker answered (TOPIC_AUTHORIZATION_FAILED)
   */
  async waitForTopics(
    topicsToWaitFor: readonly TopicToWaitFor[],
    options: WaitForTopicsOptions = {},
  ): Promise<void> {
    return topics.waitForTopics(this.#call('waitForTopics', options), topicsToWaitFor);
  }

  /**
   * Raises partition counts (CreatePartitions, to the controller).
   *
   * @returns one entry per topic, `error` INVALID_PARTITIONS (not an increase),
   *   UNKNOWN_TOPIC_OR_PARTITION, ... when refused
   */
  async createPartitions(
    increases: readonly NewPartitions[],
    options: CreatePartitionsOptions = {},
  ): Promise<CreatePartitionsResult> {
    return topics.createPartitions(this.#call('createPartitions', options), increases, options);
  }

  /**
   * The cluster id, the reported controller and the brokers (DescribeCluster, any broker;
   * Metadata where DescribeCluster is not supported).
   *
   * @throws ProtocolError the top-level error (CLUSTER_AUTHORIZATION_FAILED)
   */
  async describeCluster(options: DescribeClusterOptions = {}): Promise<ClusterDescription> {
    return clusterOps.describeCluster(this.#call('describeCluster', options), options);
  }

  /**
   * Describes configs (DescribeConfigs): topic, group and cluster-default resources from any
   * broker, a broker's own from that broker, in parallel.
   *
   * @returns one entry per resource with its configs, or `error` (TOPIC_AUTHORIZATION_FAILED,
   *   UNKNOWN_TOPIC_OR_PARTITION, ...)
   */
  async describeConfigs(
    resources: readonly DescribeConfigsResource[],
    options: DescribeConfigsOptions = {},
  ): Promise<DescribeConfigsResult> {
    return configs.describeConfigs(this.#call('describeConfigs', options), resources, options);
  }

  /**
   * Changes configs incrementally (IncrementalAlterConfigs: SET, DELETE, APPEND, SUBTRACT),
   * routed as {@link describeConfigs}.
   *
   * @returns one entry per resource, `error` INVALID_CONFIG, POLICY_VIOLATION,
   *   TOPIC_AUTHORIZATION_FAILED, ... when refused
   */
  async incrementalAlterConfigs(
    resources: readonly AlterConfigsResource[],
    options: AlterConfigsOptions = {},
  ): Promise<AlterConfigsResult> {
    return configs.incrementalAlterConfigs(
      this.#call('incrementalAlterConfigs', options),
      resources,
      options,
    );
  }

  /**
   * The cluster's features (KIP-584): each finalized level, and the levels the answering broker
   * supports (ApiVersions v3+ to any broker), as Kafka's `Admin.describeFeatures`.
   *
   * @throws UnsupportedVersionError before Kafka 2.7 (no ApiVersions v3)
   */
  async describeFeatures(options: AdminCallOptions = {}): Promise<DescribeFeaturesResult> {
    return features.describeFeatures(this.#call('describeFeatures', options));
  }

  /**
   * Changes finalized feature levels (UpdateFeatures, to the controller), as Kafka's
   * `Admin.updateFeatures` and `kafka-features.sh upgrade|downgrade` do.
   *
   * @returns one entry per feature, `error` when refused (INVALID_UPDATE_VERSION for a level
   *   the brokers do not support or a downgrade without its type, ...)
   */
  async updateFeatures(
    updates: readonly FeatureUpdate[],
    options: UpdateFeaturesOptions = {},
  ): Promise<UpdateFeaturesResult> {
    return features.updateFeatures(this.#call('updateFeatures', options), updates, options);
  }

  /**
   * The SCRAM credentials of `users` (every user with one when omitted): mechanism and
   * iterations, never the secret (DescribeUserScramCredentials, any broker), as Kafka's
   * `Admin.describeUserScramCredentials`.
   *
   * @returns one entry per user; RESOURCE_NOT_FOUND as its `error` for a user without one
   * @throws ProtocolError the request's refusal (CLUSTER_AUTHORIZATION_FAILED)
   */
  async describeUserScramCredentials(
    users?: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DescribeUserScramCredentialsResult> {
    return scram.describeUserScramCredentials(
      this.#call('describeUserScramCredentials', options),
      users,
    );
  }

  /**
   * Sets or deletes SCRAM credentials (AlterUserScramCredentials, to the controller). A
   * password is salted and hashed here with the mechanism's PBKDF2 (SCRAM's Hi), as Kafka's
   * admin does; only the salt and the salted password are sent.
   *
   * @returns one entry per user, `error` when refused (UNSUPPORTED_SASL_MECHANISM,
   *   UNACCEPTABLE_CREDENTIAL for too few iterations, RESOURCE_NOT_FOUND for a deletion, ...)
   */
  async alterUserScramCredentials(
    alterations: readonly UserScramCredentialAlteration[],
    options: AdminCallOptions = {},
  ): Promise<AlterUserScramCredentialsResult> {
    return scram.alterUserScramCredentials(
      this.#call('alterUserScramCredentials', options),
      alterations,
    );
  }

  /**
   * Starts, changes or cancels (`replicas: null`) partition reassignments
   * (AlterPartitionReassignments, KIP-455, to the controller), as Kafka's
   * `Admin.alterPartitionReassignments` and `kafka-reassign-partitions.sh --execute`.
   *
   * @returns one entry per partition, `error` when refused (NO_REASSIGNMENT_IN_PROGRESS for a
   *   cancel with none, INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION, ...)
   */
  async alterPartitionReassignments(
    reassignments: readonly PartitionReassignment[],
    options: AdminCallOptions = {},
  ): Promise<AlterPartitionReassignmentsResult> {
    return reassign.alterPartitionReassignments(
      this.#call('alterPartitionReassignments', options),
      reassignments,
    );
  }

  /**
   * The ongoing partition reassignments (ListPartitionReassignments, to the controller): all,
   * or those of `partitions`.
   *
   * @throws ProtocolError the request's refusal (CLUSTER_AUTHORIZATION_FAILED)
   */
  async listPartitionReassignments(
    partitions?: readonly TopicPartition[],
    options: AdminCallOptions = {},
  ): Promise<ListPartitionReassignmentsResult> {
    return reassign.listPartitionReassignments(
      this.#call('listPartitionReassignments', options),
      partitions,
    );
  }

  /**
   * The transactions the coordinators know (ListTransactions to every broker, merged; KIP-664),
   * filtered by state, producer id or duration, as Kafka's `Admin.listTransactions` and
   * `kafka-transactions.sh list`.
   */
  async listTransactions(options: ListTransactionsOptions = {}): Promise<ListTransactionsResult> {
    return txns.listTransactions(this.#call('listTransactions', options), options);
  }

  /**
   * Describes transactions (DescribeTransactions, each to its transaction coordinator): state,
   * producer id and epoch, timeout, start time and the partitions an ongoing one wrote to.
   *
   * @returns one entry per id, `error` TRANSACTIONAL_ID_NOT_FOUND, ... when refused
   */
  async describeTransactions(
    transactionalIds: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DescribeTransactionsResult> {
    return txns.describeTransactions(this.#call('describeTransactions', options), transactionalIds);
  }

  /**
   * Aborts a hanging transaction on one partition (KIP-664, Kafka's `Admin.abortTransaction`):
   * an abort marker written to the partition's leader (WriteTxnMarkers), which needs
   * CLUSTER_ACTION on the cluster. Take the producer id and epochs from
   * {@link describeProducers}: the producer whose `currentTxnStartOffset` is the transaction's
   * first offset. The partition's last stable offset then moves past it; the transaction's
   * coordinator is not told (use this for a transaction it no longer knows).
   *
   * @throws ProtocolError INVALID_PRODUCER_EPOCH (the producer has moved on),
   *   TRANSACTION_COORDINATOR_FENCED (a newer coordinator wrote its markers),
   *   CLUSTER_AUTHORIZATION_FAILED, ...; OperationTimeoutError when no leader answered in time
   */
  async abortTransaction(
    spec: AbortTransactionSpec,
    options: AdminCallOptions = {},
  ): Promise<void> {
    return txns.abortTransaction(this.#call('abortTransaction', options), spec);
  }

  /**
   * Looks up offsets (ListOffsets): earliest, latest, by timestamp, max timestamp, ... One
   * request per partition leader, in parallel. Partitions answered with a stale-leader error
   * (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, ...) or whose leader's connection failed
   * are regrouped after a metadata refresh and sent again; other retriable answers are sent
   * again as they are; the rest are final. Until the call's deadline.
   *
   * @throws UnsupportedVersionError when a spec needs a newer ListOffsets than the broker has
   */
  async listOffsets(
    partitions: readonly ListOffsetsRequestItem[],
    options: ListOffsetsOptions = {},
  ): Promise<ListOffsetsResult> {
    return offsets.listOffsets(this.#call('listOffsets', options), partitions, options);
  }

  /**
   * Deletes records before an offset (DeleteRecords), moving the log start offset; one
   * request per partition leader, retried as {@link listOffsets}.
   *
   * @returns each partition's new low watermark, or `error` (OFFSET_OUT_OF_RANGE past the
   *   high watermark, POLICY_VIOLATION on a compacted topic, TOPIC_AUTHORIZATION_FAILED, ...)
   */
  async deleteRecords(
    partitions: readonly DeleteRecordsRequestItem[],
    options: AdminCallOptions = {},
  ): Promise<DeleteRecordsResult> {
    return offsets.deleteRecords(this.#call('deleteRecords', options), partitions);
  }

  /**
   * The active idempotent and transactional producers of partitions (DescribeProducers,
   * KIP-664), from each partition's leader, retried as {@link listOffsets}; or from
   * `brokerId`.
   */
  async describeProducers(
    partitions: readonly TopicPartition[],
    options: DescribeProducersOptions = {},
  ): Promise<DescribeProducersResult> {
    return offsets.describeProducers(this.#call('describeProducers', options), partitions, options);
  }

  /**
   * Elects leaders (ElectLeaders, to the controller): PREFERRED moves leadership back to
   * each partition's first replica; UNCLEAN lets an out-of-sync replica lead (may lose data).
   *
   * @param partitions the partitions, or null for every partition
   * @returns per partition: success, or `error` ELECTION_NOT_NEEDED (already led by that
   *   replica), PREFERRED_LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION, ...
   * @throws ProtocolError the top-level error (CLUSTER_AUTHORIZATION_FAILED)
   */
  async electLeaders(
    partitions: readonly TopicPartition[] | null,
    options: ElectLeadersOptions = {},
  ): Promise<ElectLeadersResult> {
    return clusterOps.electLeaders(this.#call('electLeaders', options), partitions, options);
  }

  /**
   * Each broker's log directories and the replicas in them (DescribeLogDirs, to each broker
   * in parallel; by default every broker in the metadata).
   *
   * @returns one entry per broker, `error` when that broker refused
   *   (CLUSTER_AUTHORIZATION_FAILED) or could not be reached
   */
  async describeLogDirs(options: DescribeLogDirsOptions = {}): Promise<DescribeLogDirsResult> {
    return clusterOps.describeLogDirs(this.#call('describeLogDirs', options), options);
  }

  /**
   * Creates ACL bindings (CreateAcls, any broker: it forwards to the controller).
   *
   * @returns one entry per binding (defaults filled in), `error` when refused
   *   (SECURITY_DISABLED without an authorizer, CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST)
   */
  async createAcls(
    bindings: readonly AclBindingInput[],
    options: AdminCallOptions = {},
  ): Promise<CreateAclsResult> {
    return acls.createAcls(this.#call('createAcls', options), bindings);
  }

  /**
   * The ACL bindings matching a filter (DescribeAcls, any broker).
   *
   * @throws ProtocolError SECURITY_DISABLED (no authorizer), CLUSTER_AUTHORIZATION_FAILED
   */
  async describeAcls(
    filter: AclBindingFilter = {},
    options: AdminCallOptions = {},
  ): Promise<DescribeAclsResult> {
    return acls.describeAcls(this.#call('describeAcls', options), filter);
  }

  /**
   * Deletes the ACL bindings matching each filter (DeleteAcls, any broker).
   *
   * @returns per filter: the bindings deleted, or its `error`
   */
  async deleteAcls(
    filters: readonly AclBindingFilter[],
    options: AdminCallOptions = {},
  ): Promise<DeleteAclsResult> {
    return acls.deleteAcls(this.#call('deleteAcls', options), filters);
  }

  /**
   * The client quotas of the entities matching `filter` (DescribeClientQuotas, any broker):
   * byte rates, request percentages, controller mutation rates, per user, client id or IP.
   *
   * @throws ProtocolError the request's refusal (CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST)
   */
  async describeClientQuotas(
    filter: ClientQuotaFilter = {},
    options: AdminCallOptions = {},
  ): Promise<DescribeClientQuotasResult> {
    return quotas.describeClientQuotas(this.#call('describeClientQuotas', options), filter);
  }

  /**
   * Sets or removes client quotas (AlterClientQuotas, any broker: it forwards to the
   * controller). A quota takes effect on the brokers once they have the new metadata.
   *
   * @returns one entry per alteration, `error` when refused (INVALID_REQUEST for an unknown
   *   key or entity type, CLUSTER_AUTHORIZATION_FAILED)
   */
  async alterClientQuotas(
    alterations: readonly ClientQuotaAlteration[],
    options: AlterClientQuotasOptions = {},
  ): Promise<AlterClientQuotasResult> {
    return quotas.alterClientQuotas(
      this.#call('alterClientQuotas', options),
      alterations,
      options.validateOnly ?? false,
    );
  }

  /**
   * Lists the groups of every broker (ListGroups to each, merged): each broker answers for
   * the groups it coordinates. Brokers that failed are listed in `errors`.
   */
  async listGroups(options: ListGroupsOptions = {}): Promise<ListGroupsResult> {
    return groups.listGroups(this.#call('listGroups', options), options);
  }

  /**
   * Describes groups (DescribeGroups, each to its coordinator): state, protocol and members,
   * consumer-group assignments decoded. A coordinator that moved or is loading is asked again.
   */
  async describeGroups(
    groupIds: readonly string[],
    options: DescribeGroupsOptions = {},
  ): Promise<DescribeGroupsResult> {
    return groups.describeGroups(this.#call('describeGroups', options), groupIds, options);
  }

  /**
   * A consumer group's committed offsets (OffsetFetch, to the group's coordinator).
   *
   * @throws ProtocolError the group's error (GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND)
   */
  async listConsumerGroupOffsets(
    groupId: string,
    options: ListConsumerGroupOffsetsOptions = {},
  ): Promise<ListConsumerGroupOffsetsResult> {
    return groups.listConsumerGroupOffsets(
      this.#call('listConsumerGroupOffsets', options),
      groupId,
      options,
    );
  }

  /**
   * Deletes groups (DeleteGroups, each to its coordinator): their committed offsets and
   * metadata. Kafka refuses a group that still has members.
   *
   * @returns one entry per group, `error` when refused (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND,
   *   GROUP_AUTHORIZATION_FAILED) or its coordinator could not be reached
   */
  async deleteGroups(
    groupIds: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DeleteGroupsResult> {
    return groups.deleteGroups(this.#call('deleteGroups', options), groupIds);
  }

  /**
   * Sets a group's committed offsets (OffsetCommit from outside the group, to its
   * coordinator), as Kafka's `Admin.alterConsumerGroupOffsets` and
   * `kafka-consumer-groups.sh --reset-offsets --execute` do. The coordinator takes it only
   * while the group has no members: a live group answers UNKNOWN_MEMBER_ID per partition.
   *
   * @returns one entry per partition, `error` when refused
   */
  async alterConsumerGroupOffsets(
    groupId: string,
    offsets: readonly GroupOffsetToSet[],
    options: AdminCallOptions = {},
  ): Promise<AlterConsumerGroupOffsetsResult> {
    return groups.alterConsumerGroupOffsets(
      this.#call('alterConsumerGroupOffsets', options),
      groupId,
      offsets,
    );
  }

  /**
   * Deletes a group's committed offsets for some partitions (OffsetDelete, KIP-496, to the
   * group's coordinator), as `kafka-consumer-groups.sh --delete-offsets` does. Kafka refuses
   * the partitions of a topic a member of the group still subscribes to.
   *
   * @returns one entry per partition, `error` GROUP_SUBSCRIBED_TO_TOPIC when in use
   * @throws ProtocolError the group's refusal (GROUP_ID_NOT_FOUND, GROUP_AUTHORIZATION_FAILED)
   */
  async deleteConsumerGroupOffsets(
    groupId: string,
    partitions: readonly TopicPartition[],
    options: AdminCallOptions = {},
  ): Promise<DeleteConsumerGroupOffsetsResult> {
    return groups.deleteConsumerGroupOffsets(
      this.#call('deleteConsumerGroupOffsets', options),
      groupId,
      partitions,
    );
  }

  /**
   * Removes members from a classic consumer group from outside it (LeaveGroup v3+, KIP-345, to
   * its coordinator): static members by `group.instance.id`, others by member id; without
   * `members`, every member the group has now. The group rebalances without them, as after
   * Kafka's `Admin.removeMembersFromConsumerGroup`.
   *
   * @returns one entry per member, `error` UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID when refused
   * @throws ProtocolError the group's refusal (GROUP_ID_NOT_FOUND, GROUP_AUTHORIZATION_FAILED)
   */
  async removeMembersFromConsumerGroup(
    groupId: string,
    options: RemoveMembersOptions = {},
  ): Promise<RemoveMembersResult> {
    return groups.removeMembersFromConsumerGroup(
      this.#call('removeMembersFromConsumerGroup', options),
      groupId,
      options,
    );
  }

  /**
   * Lists the share groups (KIP-932) of every broker: ListGroups to each with the type filter
   * `share`, as Kafka's `Admin.listGroups(ListGroupsOptions.forShareGroups())`.
   *
   * @throws UnsupportedVersionError (`ERR_KAFKA_VERSION_UNSUPPORTED`) before anything is sent
   *   when the brokers do not offer share groups (Kafka 3.9, 4.0)
   */
  async listShareGroups(options: ListShareGroupsOptions = {}): Promise<ListShareGroupsResult> {
    return shareGroups.listShareGroups(this.#call('listShareGroups', options), options);
  }

  /**
   * Describes share groups (ShareGroupDescribe, each to its coordinator): state, epochs,
   * assignor, coordinator and members with their subscriptions and assigned partitions, as
   * Kafka's `Admin.describeShareGroups`. A coordinator that moved or is loading is asked again.
   *
   * @returns one entry per group, `error` GROUP_ID_NOT_FOUND (no such share group),
   *   GROUP_AUTHORIZATION_FAILED, ... when it was not described
   * @throws UnsupportedVersionError before anything is sent when the brokers do not offer
   *   ShareGroupDescribe (Kafka 3.9, 4.0)
   */
  async describeShareGroups(
    groupIds: readonly string[],
    options: DescribeShareGroupsOptions = {},
  ): Promise<DescribeShareGroupsResult> {
    return shareGroups.describeShareGroups(
      this.#call('describeShareGroups', options),
      groupIds,
      options,
    );
  }

  /**
   * A share group's start offset per partition, and its lag where the broker computes it
   * (DescribeShareGroupOffsets, to the group's coordinator), as Kafka's
   * `Admin.listShareGroupOffsets`.
   *
   * @throws ProtocolError the group's error (GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND);
   *   UnsupportedVersionError before anything is sent when the brokers do not offer the API
   */
  async describeShareGroupOffsets(
    groupId: string,
    options: DescribeShareGroupOffsetsOptions = {},
  ): Promise<DescribeShareGroupOffsetsResult> {
    return shareGroups.describeShareGroupOffsets(
      this.#call('describeShareGroupOffsets', options),
      groupId,
      options,
    );
  }

  /**
   * Sets a share group's start offsets (AlterShareGroupOffsets, to its coordinator), as Kafka's
   * `Admin.alterShareGroupOffsets` and `kafka-share-groups.sh --reset-offsets --execute`. The
   * group must have no members (NON_EMPTY_GROUP otherwise); a group that does not exist yet is
   * created with these offsets.
   *
   * @returns one entry per partition, `error` when refused
   * @throws UnsupportedVersionError before anything is sent when the brokers do not offer the API
   */
  async alterShareGroupOffsets(
    groupId: string,
    offsets: readonly ShareGroupOffsetToSet[],
    options: AdminCallOptions = {},
  ): Promise<AlterShareGroupOffsetsResult> {
    return shareGroups.alterShareGroupOffsets(
      this.#call('alterShareGroupOffsets', options),
      groupId,
      offsets,
    );
  }

  /**
   * Deletes a share group's state for whole topics (DeleteShareGroupOffsets, to its
   * coordinator), as Kafka's `Admin.deleteShareGroupOffsets`; the group must have no members.
   *
   * @returns one entry per topic, `error` when refused (UNKNOWN_TOPIC_OR_PARTITION, ...)
   * @throws ProtocolError the group's refusal (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP,
   *   GROUP_AUTHORIZATION_FAILED); UnsupportedVersionError before anything is sent when the
   *   brokers do not offer the API
   */
  async deleteShareGroupOffsets(
    groupId: string,
    topics: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DeleteShareGroupOffsetsResult> {
    return shareGroups.deleteShareGroupOffsets(
      this.#call('deleteShareGroupOffsets', options),
      groupId,
      topics,
    );
  }

  /**
   * Deletes share groups (DeleteGroups, each to its coordinator), as Kafka's
   * `Admin.deleteShareGroups`. DeleteGroups takes any group type: check the type first
   * ({@link listShareGroups}) when the ids may name other groups.
   *
   * @returns one entry per group, `error` NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ... when refused
   * @throws UnsupportedVersionError before anything is sent when the brokers do not offer
   *   share groups
   */
  async deleteShareGroups(
    groupIds: readonly string[],
    options: AdminCallOptions = {},
  ): Promise<DeleteGroupsResult> {
    return shareGroups.deleteShareGroups(this.#call('deleteShareGroups', options), groupIds);
  }

  /**
   * Closes the admin: later calls reject with `AdminClosedError`. Closes the cluster too when
   * this admin made it ({@link connect}); a borrowed cluster stays open. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) await this.cluster.close();
  }
}
