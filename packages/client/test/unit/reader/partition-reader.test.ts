// The partition reader's state machine against an in-memory Kafka (fake-kafka.ts) through the
// real @kafkats/meta Cluster: leader moves by error, by hint and by lost connection, epochs
// that must not go backwards, OFFSET_OUT_OF_RANGE under each policy, topic ids, fatal errors,
// cancellation and the one-answer-ahead memory bound.
import { ErrorCode, type FetchRequest, ProtocolError } from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FetchStateError,
  OffsetOutOfRangeError,
  type PartitionBatch,
  PartitionReader,
  type PartitionReaderError,
  type PartitionReaderOptions,
} from '../../../src/index.js';
import { connectFake, FakeKafka } from '../fetch/fake-kafka.js';

const clusters: Cluster[] = [];

afterEach(async () => {
  for (const c of clusters.splice(0)) await c.close();
});

const connect = (kafka: FakeKafka) => connectFake(kafka, clusters);

function open(cluster: Cluster, options: Partial<PartitionReaderOptions> = {}): PartitionReader {
  return new PartitionReader(cluster, {
    topic: 'events',
    partition: 0,
    startOffset: 0n,
    maxWaitMs: 20,
    retryBackoffMs: 1,
    retryBackoffMaxMs: 2,
    ...options,
  });
}

const valuesOf = (batches: readonly PartitionBatch[]) =>
  batches.flatMap((b) => b.records.map((r) => r.value?.toString()));

/** Iterates until `enough` says so, with `onBatch` run on each batch first. */
async function readUntil(
  reader: PartitionReader,
  enough: (all: PartitionBatch[]) => boolean,
  onBatch: (b: PartitionBatch, all: PartitionBatch[]) => void = () => {},
): Promise<PartitionBatch[]> {
  const all: PartitionBatch[] = [];
  for await (const batch of reader) {
    all.push(batch);
    onBatch(batch, all);
    if (enough(all)) break;
  }
  return all;
}

const expected = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `v${from + i}`);

describe('PartitionReader: reading', () => {
  it('yields every record once in order, with offsets, and nextOffset to resume from', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 3);
    kafka.appendValues(0, 4);
    const reader = open(await connect(kafka));
    const batches = await readUntil(reader, (all) => all.at(-1)?.nextOffset === 7n);
    expect(valuesOf(batches)).toEqual(expected(0, 7));
    expect(batches.flatMap((b) => b.records.map((r) => r.offset))).toEqual([
      0n,
      1n,
      2n,
      3n,
      4n,
      5n,
      6n,
    ]);
    expect(batches.at(-1)?.highWatermark).toBe(7n);
    expect(reader.position).toBe(7n);
  });

  it('drops the records of a batch that lie before the fetch offset', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 5);
    const reader = open(await connect(kafka), { startOffset: 3n });
    const [batch] = await readUntil(reader, () => true);
    expect(batch?.fetchOffset).toBe(3n);
    expect(batch?.records.map((r) => r.offset)).toEqual([3n, 4n]);
  });

  it("resolves 'earliest' and 'latest' with ListOffsets to the leader", async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 5);
    kafka.partition(0).logStartOffset = 2n;
    const cluster = await connect(kafka);
    const earliest = open(cluster, { startOffset: 'earliest' });
    const [first] = await readUntil(earliest, () => true);
    expect(first?.fetchOffset).toBe(2n);

    const latest = open(cluster, { startOffset: 'latest' });
    const reading = readUntil(latest, () => true);
    // 'latest' is 5: only what is appended after the reader resolved it comes back.
    while (latest.position === undefined) await new Promise((r) => setTimeout(r, 1));
    expect(latest.position).toBe(5n);
    kafka.appendValues(0, 1);
    const [next] = await reading;
    expect(next?.records.map((r) => r.offset)).toEqual([5n]);
    const listOffsets = kafka.sent.filter((s) => s.apiKey === 2);
    expect(listOffsets.every((s) => !s.dedicated)).toBe(true);
    expect(listOffsets.map((s) => (s.request as { replicaId: number }).replicaId)).toEqual([
      -1, -1,
    ]);
  });

  it('fetches on a dedicated connection with the topic id and the leader epoch (KIP-320)', async () => {
    const kafka = new FakeKafka();
    kafka.partition(0).leaderEpoch = 7;
    kafka.appendValues(0, 1);
    const reader = open(await connect(kafka));
    await readUntil(reader, () => true);
    const fetch = kafka.fetches()[0]!;
    expect(fetch.dedicated).toBe(true);
    expect(fetch.version).toBe(17);
    const request = fetch.request as FetchRequest;
    expect(request.topics[0]?.topicId).toBe(kafka.topicId);
    expect(request.topics[0]?.partitions[0]?.currentLeaderEpoch).toBe(7);
    expect(request.isolationLevel).toBe(0);
    expect(request.topics[0]?.partitions[0]?.partitionMaxBytes).toBe(1_048_576);
    expect(request.maxBytes).toBe(52_428_800);
  });

  it('fetches by topic name below Fetch v13', async () => {
    const kafka = new FakeKafka();
    kafka.versions.set(1, 12);
    kafka.appendValues(0, 2);
    const reader = open(await connect(kafka));
    const batches = await readUntil(reader, () => true);
    expect(valuesOf(batches)).toEqual(expected(0, 2));
    expect((kafka.fetches()[0]!.request as FetchRequest).topics[0]?.topic).toBe('events');
  });
});

