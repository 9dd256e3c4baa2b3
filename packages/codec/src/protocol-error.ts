import { KafkaError } from './errors.js';
import { BROKER_ERRORS, type BrokerErrorInfo, ErrorCode } from './gen/errors.js';

/**
 * Codes after which the cached coordinator for the group or transactional id is gone and
 * FindCoordinator must run again. Our own set, not a Kafka hierarchy (Java's clients
 * hard-code the same pair: `markCoordinatorUnknown` in AbstractCoordinator, `lookupCoordinator`
 * in TransactionManager). COORDINATOR_LOAD_IN_PROGRESS (14) is deliberately absent: the
 * coordinator is right but still loading, so the same node is asked again after a backoff.
 */
export const COORDINATOR_REFRESH_CODES: ReadonlySet<number> = new Set([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

// Codes run -1..~140 with a gap; an array indexed by code + 1 is a constant-time lookup,
// built on first use so that importing this module runs nothing.
let byCode: (BrokerErrorInfo | undefined)[] | undefined;

/**
 * The table row for a broker error code, or undefined for a code the pinned Kafka release does
 * not define (a newer broker).
 */
export function brokerErrorInfo(code: number): BrokerErrorInfo | undefined {
  if (!Number.isInteger(code)) return undefined;
  if (byCode === undefined) {
    byCode = [];
    for (const info of BROKER_ERRORS) byCode[info.code + 1] = info;
  }
  return byCode[code + 1];
}

/**
 * A non-zero error code a broker returned, at the top of a response or inside one (per topic,
 * per partition). Broker names stay Kafka's own (`errorName: 'NOT_LEADER_OR_FOLLOWER'`); the
 * string `code` is `ERR_KAFKA_BROKER_<NAME>`.
 *
 * The three booleans are independent axes: `retriable` (the same request may succeed later),
 * `needsMetadataRefresh` (Kafka's InvalidMetadataException family: refetch metadata first) and
 * `needsCoordinatorRefresh` ({@link COORDINATOR_REFRESH_CODES}: find the coordinator again).
 * A code unknown to the pinned release is `UNKNOWN_SERVER_ERROR`-like: not retriable, no refresh,
 * with the raw number kept in `errorCode`.
 */
export class ProtocolError extends KafkaError {
  /** The int16 the broker sent. */
  readonly errorCode: number;
  /** Kafka's name for the code, or `UNKNOWN_SERVER_ERROR` for a code we do not know. */
  readonly errorName: string;
  /** Kafka's InvalidMetadataException family: the sender's view of the cluster is stale. */
  readonly needsMetadataRefresh: boolean;
  /** The cached group or transaction coordinator must be looked up again. */
  readonly needsCoordinatorRefresh: boolean;

  /**
   * @param errorCode the non-zero code from the response
   * @param context what the code was about, e.g. `Produce v11 to broker 2, orders-3`; goes
   *   first in the message. The broker's own error message, when it sent one, belongs here too.
   */
  constructor(errorCode: number, context = '', options: { cause?: unknown } = {}) {
    const info = brokerErrorInfo(errorCode);
    const name = info?.name ?? 'UNKNOWN_SERVER_ERROR';
    const text =
      info?.message ?? `error code ${errorCode} is not defined by this client's Kafka release`;
    super(
      `ERR_KAFKA_BROKER_${name}`,
      `${context === '' ? '' : `${context}: `}${name} (${errorCode}): ${text}`,
      {
        retriable: info?.retriable ?? false,
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.errorCode = errorCode;
    this.errorName = name;
    this.needsMetadataRefresh = info?.invalidMetadata ?? false;
    this.needsCoordinatorRefresh = COORDINATOR_REFRESH_CODES.has(errorCode);
  }

  /**
   * The typed error for a broker error code: the one way to turn a non-zero code from a
   * response into an error to throw or retry on.
   *
   * @param code a non-zero int16 error code from a response
   * @param context what it was about (`Metadata v12 from broker 1, topic orders`)
   * @throws KafkaError `ERR_KAFKA_ERROR_CODE_NONE` for code 0, which is not an error
   */
  static fromCode(code: number, context = ''): ProtocolError {
    if (code === 0) {
      throw new KafkaError(
        'ERR_KAFKA_ERROR_CODE_NONE',
        `${context}: error code 0 (NONE) is not an error`,
      );
    }
    return new ProtocolError(code, context);
  }
}

/**
 * `ProtocolError` for a non-zero code, or null for 0 (NONE): the one-liner for checking an
 * error code field inside a response.
 */
export function protocolErrorOrNull(code: number, context = ''): ProtocolError | null {
  return code === 0 ? null : new ProtocolError(code, context);
}
