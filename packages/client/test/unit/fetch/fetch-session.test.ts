// The client side of KIP-227 fetch sessions (Kafka's FetchSessionHandler), driven with scripted
// broker answers: full, then incremental with only the news, forgotten partitions, resets on the
// broker's session errors, the epoch wrap; and, for any sequence of changes and answers, the
// partitions a broker holds after applying our requests are exactly the ones we want.
import { ErrorCode, type FetchRequest } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildSessionFetchRequest,
  FetchSessionHandler,
  nextSessionEpoch,
  type SessionPartition,
} from '../../../src/fetch/internal/fetch-session.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAQ';
const ID_B = 'AAAAAAAAAAAAAAAAAAAAAg';
const common = { maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, rackId: '' };

const part = (
  topic: string,
  partition: number,
  fetchOffset: bigint,
  extra: Partial<SessionPartition> = {},
): SessionPartition => ({
  topic,
  topicId: topic === 'a' ? ID_A : ID_B,
  partition,
  fetchOffset,
  currentLeaderEpoch: 0,
  maxBytes: 1024,
  ...extra,
});

const names = (ps: readonly SessionPartition[]) =>
  ps.map((p) => `${p.topic}-${p.partition}@${p.fetchOffset}`).sort();

describe('FetchSessionHandler', () => {
  it('sends a full request first, then only added or changed partitions and the forgotten ones', () => {
    const h = new FetchSessionHandler();
    const first = h.build([part('a', 0, 0n), part('a', 1, 0n), part('b', 0, 5n)]);
    expect(first.full).toBe(true);
    expect(first.sessionId).toBe(0);
    expect(first.epoch).toBe(0);
    expect(names(first.toSend)).toEqual(['a-0@0', 'a-1@0', 'b-0@5']);
    expect(h.handleResponse(first, 0, 77)).toBe(true);
    expect(h.sessionId).toBe(77);
    expect(h.epoch).toBe(1);

    // Nothing changed: an incremental request with nothing in it.
    const idle = h.build([part('a', 0, 0n), part('a', 1, 0n), part('b', 0, 5n)]);
    expect(idle).toMatchObject({ full: false, sessionId: 77, epoch: 1 });
    expect(idle.toSend).toEqual([]);
    expect(idle.forgotten).toEqual([]);
    h.handleResponse(idle, 0, 77);

    // a-0 moved on, b-0's leader epoch changed, a-1 is gone, a-2 is new.
    const next = h.build([
      part('a', 0, 10n),
      part('b', 0, 5n, { currentLeaderEpoch: 3 }),
      part('a', 2, 0n),
    ]);
    expect(next).toMatchObject({ full: false, sessionId: 77, epoch: 2 });
    expect(names(next.toSend)).toEqual(['a-0@10', 'a-2@0', 'b-0@5']);
    expect(names(next.forgotten)).toEqual(['a-1@0']);
    h.handleResponse(next, 0, 77);
    expect(h.epoch).toBe(3);
    expect(names([...h.sessionPartitions.values()])).toEqual(['a-0@10', 'a-2@0', 'b-0@5']);
  });

  it('writes topic ids from Fetch v13 and names below, forgotten partitions included', () => {
    const h = new FetchSessionHandler();
    h.handleResponse(h.build([part('a', 0, 0n), part('b', 1, 0n)]), 0, 9);
    const plan = h.build([part('a', 0, 4n)]);
    const v17: FetchRequest = buildSessionFetchRequest(plan, 17, common);
    expect(v17.sessionId).toBe(9);
    expect(v17.sessionEpoch).toBe(1);
    expect(v17.topics.map((t) => [t.topicId, t.partitions.map((p) => p.fetchOffset)])).toEqual([
      [ID_A, [4n]],
    ]);
    expect(v17.forgottenTopicsData.map((t) => [t.topicId, t.partitions])).toEqual([[ID_B, [1]]]);
    const v12 = buildSessionFetchRequest(plan, 12, common);
    expect(v12.topics.map((t) => t.topic)).toEqual(['a']);
    expect(v12.forgottenTopicsData.map((t) => [t.topic, t.partitions])).toEqual([['b', [1]]]);
  });

  it('refuses a v13+ request for a topic without id (the broker would never answer it)', () => {
    const h = new FetchSessionHandler();
    const plan = h.build([part('a', 0, 0n, { topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })]);
    expect(() => buildSessionFetchRequest(plan, 13, common)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_TOPIC_ID_MISSING' }),
    );
    expect(buildSessionFetchRequest(plan, 12, common).topics[0]?.topic).toBe('a');
  });

  it.each([
    ['FETCH_SESSION_ID_NOT_FOUND', ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0],
    ['INVALID_FETCH_SESSION_EPOCH', ErrorCode.INVALID_FETCH_SESSION_EPOCH, 41],
    ['FETCH_SESSION_TOPIC_ID_ERROR', ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR, 41],
  ])('resets to a full request after %s', (_name, code, nextSessionId) => {
    const h = new FetchSessionHandler();
    h.handleResponse(h.build([part('a', 0, 0n)]), 0, 41);
    const incremental = h.build([part('a', 0, 3n)]);
    expect(incremental.full).toBe(false);
    expect(h.handleResponse(incremental, code, 0)).toBe(false);
    const again = h.build([part('a', 0, 3n), part('a', 1, 0n)]);
    expect(again.full).toBe(true);
    expect(again.epoch).toBe(0);
    // Session gone: start over with id 0; otherwise the full request names the old session,
    // which tells the broker to close it and open a new one.
    expect(again.sessionId).toBe(nextSessionId);
    expect(names(again.toSend)).toEqual(['a-0@3', 'a-1@0']);
    h.handleResponse(again, 0, 42);
    expect(h.sessionId).toBe(42);
    expect(h.epoch).toBe(1);
  });

  it('sends a full request after a failed send, closing the old session', () => {
    const h = new FetchSessionHandler();
    h.handleResponse(h.build([part('a', 0, 0n)]), 0, 5);
    h.build([part('a', 0, 1n)]);
    h.handleError();
    const again = h.build([part('a', 0, 1n)]);
    expect(again).toMatchObject({ full: true, sessionId: 5, epoch: 0 });
  });

  it('keeps sending full requests to a broker that answers with session id 0', () => {
    const h = new FetchSessionHandler();
    for (let i = 0; i < 3; i++) {
      const plan = h.build([part('a', 0, BigInt(i))]);
      expect(plan).toMatchObject({ full: true, sessionId: 0, epoch: 0 });
      expect(h.handleResponse(plan, 0, 0)).toBe(true);
    }
    // A session the broker closes (an incremental answer with id 0) starts over too.
    const opened = h.build([part('a', 0, 9n)]);
    h.handleResponse(opened, 0, 3);
    const incremental = h.build([part('a', 0, 10n)]);
    expect(incremental.full).toBe(false);
    h.handleResponse(incremental, 0, 0);
    expect(h.build([part('a', 0, 10n)])).toMatchObject({ full: true, sessionId: 0 });
  });

  it('wraps the epoch from 2^31-1 to 1', () => {
    expect(nextSessionEpoch(1)).toBe(2);
    expect(nextSessionEpoch(0x7fffffff)).toBe(1);
    expect(nextSessionEpoch(-1)).toBe(-1);
    // The handler moves its epoch with nextSessionEpoch after every accepted incremental answer.
    const h = new FetchSessionHandler();
    h.handleResponse(h.build([part('a', 0, 0n)]), 0, 8);
    for (let epoch = 1; epoch < 5; epoch++) {
      const plan = h.build([part('a', 0, 0n)]);
      expect(plan.epoch).toBe(epoch);
      h.handleResponse(plan, 0, 8);
    }
  });

  it('the close request carries epoch -1 and forgets the session', () => {
    const h = new FetchSessionHandler();
    expect(h.closePlan()).toBeUndefined();
    h.handleResponse(h.build([part('a', 0, 0n)]), 0, 12);
    const close = h.closePlan();
    expect(close).toMatchObject({ sessionId: 12, epoch: -1, toSend: [], forgotten: [] });
    expect(h.sessionId).toBe(0);
    expect(h.build([part('a', 0, 0n)]).full).toBe(true);
  });
});

