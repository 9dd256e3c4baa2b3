// kafkats Consumers and Kafka's own KafkaConsumer in one group, on the shared cluster: the
// coordinator splits a topic's partitions between them while records flow and members join and
// leave. Commit on revocation and on close means no record is processed twice and none lost.
import { Cluster } from '@kafkats/meta';
import { JavaGroupConsumer, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './admin-support.js';
import { Member, produceNumbered, Tally, waitFor } from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

const TOTAL = 6000;

for (const groupProtocol of ['consumer', 'classic'] as const) {
  describe(`groupProtocol '${groupProtocol}' with Java's KafkaConsumer (group.protocol=${groupProtocol})`, () => {
    it(`two kafkats consumers and a Java consumer share 6 partitions while members join and leave: ${TOTAL} records, each processed exactly once`, async () => {
      const topic = unique(`interop-${groupProtocol}`);
      await kafka.admin.createTopic(topic, { partitions: 6, replicationFactor: 3 });
      await cluster.refreshTopics([topic]);
      const groupId = unique('g-interop');
      const tally = new Tally();
      const options = { groupId, groupProtocol, topics: [topic], autoCommitIntervalMs: 1000 };
      const production = produceNumbered(cluster, topic, TOTAL, 6, {
        perRound: 50,
        pauseMs: 250,
      });
      const a = new Member(cluster, options, tally);
      await a.consumer.start();
      const java = await JavaGroupConsumer.start({
        bootstrap: kafka.bootstrap,
        groupId,
        topics: [topic],
        groupProtocol,
      });
      const members: Member[] = [a];
      try {
        await waitFor(() => java.owned.size > 0, 60_000);
        const b = new Member(cluster, options, tally);
        members.push(b);
        await waitFor(() => b.consumer.assignment().length > 0, 60_000);
        await waitFor(() => production.sent() >= TOTAL / 2, 60_000);
        // a leaves (commits on revocation, then leaves); a third kafkats member joins later.
        await a.close();
        await waitFor(() => production.sent() >= (3 * TOTAL) / 4, 60_000);
        const c = new Member(cluster, options, tally);
        members.push(c);
        await production.done;
        const all = () => {
          const seen = new Set(tally.counts.keys());
          for (const r of java.records) seen.add(r.value ?? '');
          return seen.size >= TOTAL;
        };
        await waitFor(all, 90_000);
        // Everyone took part.
        expect(a.processed).toBeGreaterThan(0);
        expect(java.records.length).toBeGreaterThan(0);
        expect(b.processed + c.processed).toBeGreaterThan(0);
        for (const m of members) expect(m.error).toBeUndefined();
      } finally {
        await java.stop();
        for (const m of members.slice(1)) await m.close();
      }
      for (const r of java.records) tally.add(r.value ?? '');
      expect(tally.missing(TOTAL)).toEqual([]);
      expect(tally.duplicates()).toEqual([]);
    });
  });
}
