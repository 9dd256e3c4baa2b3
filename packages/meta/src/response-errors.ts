import { type ApiDescriptor, ProtocolError, type ResponseErrorEntry } from '@kafkats/codec';

/** An error code inside a response that as a whole succeeded, with its typed error. */
export interface ResponseError extends ResponseErrorEntry {
  /** The code as a `ProtocolError`, its message naming where it was found. */
  readonly error: ProtocolError;
}

/**
 * Every non-zero error code inside a decoded response (per topic, per partition, per group,
 * per resource...), found by the walk the generator emits for that API (only the structs whose
 * schema carries an `ErrorCode`, named by their topic, partition, group or resource), each
 * with the same taxonomy as a failed request: a caller sees `needsMetadataRefresh` on a
 * partition's NOT_LEADER_OR_FOLLOWER and re-asks. The top-level code is included (path `''`).
 *
 * @param context goes first in each error's message, e.g. `Produce v11 to broker 2`
 */
export function responseErrors<Res>(
  api: ApiDescriptor<unknown, Res>,
  response: Res,
  context = '',
): ResponseError[] {
  const entries = api.responseErrors(response);
  const out: ResponseError[] = [];
  for (const entry of entries) {
    const where = [entry.topic ?? entry.topicId, entry.partition, entry.group, entry.resource]
      .filter((x) => x !== undefined)
      .join('-');
    const message = entry.errorMessage === undefined ? '' : ` (${entry.errorMessage})`;
    const error = ProtocolError.fromCode(
      entry.errorCode,
      `${context}${context !== '' && where !== '' ? ', ' : ''}${where}${message}`,
    );
    out.push({ ...entry, error });
  }
  return out;
}
