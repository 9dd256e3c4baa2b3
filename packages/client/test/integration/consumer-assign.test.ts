// Manual assignment (Java's KafkaConsumer.assign) on the shared cluster: no group membership;
// without a groupId nothing is committed and partitions start at autoOffsetReset; with one,
// commits go to the group and a later consumer of the group resumes from them.
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, ConsumerConfigError } from '../../src/index.js';
import { unique } from './admin-support.js';
import { describeConsumerGroup, produceNumbered, waitFor } from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

/** Reads until `want` records arrived; returns each record as "partition:value". */
async function readRecords(consumer: Consumer, want: number): Promise<string[]> {
  const seen: string[] = [];
  const reading = (async () => {
    for await (const batch of consumer) {
      for (const r of batch.records) seen.push(`${batch.partition}:${String(r.value)}`);
      if (seen.length >= want) return;
    }
  })();
  await Promise.race([
    reading,
    waitFor(() => seen.length >= want, 60_000, `${want} records (have ${seen.length})`),
  ]);
  await reading;
  return seen;
}

describe('Consumer.assign', () => {
  it('reads exactly the assigned partitions without a group, and a new assignment swaps them', async () => {
    const topic = unique('assign');
    await kafka.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
    await produceNumbered(cluster, topic, 300, 3, { pauseMs: 0 }).done;

    const consumer = new Consumer(cluster, { autoOffsetReset: 'earliest' });
    try {
      await consumer.assign([
        { topic, partition: 0 },
        { topic, partition: 2 },
      ]);
      const first = await readRecords(consumer, 200);
      expect(first).toHaveLength(200);
      expect(new Set(first).size).toBe(200);
      expect(first.every((s) => s.startsWith('0:') || s.startsWith('2:'))).toBe(true);
      expect(
        consumer
          .assignment()
          .map((p) => p.partition)
          .sort(),
      ).toEqual([0, 2]);
      expect(consumer.groupMetadata().generationId).toBe(-1);

      await consumer.assign([{ topic, partition: 1 }]);
      expect(consumer.assignment()).toEqual([{ topic, partition: 1 }]);
      const second = await readRecords(consumer, 100);
      expect(second.every((s) => s.startsWith('1:'))).toBe(true);
      expect(new Set(second).size).toBe(100);
      // Partition 1 holds the values i with i % 3 === 1.
      expect(second.map((s) => Number(s.slice(2))).every((v) => v % 3 === 1)).toBe(true);

      await expect(consumer.commit()).rejects.toBeInstanceOf(ConsumerConfigError);
      expect(() => consumer.subscribe([topic])).toThrow(ConsumerConfigError);
    } finally {
      await consumer.close();
    }
  });

  it('commits to the group as a non-member; a later assign() of the group resumes there', async () => {
    const topic = unique('assign-group');
    const groupId = unique('assign-group');
    await kafka.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
    await produceNumbered(cluster, topic, 200, 2, { pauseMs: 0 }).done;

    const first = new Consumer(cluster, { groupId, autoOffsetReset: 'earliest' });
    await first.assign([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    const read = await readRecords(first, 200);
    expect(new Set(read).size).toBe(200);
    // enableAutoCommit (the default with a groupId) commits on close.
    await first.close();
    const committed = await new Consumer(cluster, { groupId }).committed([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    expect(committed.get(`${topic}-0`)?.offset).toBe(100n);
    expect(committed.get(`${topic}-1`)?.offset).toBe(100n);
    // No member ever joined: the group exists only through its offsets.
    expect([...(await describeConsumerGroup(cluster, groupId)).keys()]).toEqual([]);

    await produceNumbered(cluster, topic, 20, 2, { pauseMs: 0 }).done; // values 0..19 again
    const second = new Consumer(cluster, {
      groupId,
      autoOffsetReset: 'earliest',
      enableAutoCommit: false,
    });
    try {
      await second.assign([{ topic, partition: 1 }]);
      const again = await readRecords(second, 10);
      // Only the 10 new records of partition 1 (values 1, 3, ..., 19), none of the first 100.
      expect(again.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `1:${2 * i + 1}`).sort());
      expect(second.position({ topic, partition: 1 })).toBe(110n);
      await second.commit([{ topic, partition: 1, offset: 105n }]);
      const after = await second.committed([{ topic, partition: 1 }]);
      expect(after.get(`${topic}-1`)?.offset).toBe(105n);
    } finally {
      await second.close();
    }
  });

  it('maxPollRecords hands an answer out in parts, each finished on its own: a failed part rewinds only to its start', async () => {
    const topic = unique('assign-parts');
    const groupId = unique('assign-parts');
    await kafka.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    await produceNumbered(cluster, topic, 250, 1, { pauseMs: 0 }).done;
    const options = { groupId, autoOffsetReset: 'earliest', enableAutoCommit: false } as const;

    // 250 small records: one Fetch answer, handed out as parts of at most 40 records.
    const first = new Consumer(cluster, { ...options, maxPollRecords: 40 });
    const parts: [bigint, bigint, number][] = [];
    try {
      await first.assign([{ topic, partition: 0 }]);
      const failure = new Error('the third part fails');
      await expect(
        first.run({
          eachBatch: (batch) => {
            parts.push([batch.fetchOffset, batch.nextOffset, batch.records.length]);
            if (parts.length === 3) throw failure;
          },
        }),
      ).rejects.toBe(failure);
      expect(parts).toEqual([
        [0n, 40n, 40],
        [40n, 80n, 40],
        [80n, 120n, 40],
      ]);
      // The two parts that were processed are finished: a commit takes the second's end.
      await first.commit();
    } finally {
      await first.close();
    }
    const committed = await new Consumer(cluster, { groupId }).committed([{ topic, partition: 0 }]);
    expect(committed.get(`${topic}-0`)?.offset).toBe(80n);

    const second = new Consumer(cluster, { ...options, maxPollRecords: 40 });
    try {
      await second.assign([{ topic, partition: 0 }]);
      const rest = await readRecords(second, 170);
      expect(rest).toEqual(Array.from({ length: 170 }, (_, i) => `0:${80 + i}`));
    } finally {
      await second.close();
    }
  });

  it('refuses to mix assign() and subscriptions, and a subscription without a groupId', async () => {
    const subscribed = new Consumer(cluster, { groupId: unique('g'), topics: ['t'] });
    expect(() => subscribed.assign([{ topic: 't', partition: 0 }])).toThrow(ConsumerConfigError);
    await subscribed.close();
    expect(() => new Consumer(cluster, { topics: ['t'] })).toThrow(ConsumerConfigError);
    expect(() => new Consumer(cluster, { enableAutoCommit: true })).toThrow(ConsumerConfigError);
    const noGroup = new Consumer(cluster, {});
    await expect(noGroup.start()).rejects.toThrow(ConsumerConfigError);
    expect(() => noGroup.assign([{ topic: 't', partition: -1 }])).toThrow(ConsumerConfigError);
    await noGroup.close();
  });
});
