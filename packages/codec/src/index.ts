export type { CodecErrorReason } from './errors.js';
export { CodecError, KafkaError } from './errors.js';
export type { BrokerErrorInfo, ErrorName } from './gen/errors.js';
export { BROKER_ERRORS, BROKER_ERRORS_SOURCE, ErrorCode } from './gen/errors.js';
export {
  brokerErrorInfo,
  COORDINATOR_REFRESH_CODES,
  ProtocolError,
  protocolErrorOrNull,
} from './protocol-error.js';
export type {
  CompressionBackend,
  CompressionCodec,
} from './records/compression.js';
export {
  COMPRESSION_CODECS,
  CompressionId,
  compress,
  compressionBackends,
  compressSync,
  decompress,
  setCompressionBackend,
} from './records/compression.js';
export type { ControlRecord, ControlRecordTypeName } from './records/control-record.js';
export {
  ControlRecordType,
  decodeControlRecord,
  endTransactionMarker,
} from './records/control-record.js';
export { crc32, crc32c } from './records/crc32c.js';
export { decodeRecordBatches, RecordBatchIterator } from './records/decode-record-batches.js';
export type {
  RecordBatchInput,
  RecordHeaderInput,
  RecordInput,
  TimestampType,
} from './records/encode-record-batch.js';
export { encodeRecordBatch, encodeRecordBatchSync } from './records/encode-record-batch.js';
export type { RecordHeader } from './records/record.js';
export { KafkaRecord } from './records/record.js';
export type { DecodeRecordBatchesOptions, RecordBatch } from './records/record-batch.js';
export { DEFAULT_MAX_UNCOMPRESSED_BYTES } from './records/record-batch.js';
export { RecordBatchError } from './records/record-batch-error.js';
