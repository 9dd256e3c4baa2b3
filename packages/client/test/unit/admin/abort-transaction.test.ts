// Admin.abortTransaction against a scripted cluster: the abort marker Kafka's
// AbortTransactionHandler writes (WriteTxnMarkers to the partition's leader), sent again to a
// new leader after NOT_LEADER_OR_FOLLOWER, and the final errors it ends with.
import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import { afterEach, describe, expect, it } from 'vitest';
import { adminOn, closeAdmins, FakeKafka } from './admin-fake-kafka.js';

const WRITE_TXN_MARKERS = 27;

const SPEC = {
  topic: 't',
  partition: 1,
  producerId: 4000n,
  producerEpoch: 3,
  coordinatorEpoch: 0,
} as const;

/** Answers each marker as broker `node` would: `code(node)` for every partition. */
function answerMarkers(fake: FakeKafka, code: (node: number) => number, producerId?: bigint): void {
  fake.on(WRITE_TXN_MARKERS, (node, req) => ({
    markers: req.markers.map(
      (m: { producerId: bigint; topics: { name: string; partitionIndexes: number[] }[] }) => ({
        producerId: producerId ?? m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({
            partitionIndex,
            errorCode: code(node),
          })),
        })),
      }),
    ),
  }));
}

afterEach(closeAdmins);
const start = adminOn;

describe('Admin.abortTransaction', () => {
  it('writes one abort marker for the producer and epochs to the partition’s leader', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    answerMarkers(fake, () => 0);
    await (await start(fake)).abortTransaction(SPEC);

    const sent = fake.sentTo(WRITE_TXN_MARKERS);
    expect(sent.map((s) => s.node)).toEqual([fake.leaderOf('t', 1)]);
    expect(sent[0]!.request.markers).toEqual([
      expect.objectContaining({
        producerId: 4000n,
        producerEpoch: 3,
        coordinatorEpoch: 0,
        transactionResult: false,
        transactionVersion: 0,
        topics: [expect.objectContaining({ name: 't', partitionIndexes: [1] })],
      }),
    ]);
  });

  it('finds the new leader after NOT_LEADER_OR_FOLLOWER and writes the marker there', async () => {
    const fake = new FakeKafka(3);
    const topic = fake.addTopic('t', 3);
    const first = fake.leaderOf('t', 1)!;
    const next = fake.brokers.find((b) => b !== first)!;
    answerMarkers(fake, (node) => {
      if (node !== first) return 0;
      // The old leader says so once, and the metadata then names the new one.
      topic.partitions[1]!.leader = next;
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    });
    await (await start(fake)).abortTransaction(SPEC);
    expect(fake.sentTo(WRITE_TXN_MARKERS).map((s) => s.node)).toEqual([first, next]);
  });

  it('ends with INVALID_PRODUCER_EPOCH, sent once, naming the partition and the producer', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    answerMarkers(fake, () => ErrorCode.INVALID_PRODUCER_EPOCH);
    const thrown = await (await start(fake)).abortTransaction(SPEC).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as ProtocolError).errorName).toBe('INVALID_PRODUCER_EPOCH');
    expect((thrown as Error).message).toContain('t-1');
    expect((thrown as Error).message).toContain('4000');
    expect(fake.sentTo(WRITE_TXN_MARKERS)).toHaveLength(1);
  });

  it('refuses an answer about another producer', async () => {
    const fake = new FakeKafka(3);
    fake.addTopic('t', 3);
    answerMarkers(fake, () => 0, 9n);
    const thrown = await (await start(fake)).abortTransaction(SPEC).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(KafkaError);
    expect((thrown as KafkaError).code).toBe('ERR_KAFKA_ADMIN_RESPONSE_INCOMPLETE');
  });
});
