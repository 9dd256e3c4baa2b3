import {
  createFindCoordinatorRequest,
  ErrorCode,
  type FindCoordinatorRequest,
  type FindCoordinatorResponse,
  KafkaError,
  ProtocolError,
} from '@kafkats/codec';
import { COORDINATOR_KEY_TYPE, type CoordinatorKind } from './routing.js';

/**
 * A FindCoordinator request for one key, in the shape the version has: `key` at v0-3,
 * `coordinatorKeys` at v4+. Setting both to cover the range is an encode error on every
 * modern broker (the codec refuses a non-default field outside its versions), which would take
 * every coordinator-routed call down with it.
 */
export function buildFindCoordinatorRequest(
  kind: CoordinatorKind,
  key: string,
  version: number,
): FindCoordinatorRequest {
  if (kind === 'transaction' && version < 1) {
    throw new KafkaError(
      'ERR_KAFKA_COORDINATOR_UNSUPPORTED',
      `FindCoordinator v${version} cannot look up a transaction coordinator (needs v1+)`,
    );
  }
  const keyType = COORDINATOR_KEY_TYPE[kind];
  return version >= 4
    ? createFindCoordinatorRequest({ keyType, coordinatorKeys: [key] })
    : createFindCoordinatorRequest({ key, keyType });
}

/**
 * A FindCoordinator request for several keys of one kind: one request from v4 (KIP-699
 * `coordinatorKeys`); below v4 only a single key fits.
 *
 * @throws KafkaError `ERR_KAFKA_COORDINATOR_UNSUPPORTED` for several keys below v4
 */
export function buildFindCoordinatorBatchRequest(
  kind: CoordinatorKind,
  keys: readonly string[],
  version: number,
): FindCoordinatorRequest {
  if (keys.length === 1) return buildFindCoordinatorRequest(kind, keys[0] as string, version);
  if (version < 4) {
    throw new KafkaError(
      'ERR_KAFKA_COORDINATOR_UNSUPPORTED',
      `FindCoordinator v${version} takes one key; ${keys.length} need v4+`,
    );
  }
  return createFindCoordinatorRequest({
    keyType: COORDINATOR_KEY_TYPE[kind],
    coordinatorKeys: [...keys],
  });
}

/** The coordinator FindCoordinator named, or the error it gave instead. */
export type CoordinatorAnswer =
  | { readonly ok: true; readonly nodeId: number; readonly host: string; readonly port: number }
  | { readonly ok: false; readonly error: ProtocolError };

/**
 * Reads the answer for `key` from the shape the version has: `coordinators[]` at v4+, the
 * top-level fields below. Reading the wrong one yields node 0 from the defaults, a real broker
 * id, and a bug that looks like it works; so a v4+ answer without our key is an error, not 0.
 *
 * @throws KafkaError `ERR_KAFKA_COORDINATOR_MISSING` when a v4+ answer does not mention the key
 */
export function readFindCoordinatorResponse(
  response: FindCoordinatorResponse,
  key: string,
  version: number,
): CoordinatorAnswer {
  let entry: {
    nodeId: number;
    host: string;
    port: number;
    errorCode: number;
    errorMessage: string | null;
  };
  if (version >= 4) {
    const found = response.coordinators.find((c) => c.key === key);
    if (found === undefined) {
      throw new KafkaError(
        'ERR_KAFKA_COORDINATOR_MISSING',
        `FindCoordinator v${version} answer does not mention key ${JSON.stringify(key)}`,
        { retriable: true },
      );
    }
    entry = found;
  } else {
    entry = response;
  }
  const context = `FindCoordinator v${version} for ${JSON.stringify(key)}${
    entry.errorMessage ? ` (${entry.errorMessage})` : ''
  }`;
  if (entry.errorCode !== 0)
    return { ok: false, error: ProtocolError.fromCode(entry.errorCode, context) };
  // A coordinator that is not there yet sometimes comes back as -1 with no error code.
  if (entry.nodeId < 0)
    return {
      ok: false,
      error: ProtocolError.fromCode(ErrorCode.COORDINATOR_NOT_AVAILABLE, context),
    };
  return { ok: true, nodeId: entry.nodeId, host: entry.host, port: entry.port };
}
