// Regex subscriptions on the shared cluster. KIP-848: the pattern goes to the coordinator as
// SubscribedTopicRegex, which matches topic names (RE2/J) and assigns partitions of topics
// created later too. Classic: the consumer matches the cluster's topic names itself and matches
// again every metadataMaxAgeMs.
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, ConsumerConfigError } from '../../src/index.js';
import { unique } from './admin-support.js';
import { produceNumbered, waitFor } from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

for (const groupProtocol of ['consumer', 'classic'] as const) {
  describe(`groupProtocol '${groupProtocol}'`, () => {
    it('reads every topic whose name matches, and a matching topic created later', async () => {
      const prefix = unique(`rx-${groupProtocol}`);
      const [a, b, other, later] = [
        `${prefix}-a`,
        `${prefix}-b`,
        `${prefix}x-other`,
        `${prefix}-c`,
      ];
      for (const t of [a, b, other])
        await kafka.admin.createTopic(t, { partitions: 2, replicationFactor: 3 });
      await Promise.all([a, b, other].map((t) => produceNumbered(cluster, t, 20, 2).done));

      const consumer = new Consumer(cluster, {
        groupId: unique('rx'),
        groupProtocol,
        // RE2/J and JavaScript agree on this one; the whole name must match.
        topicPattern: `${prefix}-[a-z]`,
        autoOffsetReset: 'earliest',
        metadataMaxAgeMs: 2000,
      });
      const seen = new Map<string, number>();
      const reading = (async () => {
        for await (const batch of consumer)
          seen.set(batch.topic, (seen.get(batch.topic) ?? 0) + batch.records.length);
      })();
      try {
        await waitFor(
          () => seen.get(a) === 20 && seen.get(b) === 20,
          60_000,
          `20 records of ${a} and ${b}`,
        );
        expect(consumer.subscriptionPattern()).toBe(`${prefix}-[a-z]`);
        const owned = new Set(consumer.assignment().map((p) => p.topic));
        expect([...owned].sort()).toEqual([a, b]);

        await kafka.admin.createTopic(later, { partitions: 2, replicationFactor: 3 });
        await produceNumbered(cluster, later, 20, 2).done;
        await waitFor(() => seen.get(later) === 20, 90_000, `20 records of ${later}`);
        expect(seen.get(other)).toBeUndefined();
        expect(seen.get(a)).toBe(20);
        expect(seen.get(b)).toBe(20);
      } finally {
        await consumer.close();
        await reading;
      }
    });
  });
}

it('refuses a pattern that does not compile, and a pattern with topics', () => {
  expect(
    () => new Consumer(cluster, { groupId: 'g', groupProtocol: 'classic', topicPattern: '(' }),
  ).toThrow(ConsumerConfigError);
  expect(() => new Consumer(cluster, { groupId: 'g', topics: ['t'], topicPattern: 't.*' })).toThrow(
    ConsumerConfigError,
  );
  expect(() => new Consumer(cluster, { topicPattern: 't.*' })).toThrow(ConsumerConfigError);
});
