// kafkajs 2.2's public API on kafkats: `import { Kafka } from '@kafkats/kafkajs'` where
// `from 'kafkajs'` was. Every byte on the wire is kafkats's (Producer, Consumer, Admin of
// @kafkats/client); this package only translates options, message shapes, events and errors.
export * from './admin.js';
export type {
  BrokersFunction,
  KafkaConfig,
  Mechanism,
  OauthbearerProviderResponse,
  RetryOptions,
  SASLMechanism,
  SASLOptions,
} from './config.js';
export * from './consumer.js';
export * from './errors.js';
export type {
  InstrumentationEvent,
  RemoveInstrumentationEventListener,
} from './instrumentation.js';
export { Kafka } from './kafka.js';
export type { LogEntry, Logger, LoggerEntryContent, logCreator } from './logger.js';
export { logLevel } from './logger.js';
export * from './producer.js';
