export { CodecError, KafkaError } from './errors.js';
export type { CodecErrorReason } from './errors.js';
