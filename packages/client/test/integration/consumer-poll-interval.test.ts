// max.poll.interval.ms on the shared cluster: a member whose application holds a batch longer
// than maxPollIntervalMs leaves the group on its own (its partitions are lost, onLost), so the
// other member gets every partition long before the session would time out; when the
// application asks for the next batch the member rejoins and gets a share again.
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, Producer, type TopicPartition } from '../../src/index.js';
import { unique } from './admin-support.js';
import { waitFor } from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

const PARTITIONS = 4;

for (const groupProtocol of ['consumer', 'classic'] as const) {
  describe(`groupProtocol '${groupProtocol}'`, () => {
    it('a member that stops polling leaves (partitions lost) and rejoins on its next read', async () => {
      const topic = unique(`poll-${groupProtocol}`);
      const groupId = unique('poll');
      await kafka.admin.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 3 });
      // Records keep coming until the end of the test.
      const producer = new Producer(cluster, { lingerMs: 5 });
      let producing = true;
      const produced = (async () => {
        for (let i = 0; producing; i++) {
          await producer.send({ topic, partition: i % PARTITIONS, value: String(i) });
          if (i % 20 === 19) await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const common = {
        groupId,
        groupProtocol,
        topics: [topic],
        autoOffsetReset: 'earliest' as const,
        // Far longer than the test waits: only the poll interval can make A leave.
        sessionTimeoutMs: 120_000,
        ...(groupProtocol === 'classic' ? { assignors: ['cooperative-sticky' as const] } : {}),
      };
      const lost: TopicPartition[][] = [];
      let stuck = false;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let aBatches = 0;
      const a = new Consumer(cluster, {
        ...common,
        maxPollIntervalMs: 3000,
        rebalanceTimeoutMs: 60_000,
        listeners: { onLost: (ps) => void lost.push([...ps]) },
      });
      const b = new Consumer(cluster, common);
      const abort = new AbortController();
      const runA = a.run({
        signal: abort.signal,
        eachBatch: async () => {
          aBatches++;
          if (stuck) await released;
        },
      });
      const runB = b.run({ signal: abort.signal, eachBatch: async () => {} });
      try {
        await waitFor(
          () =>
            a.assignment().length > 0 &&
            b.assignment().length > 0 &&
            a.assignment().length + b.assignment().length === PARTITIONS,
          60_000,
          'A and B share the topic',
        );
        await waitFor(() => aBatches > 0, 60_000, 'A reads');
        stuck = true; // A's next batch never finishes until released
        await waitFor(
          () => b.assignment().length === PARTITIONS,
          60_000,
          'B owns every partition while A is stuck',
        );
        expect(lost.length).toBeGreaterThan(0);
        expect(a.assignment()).toEqual([]);
        stuck = false;
        release();
        await waitFor(
          () => a.assignment().length > 0 && b.assignment().length < PARTITIONS,
          60_000,
          'A rejoins and gets a share again',
        );
        const before = aBatches;
        await waitFor(() => aBatches > before, 60_000, 'A reads again');
      } finally {
        release();
        abort.abort();
        await Promise.all([a.close(), b.close()]);
        await Promise.all([runA, runB]);
        producing = false;
        await produced;
        await producer.close();
      }
    });
  });
}