describe('PartitionReader: following the leader', () => {
  it('follows NOT_LEADER_OR_FOLLOWER to the new leader after a metadata refresh, losing nothing', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 3);
    const reader = open(await connect(kafka));
    let openAtEnd: number[] = [];
    const batches = await readUntil(
      reader,
      (all) => all.at(-1)?.nextOffset === 6n,
      (b) => {
        if (b.nextOffset === 3n) {
          kafka.moveLeader(0, 2);
          kafka.appendValues(0, 3);
        }
        openAtEnd = kafka.dedicated().map((c) => c.node);
      },
    );
    expect(valuesOf(batches)).toEqual(expected(0, 6));
    expect(batches.at(-1)?.leaderId).toBe(2);
    expect(batches.at(-1)?.leaderEpoch).toBe(1);
    expect(reader.leaderId).toBe(2);
    // The connection to the old leader was closed; one dedicated connection remained.
    expect(openAtEnd).toEqual([2]);
    expect(kafka.dedicated()).toEqual([]);
  });

  it('goes straight to a leader the answer names (KIP-951) without asking for metadata', async () => {
    const kafka = new FakeKafka();
    kafka.leaderHints = true;
    kafka.appendValues(0, 2);
    const reader = open(await connect(kafka));
    let metadataBefore = 0;
    const batches = await readUntil(
      reader,
      (all) => all.at(-1)?.nextOffset === 4n,
      (b) => {
        if (b.nextOffset === 2n) {
          kafka.moveLeader(0, 3);
          kafka.appendValues(0, 2);
          metadataBefore = kafka.metadataRequests();
        }
      },
    );
    expect(valuesOf(batches)).toEqual(expected(0, 4));
    expect(batches.at(-1)?.leaderId).toBe(3);
    expect(kafka.metadataRequests()).toBe(metadataBefore);
  });

  it('refreshes on FENCED_LEADER_EPOCH (same leader, newer epoch) and sends the new epoch', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 1);
    const reader = open(await connect(kafka));
    const batches = await readUntil(
      reader,
      (all) => all.at(-1)?.nextOffset === 2n,
      () => {
        kafka.partition(0).leaderEpoch = 4; // re-elected: same broker, new epoch
        kafka.appendValues(0, 1);
      },
    );
    expect(valuesOf(batches)).toEqual(expected(0, 2));
    const codes = kafka
      .fetches()
      .map((f) => (f.request as FetchRequest).topics[0]?.partitions[0]?.currentLeaderEpoch);
    expect(codes).toContain(4);
    expect(batches.at(-1)?.leaderEpoch).toBe(4);
  });

  it('waits out a leader that lags (UNKNOWN_LEADER_EPOCH) and never steps back to an older epoch', async () => {
    const kafka = new FakeKafka();
    kafka.leaderHints = true;
    kafka.appendValues(0, 1);
    const cluster = await connect(kafka);
    const reader = open(cluster);
    let lagging = 0;
    kafka.intercept = (node, apiKey) => {
      // Broker 2 has not yet learnt it leads at epoch 1: its first answers say so.
      if (apiKey === 1 && node === 2 && lagging < 3) {
        lagging++;
        return unknownLeaderEpoch();
      }
      return undefined;
    };
    const batches = await readUntil(
      reader,
      (all) => all.at(-1)?.nextOffset === 2n,
      (b) => {
        if (b.nextOffset === 1n) {
          // Metadata still shows the old leader at epoch 0; the hint says broker 2 at epoch 1.
          kafka.metadataView = [{ leader: 1, leaderEpoch: 0 }];
          kafka.moveLeader(0, 2);
          kafka.appendValues(0, 1);
        }
      },
    );
    expect(lagging).toBe(3);
    expect(valuesOf(batches)).toEqual(expected(0, 2));
    const epochsTo1AfterMove = kafka
      .fetches()
      .filter((f) => f.node === 1)
      .map((f) => (f.request as FetchRequest).topics[0]?.partitions[0]?.currentLeaderEpoch);
    // Once epoch 1 was known, the stale metadata (broker 1, epoch 0) was never used again.
    expect(epochsTo1AfterMove.every((e) => e === 0)).toBe(true);
    expect(reader.leaderEpoch).toBe(1);

    function unknownLeaderEpoch() {
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        nodeEndpoints: [],
        responses: [
          {
            topic: '',
            topicId: kafka.topicId,
            partitions: [
              {
                partitionIndex: 0,
                errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH,
                highWatermark: -1n,
                lastStableOffset: -1n,
                logStartOffset: -1n,
                divergingEpoch: { epoch: -1, endOffset: -1n },
                currentLeader: { leaderId: -1, leaderEpoch: -1 },
                snapshotId: { endOffset: -1n, epoch: -1 },
                abortedTransactions: null,
                preferredReadReplica: -1,
                records: null,
              },
            ],
          },
        ],
      };
    }
  });

  it('keeps asking while metadata still names the old leader, then follows the new one', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 1);
    const reader = open(await connect(kafka));
    let refreshesWhileStale = 0;
    const batches = await readUntil(
      reader,
      (all) => all.at(-1)?.nextOffset === 2n,
      (b) => {
        if (b.nextOffset !== 1n) return;
        kafka.metadataView = [{ leader: 1, leaderEpoch: 0 }];
        kafka.moveLeader(0, 2);
        kafka.appendValues(0, 1);
        kafka.intercept = (_node, apiKey) => {
          if (apiKey === 3 && ++refreshesWhileStale === 3) kafka.metadataView = undefined;
          return undefined;
        };
      },
    );
    expect(refreshesWhileStale).toBeGreaterThanOrEqual(3);
    expect(valuesOf(batches)).toEqual(expected(0, 2));
    expect(batches.at(-1)?.leaderId).toBe(2);
  });

  it('reopens its connection when it is lost in the middle of a long poll', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 2);
    const reader = open(await connect(kafka), { maxWaitMs: 60_000, prefetch: false });
    const batches: PartitionBatch[] = [];
    for await (const batch of reader) {
      batches.push(batch);
      if (batch.nextOffset === 4n) break;
      // Let the next long poll start, then cut its socket and append meanwhile.
      setTimeout(() => {
        kafka.drop(1);
        kafka.appendValues(0, 2);
      }, 5);
    }
    expect(valuesOf(batches)).toEqual(expected(0, 4));
    expect(kafka.connections.filter((c) => c.dedicated).length).toBeGreaterThanOrEqual(2);
    expect(reader.lastError).toBeUndefined();
  });
});

