// The session fetcher against an in-memory Kafka with fetch sessions (fetcher-fake-kafka.ts),
// through the real @kafkats/meta Cluster: sessions per broker, the prefetch bound, pause,
// resume, seek and unassign against buffered and in-flight data, OFFSET_OUT_OF_RANGE under each
// policy, session errors, fatal and retriable partition errors, leader moves, lost connections.
import { ErrorCode, type FetchRequest } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetcherConfig } from '../../../src/fetch/fetcher.js';
import { type FetchObservation, SessionFetcher } from '../../../src/fetch/session-fetcher.js';
import {
  FetchPartitionError,
  OffsetOutOfRangeError,
  type PartitionBatch,
} from '../../../src/index.js';
import { SessionFakeKafka } from './fetcher-fake-kafka.js';

const clusters: Cluster[] = [];
const fetchers: SessionFetcher[] = [];

afterEach(async () => {
  for (const f of fetchers.splice(0)) await f.close();
  for (const c of clusters.splice(0)) await c.close();
});

async function setup(
  topics: readonly string[] = ['a', 'b'],
  partitions = 3,
  overrides: Partial<FetcherConfig> = {},
) {
  const kafka = new SessionFakeKafka(topics, partitions);
  const cluster = await Cluster.connect(kafka.bootstrap(), {
    connectionFactory: kafka.factory,
    refreshIntervalMs: 0,
    retry: { backoffMs: 1, maxBackoffMs: 2 },
  });
  clusters.push(cluster);
  const observed: FetchObservation[] = [];
  const fetcher = new SessionFetcher(
    {
      cluster,
      isolationLevel: 'read_uncommitted',
      autoOffsetReset: 'earliest',
      maxWaitMs: 20,
      minBytes: 1,
      maxBytes: 1 << 20,
      partitionMaxBytes: 1 << 20,
      maxBufferedBytes: 1 << 24,
      requestTimeoutMs: 5000,
      retryBackoffMs: 1,
      retryBackoffMaxMs: 5,
      verifyCrc: true,
      maxUncompressedBytes: 1 << 24,
      rackId: null,
      random: () => 0.5,
      ...overrides,
    },
    { onFetch: (o) => observed.push(o) },
  );
  fetchers.push(fetcher);
  const all = topics.flatMap((topic) =>
    Array.from({ length: partitions }, (_, partition) => ({ topic, partition })),
  );
  return { kafka, cluster, fetcher, observed, all };
}

const values = (batches: readonly PartitionBatch[], topic: string, partition: number) =>
  batches
    .filter((b) => b.topic === topic && b.partition === partition)
    .flatMap((b) => b.records.map((r) => r.value?.toString()));

