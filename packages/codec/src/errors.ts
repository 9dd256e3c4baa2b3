/**
 * The root of every error kafkats throws.
 *
 * `code` is a stable string (`ERR_KAFKA_<NOUN>_<PROBLEM>`) to branch on; messages are for
 * people and may change. `retriable` is explicit: an error that does not know says `false`.
 * Messages name the object (`broker 3 (127.0.0.1:9092)`, `Produce v11`) and never carry
 * credentials.
 */
export class KafkaError extends Error {
  /** Stable machine-readable code, e.g. `ERR_KAFKA_CODEC_TRUNCATED`. */
  readonly code: string;
  /** True when sending the same request again may succeed. */
  readonly retriable: boolean;

  constructor(
    code: string,
    message: string,
    options: { retriable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** Why a codec operation failed. */
export type CodecErrorReason =
  /** Fewer bytes left than the field needs. */
  | 'TRUNCATED'
  /** A length, count or varint outside what the protocol allows. */
  | 'LENGTH_INVALID'
  /** Null where the version does not allow null. */
  | 'NULL_NOT_ALLOWED'
  /** A field set to a non-default value at a version that lacks it. */
  | 'FIELD_NOT_IN_VERSION'
  /** A version the message does not have. */
  | 'VERSION_UNSUPPORTED'
  /** A value out of range for its type (int32 overflow, bad uuid text, ...). */
  | 'VALUE_INVALID'
  /** A checksum did not match. */
  | 'CORRUPT'
  /** Bytes left over after a complete message. */
  | 'TRAILING_BYTES'
  /** A compression codec, magic byte or record type we do not know. */
  | 'UNSUPPORTED'
  /** A codec we know whose implementation is not installed (a package to add). */
  | 'UNAVAILABLE';

/**
 * Bad bytes or a message that cannot be represented at the requested version.
 *
 * `path` says where: `MetadataResponse v12 .topics[3].partitions[7].leaderEpoch`. Thrown
 * synchronously by every encoder and decoder; never retriable.
 */
export class CodecError extends KafkaError {
  readonly reason: CodecErrorReason;
  /** Where in the message the problem is; empty when not known. */
  readonly path: string;

  constructor(
    reason: CodecErrorReason,
    path: string,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`ERR_KAFKA_CODEC_${reason}`, path === '' ? detail : `${path}: ${detail}`, options);
    this.reason = reason;
    this.path = path;
  }
}
