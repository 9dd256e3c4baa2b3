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
