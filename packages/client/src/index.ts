// The pieces a library user meets besides this package's own classes: the Cluster every
// producer, consumer and reader is built on, the error classes of the layers below that
// reach the application, so that `npm install @kafkats/client` is enough for `instanceof`,
// and Kafka's default partitioning hash (the codec's), to route keys as the producer does; the
// codec's record columns, which every fetched batch also hands out.

export type { CompressionBackend, CompressionCodec, RecordColumns } from '@kafkats/codec';
export {
  KafkaError,
  murmur2,
  ProtocolError,
  partitionForKey,
  RecordBatchError,
  toPositive,
} from '@kafkats/codec';
export type { ClusterConfig } from '@kafkats/meta';
export {
  Cluster,
  ClusterClosedError,
  OperationTimeoutError,
  ReadOnlyError,
} from '@kafkats/meta';
export type {
  OAuthBearerToken,
  OAuthBearerTokenProvider,
  OAuthClientCredentialsOptions,
  SaslExchange,
  SaslMechanism,
  SaslOptions,
  TlsOptions,
} from '@kafkats/wire';
export {
  AbortedError,
  AuthenticationError,
  ConnectionError,
  OAuthTokenError,
  oauthClientCredentials,
  RequestTimeoutError,
  UnsupportedVersionError,
} from '@kafkats/wire';
export type {
  AclBinding,
  AclBindingFilter,
  AclBindingInput,
  AclOperation,
  AclPatternType,
  AclPermissionType,
  AclResourceType,
  CreateAclsResult,
  DeleteAclsFilterResult,
  DeleteAclsResult,
  DescribeAclsResult,
} from './admin/acls.js';
export { ACL_OPERATIONS } from './admin/acls.js';
export { Admin } from './admin/admin.js';
export type { AdminCallOptions, AdminOptions } from './admin/admin-options.js';
export { AdminClosedError } from './admin/admin-options.js';
export type {
  BrokerDescription,
  BrokerLogDirs,
  ClusterDescription,
  DescribeClusterOptions,
  DescribeLogDirsOptions,
  DescribeLogDirsResult,
  ElectedPartition,
  ElectionType,
  ElectLeadersOptions,
  ElectLeadersResult,
  LogDirDescription,
  LogDirReplica,
} from './admin/cluster.js';
export type {
  AlterConfigOp,
  AlterConfigOpType,
  AlterConfigsOptions,
  AlterConfigsResource,
  AlterConfigsResult,
  ConfigEntry,
  ConfigResource,
  ConfigResourceType,
  ConfigSource,
  ConfigSynonym,
  ConfigType,
  DescribeConfigsOptions,
  DescribeConfigsResource,
  DescribeConfigsResult,
  DescribedConfigs,
} from './admin/configs.js';
export { CONFIG_RESOURCE_TYPE_CODES } from './admin/configs.js';
export type {
  DescribeFeaturesResult,
  FeatureDescription,
  FeatureUpdate,
  FeatureUpgradeType,
  UpdateFeaturesOptions,
  UpdateFeaturesResult,
} from './admin/features.js';
export type {
  AlterConsumerGroupOffsetsResult,
  CommittedOffset,
  DeleteConsumerGroupOffsetsResult,
  DeleteGroupsResult,
  DescribeGroupsOptions,
  DescribeGroupsResult,
  GroupDescription,
  GroupListing,
  GroupMember,
  GroupOffsetToSet,
  ListConsumerGroupOffsetsOptions,
  ListConsumerGroupOffsetsResult,
  ListGroupsOptions,
  ListGroupsResult,
  MemberToRemove,
  RemoveMembersOptions,
  RemoveMembersResult,
} from './admin/groups.js';
export type {
  DeletedRecords,
  DeleteRecordsRequestItem,
  DeleteRecordsResult,
  DescribeProducersOptions,
  DescribeProducersResult,
  IsolationLevel,
  ListedOffset,
  ListOffsetsOptions,
  ListOffsetsRequestItem,
  ListOffsetsResult,
  OffsetSpec,
  PartitionProducers,
  ProducerState,
} from './admin/offsets.js';
export type {
  AlterClientQuotasOptions,
  AlterClientQuotasResult,
  ClientQuotaAlteration,
  ClientQuotaEntity,
  ClientQuotaFilter,
  ClientQuotaFilterComponent,
  DescribeClientQuotasResult,
} from './admin/quotas.js';
export type {
  AlterPartitionReassignmentsResult,
  ListPartitionReassignmentsResult,
  OngoingReassignment,
  PartitionReassignment,
} from './admin/reassignments.js';
export type {
  AlterUserScramCredentialsResult,
  DescribeUserScramCredentialsResult,
  ScramCredentialInfo,
  ScramMechanism,
  UserScramCredentialAlteration,
} from './admin/scram.js';
export type {
  AlterShareGroupOffsetsResult,
  DeleteShareGroupOffsetsResult,
  DescribeShareGroupOffsetsOptions,
  DescribeShareGroupOffsetsResult,
  DescribeShareGroupsOptions,
  DescribeShareGroupsResult,
  ListShareGroupsOptions,
  ListShareGroupsResult,
  ShareGroupDescription,
  ShareGroupListing,
  ShareGroupMember,
  ShareGroupOffsetToSet,
  ShareGroupPartitionOffset,
} from './admin/share-groups.js';
export type {
  CreatedTopic,
  CreatedTopicConfig,
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
  PartitionDescription,
  TopicDescription,
  TopicListing,
  TopicToWaitFor,
  WaitForTopicsOptions,
} from './admin/topics.js';
export type {
  AbortTransactionSpec,
  DescribeTransactionsResult,
  ListTransactionsOptions,
  ListTransactionsResult,
  TransactionDescription,
  TransactionListing,
} from './admin/transactions.js';
export type {
  ConsumerMetricsSnapshot,
  ConsumerPartitionMetrics,
  FetchTraceContext,
  ProducerMetricsSnapshot,
  ProduceTraceContext,
  ReaderMetricsSnapshot,
  RebalanceTraceContext,
} from './client-diagnostics.js';
export {
  FETCH_CHANNEL,
  fetchChannel,
  PRODUCE_CHANNEL,
  produceChannel,
  REBALANCE_CHANNEL,
  rebalanceChannel,
} from './client-diagnostics.js';
export { Consumer } from './consumer/consumer.js';
export type { ClassicMembershipErrorCode } from './consumer/consumer-errors.js';
export {
  ClassicMembershipError,
  CommitFailedError,
  ConsumerClosedError,
  ConsumerConfigError,
  GroupMembershipError,
  GroupProtocolUnsupportedError,
  NoOffsetForPartitionError,
} from './consumer/consumer-errors.js';
export type {
  ConsumerCommitOffset,
  ConsumerGroupMetadata,
  ConsumerOptions,
  ConsumerRebalanceListener,
  ConsumerRunOptions,
  GroupTopicPartition,
} from './consumer/consumer-options.js';
export type {
  GroupAssignment,
  MemberSubscription,
  PartitionAssignor,
  PartitionsPerTopic,
} from './consumer/partition-assignor.js';
export { ShareConsumer } from './share/share-consumer.js';
export type {
  AcknowledgeType,
  ShareAcknowledgementMode,
  ShareAcknowledgementResult,
  ShareConsumerOptions,
  ShareRecord,
} from './share/share-consumer-options.js';
export {
  ShareAcknowledgeError,
  ShareGroupError,
  ShareGroupsUnsupportedError,
} from './share/share-errors.js';
export type { TopicPartition } from './topic-partition.js';

