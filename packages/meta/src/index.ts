export type { AccessEntry, ApiAccess } from './access.js';
export { ACCESS_TABLE, apiAccess, requestMutation } from './access.js';
export type {
  ConnectionFactory,
  ConnectionSendOptions,
  ConnectTarget,
  MetaConnection,
} from './api.js';
export type { TargetKind, Verdict } from './classify.js';
export { classify } from './classify.js';
export type {
  ClusterConfig,
  ClusterMetricsSnapshot,
  ClusterSendOptions,
  ClusterTarget,
  RequestInput,
} from './cluster.js';
export { Cluster } from './cluster.js';
export {
  ClusterClosedError,
  OperationTimeoutError,
  ReadOnlyError,
  UnknownNodeError,
} from './errors.js';
export type { CoordinatorAnswer } from './find-coordinator.js';
export {
  buildFindCoordinatorBatchRequest,
  buildFindCoordinatorRequest,
  readFindCoordinatorResponse,
} from './find-coordinator.js';
export type { MetadataSnapshotAnswer } from './metadata-request.js';
export {
  buildMetadataRequest,
  decodeMetadataSnapshot,
  MetadataSnapshotApi,
  snapshotFromAnswer,
  snapshotFromMetadata,
} from './metadata-request.js';
export type { BrokerMetricsSnapshot, BrokerPoolOptions, Endpoint, PoolWait } from './pool.js';
export { BrokerPool, parseHostPort } from './pool.js';
export type { ResponseError } from './response-errors.js';
export { responseErrors } from './response-errors.js';
export type { RetryPolicy } from './retry.js';
export { DEFAULT_RETRY_POLICY, retryDelayMs, sleep } from './retry.js';
export type { RouteEntry } from './routing.js';
export {
  BrokerSelector,
  COORDINATOR_KEY_TYPE,
  CoordinatorKind,
  ROUTING_TABLE,
  Routing,
  routing,
} from './routing.js';
export type {
  BrokerInfo,
  LeaderHint,
  PartitionInfo,
  SnapshotInit,
  TopicInfo,
} from './snapshot.js';
export { keepNewerLeaderEpochs, MetadataSnapshot } from './snapshot.js';
export type { WireConnectionOptions } from './wire-factory.js';
export { wireConnectionFactory } from './wire-factory.js';
