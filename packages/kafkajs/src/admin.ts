// kafkajs's admin client (`kafka.admin()`): its calls, option names, answer shapes and enums,
// each call made by kafkats's `Admin` (packages/client/src/admin). Where the two differ the
// difference is said on the call; the migration guide lists them all.
import type { ClientContext, RetryOptions } from './config.js';
import type {
  InstrumentationEvent,
  RemoveInstrumentationEventListener,
} from './instrumentation.js';
import { KafkaJSAdmin } from './internal/admin-client.js';
import type { Logger } from './logger.js';

/** `kafka.admin(config)`. */
export interface AdminConfig {
  /** Overrides the `Kafka` config's `retry` for this client's requests, field by field. */
  retry?: RetryOptions;
}

/** kafkajs's ACL resource types (Kafka's `ResourceType` ids). */
export const AclResourceTypes = Object.freeze({
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
} as const);
export type AclResourceTypes = (typeof AclResourceTypes)[keyof typeof AclResourceTypes];

/**
 * kafkajs 1.x's name for the resource types; kafkajs 2.2 no longer exports it. Kept for code
 * written against 1.x: the same ids as {@link AclResourceTypes}.
 * @deprecated use {@link AclResourceTypes} or {@link ConfigResourceTypes}
 */
export const ResourceTypes = AclResourceTypes;
export type ResourceTypes = AclResourceTypes;

/** kafkajs's config resource types (Kafka's `ConfigResource.Type` ids). */
export const ConfigResourceTypes = Object.freeze({
  UNKNOWN: 0,
  TOPIC: 2,
  BROKER: 4,
  BROKER_LOGGER: 8,
} as const);
export type ConfigResourceTypes = (typeof ConfigResourceTypes)[keyof typeof ConfigResourceTypes];

/**
 * Where a described config's value comes from (DescribeConfigs `configSource`). A newer
 * broker may answer ids past 6 (7 client metrics, 8 group configs), given as the numbers.
 */