/** The package's name. */
export const PACKAGE_NAME = '@kafkats/client';

export type { FetchStateErrorCode } from './fetch/fetch-errors.js';
export {
  FetchPartitionError,
  FetchStateError,
  LogTruncationError,
  OffsetOutOfRangeError,
} from './fetch/fetch-errors.js';
export type { FetchPartitionStats, FetchRequestStats } from './fetch/fetcher.js';
export type {
  ConsumerRecord,
  IsolationLevelName,
  PartitionBatch,
} from './fetch/partition-batch.js';
export {
  type Partitioner,
  type PartitionerContext,
  StickyPartitioner,
} from './producer/partitioner.js';
export { Producer } from './producer/producer.js';
export type { ProducerCluster } from './producer/producer-cluster.js';
export {
  DeliveryTimeoutError,
  ProducerBlockedError,
  ProducerClosedError,
  ProducerConfigError,
  ProducerFatalError,
  ProducerFencedError,
  RecordTooLargeError,
  TransactionAbortableError,
  TransactionStateError,
} from './producer/producer-errors.js';
export type {
  Delivery,
  DeliveryCallback,
  HeaderValue,
  ProducerOptions,
  ProducerRecord,
  ProducerRecordHeaders,
  RecordMetadata,
  SendBatchResult,
  TransactionGroup,
  TransactionOffset,
} from './producer/producer-options.js';
export type {
  MultiPartitionReaderOptions,
  PartitionAssignment,
} from './reader/multi-partition-reader.js';
export { MultiPartitionReader } from './reader/multi-partition-reader.js';
export type { PartitionReaderOptions } from './reader/partition-reader.js';
export { PartitionReader } from './reader/partition-reader.js';
export type { PartitionReaderErrorCode } from './reader/reader-errors.js';
export { PartitionReaderError } from './reader/reader-errors.js';
export type {
  Deserializer,
  DeserializerContext,
  Deserializers,
  Serializer,
  SerializerContext,
  Serializers,
} from './serialization.js';
export {
  DeserializationError,
  jsonDeserializer,
  jsonSerializer,
  rawDeserializer,
  rawSerializer,
  SerializationError,
  stringDeserializer,
  stringSerializer,
} from './serialization.js';
