export type { ApiVersionRange } from './broker-capabilities.js';
export { BrokerCapabilities } from './broker-capabilities.js';
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
  AbortedError,
  AuthenticationError,
  BackpressureError,
  ConnectionError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from './errors.js';
export type {
  BrokerConnectionEvents,
  BrokerConnectionOptions,
  ConnectionState,
  ConnectionStats,
  DisconnectEvent,
  SaslOptions,
  SendOptions,
  TlsOptions,
} from './options.js';
