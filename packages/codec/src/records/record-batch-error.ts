import { CodecError, type CodecErrorReason } from '../errors.js';

/**
 * A record batch that cannot be read: bad CRC, a length or count that lies, a codec we do
 * not know, or a payload that inflates past the limit. `code` is `ERR_KAFKA_CODEC_<REASON>`
 * (`CORRUPT` for a CRC mismatch); never retriable: the same bytes fail the same way.
 */
export class RecordBatchError extends CodecError {
  /** Base offset of the batch (the wrapper offset for legacy messages); null when unread. */
  readonly baseOffset: bigint | null;
  /** On a CRC mismatch: the CRC the batch carries, else null. */
  readonly expectedCrc: number | null;
  /** On a CRC mismatch: the CRC of the bytes, else null. */
  readonly actualCrc: number | null;

  constructor(
    reason: CodecErrorReason,
    baseOffset: bigint | null,
    detail: string,
    options: { cause?: unknown; expectedCrc?: number; actualCrc?: number } = {},
  ) {
    super(
      reason,
      baseOffset === null ? 'record batch' : `record batch at offset ${baseOffset}`,
      detail,
      options.cause === undefined ? {} : { cause: options.cause },
    );
    this.baseOffset = baseOffset;
    this.expectedCrc = options.expectedCrc ?? null;
    this.actualCrc = options.actualCrc ?? null;
  }
}
