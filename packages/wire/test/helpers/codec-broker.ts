import {
  API_DESCRIPTORS,
  type ApiDescriptor,
  ApiVersionsApi,
  apiDescriptor,
  decodeRequestHeader,
  encodeResponseHeader,
  Reader,
  Writer,
} from '@kafkats/codec';
import {
  type FakeBroker,
  type FakeBrokerConnection,
  type RawRequest,
  startFakeBroker,
} from '@kafkats/testkit';

/** A response frame (size prefix included) for `api` at `version`. */
export function encodeResponse<Res>(
  api: ApiDescriptor<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
): Buffer {
  const w = new Writer(128);
  w.pos = 4;
  encodeResponseHeader(w, { correlationId }, api.responseHeaderVersion(version));
  api.encodeResponse(w, body, version);
  w.buf.writeInt32BE(w.pos - 4, 0);
  return Buffer.from(w.finish());
}

/** Decodes a request frame (no size prefix) with the codec. */
export function decodeRequest(raw: RawRequest): { api: ApiDescriptor; body: unknown } {
  const api = apiDescriptor(raw.apiKey);
  if (api === undefined) throw new Error(`unknown api key ${raw.apiKey}`);
  const r = new Reader(raw.frame);
  decodeRequestHeader(r, api.requestHeaderVersion(raw.apiVersion));
  return { api, body: api.decodeRequest(r, raw.apiVersion) };
}

/** Every API at every version we know, as a broker would advertise it. */
export function allApiKeys(
  override: Record<number, { minVersion: number; maxVersion: number } | null> = {},
): { apiKey: number; minVersion: number; maxVersion: number }[] {
  const out: { apiKey: number; minVersion: number; maxVersion: number }[] = [];
  for (const d of API_DESCRIPTORS) {
    const o = override[d.apiKey];
    if (o === null) continue;
    out.push({
      apiKey: d.apiKey,
      minVersion: o?.minVersion ?? d.minVersion,
      maxVersion: o?.maxVersion ?? d.maxVersion,
    });
  }
  return out;
}

export type CodecHandler = (
  raw: RawRequest,
  conn: FakeBrokerConnection,
  reply: <Res>(api: ApiDescriptor<unknown, Res>, body: Res) => void,
) => void;

/**
 * A fake broker that answers ApiVersions with `apiKeys` (default: everything we know) and
 * hands every other request to `handler`.
 */
export async function startCodecBroker(
  handler: CodecHandler,
  apiKeys = allApiKeys(),
): Promise<FakeBroker> {
  return startFakeBroker((raw, conn) => {
    const reply = <Res>(api: ApiDescriptor<unknown, Res>, body: Res) => {
      conn.write(encodeResponse(api, raw.apiVersion, raw.correlationId, body));
    };
    if (raw.apiKey === ApiVersionsApi.apiKey) {
      reply(ApiVersionsApi, ApiVersionsApi.createResponse({ apiKeys }));
      return;
    }
    handler(raw, conn, reply);
  });
}