export const ConfigSource = Object.freeze({
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const);
export type ConfigSource = (typeof ConfigSource)[keyof typeof ConfigSource];

/** kafkajs's ACL permission types. */
export const AclPermissionTypes = Object.freeze({
  UNKNOWN: 0,
  ANY: 1,
  DENY: 2,
  ALLOW: 3,
} as const);
export type AclPermissionTypes = (typeof AclPermissionTypes)[keyof typeof AclPermissionTypes];

/** kafkajs's ACL operations (Kafka's `AclOperation` ids 0-12; a broker's newer ids come as numbers). */
export const AclOperationTypes = Object.freeze({
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
} as const);
export type AclOperationTypes = (typeof AclOperationTypes)[keyof typeof AclOperationTypes];

/** kafkajs's ACL resource pattern types; ANY and MATCH only in filters. */
export const ResourcePatternTypes = Object.freeze({
  UNKNOWN: 0,
  ANY: 1,
  MATCH: 2,
  LITERAL: 3,
  PREFIXED: 4,
} as const);
export type ResourcePatternTypes = (typeof ResourcePatternTypes)[keyof typeof ResourcePatternTypes];

/** A config entry to set: `{ name: 'cleanup.policy', value: 'compact' }`. */
export interface IResourceConfigEntry {
  name: string;
  value: string;
}

/** The replicas of one partition, the first its preferred leader. */
export interface ReplicaAssignment {
  partition: number;
  replicas: Array<number>;
}

/** A topic for `createTopics`. */
export interface ITopicConfig {
  topic: string;
  /** Default: the broker's `num.partitions`. */
  numPartitions?: number;
  /** Default: the broker's `default.replication.factor`. */
  replicationFactor?: number;
  replicaAssignment?: ReplicaAssignment[];
  configEntries?: IResourceConfigEntry[];
}

/** A partition increase for `createPartitions`: `count` is the new total. */
export interface ITopicPartitionConfig {
  topic: string;
  count: number;
  assignments?: Array<Array<number>>;
}

/** One partition as `fetchTopicMetadata` describes it. */
export interface PartitionMetadata {
  /** 0, or the partition's error code (LEADER_NOT_AVAILABLE, ...). */
  partitionErrorCode: number;
  partitionId: number;
  /** -1 when the partition has no leader. */
  leader: number;
  replicas: number[];
  isr: number[];
  offlineReplicas?: number[];
}

export interface ITopicMetadata {
  name: string;
  partitions: PartitionMetadata[];
}

// The next five types are also the consumer's (consumer.ts exports them); kept unexported here
// so the package's `export *` roots have one of each.

/** The topics and partitions to ask about. */
interface TopicPartitions {
  topic: string;
  partitions: number[];
}

/** One partition's new replicas for `alterPartitionReassignments`. */
export interface PartitionReassignment {
  topic: string;
  partitionAssignment: Array<ReplicaAssignment>;
}

/** A partition and an offset (a decimal string; a number is accepted on input). */
interface PartitionOffset {
  partition: number;
  offset: string;
}

export type SeekEntry = PartitionOffset;

export type FetchOffsetsPartition = PartitionOffset & { metadata: string | null };

/** A config resource to describe; `configNames` picks keys (default all). */
export interface ResourceConfigQuery {
  type: ConfigResourceTypes;
  name: string;
  configNames?: string[];
}

export interface ConfigSynonyms {
  configName: string;
  configValue: string;
  configSource: ConfigSource;
}

export interface ConfigEntries {
  configName: string;
  /** Null for a sensitive or unset value. */
  configValue: string;
  isDefault: boolean;
  configSource: ConfigSource;
  isSensitive: boolean;
  readOnly: boolean;
  configSynonyms: ConfigSynonyms[];
}

export interface DescribeConfigResponse {
  resources: {
    configEntries: ConfigEntries[];
    errorCode: number;
    errorMessage: string;
    resourceName: string;
    resourceType: ConfigResourceTypes;
  }[];
  throttleTime: number;
}

/** A resource's configs to set with `alterConfigs`. */
export interface IResourceConfig {
  type: ConfigResourceTypes;
  name: string;
  configEntries: IResourceConfigEntry[];
}

/** What `alterConfigs` resolves with. */
export interface AlterConfigResponse {
  resources: {
    errorCode: number;
    errorMessage: string | null;
    resourceName: string;
    resourceType: ConfigResourceTypes;
  }[];
  throttleTime: number;
}

export interface Acl {
  principal: string;
  host: string;
  operation: AclOperationTypes;
  permissionType: AclPermissionTypes;
}

export interface AclResource {
  resourceType: AclResourceTypes;
  resourceName: string;
  resourcePatternType: ResourcePatternTypes;
}

export type AclEntry = Acl & AclResource;

export type DescribeAclResource = AclResource & { acls: Acl[] };

export interface DescribeAclResponse {
  throttleTime: number;
  errorCode: number;
  errorMessage?: string | null;
  resources: DescribeAclResource[];
}

/** An ACL filter: names, principal and host left out match anything. */
export interface AclFilter {
  resourceType: AclResourceTypes;
  resourceName?: string;
  resourcePatternType: ResourcePatternTypes;
  principal?: string;
  host?: string;
  operation: AclOperationTypes;
  permissionType: AclPermissionTypes;
}

export interface MatchingAcl {
  errorCode: number;
  errorMessage?: string | null;
  resourceType: AclResourceTypes;
  resourceName: string;
  resourcePatternType: ResourcePatternTypes;
  principal: string;
  host: string;
  operation: AclOperationTypes;
  permissionType: AclPermissionTypes;
}

export interface DeleteAclFilterResponses {
  errorCode: number;
  errorMessage?: string | null;
  matchingAcls: MatchingAcl[];
}

export interface DeleteAclResponse {
  throttleTime: number;
  filterResponses: DeleteAclFilterResponses[];
}

/**
 * One partition being moved. kafkajs's declarations name its fields `partitionIndex` (and the
 * topic's `topic`) while kafkajs answers `partition` (and `name`): both are given.
 */
export interface OngoingPartitionReassignment {
  partitionIndex: number;
  partition: number;
  replicas: number[];
  addingReplicas?: number[];
  removingReplicas?: number[];
}

export interface OngoingTopicReassignment {
  topic: string;
  name: string;
  partitions: OngoingPartitionReassignment[];
}

export interface ListPartitionReassignmentsResponse {
  topics: OngoingTopicReassignment[];
}

/** Kafka's group states as DescribeGroups names them. */
type ConsumerGroupState =
  | 'Unknown'
  | 'PreparingRebalance'
  | 'CompletingRebalance'
  | 'Stable'
  | 'Dead'
  | 'Empty';

interface MemberDescription {
  clientHost: string;
  clientId: string;
  memberId: string;
  /** The member's encoded assignment (empty for a member of a KIP-848 `consumer` group). */
  memberAssignment: Buffer;
  /** The member's encoded subscription (empty for a member of a KIP-848 `consumer` group). */
  memberMetadata: Buffer;
}

interface GroupDescription {
  groupId: string;
  members: MemberDescription[];
  protocol: string;
  protocolType: string;
  state: ConsumerGroupState;
  /** Always 0: a group's error rejects `describeGroups`, as in kafkajs. */
  errorCode?: number;
}

export interface GroupDescriptions {
  groups: GroupDescription[];
}

export interface GroupOverview {
  groupId: string;
  protocolType: string;
}

/** One group's outcome of `deleteGroups` (in `KafkaJSDeleteGroupsError.groups` when it failed). */
export interface DeleteGroupsResult {
  groupId: string;
  errorCode?: number;
  error?: Error;
}

/** The admin's instrumentation event names (`admin.events`). */
export interface AdminEvents {
  CONNECT: 'admin.connect';
  DISCONNECT: 'admin.disconnect';
  REQUEST: 'admin.network.request';
  REQUEST_TIMEOUT: 'admin.network.request_timeout';
  REQUEST_QUEUE_SIZE: 'admin.network.request_queue_size';
}

/**
 * kafkajs's admin client. Calls made before `connect()` connect first, as kafkajs's broker pool
 * does; `disconnect()` closes this client's connections.
 */
export interface Admin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Every topic's name, internal topics included (as kafkajs's Metadata for all topics). */
  listTopics(): Promise<string[]>;
  /**
   * Creates topics: true when created, false when every refused topic already existed;
   * rejects with a `KafkaJSAggregateError` of `KafkaJSCreateTopicError` otherwise.
   */
  createTopics(options: {
    validateOnly?: boolean;
    waitForLeaders?: boolean;
    timeout?: number;
    topics: ITopicConfig[];
  }): Promise<boolean>;
  /**
   * Deletes topics; rejects with the first topic's error (UNKNOWN_TOPIC_OR_PARTITION at once,
   * where kafkajs retried it until its retries ran out).
   */
  deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void>;
  /** Raises partition counts; resolves true (kafkajs resolves undefined, though typed boolean). */
  createPartitions(options: {
    validateOnly?: boolean;
    timeout?: number;
    topicPartitions: ITopicPartitionConfig[];
  }): Promise<boolean>;
  fetchTopicMetadata(options?: { topics: string[] }): Promise<{ topics: Array<ITopicMetadata> }>;
  /**
   * A group's committed offsets ('-1' for none), every partition of `topics` or every topic the
   * group committed. `resolveOffsets` turns a committed -1/-2 (kafkajs's resetOffsets leaves
   * them) into the high/low watermark and commits it, as kafkajs does.
   */
  fetchOffsets(options: {
    groupId: string;
    topics?: string[];
    resolveOffsets?: boolean;
  }): Promise<Array<{ topic: string; partitions: FetchOffsetsPartition[] }>>;
  fetchTopicOffsets(topic: string): Promise<Array<SeekEntry & { high: string; low: string }>>;
  fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<Array<SeekEntry>>;
  describeCluster(): Promise<{
    brokers: Array<{ nodeId: number; host: string; port: number }>;
    controller: number | null;
    clusterId: string;
  }>;
  /**
   * Commits offsets for a group with no running member. -1 (latest) and -2 (earliest) are
   * resolved to the watermarks of now before they are committed, as Kafka's
   * `kafka-consumer-groups.sh --reset-offsets` does: kafkajs commits them as they are for its
   * own consumer to resolve, which kafkats's and Java's consumers would take for no commit.
   */
  setOffsets(options: {
    groupId: string;
    topic: string;
    partitions: Array<{ partition: number; offset: string | number }>;
  }): Promise<void>;
  /** setOffsets of every partition to -2 (`earliest`) or -1 (default), resolved as there. */
  resetOffsets(options: { groupId: string; topic: string; earliest?: boolean }): Promise<void>;
  describeConfigs(configs: {
    resources: ResourceConfigQuery[];
    includeSynonyms?: boolean;
  }): Promise<DescribeConfigResponse>;
  /**
   * Sets configs. kafkajs sends the legacy AlterConfigs, which resets every dynamic config left
   * out of a resource to its default; kafkats sends IncrementalAlterConfigs (each entry a SET)
   * and leaves the configs not listed as they are.
   */
  alterConfigs(configs: {
    validateOnly?: boolean;
    resources: IResourceConfig[];
  }): Promise<AlterConfigResponse>;
  listGroups(): Promise<{ groups: GroupOverview[] }>;
  deleteGroups(groupIds: string[]): Promise<DeleteGroupsResult[]>;
  describeGroups(groupIds: string[]): Promise<GroupDescriptions>;
  describeAcls(options: AclFilter): Promise<DescribeAclResponse>;
  deleteAcls(options: { filters: AclFilter[] }): Promise<DeleteAclResponse>;
  createAcls(options: { acl: AclEntry[] }): Promise<boolean>;
  deleteTopicRecords(options: {
    topic: string;
    partitions: Array<{ partition: number; offset: string | number }>;
  }): Promise<void>;
  alterPartitionReassignments(request: {
    topics: PartitionReassignment[];
    timeout?: number;
  }): Promise<void>;
  listPartitionReassignments(request: {
    topics?: TopicPartitions[];
    timeout?: number;
  }): Promise<ListPartitionReassignmentsResponse>;
  logger(): Logger;
  /**
   * Listens for CONNECT, DISCONNECT, REQUEST (each answered request of this admin's
   * connections) and REQUEST_TIMEOUT. REQUEST_QUEUE_SIZE is accepted and never emitted.
   */
  on(
    eventName: AdminEvents[keyof AdminEvents],
    // biome-ignore lint/suspicious/noExplicitAny: kafkajs's listener takes any event payload
    listener: (event: InstrumentationEvent<any>) => void,
  ): RemoveInstrumentationEventListener<typeof eventName>;
  readonly events: AdminEvents;
}

/** The admin `kafka.admin(config)` returns; nothing connects before its first call. */
export function createAdmin(context: ClientContext, config: AdminConfig): Admin {
  return new KafkaJSAdmin(context, config);
}
