import { CodecError } from './errors.js';
import { Reader } from './reader.js';

/**
 * Bytes left over after a complete message: the input was not that message at that version
 * (or carried something after it). `code` is `ERR_KAFKA_CODEC_TRAILING_BYTES`.
 */
export class TrailingBytesError extends CodecError {
  /** The message's name, e.g. `MetadataResponse`. */
  readonly messageName: string;
  /** The version it was decoded at. */
  readonly version: number;
  /** How many bytes were left unread. */
  readonly trailingBytes: number;

  constructor(messageName: string, version: number, trailingBytes: number) {
    super(
      'TRAILING_BYTES',
      `${messageName} v${version}`,
      `${trailingBytes} byte${trailingBytes === 1 ? '' : 's'} after the message`,
    );
    this.messageName = messageName;
    this.version = version;
    this.trailingBytes = trailingBytes;
  }
}

/**
 * Decodes `body` as exactly one message: what a generated `decodeX(r, version)` reads, and
 * nothing after it. The generated decoders read from a `Reader`'s position and stop at the
 * message's end (a frame may go on); this is the entry for a body that must be the message
 * and only the message, as `decodeResponseFrame` checks a whole frame.
 *
 * @param decode a generated decoder, e.g. `decodeMetadataResponse`
 * @param body the message's bytes; byte fields of the result are views into it
 * @param version the version to decode at
 * @param name the message's name for errors, e.g. `MetadataResponse`
 * @throws TrailingBytesError (a `CodecError`, `TRAILING_BYTES`) naming the message, the
 *   version and the number of bytes left; any `CodecError` the decoder throws
 */
export function decodeExact<T>(
  decode: (r: Reader, version: number) => T,
  body: Buffer,
  version: number,
  name: string,
): T {
  const r = new Reader(body);
  const message = decode(r, version);
  if (r.pos !== r.end) throw new TrailingBytesError(name, version, r.end - r.pos);
  return message;
}
