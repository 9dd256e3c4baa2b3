import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import { BackpressureError, ConnectionError, RequestTimeoutError } from '@kafkats/wire';
import { UnknownNodeError } from './errors.js';

/** What a request was sent to, as the dispatcher's classifier needs to know it. */
export type TargetKind = 'any' | 'controller' | 'node' | 'coordinator' | 'leader';

/** What the dispatcher does after a failed attempt. The axes are independent. */
export interface Verdict {
  /** Send again (after a backoff), within the operation's budget. */
  readonly retry: boolean;
  /** Refetch metadata first (the topic only, for a leader target). */
  readonly refreshMetadata: boolean;
  /** Forget the cached coordinator and look it up again first. */
  readonly refreshCoordinator: boolean;
  /**
   * Bound the retries by `coordinatorTimeoutMs` instead of the attempt count: a coordinator
   * that moves or loads (an election over 50 offsets partitions) takes seconds, not five backoffs.
   */
  readonly coordinatorWait: boolean;
}

const verdict = (
  retry: boolean,
  refreshMetadata = false,
  refreshCoordinator = false,
  coordinatorWait = false,
): Verdict => Object.freeze({ retry, refreshMetadata, refreshCoordinator, coordinatorWait });

const GIVE_UP = verdict(false);
const AGAIN = verdict(true);

/**
 * Classifies one failed attempt. Pure: the same error and target always give the same verdict,
 * decided by the error's class and, for broker errors, Kafka's error table (`ProtocolError`'s
 * `retriable`, `needsMetadataRefresh`, `needsCoordinatorRefresh`).
 *
 * - A broker error: its table row. NOT_CONTROLLER also refreshes metadata (in KRaft the
 *   "controller" of the metadata is a broker picked afresh by each answer).
 *   COORDINATOR_LOAD_IN_PROGRESS keeps the coordinator but waits like a move.
 * - A lost or timed-out connection: retried; the broker may no longer lead or control what it
 *   did, so a leader or controller target refreshes metadata (Java's NetworkClient requests a
 *   metadata update on every disconnect) and a coordinator target looks the coordinator up again.
 * - Back-pressure (our own full queue) is not a connection failure: retried, nothing refreshed.
 * - A node the metadata has no address for: refresh metadata and retry.
 * - Anything else (authentication, unsupported version, codec errors, aborts): the error's own
 *   `retriable`, which for those is false.
 */
export function classify(error: unknown, target: TargetKind): Verdict {
  if (error instanceof ProtocolError) {
    const coordinator = target === 'coordinator';
    const refreshCoordinator = coordinator && error.needsCoordinatorRefresh;
    const coordinatorWait =
      coordinator &&
      (error.needsCoordinatorRefresh || error.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    const refreshMetadata =
      error.needsMetadataRefresh || error.errorCode === ErrorCode.NOT_CONTROLLER;
    return verdict(error.retriable, refreshMetadata, refreshCoordinator, coordinatorWait);
  }
  if (error instanceof BackpressureError) return AGAIN;
  if (error instanceof ConnectionError || error instanceof RequestTimeoutError) {
    if (!error.retriable) return GIVE_UP;
    return verdict(true, target === 'leader' || target === 'controller', target === 'coordinator');
  }
  // A coordinator the cache names may be a broker the pool has since forgotten (a full Metadata
  // answer left it out: it died or left); only a new lookup gets off it.
  if (error instanceof UnknownNodeError) return verdict(true, true, target === 'coordinator');
  if (error instanceof KafkaError) return error.retriable ? AGAIN : GIVE_UP;
  return GIVE_UP;
}
