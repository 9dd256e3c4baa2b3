// The admin's leader-routed calls (ListOffsets, DeleteRecords, DescribeProducers) and
// DescribeLogDirs against a real 3-node cluster, after records produced by Kafka's own Java
// producer, each answer checked against Kafka's Java AdminClient.
import { ProtocolError } from '@kafkats/codec';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, type OffsetSpec } from '../../src/index.js';
import { unique } from './admin-support.js';

const shared = sharedCluster();
let admin: Admin;
let topic: string;
const t0 = BigInt(Date.now() - 600_000);
// Partition 0: timestamps out of order, the largest in the middle (offset 1).
const P0_TIMESTAMPS = [t0, t0 + 50_000n, t0 + 10_000n, t0 + 20_000n, t0 + 30_000n];

beforeAll(async () => {
  admin = await Admin.connect(shared.bootstrap);
  topic = unique('adm-offsets');
  await shared.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
  await shared.admin.produce(
    topic,
    [
      ...P0_TIMESTAMPS.map((timestamp, i) => ({ partition: 0, timestamp, value: `p0-${i}` })),
      { partition: 1, timestamp: t0 + 5_000n, value: 'p1-0' },
      { partition: 1, timestamp: t0 + 6_000n, value: 'p1-1' },
    ],
    { idempotent: true },
  );
  await admin.waitForTopics([topic]);
});
afterAll(async () => {
  await admin?.close();
});

type JavaSpec = 'earliest' | 'latest' | 'maxTimestamp' | bigint;

async function compare(spec: OffsetSpec, javaSpec: JavaSpec) {
  const ours = await admin.listOffsets([0, 1, 2].map((partition) => ({ topic, partition, spec })));
  const java = await shared.admin.listOffsets(topic, javaSpec);
  expect(ours.partitions.map((p) => p.error)).toEqual([undefined, undefined, undefined]);
  expect(ours.partitions.map((p) => [p.partition, p.offset, p.timestamp])).toEqual(
    java.map((j) => [j.partition, j.offset, j.timestamp]),
  );
  return ours;
}

describe('Admin offsets (real brokers, Java producer and admin as second client)', () => {
  it('lists earliest and latest offsets as Java does', async () => {
    const earliest = await compare('earliest', 'earliest');
    expect(earliest.partitions.map((p) => p.offset)).toEqual([0n, 0n, 0n]);
    const latest = await compare('latest', 'latest');
    expect(latest.partitions.map((p) => p.offset)).toEqual([5n, 2n, 0n]);
    const committed = await admin.listOffsets(
      [0, 1].map((partition) => ({ topic, partition, spec: 'latest' as const })),
      { isolationLevel: 'read_committed' },
    );
    expect(committed.partitions.map((p) => p.offset)).toEqual([5n, 2n]);
  });

  it('finds the max-timestamp record and the first record at or after a timestamp as Java does', async () => {
    const max = await compare('maxTimestamp', 'maxTimestamp');
    expect(max.partitions[0]).toMatchObject({ offset: 1n, timestamp: t0 + 50_000n });
    const at = await compare({ timestamp: t0 + 15_000n }, t0 + 15_000n);
    // The first offset whose timestamp is >= t0+15s is 1 (t0+50s); p1 has none that late.
    expect(at.partitions.map((p) => p.offset)).toEqual([1n, -1n, -1n]);
  });

  it('answers the existing partitions and types the error of an unknown topic in the same call', async () => {
    const missing = unique('adm-missing');
    const result = await admin.listOffsets([
      { topic, partition: 0, spec: 'latest' },
      { topic: missing, partition: 0, spec: 'latest' },
    ]);
    expect(result.partitions[0]!.offset).toBe(5n);
    expect(result.partitions[1]!.error).toBeInstanceOf(ProtocolError);
    expect((result.partitions[1]!.error as ProtocolError).errorName).toBe(
      'UNKNOWN_TOPIC_OR_PARTITION',
    );
  });

  it('deletes records, moving the log start offset Java then reports', async () => {
    const result = await admin.deleteRecords([
      { topic, partition: 1, beforeOffset: 1n },
      { topic, partition: 2, beforeOffset: 10n },
    ]);
    expect(result.partitions[0]).toEqual({ topic, partition: 1, lowWatermark: 1n });
    expect((result.partitions[1]!.error as ProtocolError).errorName).toBe('OFFSET_OUT_OF_RANGE');
    const java = await shared.admin.listOffsets(topic, 'earliest', { partitions: [1] });
    expect(java).toEqual([expect.objectContaining({ partition: 1, offset: 1n })]);
  });

  it('describes the producer state the idempotent Java producer left, as Java does', async () => {
    const ours = await admin.describeProducers(
      [0, 1, 2].map((partition) => ({ topic, partition })),
    );
    const java = await shared.admin.describeProducers(topic);
    expect(ours.partitions.map((p) => p.error)).toEqual([undefined, undefined, undefined]);
    for (const j of java) {
      const o = ours.partitions[j.partition]!;
      expect(
        o.activeProducers.map((s) => [
          s.producerId,
          s.producerEpoch,
          s.lastSequence,
          s.lastTimestamp,
        ]),
      ).toEqual(
        j.producers.map((s) => [s.producerId, s.producerEpoch, s.lastSequence, s.lastTimestamp]),
      );
    }
    const p0 = ours.partitions[0]!.activeProducers;
    expect(p0).toHaveLength(1);
    expect(p0[0]!.producerId).toBeGreaterThanOrEqual(0n);
    expect(p0[0]!.lastSequence).toBe(4);
    expect(p0[0]!.currentTxnStartOffset).toBeUndefined();
  });

  it('finds every replica of the topic in the log directories of exactly the brokers Java names', async () => {
    const result = await admin.describeLogDirs({
      partitions: [0, 1, 2].map((partition) => ({ topic, partition })),
    });
    const java = await shared.admin.describeTopic(topic);
    expect(result.brokers.map((b) => [b.brokerId, b.error])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
    ]);
    for (const jp of java.partitions) {
      const holders = result.brokers
        .filter((b) =>
          b.logDirs.some((d) =>
            d.replicas.some((r) => r.topic === topic && r.partition === jp.partition),
          ),
        )
        .map((b) => b.brokerId);
      expect(holders).toEqual([...jp.replicas].sort((a, b) => a - b));
    }
    const leaderOfP0 = java.partitions[0]!.leader;
    const p0 = result.brokers
      .find((b) => b.brokerId === leaderOfP0)!
      .logDirs.flatMap((d) => d.replicas)
      .find((r) => r.topic === topic && r.partition === 0)!;
    expect(p0.size).toBeGreaterThan(0n);
    expect(p0.isFuture).toBe(false);
    const dir = result.brokers[0]!.logDirs[0]!;
    expect(dir.error).toBeUndefined();
    expect(dir.totalBytes).toBeGreaterThan(0n);
  });
});
