// The fetch engine against an in-memory Kafka with fetch sessions (fetcher-fake-kafka.ts),
// through the real @kafkats/meta Cluster: sessions per broker, the prefetch bound, pause,
// resume, seek and unassign against buffered and in-flight data, OFFSET_OUT_OF_RANGE under each
// policy, session errors, fatal and retriable partition errors, leader moves, lost connections;
// what the readers on it need: polls of a few batches in turn, no prefetch, a bound on batches,
// per-partition stats, traces and logs, connections closed when a broker leads nothing.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ErrorCode, type FetchRequest } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchEngine, type FetchObservation } from '../../../src/fetch/fetch-engine.js';
import type { FetcherConfig } from '../../../src/fetch/fetcher.js';
import {
  FETCH_CHANNEL,
  FetchPartitionError,
  FetchStateError,
  type FetchTraceContext,
  LogTruncationError,
  OffsetOutOfRangeError,
  type PartitionBatch,
} from '../../../src/index.js';
import { SessionFakeKafka } from './fetcher-fake-kafka.js';

const clusters: Cluster[] = [];
const fetchers: FetchEngine[] = [];

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
  const validated: { nodeId: number; partitions: readonly string[] }[] = [];
  const fetcher = new FetchEngine(
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
    { onFetch: (o) => observed.push(o), onValidate: (o) => validated.push(o) },
  );
  fetchers.push(fetcher);
  const all = topics.flatMap((topic) =>
    Array.from({ length: partitions }, (_, partition) => ({ topic, partition })),
  );
  return { kafka, cluster, fetcher, observed, validated, all };
}

const values = (batches: readonly PartitionBatch[], topic: string, partition: number) =>
  batches
    .filter((b) => b.topic === topic && b.partition === partition)
    .flatMap((b) => b.records.map((r) => r.value?.toString()));

