/** The package's name. */
export const PACKAGE_NAME = '@kafkats/client';

export type {
  MultiPartitionReaderOptions,
  PartitionAssignment,
} from './multi-partition-reader.js';
export { MultiPartitionReader } from './multi-partition-reader.js';
export type { IsolationLevelName, PartitionBatch } from './partition-batch.js';
export type { PartitionReaderOptions } from './partition-reader.js';
export { PartitionReader } from './partition-reader.js';
export type { PartitionReaderErrorCode } from './reader-errors.js';
export { OffsetOutOfRangeError, PartitionReaderError } from './reader-errors.js';
