/** The package's name. */
export const PACKAGE_NAME = '@kafkats/client';

export { murmur2, partitionForKey, StickyPartitioner, toPositive } from './partitioner.js';
export { Producer } from './producer.js';
export type { ProducerCluster } from './producer-cluster.js';
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
} from './producer-errors.js';
export type {
  Delivery,
  ProducerOptions,
  ProducerRecord,
  RecordMetadata,
  TransactionGroup,
  TransactionOffset,
} from './producer-options.js';
