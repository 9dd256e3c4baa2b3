// @kafkats/testkit: real Apache Kafka clusters for tests and benchmarks, and Kafka's own Java
// client as the independent second opinion. Private tooling: library source never imports it.

export type { ClientCertificate, ClientCertificateOptions } from './client-certificates.js';
export { issueClientCertificate } from './client-certificates.js';
export { javaClientConfig } from './client-config.js';
export { selectedBackend, startCluster } from './cluster.js';
export {
  defaultKafkaVersion,
  KAFKA_VERSION_ENV,
  type KafkaDist,
  kafkaDist,
  kafkaVersionAtLeast,
  resolveKafkaVersion,
} from './dist.js';
export { JavaAdminError, TestkitError, TestkitErrorCode } from './errors.js';
// Fault injection: TCP proxy, hostile fake broker, recordings. Raw bytes only.
export {
  type FakeBroker,
  type FakeBrokerConnection,
  type FakeBrokerHandler,
  type FakeBrokerOptions,
  type RawRequest,
  startFakeBroker,
} from './faults/fake-broker.js';
export {
  frameOf,
  hostileFrames,
  RawFrameSplitter,
  type RawRequestHeader,
  readRequestHeader,
  responseFrame,
  withCorrelationId,
} from './faults/frames.js';
export {
  loadRecording,
  type RecordedExchange,
  type Recording,
  saveRecording,
  startReplayBroker,
} from './faults/recording.js';
export {
  type FaultProxy,
  type FaultProxyOptions,
  type ProxyDirection,
  startFaultProxy,
} from './faults/tcp-proxy.js';
export { compileJavaSource, mavenClasspath, runJava, runKafkaTool } from './java.js';
export {
  type AclBindingSpec,
  type AclFilterSpec,
  type BytesInput,
  type ConsumedRecord,
  type ConsumeOptions,
  JavaAdmin,
  type JavaAdminConfig,
  type JavaClusterDescription,
  type JavaTopicDescription,
  type ProducedRecord,
  type ProduceOptions,
  type ProduceRecord,
  type ProducerState,
} from './java-admin.js';
export {
  type JavaConsumedRecord,
  JavaGroupConsumer,
  type JavaGroupConsumerOptions,
} from './java-consumer.js';
export {
  JavaShareConsumer,
  type JavaShareConsumerOptions,
  type JavaSharedRecord,
} from './java-share-consumer.js';
export { stopProcessGroups } from './node-process.js';
export type { ClusterOAuth, MintOptions, OAuthClient, OAuthServer } from './oauth.js';
export { mintToken, startOAuthServer } from './oauth.js';
// Conformance oracle: Kafka's own serializers over a JSON-lines pipe.
export {
  type Oracle,
  type OracleApi,
  type OracleBatchDescription,
  type OracleDecodedBatch,
  type OracleDecodeItem,
  type OracleDecodeResult,
  type OracleEncodeItem,
  type OracleEncodeResult,
  type OracleEndTransactionMarker,
  OracleError,
  type OracleFrameItem,
  type OracleJavaError,
  type OracleRecord,
  type OracleSchemaFile,
  type StartOracleOptions,
  startOracle,
} from './oracle/oracle.js';
// Kafka's own tiered-storage metadata serde, partitioner and store, for remote-log-metadata.
export { runRlmmOracle } from './oracle/rlmm-oracle.js';
export { reapOrphans } from './reaper.js';
export type {
  BrokerEndpoint,
  ClusterDescription,
  ClusterSecurity,
  JavaAdminOptions,
  KafkaCluster,
  ListenerName,
  RestartNodeOptions,
  SaslMechanism,
  ScramUser,
  StartClusterOptions,
  StopNodeOptions,
} from './types.js';
export { type SharedCluster, sharedCluster } from './vitest/shared-cluster.js';
