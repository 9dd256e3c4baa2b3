import {
  createFetchRequest,
  createFetchRequestForgottenTopic,
  createFetchRequestPartition,
  createFetchRequestTopic,
  ErrorCode,
  type FetchRequest,
  ZERO_UUID,
} from '@kafkats/codec';
import { FetchStateError } from '../fetch-errors.js';

/** Fetch v13 (KIP-516) names topics by id, not by name, in requests and responses. */
export const FETCH_TOPIC_ID_VERSION = 13;

/** One partition as a fetch session holds it: what the broker reads for us on every Fetch. */
export interface SessionPartition {
  readonly topic: string;
  /** Kafka's uuid text; the zero uuid when metadata gave none (then only Fetch < v13 works). */
  readonly topicId: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  /** KIP-320: the leader epoch we believe in, -1 when unknown. */
  readonly currentLeaderEpoch: number;
  readonly maxBytes: number;
}

/** What one Fetch of a session carries, decided by {@link FetchSessionHandler.build}. */
export interface SessionRequestPlan {
  /** A full request (epoch 0) lists every partition; an incremental one only the news. */
  readonly full: boolean;
  readonly sessionId: number;
  readonly epoch: number;
  /** Written into the request: every partition when full; added or changed ones otherwise. */
  readonly toSend: readonly SessionPartition[];
  /** Partitions the broker drops from the session (`forgottenTopicsData`, incremental only). */
  readonly forgotten: readonly SessionPartition[];
  /** Partitions the session holds once the broker took this request. */
  readonly next: ReadonlyMap<string, SessionPartition>;
}

/** The request-wide fields a session does not decide. */
export interface FetchRequestCommon {
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  /** 0 read_uncommitted, 1 read_committed. */
  readonly isolationLevel: number;
  readonly rackId: string;
}

/** The session id of "no session" (Kafka's `INVALID_SESSION_ID`). */
export const NO_SESSION = 0;
/** The epoch of a full request that creates a session (Kafka's `INITIAL_EPOCH`). */
export const INITIAL_EPOCH = 0;
/** The epoch that closes a session (Kafka's `FINAL_EPOCH`). */
export const FINAL_EPOCH = -1;
const MAX_EPOCH = 0x7fffffff;

/** The epoch after `epoch`: 2^31-1 wraps to 1 (0 means "create a session"). */
export function nextSessionEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === MAX_EPOCH ? 1 : epoch + 1;
}

/** The key of a partition in a session: its topic name and index. */
export function sessionKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

const sameData = (a: SessionPartition, b: SessionPartition) =>
  a.fetchOffset === b.fetchOffset &&
  a.currentLeaderEpoch === b.currentLeaderEpoch &&
  a.maxBytes === b.maxBytes &&
  a.topicId === b.topicId;

/**
 * The client side of one KIP-227 incremental fetch session with one broker, as Kafka's
 * `FetchSessionHandler`: the first request is full (session id 0, epoch 0) and the broker's
 * answer names a session; from then on each request is incremental: only partitions added or
 * whose fetch offset, leader epoch or max bytes changed, plus `forgottenTopicsData` for the ones
 * removed, with the epoch one higher (2^31-1 wraps to 1).
 *
 * The broker's session errors reset it: FETCH_SESSION_ID_NOT_FOUND starts over with session
 * id 0; INVALID_FETCH_SESSION_EPOCH, FETCH_SESSION_TOPIC_ID_ERROR (or any other top-level
 * error) and a failed send send the next request full under the old session id, which tells the
 * broker to close that session and open a new one. A broker that answers a full request with
 * session id 0 keeps no session (its cache is full, or sessions are off): every request is then
 * full. An incremental answer leaves out the partitions without news; that is not an error.
 *
 * Pure: no I/O, one instance per broker, used one request at a time.
 */
export class FetchSessionHandler {
  #sessionId = NO_SESSION;
  #epoch = INITIAL_EPOCH;
  /** What the broker holds in the session after the last request it accepted. */
  #session = new Map<string, SessionPartition>();

  /** The session the next request names; 0 when none. */
  get sessionId(): number {
    return this.#sessionId;
  }

  /** The epoch the next request carries; 0 means the next request is full. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The partitions the broker holds in the session, as far as we know. */
  get sessionPartitions(): ReadonlyMap<string, SessionPartition> {
    return this.#session;
  }