const expected = (topic: string, partition: number, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${topic}-${partition}:${from + i}`);

/** Polls until `done`; a guard of 10 s turns a hang into a failed assertion. */
async function pollUntil(
  fetcher: FetchEngine,
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

describe('FetchEngine', () => {
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

  it('hands out batches whose columns are their records, the record objects made once, when read', async () => {
    const { kafka, fetcher, all } = await setup();
    for (const tp of all) kafka.produce(tp.topic, tp.partition, 7);
    fetcher.assign(all.map((tp) => ({ ...tp, start: 'earliest' as const })));
    const read = await pollUntil(fetcher, (got) =>
      all.every((tp) => fetcher.position(tp)?.offset === 7n && got.length > 0),
    );
    expect(read.length).toBeGreaterThan(0);
    for (const b of read) {
      const fromColumns = b.columns.flatMap((c) =>
        Array.from({ length: c.length }, (_, i) => ({
          offset: c.offset(i),
          timestamp: c.timestamp(i),
          value: c.value(i)?.toString(),
        })),
      );
      const records = b.records;
      expect(b.records).toBe(records);
      expect(fromColumns).toEqual(
        records.map((r) => ({
          offset: r.offset,
          timestamp: r.timestamp,
          value: r.value?.toString(),
        })),
      );
    }
    for (const { topic, partition } of all) {
      expect(values(read, topic, partition)).toEqual(expected(topic, partition, 0, 7));
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

  it('reads from the replica the leader names (KIP-392) until metadataMaxAge, then asks the leader again', async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { rackId: 'rack-b', readReplicaMaxAgeMs: 50 });
    const leader = kafka.part('a', 0).leader;
    const replica = (leader % 3) + 1;
    kafka.readReplicas.set('a-0', replica);
    kafka.produce('a', 0, 3);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    const got = await pollUntil(fetcher, (all) => count(all) >= 3);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 0, 3));
    expect(got.every((b) => b.leaderId === replica)).toBe(true);
    expect(fetcher.partitionStats({ topic: 'a', partition: 0 })).toMatchObject({
      leaderId: leader,
      readReplicaId: replica,
    });
    expect(kafka.fetchesTo(leader).every((r) => r.rackId === 'rack-b')).toBe(true);
    // Past its age the leader is asked again, and names the replica again.
    const asked = kafka.fetchesTo(leader).length;
    await until(() => kafka.fetchesTo(leader).length > asked, 'the leader asked again');
    kafka.produce('a', 0, 2);
    const more = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(more, 'a', 0)).toEqual(expected('a', 0, 3, 5));
    expect(more.every((b) => b.leaderId === replica)).toBe(true);
  });

  it('an error from the preferred read replica sends the partition back to its leader, and out of range there resets nothing', async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { rackId: 'rack-b' });
    const leader = kafka.part('a', 0).leader;
    const replica = (leader % 3) + 1;
    kafka.readReplicas.set('a-0', replica);
    kafka.produce('a', 0, 3);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 3);
    // The replica now answers out of range (it fell behind the leader's log start, say): under
    // 'earliest' a reset would read 0..2 again; the leader is asked instead.
    kafka.replicaErrorCode = ErrorCode.OFFSET_OUT_OF_RANGE;
    kafka.readReplicas.delete('a-0');
    kafka.produce('a', 0, 3);
    const after = await pollUntil(fetcher, (all) => count(all) >= 3);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 3, 6));
    expect(after.every((b) => b.leaderId === leader)).toBe(true);
    const toReplica = kafka.fetchesTo(replica);
    expect(toReplica.length).toBeGreaterThan(1); // the reads, then the one answered out of range
    expect(fetcher.partitionStats({ topic: 'a', partition: 0 })?.readReplicaId).toBeUndefined();
  });

  it('without a rack id the leader names no replica and serves every read', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    const leader = kafka.part('a', 0).leader;
    kafka.readReplicas.set('a-0', (leader % 3) + 1);
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    const got = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(got.every((b) => b.leaderId === leader)).toBe(true);
    expect(kafka.fetchesTo(leader).every((r) => r.rackId === '')).toBe(true);
  });

  it('checks the position after a leader change (KIP-320): a truncated log is read again from where it diverges', async () => {
    const { kafka, fetcher, validated } = await setup(['a'], 1);
    const first = kafka.part('a', 0).leader;
    const next = (first % 3) + 1;
    kafka.produce('a', 0, 6);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 6);
    expect(validated).toEqual([]);
    // An unclean election: the new leader's log ends at 3, and it writes 3..7 anew. Fetching on
    // at 6 would skip the new 3, 4 and 5.
    kafka.truncateTopic('a', 0, 3n, next);
    kafka.produce('a', 0, 5);
    const after = await pollUntil(fetcher, (all) => count(all) >= 5);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 3, 8));
    expect(validated).toEqual([{ nodeId: next, partitions: ['a-0'] }]);
    expect(fetcher.position({ topic: 'a', partition: 0 })).toEqual({ offset: 8n, leaderEpoch: 1 });
  });

  it('under autoOffsetReset none, a truncated log fails the partition with LogTruncationError', async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { autoOffsetReset: 'none' });
    const first = kafka.part('a', 0).leader;
    kafka.produce('a', 0, 6);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 6);
    kafka.truncateTopic('a', 0, 3n, (first % 3) + 1);
    const thrown = await fetcher.poll(AbortSignal.timeout(10_000)).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(LogTruncationError);
    expect(thrown).toBeInstanceOf(OffsetOutOfRangeError);
    expect(thrown).toMatchObject({
      topic: 'a',
      partition: 0,
      fetchOffset: 6n,
      divergentOffset: 3n,
      divergentLeaderEpoch: 0,
    });
    expect((thrown as Error).message).toContain('truncated from offset 3');
  });

  it('a log that did not diverge passes the check: one OffsetsForLeaderEpoch per leader change, nothing read twice', async () => {
    const { kafka, fetcher, validated } = await setup(['a'], 2);
    kafka.move('a', 0, 1);
    kafka.move('a', 1, 1);
    kafka.produce('a', 0, 2);
    kafka.produce('a', 1, 2);
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'a', partition: 1, start: { offset: 0n } },
    ]);
    await pollUntil(fetcher, (all) => count(all) >= 4);
    validated.length = 0;
    kafka.move('a', 0, 2);
    kafka.move('a', 1, 2);
    kafka.produce('a', 0, 2);
    kafka.produce('a', 1, 2);
    const after = await pollUntil(fetcher, (all) => count(all) >= 4);
    expect(values(after, 'a', 0)).toEqual(expected('a', 0, 2, 4));
    expect(values(after, 'a', 1)).toEqual(expected('a', 1, 2, 4));
    // Both partitions moved to broker 2: checked together, in one request at most per refresh.
    expect(validated.flatMap((v) => v.partitions).sort()).toEqual(['a-0', 'a-1']);
    expect(validated.every((v) => v.nodeId === 2)).toBe(true);
  });

  it('checks a start that carries a leader epoch (a committed offset) before the first Fetch', async () => {
    const { kafka, fetcher, validated, observed } = await setup(['a'], 1);
    const first = kafka.part('a', 0).leader;
    const next = (first % 3) + 1;
    kafka.produce('a', 0, 6);
    kafka.truncateTopic('a', 0, 3n, next);
    kafka.produce('a', 0, 2);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 5n, leaderEpoch: 0 } }]);
    const got = await pollUntil(fetcher, (all) => count(all) >= 2);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 3, 5));
    // The cluster's metadata still named the old leader: it refused, and the new one answered.
    expect(validated.map((v) => v.nodeId)).toEqual([first, next]);
    expect(observed[0]?.nodeId).toBe(next);
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

  it('closes each session with a final epoch -1 request on a connection with no Fetch out', async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { prefetch: false });
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

  it('closes at once, without waiting out a long poll in flight, and the connection with it', async () => {
    const { kafka, fetcher } = await setup(['a'], 1, { maxWaitMs: 60_000 });
    kafka.produce('a', 0, 1);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (all) => count(all) >= 1);
    // The next Fetch, a long poll at the log end, is out.
    await until(() => kafka.fetchesTo(kafka.part('a', 0).leader).length >= 2, 'the long poll');
    const fetches = kafka.fetchesTo(kafka.part('a', 0).leader).length;
    await fetcher.close();
    expect(kafka.dedicated()).toEqual([]);
    // No session-closing request queued behind the long poll.
    expect(kafka.fetchesTo(kafka.part('a', 0).leader)).toHaveLength(fetches);
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

describe('FetchEngine: what the readers on it need', () => {
  it('poll(max) hands out at most max batches, oldest answers first, so every partition gets its turn', async () => {
    const { kafka, fetcher, all } = await setup(['a'], 6);
    for (const { partition } of all) kafka.produce('a', partition, 2);
    fetcher.assign(all.map((p) => ({ ...p, start: { offset: 0n } })));
    const order: number[] = [];
    const guard = AbortSignal.timeout(10_000);
    while (order.length < 6 && !guard.aborted) {
      const got = await fetcher.poll(guard, 1);
      expect(got.length).toBeLessThanOrEqual(1);
      for (const b of got) order.push(b.partition);
    }
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('maxBatchRecords cuts an answer into batches handed out together, each starting where the last ended', async () => {
    const whole = await setup(['a'], 1);
    whole.kafka.produce('a', 0, 10);
    whole.fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    const [answer] = await pollUntil(whole.fetcher, (got) => count(got) >= 10);
    const { kafka, fetcher } = await setup(['a'], 1, { maxBatchRecords: 4 });
    kafka.produce('a', 0, 10);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 2n } }]);
    const guard = AbortSignal.timeout(10_000);
    const got = await fetcher.poll(guard, 1);
    expect(got.map((b) => b.records.length)).toEqual([4, 4]);
    expect(got.map((b) => b.fetchOffset)).toEqual([2n, 6n]);
    expect(got.map((b) => b.nextOffset)).toEqual([6n, 10n]);
    expect(values(got, 'a', 0)).toEqual(expected('a', 0, 2, 10));
    expect(got.reduce((n, b) => n + b.sizeInBytes, 0)).toBe(answer?.sizeInBytes);
    expect(fetcher.position({ topic: 'a', partition: 0 })?.offset).toBe(10n);
    expect(fetcher.partitionStats({ topic: 'a', partition: 0 })?.records).toBe(8);
  });

  it('without prefetch, no Fetch goes out while nobody polls', async () => {
    const { kafka, fetcher, observed } = await setup(['a'], 1, { prefetch: false });
    kafka.produce('a', 0, 3);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    // The metadata lookup is done; without a poll waiting nothing is fetched.
    await new Promise((r) => setImmediate(r));
    expect(observed).toEqual([]);
    const first = await fetcher.poll(AbortSignal.timeout(10_000));
    expect(first.flatMap((b) => b.records)).toHaveLength(3);
    const fetches = observed.length;
    kafka.produce('a', 0, 1);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(observed).toHaveLength(fetches);
  });

  it('maxBufferedBatches bounds batches fetched ahead, those in flight counted', async () => {
    const { kafka, fetcher, all, observed } = await setup(['a'], 6, { maxBufferedBatches: 2 });
    for (const { partition } of all) kafka.produce('a', partition, 1);
    fetcher.assign(all.map((p) => ({ ...p, start: { offset: 0n } })));
    await until(() => fetcher.bufferedBatches >= 2, 'two batches buffered');
    // Every Fetch sent so far asked for no more partitions than the bound left room for.
    expect(observed.reduce((n, o) => n + o.sent.length, 0)).toBeLessThanOrEqual(2);
    expect(fetcher.bufferedBatches).toBe(2);
    const got = await pollUntil(fetcher, (b) => count(b) >= 6);
    expect(count(got)).toBe(6);
  });

  it('partitionStats reports the high-water mark, the leader and the counters of handed-out data', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 4);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    expect(fetcher.partitionStats({ topic: 'a', partition: 1 })).toBeUndefined();
    const got = await pollUntil(fetcher, (b) => count(b) >= 4);
    const stats = fetcher.partitionStats({ topic: 'a', partition: 0 });
    expect(stats).toMatchObject({
      highWatermark: 4n,
      leaderId: kafka.part('a', 0).leader,
      records: 4,
      retries: 0,
      lastError: undefined,
    });
    expect(stats?.fetches).toBeGreaterThanOrEqual(1);
    expect(stats?.bytes).toBeGreaterThan(0);
    expect(got).toHaveLength(1);
  });

  it('each partition of each Fetch is a kafkats:fetch trace, ok with its records or error with its code', async () => {
    const { kafka, fetcher } = await setup(['a'], 2);
    kafka.produce('a', 0, 2);
    kafka.produce('a', 1, 1);
    const ended: FetchTraceContext[] = [];
    const errored: unknown[] = [];
    const onEnd = (message: unknown) => ended.push(message as FetchTraceContext);
    const onError = (message: unknown) => errored.push((message as FetchTraceContext).error);
    subscribe(`tracing:${FETCH_CHANNEL}:asyncEnd`, onEnd);
    subscribe(`tracing:${FETCH_CHANNEL}:error`, onError);
    try {
      fetcher.assign([
        { topic: 'a', partition: 0, start: { offset: 0n } },
        { topic: 'a', partition: 1, start: { offset: 5n } }, // past the end: reset to earliest
      ]);
      await pollUntil(fetcher, (b) => count(b) >= 3);
    } finally {
      unsubscribe(`tracing:${FETCH_CHANNEL}:asyncEnd`, onEnd);
      unsubscribe(`tracing:${FETCH_CHANNEL}:error`, onError);
    }
    const data = ended.find((c) => c.partition === 0 && c.records === 2);
    expect(data).toMatchObject({
      topic: 'a',
      fetchOffset: 0n,
      errorCode: 0,
      nextOffset: 2n,
      highWatermark: 2n,
      lag: 0n,
      outcome: 'ok',
      isolationLevel: 'read_uncommitted',
    });
    expect(data?.version).toBeGreaterThanOrEqual(12);
    const reset = ended.find((c) => c.partition === 1 && c.fetchOffset === 5n);
    expect(reset).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, outcome: 'error' });
    expect(errored.some((e) => e instanceof FetchPartitionError)).toBe(true);
  });

  it('logs retries at debug and offset resets at info', async () => {
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const line = (level: string) => (fields: object, message: string) =>
      lines.push({ level, message, fields: fields as Record<string, unknown> });
    const logger = {
      debug: line('debug'),
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
    };
    const { kafka, fetcher } = await setup(['a'], 1, { logger });
    kafka.produce('a', 0, 1);
    const state = kafka.part('a', 0);
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 7n } }]);
    await pollUntil(fetcher, (b) => count(b) >= 1);
    expect(lines).toContainEqual({
      level: 'info',
      message: 'fetch offset out of range: resetting',
      fields: { topic: 'a', partition: 0, fetchOffset: '7', reset: 'earliest' },
    });
    kafka.move('a', 0, (state.leader % 3) + 1);
    kafka.produce('a', 0, 1);
    await pollUntil(fetcher, (b) => count(b) >= 1);
    expect(lines.some((l) => l.level === 'debug' && l.message === 'retrying a fetch')).toBe(true);
  });

  it('closes the connection to a broker that leads none of its partitions any more', async () => {
    const { kafka, fetcher } = await setup(['a'], 1);
    kafka.produce('a', 0, 1);
    const from = kafka.part('a', 0).leader;
    fetcher.assign([{ topic: 'a', partition: 0, start: { offset: 0n } }]);
    await pollUntil(fetcher, (b) => count(b) >= 1);
    expect(kafka.dedicated().map((c) => c.node)).toEqual([from]);
    const to = (from % 3) + 1;
    kafka.move('a', 0, to);
    kafka.produce('a', 0, 1);
    await pollUntil(fetcher, (b) => count(b) >= 1);
    expect(kafka.dedicated().map((c) => c.node)).toEqual([to]);
  });

  it('a topic without an id at Fetch v13+ fails alone with FetchStateError; the others are read', async () => {
    const { kafka, fetcher, cluster } = await setup(['a', 'b'], 1);
    kafka.produce('a', 0, 1);
    kafka.produce('b', 0, 1);
    kafka.topics.get('a')!.id = 'AAAAAAAAAAAAAAAAAAAAAA';
    await cluster.refresh();
    fetcher.assign([
      { topic: 'a', partition: 0, start: { offset: 0n } },
      { topic: 'b', partition: 0, start: { offset: 0n } },
    ]);
    let error: unknown;
    const got: PartitionBatch[] = [];
    const guard = AbortSignal.timeout(10_000);
    while ((error === undefined || count(got) < 1) && !guard.aborted) {
      try {
        got.push(...(await fetcher.poll(guard)));
      } catch (e) {
        error ??= e;
      }
    }
    expect(error).toBeInstanceOf(FetchStateError);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_TOPIC_ID_MISSING', topic: 'a', partition: 0 });
    expect(values(got, 'b', 0)).toEqual(expected('b', 0, 0, 1));
  });
});
