// Leader-routed admin calls against a scripted cluster: grouping per leader, and which
// partitions go round again (and where) after each kind of answer, as Kafka's admin driver
// (PartitionLeaderStrategy + a fulfillment request per broker) does.
import { ErrorCode, ProtocolError } from '@kafkats/codec';
import { OperationTimeoutError } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import { adminOn, closeAdmins, connectionLost, FakeKafka, type Sent } from './admin-fake-kafka.js';

const LIST_OFFSETS = 2;
const METADATA = 3;
const DELETE_RECORDS = 21;
const DESCRIBE_PRODUCERS = 61;

type Override = (node: number, topic: string, partition: number) => number | undefined;

/** ListOffsets answered by each partition's current leader; offset = 1000 + partition. */
function answerListOffsets(fake: FakeKafka, override: Override = () => undefined): void {
  fake.on(LIST_OFFSETS, (node, req) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t: { name: string; partitions: { partitionIndex: number }[] }) => ({
      name: t.name,
      partitions: t.partitions.map(({ partitionIndex }) => {
        const code =
          override(node, t.name, partitionIndex) ??
          (fake.leaderOf(t.name, partitionIndex) === node ? 0 : ErrorCode.NOT_LEADER_OR_FOLLOWER);
        return {
          partitionIndex,
          errorCode: code,
          timestamp: -1n,
          offset: code === 0 ? 1000n + BigInt(partitionIndex) : -1n,
          leaderEpoch: 7,
        };
      }),
    })),
  }));
}

/** The partitions each ListOffsets request carried, as `node:topic-p,...`. */
function requests(sent: readonly Sent[]): string[] {
  return sent.map(
    (s) =>
      `${s.node}:${s.request.topics
        .flatMap((t: { name: string; partitions: { partitionIndex: number }[] }) =>
          t.partitions.map((p) => `${t.name}-${p.partitionIndex}`),
        )
        .join(',')}`,
  );
}

/** Metadata requests that named topics (a targeted refresh), in order. */
function topicRefreshes(fake: FakeKafka): string[][] {
  return fake
    .sentTo(METADATA)
    .filter((s) => s.request.topics !== null && s.request.topics.length > 0)
    .map((s) => s.request.topics.map((t: { name: string }) => t.name));
}

const all = (topic: string, n: number) =>
  Array.from({ length: n }, (_, partition) => ({ topic, partition, spec: 'latest' as const }));

afterEach(closeAdmins);
const start = adminOn;

