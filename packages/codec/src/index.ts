/**
 * The public entry of @kafkats/codec. Everything generated from Kafka's schemas (messages,
 * `data` schemas, tiered-storage records, API descriptors, headers) comes from
 * `./gen/index.js`, which the generator writes; this file lists the hand-written parts.
 * Nothing here runs on import (the package declares `"sideEffects": false`), so a bundler
 * keeps only the messages a program uses.
 */
export { decodeExact, TrailingBytesError } from './decode-exact.js';
export * from './description.js';
export type { CodecErrorReason } from './errors.js';
export { CodecError, KafkaError } from './errors.js';
export {
  decodeResponseFrame,
  encodeRequestFrame,
  encodeRequestFrameChunks,
  readResponseCorrelationId,
  writeRequestFrame,
  ZERO_COPY_FROM_BYTES,
} from './frame.js';
export * from './gen/descriptions/index.js';
export type { BrokerErrorInfo, ErrorName } from './gen/errors.js';
export { BROKER_ERRORS, BROKER_ERRORS_SOURCE, ErrorCode } from './gen/errors.js';
export * from './gen/index.js';
export { fromKafkaJson, toKafkaJson } from './kafka-json.js';
export type { ApiDescriptor, ResponseErrorEntry, UnknownTaggedField } from './protocol.js';
export {
  brokerErrorInfo,
  COORDINATOR_REFRESH_CODES,
  ProtocolError,
  protocolErrorOrNull,
} from './protocol-error.js';
export { Reader } from './reader.js';
export type { RecordBatchFields } from './records/batch-header.js';
export { recordBatchSizeUpperBound, restampRecordBatch } from './records/batch-header.js';
export type {
  CodecImplementations,
  CompressionBackend,
  CompressionCodec,
  CompressionOperation,
  CompressionOptions,
  CompressOptions,
  DecompressOptions,
} from './records/compression.js';
export {
  COMPRESSION_CODECS,
  CompressionId,
  CompressionUnavailableError,
  compress,
  compressionSupport,
  compressSync,
  decompress,
} from './records/compression.js';
export type { ControlRecord, ControlRecordTypeName } from './records/control-record.js';
export {
  ControlRecordType,
  decodeControlRecord,
  endTransactionMarker,
} from './records/control-record.js';
export { crc32, crc32c, crc32cJs } from './records/crc32c.js';
export { decodeRecordBatches, RecordBatchIterator } from './records/decode-record-batches.js';
export type {
  RecordBatchInput,
  RecordHeaderInput,
  RecordInput,
  TimestampType,
} from './records/encode-record-batch.js';
export { encodeRecordBatch, encodeRecordBatchSync } from './records/encode-record-batch.js';
export { RECORD_BATCH_OVERHEAD } from './records/layout.js';
export { murmur2, partitionForKey, toPositive } from './records/partition-hash.js';
export type { RecordHeader } from './records/record.js';
export { KafkaRecord } from './records/record.js';
export type { DecodeRecordBatchesOptions, RecordBatch } from './records/record-batch.js';
export { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './records/record-batch.js';
export type { BuilderCompressOptions } from './records/record-batch-builder.js';
export { RecordBatchBuilder } from './records/record-batch-builder.js';
export { RecordBatchError } from './records/record-batch-error.js';
export { RecordColumns } from './records/record-columns.js';
export type { RecordHeadersInput, RecordHeaderValue } from './records/record-fields.js';
export { recordSizeInBytes } from './records/record-fields.js';
export { ZERO_UUID } from './uuid.js';
export { EMPTY_BUFFER, Writer } from './writer.js';
