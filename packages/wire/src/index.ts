export type { ApiVersionRange } from './broker-capabilities.js';
export { BrokerCapabilities } from './broker-capabilities.js';
export { BrokerConnection } from './broker-connection.js';
export type { ConnectionMetricsSnapshot } from './connection-metrics.js';
export { ConnectionMetrics } from './connection-metrics.js';
export type { ConnectTraceContext, RequestTraceContext } from './diagnostics.js';
export {
  CONNECT_CHANNEL,
  connectChannel,
  createTracingChannel,
  REQUEST_CHANNEL,
  requestChannel,
} from './diagnostics.js';
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
export type { HistogramSnapshot } from './histogram.js';
export { Histogram } from './histogram.js';
export type { LogFields, Logger, LogLevel } from './logger.js';
export { errorFields, filterLogger, silentLogger } from './logger.js';
export type { OAuthClientCredentialsOptions } from './oauth.js';
export { OAuthTokenError, oauthClientCredentials } from './oauth.js';
export type {
  BrokerConnectionEvents,
  BrokerConnectionOptions,
  CloseOptions,
  ConnectionState,
  ConnectionStats,
  DisconnectEvent,
  SendOptions,
  TlsOptions,
} from './options.js';
export type {
  CustomSasl,
  OAuthBearerOptions,
  OAuthBearerToken,
  OAuthBearerTokenProvider,
  PlainOptions,
  SaslExchange,
  SaslMechanism,
  SaslOptions,
  ScramOptions,
} from './sasl.js';
export { OAuthBearerMechanism, PlainMechanism, ScramMechanism, saslMechanism } from './sasl.js';