describe('leader-routed admin calls', () => {
  it('sends one ListOffsets per leader, each carrying exactly the partitions that broker leads', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 6);
    answerListOffsets(fake);
    const result = await (await start(fake)).listOffsets(all('t', 6));

    expect(requests(fake.sentTo(LIST_OFFSETS)).sort()).toEqual([
      '1:t-0,t-3',
      '2:t-1,t-4',
      '3:t-2,t-5',
    ]);
    expect(result.partitions.map((p) => [p.partition, p.offset, p.leaderEpoch, p.error])).toEqual(
      [0, 1, 2, 3, 4, 5].map((p) => [p, 1000n + BigInt(p), 7, undefined]),
    );
    expect(fake.sentTo(LIST_OFFSETS).every((s) => s.request.replicaId === -1)).toBe(true);
  });

  it('regroups only the partition answered NOT_LEADER_OR_FOLLOWER, under its new leader after a refresh of its topic', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 6);
    answerListOffsets(fake);
    const a = await start(fake);
    // Leadership of t-1 moves from 2 to 3 after the client cached the metadata.
    fake.topics.get('t')!.partitions[1]!.leader = 3;
    const result = await a.listOffsets(all('t', 6));

    expect(requests(fake.sentTo(LIST_OFFSETS)).slice(3)).toEqual(['3:t-1']);
    expect(topicRefreshes(fake)).toEqual([['t']]);
    expect(result.partitions.every((p) => p.error === undefined)).toBe(true);
    expect(result.partitions[1]!.offset).toBe(1001n);
  });

  it('sends a partition answered with a retriable error that needs no refresh again to the same leader', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    let first = true;
    answerListOffsets(fake, (_node, _topic, p) => {
      if (p !== 2 || !first) return undefined;
      first = false;
      return ErrorCode.OFFSET_NOT_AVAILABLE;
    });
    const result = await (await start(fake)).listOffsets(all('t', 3));

    expect(requests(fake.sentTo(LIST_OFFSETS)).slice(3)).toEqual(['3:t-2']);
    expect(topicRefreshes(fake)).toEqual([]);
    expect(result.partitions[2]!.offset).toBe(1002n);
  });

  it('returns a non-retriable partition error as that partition’s result and sends nothing again', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    answerListOffsets(fake, (_n, _t, p) =>
      p === 1 ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : undefined,
    );
    const result = await (await start(fake)).listOffsets(all('t', 3));

    expect(fake.sentTo(LIST_OFFSETS)).toHaveLength(3);
    const error = result.partitions[1]!.error;
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).errorName).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(result.partitions[1]!.offset).toBeUndefined();
    expect(result.partitions[0]!.offset).toBe(1000n);
    expect(result.partitions[2]!.offset).toBe(1002n);
  });

  it('regroups the partitions of a leader whose connection dropped, and only those', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 6);
    answerListOffsets(fake);
    const a = await start(fake);
    const base = fake.handlers.get(LIST_OFFSETS)!;
    let dropped = false;
    fake.on(LIST_OFFSETS, (node, req, v) => {
      if (node !== 2 || dropped) return base(node, req, v);
      // Broker 2 goes away; its partitions are led by 3 from now on.
      dropped = true;
      for (const p of fake.topics.get('t')!.partitions) if (p.leader === 2) p.leader = 3;
      return connectionLost(2);
    });
    const result = await a.listOffsets(all('t', 6));

    expect(requests(fake.sentTo(LIST_OFFSETS)).slice(3)).toEqual(['3:t-1,t-4']);
    expect(topicRefreshes(fake)).toEqual([['t']]);
    expect(result.partitions.map((p) => p.offset)).toEqual([
      1000n,
      1001n,
      1002n,
      1003n,
      1004n,
      1005n,
    ]);
  });

  it('fails the partitions of an unknown topic at lookup without sending them anywhere', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 1);
    answerListOffsets(fake);
    const result = await (await start(fake)).listOffsets([
      { topic: 'missing', partition: 0, spec: 'earliest' },
      { topic: 't', partition: 0, spec: 'earliest' },
      { topic: 't', partition: 5, spec: 'earliest' },
    ]);

    expect(requests(fake.sentTo(LIST_OFFSETS))).toEqual(['1:t-0']);
    expect(result.partitions.map((p) => (p.error as ProtocolError | undefined)?.errorName)).toEqual(
      ['UNKNOWN_TOPIC_OR_PARTITION', undefined, 'UNKNOWN_TOPIC_OR_PARTITION'],
    );
  });

  it('reports a partition the broker left out of its answer instead of waiting for it', async () => {
    const fake = new FakeKafka(1);
    fake.addTopic('t', 2);
    fake.on(LIST_OFFSETS, () => ({
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 5n, leaderEpoch: 0 },
          ],
        },
      ],
    }));
    const result = await (await start(fake)).listOffsets(all('t', 2));

    expect(result.partitions[0]!.offset).toBe(5n);
    expect(result.partitions[1]!.error?.code).toBe('ERR_KAFKA_ADMIN_RESPONSE_INCOMPLETE');
  });

  it('gives OperationTimeoutError to the partitions whose leader never answers, and returns the others', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    answerListOffsets(fake);
    const a = await start(fake);
    const base = fake.handlers.get(LIST_OFFSETS)!;
    fake.on(LIST_OFFSETS, (node, req, v) => (node === 3 ? connectionLost(3) : base(node, req, v)));
    const result = await a.listOffsets(all('t', 3), { timeoutMs: 300 });

    expect(result.partitions[0]!.offset).toBe(1000n);
    expect(result.partitions[1]!.offset).toBe(1001n);
    const error = result.partitions[2]!.error;
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect((error as OperationTimeoutError).cause).toBeInstanceOf(Error);
    expect(fake.sentTo(LIST_OFFSETS).filter((s) => s.node === 3).length).toBeGreaterThan(1);
  });

  it('rejects when no partition got any answer before the deadline', async () => {
    const fake = new FakeKafka(2);
    fake.addTopic('t', 2);
    for (const p of fake.topics.get('t')!.partitions) p.leader = -1;
    answerListOffsets(fake);
    const a = await start(fake);

    await expect(a.listOffsets(all('t', 2), { timeoutMs: 200 })).rejects.toBeInstanceOf(
      OperationTimeoutError,
    );
    expect(fake.sentTo(LIST_OFFSETS)).toHaveLength(0);
  });

  it('sends every partition to brokerId when given, and keeps that broker’s NOT_LEADER_OR_FOLLOWER final', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    fake.on(DESCRIBE_PRODUCERS, (node, req) => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t: { name: string; partitionIndexes: number[] }) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({
          partitionIndex,
          errorCode: partitionIndex === 0 ? ErrorCode.NOT_LEADER_OR_FOLLOWER : 0,
          errorMessage: null,
          activeProducers:
            partitionIndex === 0
              ? []
              : [
                  {
                    producerId: BigInt(node),
                    producerEpoch: 0,
                    lastSequence: 4,
                    lastTimestamp: 1n,
                    coordinatorEpoch: -1,
                    currentTxnStartOffset: -1n,
                  },
                ],
        })),
      })),
    }));
    const partitions = [0, 1, 2].map((partition) => ({ topic: 't', partition }));
    const result = await (await start(fake)).describeProducers(partitions, { brokerId: 2 });

    expect(fake.sentTo(DESCRIBE_PRODUCERS).map((s) => s.node)).toEqual([2]);
    expect((result.partitions[0]!.error as ProtocolError).errorName).toBe('NOT_LEADER_OR_FOLLOWER');
    expect(result.partitions[1]!.activeProducers).toEqual([
      {
        producerId: 2n,
        producerEpoch: 0,
        lastSequence: 4,
        lastTimestamp: 1n,
        coordinatorEpoch: -1,
      },
    ]);
  });

  it('answers different asks of one partition (earliest and latest) in separate requests', async () => {
    const fake = new FakeKafka(1);
    fake.addTopic('t', 1);
    fake.on(LIST_OFFSETS, (_node, req) => ({
      throttleTimeMs: 0,
      topics: req.topics.map(
        (t: { name: string; partitions: { partitionIndex: number; timestamp: bigint }[] }) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: 0,
            timestamp: -1n,
            offset: p.timestamp === -2n ? 3n : 42n,
            leaderEpoch: 0,
          })),
        }),
      ),
    }));
    const result = await (await start(fake)).listOffsets([
      { topic: 't', partition: 0, spec: 'earliest' },
      { topic: 't', partition: 0, spec: 'latest' },
      { topic: 't', partition: 0, spec: 'earliest' },
    ]);

    expect(fake.sentTo(LIST_OFFSETS)).toHaveLength(2);
    expect(result.partitions.map((p) => p.offset)).toEqual([3n, 42n, 3n]);
  });

  it('groups DeleteRecords by leader and answers repeated partitions from one request', async () => {
    const fake = new FakeKafka(2);
    fake.addTopic('t', 2);
    fake.on(DELETE_RECORDS, (_node, req) => ({
      throttleTimeMs: 0,
      topics: req.topics.map(
        (t: { name: string; partitions: { partitionIndex: number; offset: bigint }[] }) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            lowWatermark: p.offset,
            errorCode: 0,
          })),
        }),
      ),
    }));
    const result = await (await start(fake)).deleteRecords([
      { topic: 't', partition: 1, beforeOffset: 7n },
      { topic: 't', partition: 0, beforeOffset: 3n },
      { topic: 't', partition: 1, beforeOffset: 7n },
    ]);

    expect(requests(fake.sentTo(DELETE_RECORDS)).sort()).toEqual(['1:t-0', '2:t-1']);
    expect(result.partitions.map((p) => [p.partition, p.lowWatermark])).toEqual([
      [1, 7n],
      [0, 3n],
      [1, 7n],
    ]);
  });
});