  /** Plans the next request so that afterwards the session holds exactly `wanted`. */
  build(wanted: readonly SessionPartition[]): SessionRequestPlan {
    const next = new Map<string, SessionPartition>();
    for (const p of wanted) next.set(sessionKey(p.topic, p.partition), p);
    if (this.#epoch === INITIAL_EPOCH) {
      return {
        full: true,
        sessionId: this.#sessionId,
        epoch: INITIAL_EPOCH,
        toSend: [...next.values()],
        forgotten: [],
        next,
      };
    }
    const toSend: SessionPartition[] = [];
    const forgotten: SessionPartition[] = [];
    for (const [key, held] of this.#session) {
      const want = next.get(key);
      if (want === undefined) forgotten.push(held);
      // With topic ids the broker keys the session by id: a new id is a new partition there,
      // and the old one must be forgotten (the broker adds before it forgets).
      else if (want.topicId !== held.topicId) forgotten.push(held);
    }
    for (const [key, want] of next) {
      const held = this.#session.get(key);
      if (held === undefined || !sameData(held, want)) toSend.push(want);
    }
    return { full: false, sessionId: this.#sessionId, epoch: this.#epoch, toSend, forgotten, next };
  }

  /**
   * Takes the broker's answer to `plan`: its top-level error code and session id. Returns true
   * when the session goes on (or the broker keeps none, without error), false when it was reset
   * and the next request is full.
   */
  handleResponse(plan: SessionRequestPlan, errorCode: number, sessionId: number): boolean {
    if (errorCode !== 0) {
      this.#session = new Map();
      this.#epoch = INITIAL_EPOCH;
      // The session is gone: start over. Anything else: close it with the next full request.
      if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) this.#sessionId = NO_SESSION;
      return false;
    }
    if (sessionId === NO_SESSION) {
      // A full request the broker keeps no session for, or a session the broker closed.
      this.#sessionId = NO_SESSION;
      this.#epoch = INITIAL_EPOCH;
      this.#session = new Map();
      return true;
    }
    this.#session = new Map(plan.next);
    if (plan.full) {
      this.#sessionId = sessionId;
      this.#epoch = 1;
    } else {
      this.#epoch = nextSessionEpoch(this.#epoch);
    }
    return true;
  }

  /**
   * The request could not be sent or its answer was lost: the broker may or may not have moved
   * the session on, so the next request is full, closing the old session.
   */
  handleError(): void {
    this.#session = new Map();
    this.#epoch = INITIAL_EPOCH;
  }

  /** The request that closes the session (epoch -1, nothing to read); undefined when none. */
  closePlan(): SessionRequestPlan | undefined {
    if (this.#sessionId === NO_SESSION) return undefined;
    const plan: SessionRequestPlan = {
      full: false,
      sessionId: this.#sessionId,
      epoch: FINAL_EPOCH,
      toSend: [],
      forgotten: [],
      next: new Map(),
    };
    this.#sessionId = NO_SESSION;
    this.#epoch = INITIAL_EPOCH;
    this.#session = new Map();
    return plan;
  }
}

/**
 * The Fetch request of `plan` at `version`: topics by id from v13 (KIP-516), by name below.
 *
 * @throws FetchStateError `ERR_KAFKA_TOPIC_ID_MISSING` at v13+ for a partition whose topic id
 *   is the zero uuid (the engine leaves such partitions out first; this is the last guard)
 */
export function buildSessionFetchRequest(
  plan: SessionRequestPlan,
  version: number,
  common: FetchRequestCommon,
): FetchRequest {
  const byId = version >= FETCH_TOPIC_ID_VERSION;
  const group = (parts: readonly SessionPartition[]) => {
    const topics = new Map<string, SessionPartition[]>();
    for (const p of parts) {
      if (byId && p.topicId === ZERO_UUID) {
        throw new FetchStateError(
          'ERR_KAFKA_TOPIC_ID_MISSING',
          p.topic,
          p.partition,
          `Fetch v${version} needs the topic id, and metadata gave none`,
        );
      }
      const key = byId ? p.topicId : p.topic;
      let list = topics.get(key);
      if (list === undefined) topics.set(key, (list = []));
      list.push(p);
    }
    return topics;
  };
  const named = (first: SessionPartition) =>
    byId ? { topicId: first.topicId } : { topic: first.topic };
  const topics = [...group(plan.toSend).values()].map((parts) =>
    createFetchRequestTopic({
      ...named(parts[0] as SessionPartition),
      partitions: parts.map((p) =>
        createFetchRequestPartition({
          partition: p.partition,
          currentLeaderEpoch: p.currentLeaderEpoch,
          fetchOffset: p.fetchOffset,
          partitionMaxBytes: p.maxBytes,
        }),
      ),
    }),
  );
  const forgottenTopicsData = [...group(plan.forgotten).values()].map((parts) =>
    createFetchRequestForgottenTopic({
      ...named(parts[0] as SessionPartition),
      partitions: parts.map((p) => p.partition),
    }),
  );
  return createFetchRequest({
    maxWaitMs: common.maxWaitMs,
    minBytes: common.minBytes,
    maxBytes: common.maxBytes,
    isolationLevel: common.isolationLevel,
    sessionId: plan.sessionId,
    sessionEpoch: plan.epoch,
    topics,
    forgottenTopicsData,
    rackId: common.rackId,
  });
}