/**
 * The broker's side of sessions, as Kafka's FetchSession/FetchSessionCache keep them: a full
 * request (epoch 0) drops the named session and opens a new one holding the sent partitions;
 * an incremental one must name the session and its expected epoch, then adds or updates what
 * it sends and drops what it forgets (adds first, then forgets, keyed by topic id).
 */
class ModelBroker {
  sessions = new Map<number, { epoch: number; held: Map<string, SessionPartition> }>();
  nextId = 1;
  /** When false, full requests get no session (the cache is full). */
  acceptSessions = true;

  handle(
    request: FetchRequest,
    topics: Map<string, string>,
  ): { errorCode: number; sessionId: number } {
    const key = (topicId: string, partition: number) => `${topicId}:${partition}`;
    if (request.sessionEpoch === 0) {
      this.sessions.delete(request.sessionId);
      if (!this.acceptSessions) return { errorCode: 0, sessionId: 0 };
      const held = new Map<string, SessionPartition>();
      for (const t of request.topics) {
        for (const p of t.partitions) {
          held.set(key(t.topicId, p.partition), {
            topic: topics.get(t.topicId) as string,
            topicId: t.topicId,
            partition: p.partition,
            fetchOffset: p.fetchOffset,
            currentLeaderEpoch: p.currentLeaderEpoch,
            maxBytes: p.partitionMaxBytes,
          });
        }
      }
      const id = this.nextId++;
      this.sessions.set(id, { epoch: 1, held });
      return { errorCode: 0, sessionId: id };
    }
    const session = this.sessions.get(request.sessionId);
    if (session === undefined)
      return { errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0 };
    if (session.epoch !== request.sessionEpoch) {
      return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: 0 };
    }
    for (const t of request.topics) {
      for (const p of t.partitions) {
        session.held.set(key(t.topicId, p.partition), {
          topic: topics.get(t.topicId) as string,
          topicId: t.topicId,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          currentLeaderEpoch: p.currentLeaderEpoch,
          maxBytes: p.partitionMaxBytes,
        });
      }
    }
    for (const t of request.forgottenTopicsData) {
      for (const p of t.partitions) session.held.delete(key(t.topicId, p));
    }
    session.epoch = nextSessionEpoch(session.epoch);
    return { errorCode: 0, sessionId: request.sessionId };
  }
}