describe('PartitionReader: OFFSET_OUT_OF_RANGE', () => {
  function truncated(): FakeKafka {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 4);
    kafka.appendValues(0, 4);
    kafka.partition(0).logStartOffset = 4n; // records 0-3 deleted
    kafka.partition(0).batches.shift();
    return kafka;
  }

  it("'error' (the default) throws OffsetOutOfRangeError with the log's range", async () => {
    const kafka = truncated();
    const reader = open(await connect(kafka), { startOffset: 1n });
    const error = await readUntil(reader, () => true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetOutOfRangeError);
    expect(error).toBeInstanceOf(ProtocolError);
    const e = error as OffsetOutOfRangeError;
    expect(e.code).toBe('ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE');
    expect(e.retriable).toBe(false);
    expect([e.fetchOffset, e.logStartOffset, e.logEndOffset]).toEqual([1n, 4n, 8n]);
  });

  it("'earliest' jumps to the log start, the gap visible in fetchOffset", async () => {
    const kafka = truncated();
    const reader = open(await connect(kafka), { startOffset: 1n, offsetOutOfRange: 'earliest' });
    const batches = await readUntil(reader, (all) => all.at(-1)?.nextOffset === 8n);
    expect(batches[0]?.fetchOffset).toBe(4n);
    expect(valuesOf(batches)).toEqual(expected(4, 8));
  });

  it("'latest' jumps to the end and reads what comes after", async () => {
    const kafka = truncated();
    const reader = open(await connect(kafka), { startOffset: 100n, offsetOutOfRange: 'latest' });
    const reading = readUntil(reader, () => true);
    while (kafka.sent.filter((s) => s.apiKey === 2).length === 0) {
      await new Promise((r) => setTimeout(r, 1));
    }
    kafka.appendValues(0, 1);
    const [batch] = await reading;
    expect(batch?.fetchOffset).toBe(8n);
    expect(valuesOf([batch!])).toEqual(['v8']);
  });
});

