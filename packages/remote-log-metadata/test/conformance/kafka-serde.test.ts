import { runRlmmOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deserializeMetadataEvent,
  metadataPartition,
  type RemoteLogMetadataEvent,
  type RemoteLogSegmentState,
  remoteLogSegmentMetadata,
  remoteLogSegmentMetadataUpdate,
  remotePartitionDeleteMetadata,
  serializeMetadataEvent,
  type TopicIdPartition,
} from '../../src/index.js';
import { toJava } from '../support/java-events.js';

const uuid = fc
  .uint8Array({ minLength: 16, maxLength: 16 })
  .map((b) => Buffer.from(b).toString('base64url'));
const tipArb: fc.Arbitrary<TopicIdPartition> = fc.record({
  topicId: uuid,
  topic: fc.string({ minLength: 1, maxLength: 40 }),
  partition: fc.integer({ min: 0, max: 0x7fffffff }),
});
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const i32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const custom = fc.option(
  fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b)),
  { nil: null },
);
const segmentStates: RemoteLogSegmentState[] = [
  'COPY_SEGMENT_STARTED',
  'COPY_SEGMENT_FINISHED',
  'DELETE_SEGMENT_STARTED',
  'DELETE_SEGMENT_FINISHED',
];

const eventArb: fc.Arbitrary<RemoteLogMetadataEvent> = fc.oneof(
  fc
    .record({
      tp: tipArb,
      id: uuid,
      start: fc.bigInt({ min: 0n, max: 2n ** 62n }),
      len: fc.bigInt({ min: 0n, max: 2n ** 40n }),
      brokerId: i32,
      maxTs: i64,
      eventTs: i64,
      epochs: fc.array(fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), i64), {
        minLength: 1,
        maxLength: 5,
      }),
      size: i32,
      customMetadata: custom,
      state: fc.constantFrom(...segmentStates),
      txnIndexEmpty: fc.boolean(),
    })
    .map((r) =>
      remoteLogSegmentMetadata({
        remoteLogSegmentId: { topicIdPartition: r.tp, id: r.id },
        startOffset: r.start,
        endOffset: r.start + r.len,
        brokerId: r.brokerId,
        maxTimestampMs: r.maxTs,
        eventTimestampMs: r.eventTs,
        segmentLeaderEpochs: r.epochs.map(([epoch, startOffset]) => ({ epoch, startOffset })),
        segmentSizeInBytes: r.size,
        customMetadata: r.customMetadata,
        state: r.state,
        txnIndexEmpty: r.txnIndexEmpty,
      }),
    ),
  fc
    .record({
      tp: tipArb,
      id: uuid,
      eventTs: i64,
      customMetadata: custom,
      state: fc.constantFrom(...segmentStates),
      brokerId: i32,
    })
    .map((r) =>
      remoteLogSegmentMetadataUpdate({
        remoteLogSegmentId: { topicIdPartition: r.tp, id: r.id },
        eventTimestampMs: r.eventTs,
        customMetadata: r.customMetadata,
        state: r.state,
        brokerId: r.brokerId,
      }),
    ),
  fc
    .record({
      tp: tipArb,
      state: fc.constantFrom(
        'DELETE_PARTITION_MARKED',
        'DELETE_PARTITION_STARTED',
        'DELETE_PARTITION_FINISHED' as const,
      ),
      eventTs: i64,
      brokerId: i32,
    })
    .map((r) =>
      remotePartitionDeleteMetadata({
        topicIdPartition: r.tp,
        state: r.state,
        eventTimestampMs: r.eventTs,
        brokerId: r.brokerId,
      }),
    ),
);

describe("Kafka's RemoteLogMetadataSerde and RemoteLogMetadataTopicPartitioner (pinned jars)", () => {
  it('serialises 400 random events to the bytes Kafka writes, and reads what Kafka writes', async () => {
    const events = fc.sample(eventArb, { numRuns: 400, seed: 4242 });
    const requests = events.flatMap((e) => [
      { op: 'serialize', event: toJava(e) },
      { op: 'deserialize', hex: serializeMetadataEvent(e).toString('hex') },
    ]);
    const answers = (await runRlmmOracle(requests)) as Record<string, unknown>[];
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const kafkaBytes = answers[2 * i]!;
      const kafkaRead = answers[2 * i + 1]!;
      // Kafka's serialize equals ours byte for byte ...
      expect(kafkaBytes).toEqual({ hex: serializeMetadataEvent(e).toString('hex') });
      // ... Kafka decodes our bytes into the same event ...
      expect(kafkaRead.event).toEqual(toJava(e));
      // ... and we decode Kafka's bytes into the same event.
      expect(deserializeMetadataEvent(Buffer.from(kafkaBytes.hex as string, 'hex'))).toEqual(e);
    }
  });

  it('picks the metadata partition Kafka picks for 300 topic ids x partitions x counts', async () => {
    const cases = fc.sample(
      fc.record({
        tp: tipArb,
        n: fc.oneof(fc.constantFrom(1, 3, 5, 50), fc.integer({ min: 1, max: 1000 })),
      }),
      { numRuns: 300, seed: 99 },
    );
    // Small partition numbers too: the ones real topics have.
    const small = cases
      .slice(0, 100)
      .map((c, i) => ({ tp: { ...c.tp, partition: i % 12 }, n: c.n }));
    const all = [...cases, ...small];
    const answers = (await runRlmmOracle(
      all.map((c) => ({ op: 'partition', ...c.tp, partitions: c.n })),
    )) as { partition: number }[];
    expect(all.map((c) => metadataPartition(c.tp, c.n))).toEqual(answers.map((a) => a.partition));
  });
});