type Op =
  | { kind: 'add'; topic: 'a' | 'b'; partition: number; offset: number }
  | { kind: 'remove'; topic: 'a' | 'b'; partition: number }
  | { kind: 'move'; topic: 'a' | 'b'; partition: number; by: number; epoch: boolean }
  | { kind: 'fetch' }
  | { kind: 'lost' }
  | { kind: 'evict' }
  | { kind: 'full-cache'; on: boolean };

const tp = {
  topic: fc.constantFrom('a' as const, 'b' as const),
  partition: fc.integer({ min: 0, max: 3 }),
};
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('add' as const), ...tp, offset: fc.nat(100) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), ...tp }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      ...tp,
      by: fc.constantFrom(0, 1, 7),
      epoch: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('fetch' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lost' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('evict' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('full-cache' as const), on: fc.boolean() }),
  },
);

describe('FetchSessionHandler against a model broker', () => {
  it('after every answered request the broker holds exactly the partitions we want', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 60, size: 'max' }),
        fc.constantFrom(12, 17),
        (ops, version) => {
          const broker = new ModelBroker();
          const h = new FetchSessionHandler();
          const wanted = new Map<string, SessionPartition>();
          const topics = new Map([
            [ID_A, 'a'],
            [ID_B, 'b'],
          ]);
          // Below v13 the model keys by name: give it the name as the "id".
          const idOf = (t: string) => (version >= 13 ? (t === 'a' ? ID_A : ID_B) : t);
          if (version < 13) {
            topics.set('a', 'a');
            topics.set('b', 'b');
          }
          let fulls = 0;
          let incrementals = 0;
          const fetch = () => {
            const plan = h.build([...wanted.values()]);
            const request = buildSessionFetchRequest(plan, version, common);
            if (version < 13) {
              for (const t of [...request.topics, ...request.forgottenTopicsData])
                t.topicId = t.topic;
            }
            const answer = broker.handle(request, topics);
            if (plan.full) fulls++;
            else incrementals++;
            const ok = h.handleResponse(plan, answer.errorCode, answer.sessionId);
            if (ok && answer.sessionId !== 0) {
              const held = broker.sessions.get(answer.sessionId)?.held;
              const got = [...(held?.values() ?? [])]
                .map((p) => `${p.topic}-${p.partition}@${p.fetchOffset}/${p.currentLeaderEpoch}`)
                .sort();
              const want = [...wanted.values()]
                .map((p) => `${p.topic}-${p.partition}@${p.fetchOffset}/${p.currentLeaderEpoch}`)
                .sort();
              expect(got).toEqual(want);
            }
            return ok;
          };
          for (const o of ops) {
            const key = 'partition' in o ? `${o.partition}:${o.topic}` : '';
            switch (o.kind) {
              case 'add':
                wanted.set(
                  key,
                  part(o.topic, o.partition, BigInt(o.offset), { topicId: idOf(o.topic) }),
                );
                break;
              case 'remove':
                wanted.delete(key);
                break;
              case 'move': {
                const p = wanted.get(key);
                if (p !== undefined) {
                  wanted.set(key, {
                    ...p,
                    fetchOffset: p.fetchOffset + BigInt(o.by),
                    currentLeaderEpoch: p.currentLeaderEpoch + (o.epoch ? 1 : 0),
                  });
                }
                break;
              }
              case 'fetch':
                // A refused request is followed by a full one, which the model always takes.
                if (!fetch()) expect(fetch()).toBe(true);
                break;
              case 'lost':
                h.build([...wanted.values()]);
                h.handleError();
                break;
              case 'evict':
                broker.sessions.clear();
                break;
              case 'full-cache':
                broker.acceptSessions = !o.on;
                break;
            }
          }
          // Steady state: once a session exists and nothing changes, requests are incremental.
          broker.acceptSessions = true;
          if (!fetch()) fetch();
          const before = incrementals;
          fetch();
          expect(incrementals).toBe(before + 1);
          expect(fulls).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
