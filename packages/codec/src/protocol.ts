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
 * One non-zero `errorCode` inside a decoded response, found by the walk generated for that
 * response from its schema (`ApiDescriptor.responseErrors`). The identifiers are the ones the
 * schema puts beside the `ErrorCode` field or on an enclosing struct; absent when it has none.
 */
export interface ResponseErrorEntry {
  /** The struct holding the `errorCode`: `''` for the top level, `topics[0].partitions[3]`. */
  readonly path: string;
  /** The broker error code; never 0. */
  readonly errorCode: number;
  /** The struct's `errorMessage`, when its schema has one and it is not null. */
  readonly errorMessage?: string;
  /** The topic name of the struct or the nearest enclosing one; absent when null or empty. */
  readonly topic?: string;
  /** The topic id (uuid text form) of the struct or the nearest enclosing one; absent when zero. */
  readonly topicId?: string;
  /** The struct's partition index (`PartitionIndex`, `Partition`, `PartitionId` or `Index`). */
  readonly partition?: number;
  /** The group id of the struct or the nearest enclosing one; absent when null. */
  readonly group?: string;
  /** The transactional id of the struct or the nearest enclosing one; absent when null. */
  readonly transactionalId?: string;
  /**
   * The name of another object the struct is about: a config or ACL `ResourceName`, a
   * FindCoordinator `Key` (a group or transactional id, by the request's key type), a SCRAM
   * `User`, a `Feature`, a `LogDir`. Absent when null.
   */
  readonly resource?: string;
  /** The broker id that keys the struct, when the struct is per broker. */
  readonly nodeId?: number;
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
  /**
   * Every non-zero `errorCode` in a response, from the structs whose schema has an
   * `ErrorCode` field: the top level first, then depth-first in field order. Reads only the
   * struct fields that lead to an error code (never `_unknownTaggedFields`) and allocates only
   * what it returns.
   * @returns a fresh array each call, empty when every code is 0; the caller may keep it
   */
  responseErrors(response: Res): ResponseErrorEntry[];
}
