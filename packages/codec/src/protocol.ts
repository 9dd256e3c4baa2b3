import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/**
 * A tagged field the decoding version does not know, kept as raw bytes (a view into the
 * input) so a re-encode writes it back, merged with the known tags in ascending tag order.
 */
export interface UnknownTaggedField {
  tag: number;
  data: Buffer;
}

/**
 * Everything about one API key: its version range, header versions, and its request and
 * response codecs. Generated for every API in `src/gen/api-keys.ts`.
 */
export interface ApiDescriptor<Req = unknown, Res = unknown> {
  /** Kafka's API key (`ApiKey.Metadata === 3`). */
  readonly apiKey: number;
  /** Kafka's name for the API (`Metadata`). */
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** True when `maxVersion` is still unstable in this Kafka release (brokers do not offer it). */
  readonly latestVersionUnstable: boolean;
  /** First flexible request version, or null when no version is flexible. */
  readonly flexibleFrom: number | null;
  /** Server roles that accept the API (`broker`, `controller`, `zkBroker`). */
  readonly listeners: readonly string[];
  /** The request header version (0, 1 or 2) that goes with request version `version`. */
  requestHeaderVersion(version: number): number;
  /** The response header version (0 or 1) that goes with version `version`. */
  responseHeaderVersion(version: number): number;
  createRequest(init?: Partial<Req>): Req;
  encodeRequest(w: Writer, m: Req, version: number): void;
  decodeRequest(r: Reader, version: number): Req;
  createResponse(init?: Partial<Res>): Res;
  encodeResponse(w: Writer, m: Res, version: number): void;
  decodeResponse(r: Reader, version: number): Res;
}
