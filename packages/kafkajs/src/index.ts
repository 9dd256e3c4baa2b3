// kafkajs 2.2's public API on kafkats: `import { Kafka } from '@kafkats/kafkajs'` where
// `from 'kafkajs'` was. Every byte on the wire is kafkats's (Producer, Consumer, Admin of
// @kafkats/client); this package only translates options, message shapes, events and errors.
// The values exported are kafkajs's (plus `ResourceTypes`, kafkajs 1.x's name for
// AclResourceTypes); the types are every kafkajs type the clients use.
export type * from './admin.js';
export {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ConfigResourceTypes,
  ConfigSource,
  ResourcePatternTypes,
  ResourceTypes,
} from './admin.js';
export type {
  BrokersFunction,
  KafkaConfig,
  Mechanism,
  OauthbearerProviderResponse,
  RetryOptions,
  SASLMechanism,
  SASLOptions,
} from './config.js';
export type * from './consumer.js';
export { AssignerProtocol, PartitionAssigners } from './consumer.js';
export {
  KafkaJSAggregateError,
  KafkaJSAlterPartitionReassignmentsError,
  KafkaJSBrokerNotFound,
  KafkaJSConnectionClosedError,
  KafkaJSConnectionError,
  KafkaJSCreateTopicError,
  KafkaJSDeleteGroupsError,
  KafkaJSDeleteTopicRecordsError,
  KafkaJSError,
  KafkaJSFetcherRebalanceError,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSInvalidLongError,
  KafkaJSInvalidVarIntError,
  KafkaJSInvariantViolation,
  KafkaJSLockTimeout,
  KafkaJSMemberIdRequired,
  KafkaJSMetadataNotLoaded,
  KafkaJSNoBrokerAvailableError,
  KafkaJSNonRetriableError,
  KafkaJSNotImplemented,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSOffsetOutOfRange,
  KafkaJSPartialMessageError,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
  KafkaJSSASLAuthenticationError,
  KafkaJSServerDoesNotSupportApiKey,
  KafkaJSStaleTopicMetadataAssignment,
  KafkaJSTimeout,
  KafkaJSTopicMetadataNotLoaded,
  KafkaJSUnsupportedMagicByteInMessageSet,
} from './errors.js';
export type {
  InstrumentationEvent,
  RemoveInstrumentationEventListener,
} from './instrumentation.js';
export { Kafka } from './kafka.js';
export type { LogEntry, Logger, LoggerEntryContent, logCreator } from './logger.js';
export { logLevel } from './logger.js';
export type * from './producer.js';
export { CompressionCodecs, CompressionTypes, Partitioners } from './producer.js';
