import { CodecError } from './errors.js';
import { decodeResponseHeader, encodeRequestHeader } from './gen/headers.js';
import type { ApiDescriptor } from './protocol.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

/**
 * One request on the wire: int32 size (not counting itself), the request header at the
 * version `api.requestHeaderVersion(version)` gives, then the body, in one new Buffer.
 *
 * @param clientId the header's ClientId (null is sent as a null string; header v0 has none)
 * @returns a view of exactly the frame's bytes
 * @throws CodecError VERSION_UNSUPPORTED or any error the request's encoder throws
 */
export function encodeRequestFrame<Req>(
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  request: Req,
): Buffer {
  const w = new Writer(initialFrameSize(api.apiKey, request));
  writeRequestFrame(w, api, version, correlationId, clientId, request);
  return w.finish();
}

/**
 * Byte fields from this size on go to the socket by reference in
 * {@link encodeRequestFrameChunks}. A piece of its own is one more `write` on the socket's
 * stream and one more iovec; on a loopback socket, a frame of 20 pieces cost about what its
 * copy into one buffer did at 1-4 KiB a piece, so smaller fields are copied.
 */
export const ZERO_COPY_FROM_BYTES = 4096;

/**
 * One request on the wire, laid out as by {@link encodeRequestFrame}, as the buffers to write
 * in order (one writev): byte fields of at least `zeroCopyFromBytes` (a Produce request's
 * record batches) are not copied into the frame but are pieces of the list themselves, as
 * Kafka's `SendBuilder` adds a request's records to its send by reference. The other pieces
 * are views of one new buffer. A request with no such field is one piece.
 *
 * The caller must leave those buffers unchanged until the pieces are written.
 *
 * @returns the pieces; their total length is the frame's, size prefix included
 * @throws CodecError VERSION_UNSUPPORTED or any error the request's encoder throws
 */
export function encodeRequestFrameChunks<Req>(
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  request: Req,
  zeroCopyFromBytes: number = ZERO_COPY_FROM_BYTES,
): Buffer[] {
  const w = new Writer(initialFrameSize(api.apiKey, request, zeroCopyFromBytes));
  w.zeroCopy(zeroCopyFromBytes);
  w.ensure(4);
  w.pos = 4;
  writeHeaderAndBody(w, api, version, correlationId, clientId, request);
  const chunks = w.finishChunks();
  // The first piece starts with the size slot: the header follows it before any field can
  // go by reference.
  (chunks[0] as Buffer).writeInt32BE(w.size - 4, 0);
  return chunks;
}

/** Produce's API key: its record batches are opaque bytes, nearly all of the frame. */
const PRODUCE = 0;

/**
 * A first buffer size for a frame. A Produce request is sized from its record batches, so a
 * megabyte of batches is written into one buffer instead of a buffer doubled a dozen times
 * (each doubling copies what was written); every other request starts at 256 bytes. Only a
 * hint: the writer still grows if it is short.
 */
function initialFrameSize(apiKey: number, request: unknown, zeroCopyFromBytes = 0): number {
  if (apiKey !== PRODUCE) return 256;
  const topics = (request as { topicData?: unknown }).topicData;
  if (!Array.isArray(topics)) return 256;
  let n = 256;
  for (const t of topics as { name?: unknown; partitionData?: unknown }[]) {
    // A topic name is at most 249 characters, each at most 3 UTF-8 bytes; a topic id 16.
    n += 64 + (typeof t.name === 'string' ? 3 * t.name.length : 0);
    if (!Array.isArray(t.partitionData)) continue;
    for (const p of t.partitionData as { records?: unknown }[]) {
      const records = p.records instanceof Uint8Array ? p.records.length : 0;
      // Batches that go by reference take no room in the buffer.
      n += 32 + (zeroCopyFromBytes > 0 && records >= zeroCopyFromBytes ? 0 : records);
    }
  }
  return n;
}

/**
 * Appends one request frame (as `encodeRequestFrame` lays it out) to `w`, so a burst of
 * requests can be framed into one buffer and written with one socket write. On error the
 * writer is left where it was before the call.
 *
 * @returns the frame's offset in `w`'s buffer
 * @throws CodecError VERSION_UNSUPPORTED or any error the request's encoder throws
 */
export function writeRequestFrame<Req>(
  w: Writer,
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  request: Req,
): number {
  if (w.zeroCopying) {
    throw new CodecError(
      'UNSUPPORTED',
      `${api.name}Request v${version}`,
      'writeRequestFrame needs a writer that copies: use encodeRequestFrameChunks for zero-copy',
    );
  }
  const start = w.pos;
  try {
    w.ensure(4);
    w.pos = start + 4;
    writeHeaderAndBody(w, api, version, correlationId, clientId, request);
  } catch (e) {
    w.pos = start;
    throw e;
  }
  w.buf.writeInt32BE(w.pos - start - 4, start);
  return start;
}

/** The request header at the version the API gives, then the body. */
function writeHeaderAndBody<Req>(
  w: Writer,
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  request: Req,
): void {
  const headerVersion = api.requestHeaderVersion(version);
  if (headerVersion === 0) {
    // Request header v0 (ControlledShutdown v0 only) is not in RequestHeader.json's range.
    w.writeInt16(api.apiKey);
    w.writeInt16(version);
    w.writeInt32(correlationId);
  } else {
    encodeRequestHeader(
      w,
      { requestApiKey: api.apiKey, requestApiVersion: version, correlationId, clientId },
      headerVersion,
    );
  }
  api.encodeRequest(w, request, version);
}

/**
 * The correlation id of a response frame: its first four bytes in every response header
 * version. `frame` is the frame *without* its int32 size prefix.
 * @throws CodecError TRUNCATED when the frame is shorter than 4 bytes
 */
export function readResponseCorrelationId(frame: Buffer): number {
  if (frame.length < 4) {
    throw new CodecError('TRUNCATED', 'response header', `need 4 bytes, ${frame.length} left`);
  }
  return frame.readInt32BE(0);
}

/**
 * Decodes a whole response frame (without its int32 size prefix): the header at
 * `api.responseHeaderVersion(version)` (v1 has a tagged-field section after the correlation
 * id; ApiVersions always uses v0), then the body. Byte fields are views into `frame`.
 *
 * @returns the correlation id and the typed body
 * @throws CodecError with the path on bad bytes, TRAILING_BYTES when bytes remain
 */
export function decodeResponseFrame<Res>(
  api: ApiDescriptor<unknown, Res>,
  version: number,
  frame: Buffer,
): { correlationId: number; body: Res } {
  const r = new Reader(frame);
  const header = decodeResponseHeader(r, api.responseHeaderVersion(version));
  const body = api.decodeResponse(r, version);
  if (r.pos !== r.end) {
    throw new CodecError(
      'TRAILING_BYTES',
      `${api.name}Response v${version}`,
      `${r.end - r.pos} bytes after the response`,
    );
  }
  return { correlationId: header.correlationId, body };
}