describe('PartitionReader: errors it does not retry', () => {
  it('refuses a zero topic id at Fetch v13+ instead of stalling', async () => {
    const kafka = new FakeKafka();
    kafka.topicId = 'AAAAAAAAAAAAAAAAAAAAAA';
    kafka.appendValues(0, 1);
    const reader = open(await connect(kafka));
    const error = await readUntil(reader, () => true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchStateError);
    expect((error as FetchStateError).code).toBe('ERR_KAFKA_TOPIC_ID_MISSING');
  });

  it('fails when the topic is re-created under the same name', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 1);
    const reader = open(await connect(kafka));
    const error = await readUntil(
      reader,
      () => false,
      () => {
        kafka.topicId = 'AAAAAAAAAAAAAAAAAAAAAg';
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchStateError);
    expect((error as FetchStateError).code).toBe('ERR_KAFKA_TOPIC_ID_CHANGED');
  });

  it('throws TOPIC_AUTHORIZATION_FAILED from the fetch, typed', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 1);
    kafka.intercept = (_node, apiKey, request, version) => {
      if (apiKey !== 1) return undefined;
      return kafka.fetch(1, request as FetchRequest, version, undefined).then((r) => {
        r.responses[0]!.partitions[0]!.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        r.responses[0]!.partitions[0]!.records = null;
        return r;
      });
    };
    const reader = open(await connect(kafka));
    const error = await readUntil(reader, () => true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).errorName).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect((error as ProtocolError).code).toBe('ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED');
  });

  it('throws the topic error metadata reports (not authorized to describe)', async () => {
    const kafka = new FakeKafka();
    kafka.topicErrorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    const reader = open(await connect(kafka));
    const error = await readUntil(reader, () => true).catch((e: unknown) => e);
    expect((error as ProtocolError).errorName).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(kafka.fetches()).toHaveLength(0);
  });

  it('rejects bad options', async () => {
    const cluster = await connect(new FakeKafka());
    expect(() => open(cluster, { startOffset: -1n })).toThrow(/startOffset/);
    expect(() => open(cluster, { maxWaitMs: -5 })).toThrow(/maxWaitMs/);
    expect(() => open(cluster, { offsetOutOfRange: 'none' as 'error' })).toThrow(
      /offsetOutOfRange/,
    );
  });
});

