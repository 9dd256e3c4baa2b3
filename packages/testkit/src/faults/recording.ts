import { readFile, writeFile } from 'node:fs/promises';
import { decode, encode } from '@msgpack/msgpack';
import { type FakeBroker, type FakeBrokerOptions, startFakeBroker } from './fake-broker.js';
import { withCorrelationId } from './frames.js';

/** One request and the broker's answer, as bytes on the wire (size prefixes stripped). */
export interface RecordedExchange {
  /** Which client connection carried it (1-based). */
  connection: number;
  apiKey: number;
  apiVersion: number;
  /** Request header + body. */
  request: Buffer;
  /** Response header + body; null when none came (acks=0, or the connection dropped). */
  response: Buffer | null;
}

/** A recorded conversation with a real broker, as stored in `fixtures/recordings/*.msgpack`. */
export interface Recording {
  format: 'kafkats-recording';
  formatVersion: 1;
  /** The Apache Kafka release that answered (fixtures/kafka-release.json at recording time). */
  kafkaVersion: string;
  /** ISO-8601 time of recording. */
  recordedAt: string;
  /** What the session did, for people. */
  description: string;
  exchanges: RecordedExchange[];
}

/** Writes a recording as msgpack. */
export async function saveRecording(path: string, recording: Recording): Promise<void> {
  await writeFile(path, encode(recording));
}

/**
 * Reads a recording written by {@link saveRecording}.
 * @throws Error when the file is not a kafkats recording of a known format version
 */
export async function loadRecording(path: string): Promise<Recording> {
  const raw = decode(await readFile(path)) as Partial<Recording> & { exchanges?: unknown[] };
  if (
    raw.format !== 'kafkats-recording' ||
    raw.formatVersion !== 1 ||
    !Array.isArray(raw.exchanges)
  ) {
    throw new Error(`${path} is not a kafkats recording (format version 1)`);
  }
  const exchanges = (raw.exchanges as Record<string, unknown>[]).map((e) => ({
    connection: Number(e.connection),
    apiKey: Number(e.apiKey),
    apiVersion: Number(e.apiVersion),
    request: toBuffer(e.request),
    response: e.response === null || e.response === undefined ? null : toBuffer(e.response),
  }));
  return {
    format: 'kafkats-recording',
    formatVersion: 1,
    kafkaVersion: String(raw.kafkaVersion),
    recordedAt: String(raw.recordedAt),
    description: String(raw.description ?? ''),
    exchanges,
  };
}

function toBuffer(v: unknown): Buffer {
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new Error('recording: expected bytes');
}

/**
 * A fake broker that answers from a recording: each request gets the recorded response of
 * the next unused exchange with the same API key and version (the last one again once all
 * are used), with the correlation id rewritten to the request's. A request the recording
 * has no answer for closes the connection.
 */
export async function startReplayBroker(
  recording: Recording,
  options: Omit<FakeBrokerOptions, 'onConnection'> = {},
): Promise<FakeBroker> {
  const used = new Set<RecordedExchange>();
  return startFakeBroker((request, connection) => {
    let match: RecordedExchange | undefined;
    let last: RecordedExchange | undefined;
    for (const ex of recording.exchanges) {
      if (
        ex.apiKey !== request.apiKey ||
        ex.apiVersion !== request.apiVersion ||
        ex.response === null
      )
        continue;
      last = ex;
      if (!used.has(ex)) {
        match = ex;
        break;
      }
    }
    match ??= last;
    if (match === undefined || match.response === null) {
      connection.destroy();
      return;
    }
    used.add(match);
    const body = withCorrelationId(match.response, request.correlationId);
    const out = Buffer.allocUnsafe(4 + body.length);
    out.writeInt32BE(body.length, 0);
    body.copy(out, 4);
    connection.write(out);
  }, options);
}
