import {
  type ApiDescriptor,
  ApiVersionsApi,
  type ApiVersionsResponse,
  decodeResponseFrame,
  ProtocolError,
  Reader,
} from '@kafkats/codec';
import { BrokerCapabilities } from '../broker-capabilities.js';
import { ConnectionError } from '../errors.js';

const UNSUPPORTED_VERSION = 35;

/** Sends one handshake request and resolves with the raw response frame (header included). */
export type RawExchange = <Req>(
  api: ApiDescriptor<Req, unknown>,
  request: Req,
  version: number,
) => Promise<Buffer>;

/**
 * ApiVersions at our highest version, carrying the client software name and version from v3
 * (KIP-511). On UNSUPPORTED_VERSION the broker answers with a v0 body naming its own highest
 * ApiVersions version, and we ask again at that (or 0), as Java's NetworkClient does.
 *
 * @throws ProtocolError for any other error code; ConnectionError when the versions do not
 *   converge in three rounds
 */
export async function negotiateApiVersions(
  exchange: RawExchange,
  broker: string,
  softwareName: string,
  softwareVersion: string,
): Promise<BrokerCapabilities> {
  let version = ApiVersionsApi.maxVersion;
  for (let round = 0; round < 3; round++) {
    const request = ApiVersionsApi.createRequest(
      version >= 3 ? { clientSoftwareName: softwareName, clientSoftwareVersion: softwareVersion } : {},
    );
    const frame = await exchange(ApiVersionsApi, request, version);
    // Response header v0 is the 4-byte correlation id; every body version starts with ErrorCode.
    const errorCode = frame.length >= 6 ? frame.readInt16BE(4) : -1;
    if (errorCode === UNSUPPORTED_VERSION && version > 0) {
      const body = ApiVersionsApi.decodeResponse(new Reader(frame, 4), 0) as ApiVersionsResponse;
      const theirs = body.apiKeys.find((k) => k.apiKey === ApiVersionsApi.apiKey);
      const next = theirs === undefined ? 0 : Math.min(theirs.maxVersion, version - 1);
      version = Math.max(0, next);
      continue;
    }
    const { body } = decodeResponseFrame(ApiVersionsApi, version, frame);
    if (body.errorCode !== 0)
      throw new ProtocolError(body.errorCode, `${broker} ApiVersions v${version}`);
    return new BrokerCapabilities(body, version, Date.now());
  }
  throw new ConnectionError(
    'ERR_KAFKA_CONNECTION_FAILED',
    broker,
    'ApiVersions version negotiation did not converge',
  );
}