describe('PartitionReader: cancellation and memory', () => {
  it('an abort in the middle of a long poll ends the iteration before the broker answers', async () => {
    const kafka = new FakeKafka();
    const controller = new AbortController();
    const reader = open(await connect(kafka), { maxWaitMs: 600_000, signal: controller.signal });
    const iteration = readUntil(reader, () => false);
    while (kafka.fetches().length === 0) await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    expect(await iteration).toEqual([]);
    expect(kafka.fetchAnswers).toBe(0);
    expect(kafka.dedicated()).toEqual([]);
  });

  it('close() ends a running iteration and the reader yields nothing after', async () => {
    const kafka = new FakeKafka();
    const reader = open(await connect(kafka), { maxWaitMs: 600_000 });
    const iteration = readUntil(reader, () => false);
    while (kafka.fetches().length === 0) await new Promise((r) => setTimeout(r, 1));
    await reader.close();
    expect(await iteration).toEqual([]);
    expect(await readUntil(reader, () => false)).toEqual([]);
  });

  it('buffers at most one answer ahead of a slow caller', async () => {
    const kafka = new FakeKafka();
    for (let i = 0; i < 10; i++) kafka.appendValues(0, 1);
    const reader = open(await connect(kafka), { partitionMaxBytes: 1 });
    let handed = 0;
    for await (const batch of reader) {
      handed++;
      // Give a runaway prefetch every chance to run ahead.
      await new Promise((r) => setTimeout(r, 5));
      expect(kafka.fetchAnswers - handed).toBeLessThanOrEqual(1);
      if (batch.nextOffset === 10n) break;
    }
    expect(handed).toBe(10);
  });

  it('without prefetch, fetches only when asked', async () => {
    const kafka = new FakeKafka();
    for (let i = 0; i < 3; i++) kafka.appendValues(0, 1);
    const reader = open(await connect(kafka), { partitionMaxBytes: 1, prefetch: false });
    for await (const batch of reader) {
      await new Promise((r) => setTimeout(r, 5));
      expect(kafka.fetchAnswers).toBe(Number(batch.nextOffset));
      if (batch.nextOffset === 3n) break;
    }
  });

  it('breaking out drops the prefetched answer; the next iteration resumes at position', async () => {
    const kafka = new FakeKafka();
    for (let i = 0; i < 4; i++) kafka.appendValues(0, 1);
    const reader = open(await connect(kafka), { partitionMaxBytes: 1 });
    const first = await readUntil(reader, (all) => all.length === 2);
    expect(reader.position).toBe(2n);
    expect(kafka.dedicated()).toEqual([]);
    const second = await readUntil(reader, (all) => all.at(-1)?.nextOffset === 4n);
    expect(valuesOf([...first, ...second])).toEqual(expected(0, 4));
  });

  it('yields an answer of more than maxBatchRecords records in parts; breaking out between them resumes at the next', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 10);
    const reader = open(await connect(kafka), { maxBatchRecords: 3 });
    const first = await readUntil(reader, (all) => all.length === 2);
    expect(first.map((b) => [b.fetchOffset, b.nextOffset])).toEqual([
      [0n, 3n],
      [3n, 6n],
    ]);
    expect(reader.position).toBe(6n);
    const second = await readUntil(reader, (all) => all.at(-1)?.nextOffset === 10n);
    expect(second.map((b) => b.records.length)).toEqual([3, 1]);
    expect(valuesOf([...first, ...second])).toEqual(expected(0, 10));
  });

  it('waits out a throttled answer before fetching again (KIP-219)', async () => {
    const kafka = new FakeKafka();
    kafka.appendValues(0, 1);
    kafka.appendValues(0, 1);
    kafka.intercept = (_node, apiKey, request, version) => {
      if (apiKey !== 1) return undefined;
      return kafka.fetch(1, request as FetchRequest, version, undefined).then((r) => {
        r.throttleTimeMs = 600_000;
        return r;
      });
    };
    const controller = new AbortController();
    const reader = open(await connect(kafka), {
      partitionMaxBytes: 1,
      prefetch: false,
      signal: controller.signal,
    });
    const batches = await readUntil(reader, (all) => {
      if (all.length === 1) setTimeout(() => controller.abort(), 50);
      return false;
    });
    // The first answer asked for ten minutes of quiet: no second fetch was sent.
    expect(batches).toHaveLength(1);
    expect(kafka.fetches()).toHaveLength(1);
  });

  it('refuses a second concurrent iteration', async () => {
    const kafka = new FakeKafka();
    const controller = new AbortController();
    const reader = open(await connect(kafka), { maxWaitMs: 600_000, signal: controller.signal });
    const first = readUntil(reader, () => false);
    while (kafka.fetches().length === 0) await new Promise((r) => setTimeout(r, 1));
    const error = await readUntil(reader, () => false).catch((e: unknown) => e);
    expect((error as PartitionReaderError).code).toBe('ERR_KAFKA_READER_BUSY');
    controller.abort();
    await first;
  });
});
