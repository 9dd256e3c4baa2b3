export { ReconnectBackoff } from './backoff.js';
export type { ApiVersionRange } from './broker-capabilities.js';
export { BrokerCapabilities } from './broker-capabilities.js';
export type {
  BrokerConnectionEvents,
  BrokerConnectionOptions,
  ConnectionState,
  ConnectionStats,
  DisconnectEvent,
  SaslOptions,
  SendOptions,
  TlsOptions,
} from './broker-connection.js';
export { BrokerConnection } from './broker-connection.js';
export type { BrokerAddress, ResolvedAddress, Resolver } from './dns.js';
export {
  formatBrokerAddress,
  parseBrokerAddress,
  resolveBrokerHost,
  systemResolver,
} from './dns.js';
export type { ConnectionErrorCode } from './errors.js';
export {
  AuthenticationError,
  BackpressureError,
  ConnectionError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from './errors.js';
export type { PipelineSlot } from './request-pipeline.js';
export { RequestPipeline, RING_ID_SPACE, SlotState } from './request-pipeline.js';