const expected = (topic: string, partition: number, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${topic}-${partition}:${from + i}`);

/** Polls until `done`; a guard of 10 s turns a hang into a failed assertion. */
async function pollUntil(
  fetcher: SessionFetcher,
  done: (all: PartitionBatch[]) => boolean,
): Promise<PartitionBatch[]> {
  const all: PartitionBatch[] = [];
  const guard = AbortSignal.timeout(10_000);
  while (!done(all) && !guard.aborted) all.push(...(await fetcher.poll(guard)));
  return all;
}

const count = (all: readonly PartitionBatch[]) => all.reduce((n, b) => n + b.records.length, 0);

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const sentNames = (r: FetchRequest, kafka: SessionFakeKafka) =>
  r.topics.flatMap((t) => {
    const name = [...kafka.topics].find(([, v]) => v.id === t.topicId)?.[0];
    return t.partitions.map((p) => `${name}-${p.partition}`);
  });

describe('SessionFetcher', () => {
  it('reads every partition in order, one session per broker: full first, then incremental', async () => {
    const { kafka, fetcher, observed, all } = await setup();
    for (const tp of all) kafka.produce(tp.topic, tp.partition, 5);
    fetcher.assign(all.map((tp) => ({ ...tp, start: 'earliest' as const })));
    let read = await pollUntil(fetcher, (got) => count(got) >= 30);
    for (const tp of all) kafka.produce(tp.topic, tp.partition, 5);
    read = [...read, ...(await pollUntil(fetcher, (got) => count(got) >= 30))];
    for (const { topic, partition } of all) {
      expect(values(read, topic, partition)).toEqual(expected(topic, partition, 0, 10));
      expect(fetcher.position({ topic, partition })).toEqual({ offset: 10n, leaderEpoch: 0 });
    }
    for (const node of [1, 2, 3]) {
      const requests = kafka.fetchesTo(node);
      expect(requests[0]).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
      expect(requests.length).toBeGreaterThan(2);
      const rest = requests.slice(1);
      // The fake opens one session per full request: every later request is in session 1..3.
      const sessionId = rest[0]?.sessionId;
      expect(sessionId).toBeGreaterThan(0);
      expect(rest.every((r) => r.sessionId === sessionId && r.sessionEpoch > 0)).toBe(true);
      expect(rest.map((r) => r.sessionEpoch)).toEqual(rest.map((_, i) => i + 1));
      expect(observed.filter((o) => o.nodeId === node && o.full)).toHaveLength(1);
    }
  });

  it('leaves a partition with undelivered data out of the next Fetch and sends none over the buffer bound', async () => {
    const { kafka, fetcher, all } = await setup(['a'], 3, { maxBufferedBytes: 1 });
    // Everything on broker 1.
    for (const tp of all) kafka.move('a', tp.partition, 1);
    for (const tp of all) kafka.produce('a', tp.partition, 3);
    fetcher.assign(all.map((tp) => ({ ...tp, start: { offset: 0n } })));
    await until(() => fetcher.bufferedBytes > 0, 'buffered data');
    const sentBefore = kafka.fetchesTo(1).length;
    await new Promise((r) => setTimeout(r, 100));
    // Over the bound: nothing more is asked while nobody polls.
    expect(kafka.fetchesTo(1).length).toBe(sentBefore);
    const first = await fetcher.poll();
    expect(count(first)).toBeGreaterThan(0);
    const delivered = new Set(first.map((b) => `a-${b.partition}`));
    // Polled: the partitions come back into the session with their new offsets.
    await until(() => kafka.fetchesTo(1).length > sentBefore, 'the next Fetch');
    const next = kafka.fetchesTo(1)[sentBefore] as FetchRequest;
    for (const name of delivered) expect(sentNames(next, kafka)).toContain(name);
    const rest = await pollUntil(fetcher, (got) => count(got) + count(first) >= 9);
    for (const tp of all) {
      expect(values([...first, ...rest], 'a', tp.partition)).toEqual(
        expected('a', tp.partition, 0, 3),
      );
    }
  });

  it('forgets a buffered partition in the session and adds it back once polled', async () => {
    const { kafka, fetcher, all } = await setup(['a'], 2);
    for (const tp of all) kafka.move('a', tp.partition, 1);
    kafka.produce('a', 0, 2);
    fetcher.assign(all.map((tp) => ({ ...tp, start: { offset: 0n } })));
    await until(() => fetcher.bufferedBytes > 0, 'buffered data');
    // a-0 holds undelivered data: the next requests (a-1's long polls) forget it.
    await until(
      () =>
        kafka.fetchesTo(1).some((r) => r.forgottenTopicsData.some((t) => t.partitions.includes(0))),
      'a-0 forgotten',
    );
    const heldNow = [...(kafka.sessions.get(1)?.values() ?? [])].flatMap((s) => [...s.held.keys()]);
    expect(heldNow).toEqual(['a-1']);
    const got = await fetcher.poll();
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 0, 2));
    await until(
      () =>
        [...(kafka.sessions.get(1)?.values() ?? [])].some(
          (s) => s.held.get('a-0')?.fetchOffset === 2n,
        ),
      'a-0 back at offset 2',
    );
  });

  it('pause keeps buffered data undelivered and stops fetching; resume delivers it', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await until(() => fetcher.bufferedBytes > 0, 'buffered data');
    fetcher.pause([{ topic: 'a', partition: 0 }]);
    kafka.produce('a', 0, 2);
    expect(await fetcher.poll(AbortSignal.timeout(100))).toEqual([]);
    expect(fetcher.position({ topic: 'a', partition: 0 })?.offset).toBe(0n);
    fetcher.resume([{ topic: 'a', partition: 0 }]);
    const got = await pollUntil(fetcher, (all) => count(all) >= 4);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 0, 4));
  });

  it('seek drops buffered data and the answer in flight; reading goes on from the new offset', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 5);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await until(() => fetcher.bufferedBytes > 0, 'buffered data');
    fetcher.seek({ topic: 'a', partition: 0 }, 3n);
    expect(fetcher.bufferedBytes).toBe(0);
    expect(fetcher.position({ topic: 'a', partition: 0 })?.offset).toBe(3n);

    // An answer in flight when the seek comes is dropped: the Fetch at 5 that follows the
    // delivery of 3..4 is held until after a seek to 6.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let holding = true;
    kafka.intercept = async (_node, apiKey, request) => {
      if (apiKey !== 1 || !holding) return undefined;
      const r = request as FetchRequest;
      if (!r.topics.some((t) => t.partitions.some((p) => p.fetchOffset === 5n))) return undefined;
      holding = false;
      kafka.produce('a', 0, 3); // 5..7, answered at offset 5 below
      await held;
      return undefined;
    };
    const got = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 3, 5));
    await until(() => !holding, 'the Fetch at 5 to be held');
    fetcher.seek({ topic: 'a', partition: 0 }, 6n);
    release();
    const after = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 6, 8));
  });

  it('unassign drops the partition and its data; the session forgets it', async () => {
    const { kafka, fetcher } = await setup(['a'], 2);
    kafka.move('a', 1, 1);
    kafka.produce('a', 0, 2);
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'a', partition: 1, start: { offset: 0n } },
    ]);
    await until(() => fetcher.bufferedBytes > 0, 'buffered data');
    fetcher.unassign([{ topic: 'a', partition: 0 }]);
    expect(fetcher.bufferedBytes).toBe(0);
    expect(fetcher.position({ topic: 'a', partition: 0 })).toBeUndefined();
    kafka.produce('a', 1, 1);
    const got = await pollUntil(fetcher, (all) => count(all) >= 1);
    expect(got.every((b) => b.partition === 1)).toBe(true);
    await until(
      () => [...(kafka.sessions.get(1)?.values() ?? [])].every((s) => !s.held.has('a-0')),
      'a-0 forgotten',
    );
  });

  it("resolves 'latest' and 'earliest' starts with ListOffsets", async () => {
    const { kafka, fetcher } = await setup(['a'], 2);
    kafka.produce('a', 0, 3);
    kafka.produce('a', 1, 3);
    kafka.part('a', 1).logStartOffset = 1n;
    fetcher.assign([
      { topic: 'a', partition: 0, start: 'latest' },
      { topic: 'a', partition: 1, start: 'earliest' },
    ]);
    await until(
      () => fetcher.position({ topic: 'a', partition: 0 }) !== undefined,
      'latest resolved',
    );
    expect(fetcher.position({ topic: 'a', partition: 0 })?.offset).toBe(3n);
    kafka.produce('a', 0, 1);
    const got = await pollUntil(fetcher, (all) => count(all) >= 3);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 3, 4));
    expect(values(got, 'a', 1)).toEqual(expected('a', 1, 0, 3).slice(1));
  });

  it("OFFSET_OUT_OF_RANGE resets to 'earliest', or rejects poll under 'none'", async () => {
    const reset = await setup(['a'], 1);
    reset.kafka.produce('a', 0, 4);
    reset.kafka.part('a', 0).logStartOffset = 2n;
    reset.fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    const got = await pollUntil(reset.fetcher, (all) => count(all) >= 2);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 2, 4));

    const strict = await setup(['a'], 1, { autoOffsetReset: 'none' });
    strict.kafka.produce('a', 0, 4);
    strict.fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 9n } }]);
    const error = await strict.fetcher.poll(AbortSignal.timeout(5000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetOutOfRangeError);
    expect(error).toMatchObject({
      topic: 'a',
      partition: 0,
      fetchOffset: 9n,
      logStartOffset: 0n,
      logEndOffset: 4n,
    });
    strict.fetcher.seek({ topic: 'a', partition: 0 }, 1n);
    const after = await pollUntil(strict.fetcher, (all) => count(all) >= 3);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 1, 4));
  });

  it.each([
    ['FETCH_SESSION_ID_NOT_FOUND', ErrorCode.FETCH_SESSION_ID_NOT_FOUND],
    ['INVALID_FETCH_SESSION_EPOCH', ErrorCode.INVALID_FETCH_SESSION_EPOCH],
  ])('starts a new session after %s and reads on', async (_name, code) => {
    const { kafka, fetcher, observed } = await setup(['a'], 1);
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 2);
    // The broker loses the session (restart, eviction) or we disagree on the epoch.
    if (code === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) kafka.sessions.clear();
    else for (const s of kafka.sessions.get(1)?.values() ?? []) s.epoch += 5;
    kafka.produce('a', 0, 2);
    const got = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 2, 4));
    const refused = observed.findIndex((o) => o.errorCode === code);
    expect(refused).toBeGreaterThan(0);
    expect(observed[refused + 1]).toMatchObject({ full: true, epoch: 0 });
    expect(observed[refused + 1]?.sessionId).toBe(
      code === ErrorCode.FETCH_SESSION_ID_NOT_FOUND ? 0 : observed[refused]?.sessionId,
    );
  });

  it('sends full requests to a broker that keeps no session', async () => {
    const { kafka, fetcher, observed } = await setup(['a'], 1);
    kafka.acceptSessions = false;
    kafka.produce('a', 0, 1);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 1);
    kafka.produce('a', 0, 1);
    await pollUntil(fetcher, (all) => count(all) >= 1);
    expect(observed.length).toBeGreaterThan(1);
    expect(observed.every((o) => o.full && o.sessionId === 0 && o.responseSessionId === 0)).toBe(
      true,
    );
  });

  it('rejects poll with a typed error naming the partition for a fatal error; other partitions go on', async () => {
    const { kafka, fetcher } = await setup(['a', 'b'], 1);
    kafka.produce('a', 0, 1);
    kafka.produce('b', 0, 1);
    const auth = kafka.part('a', 0);
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'b', partition: 0, start: { offset: 0n } },
    ]);
    // Metadata stays fine; the Fetch answer for a-0 carries the error.
    const original = kafka.fetch.bind(kafka);
    kafka.fetch = async (node, request, version, signal) => {
      const response = await original(node, request, version, signal);
      for (const t of response.responses) {
        if (t.topicId !== kafka.topics.get('a')?.id) continue;
        for (const p of t.partitions) {
          p.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          p.records = null;
        }
      }
      return response;
    };
    expect(auth.leader).toBe(1);
    const got: PartitionBatch[] = [];
    let error: unknown;
    const guard = AbortSignal.timeout(5000);
    while (error === undefined && !guard.aborted) {
      try {
        got.push(...(await fetcher.poll(guard)));
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(FetchPartitionError);
    expect(error).toMatchObject({
      topic: 'a',
      partition: 0,
      fetchOffset: 0n,
      code: 'ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED',
    });
    const more = await pollUntil(fetcher, (all) => count(all) + count(got) >= 1);
    expect(values([...got, ...more], 'b', 0)).toEqual(expected('b', 0, 0, 1));
  });

  it('follows a moved leader (KIP-951 hint): the partition leaves one session and joins the other, nothing lost or repeated', async () => {
    const { kafka, fetcher } = await setup(['a'], 2);
    kafka.leaderHints = true;
    kafka.move('a', 0, 1);
    kafka.move('a', 1, 1);
    kafka.produce('a', 0, 3);
    kafka.produce('a', 1, 3);
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'a', partition: 1, start: { offset: 0n } },
    ]);
    const before = await pollUntil(fetcher, (all) => count(all) >= 6);
    const metadataBefore = kafka.metadataRequests();
    kafka.move('a', 0, 2);
    kafka.produce('a', 0, 3);
    kafka.produce('a', 1, 3);
    const after = await pollUntil(fetcher, (all) => count(all) >= 6);
    const read = [...before, ...after];
    expect(values(read, 'a', 0)).toEqual(expected('a', 0, 0, 6));
    expect(values(read, 'a', 1)).toEqual(expected('a', 1, 0, 6));
    expect(after.find((b) => b.partition === 0)?.leaderId).toBe(2);
    expect(kafka.metadataRequests()).toBe(metadataBefore);
    await until(
      () => [...(kafka.sessions.get(1)?.values() ?? [])].every((s) => !s.held.has('a-0')),
      'a-0 forgotten by broker 1',
    );
    expect([...(kafka.sessions.get(2)?.values() ?? [])].some((s) => s.held.has('a-0'))).toBe(true);
  });

  it('follows a moved leader without hints through a metadata refresh', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 2);
    const metadataBefore = kafka.metadataRequests();
    kafka.move('a', 0, 3);
    kafka.produce('a', 0, 2);
    const after = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 2, 4));
    expect(after[0]?.leaderId).toBe(3);
    expect(kafka.metadataRequests()).toBeGreaterThan(metadataBefore);
  });

  it('a lost connection backs off that broker only and starts its session anew', async () => {
    const { kafka, fetcher, observed } = await setup(['a'], 3);
    for (let p = 0; p < 3; p++) kafka.produce('a', p, 1);
    fetcher.assign(
      [0, 1, 2].map((partition) => ({ topic: 'a', partition, start: { offset: 0n } })),
    );
    await pollUntil(fetcher, (all) => count(all) >= 3);
    const leader0 = kafka.part('a', 0).leader;
    await until(() => kafka.dedicated().some((c) => c.node === leader0), 'a dedicated connection');
    kafka.drop(leader0);
    for (let p = 0; p < 3; p++) kafka.produce('a', p, 1);
    const got = await pollUntil(fetcher, (all) => count(all) >= 3);
    for (let p = 0; p < 3; p++) expect(values(got, 'a', p)).toEqual(expected('a', p, 1, 2));
    const mine = observed.filter((o) => o.nodeId === leader0);
    expect(mine.some((o) => o.errorCode === undefined)).toBe(true);
    const lost = mine.findIndex((o) => o.errorCode === undefined);
    expect(mine[lost + 1]?.full).toBe(true);
  });

  it('closes each session with a final epoch -1 request', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 1);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 1);
    const sessionsBefore = kafka.sessions.get(1)?.size;
    expect(sessionsBefore).toBe(1);
    await fetcher.close();
    expect(kafka.fetchesTo(1).at(-1)).toMatchObject({ sessionEpoch: -1, topics: [] });
    expect(kafka.sessions.get(1)?.size).toBe(0);
    expect(await fetcher.poll()).toEqual([]);
  });

  it("resolves 'latest' at the last stable offset under read_committed (ListOffsets isolation 1)", async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { isolationLevel: 'read_committed' });
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: 'latest' }]);
    await until(
      () => fetcher.position({ topic: 'a', partition: 0 }) !== undefined,
      'latest resolved',
    );
    const listOffsets = kafka.sent.filter((s) => s.apiKey === 2);
    expect(listOffsets.length).toBeGreaterThan(0);
    expect(
      listOffsets.every((s) => (s.request as { isolationLevel: number }).isolationLevel === 1),
    ).toBe(true);
    const fetches = kafka.fetchesTo(1);
    await until(() => kafka.fetchesTo(1).length > fetches.length, 'a Fetch');
    expect(kafka.fetchesTo(1).every((r) => r.isolationLevel === 1)).toBe(true);
  });

  it('retries UNKNOWN_TOPIC_OR_PARTITION and NOT_LEADER_OR_FOLLOWER answers with a metadata refresh, then reads on', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 3);
    let refusals = 0;
    const original = kafka.fetch.bind(kafka);
    kafka.fetch = async (node, request, version, signal) => {
      const response = await original(node, request, version, signal);
      for (const t of response.responses) {
        for (const p of t.partitions) {
          if (refusals >= 4) continue;
          refusals++;
          p.errorCode =
            refusals % 2 === 0
              ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
              : ErrorCode.NOT_LEADER_OR_FOLLOWER;
          p.records = null;
        }
      }
      return response;
    };
    const metadataBefore = kafka.metadataRequests();
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    const got = await pollUntil(fetcher, (all) => count(all) >= 3);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 0, 3));
    expect(refusals).toBe(4);
    expect(kafka.metadataRequests()).toBeGreaterThan(metadataBefore);
  });

  it('rejects poll with a typed error when metadata refuses the topic (TOPIC_AUTHORIZATION_FAILED)', async () => {
    const { kafka, fetcher } = await setup(['a', 'b'], 1);
    kafka.topics.get('a')!.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    kafka.produce('b', 0, 1);
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'b', partition: 0, start: { offset: 0n } },
    ]);
    const got: PartitionBatch[] = [];
    let error: unknown;
    const guard = AbortSignal.timeout(5000);
    while (error === undefined && !guard.aborted) {
      try {
        got.push(...(await fetcher.poll(guard)));
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(FetchPartitionError);
    expect(error).toMatchObject({
      topic: 'a',
      partition: 0,
      code: 'ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED',
    });
    const more = await pollUntil(fetcher, (all) => count(all) + count(got) >= 1);
    expect(values([...got, ...more], 'b', 0)).toEqual(expected('b', 0, 0, 1));
  });
});
