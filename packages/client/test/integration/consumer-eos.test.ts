// Exactly-once consume-transform-produce on the shared cluster (KIP-98, KIP-447): kafkats
// Consumers with read_committed and no auto-commit, each with a transactional Producer that
// puts the consumed offsets into its transaction (sendOffsetsToTransaction with the consumer's
// groupMetadata()). Members join and leave mid-run; the output, read with read_committed,
// holds each input record exactly once. It runs on every release of the version matrix: the
// first generation of transactions on 3.9, KIP-890's second on 4.x; where KIP-848 groups are
// not offered (group.version not finalized: 3.9), the 'consumer' protocol fails typed.
// A member whose group generation (KIP-848: member epoch) moved under a transaction gets its
// TxnOffsetCommit refused (ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH: an abortable error in
// Kafka's TransactionManager); it aborts and reads again from its last committed batch, as an
// exactly-once application does, and nothing may be lost or doubled for it.
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupProtocolUnsupportedError } from '../../src/index.js';
import { unique } from './admin-support.js';
import { healthy, Member, Pipeline, produceNumbered, Tally, waitFor } from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;
/** KIP-848 groups are offered (group.version finalized at 1 or more). */
let kip848: boolean;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
  kip848 = ((await cluster.finalizedFeature('group.version')) ?? 0) >= 1;
});
afterAll(async () => {
  await cluster?.close();
});

const TOTAL = 3000;

for (const groupProtocol of ['consumer', 'classic'] as const) {
  describe(`groupProtocol '${groupProtocol}'`, () => {
    it(`consume-transform-produce with transactions: ${TOTAL} inputs, each in the read_committed output exactly once while members join and leave`, async () => {
      const input = unique(`eos-in-${groupProtocol}`);
      const output = unique(`eos-out-${groupProtocol}`);
      await kafka.admin.createTopic(input, { partitions: 4, replicationFactor: 3 });
      await kafka.admin.createTopic(output, { partitions: 2, replicationFactor: 3 });
      await cluster.refreshTopics([input, output]);
      const groupId = unique('g-eos');
      if (groupProtocol === 'consumer' && !kip848) {
        const alone = new Pipeline(cluster, groupId, input, output, groupProtocol);
        await alone.running;
        expect(alone.error).toBeInstanceOf(GroupProtocolUnsupportedError);
        await alone.close();
        return;
      }
      const production = produceNumbered(cluster, input, TOTAL, 4, { perRound: 100, pauseMs: 300 });
      const outputs = new Tally();
      const reader = new Member(
        cluster,
        {
          groupId: unique('g-verify'),
          groupProtocol,
          topics: [output],
          isolationLevel: 'read_committed',
        },
        outputs,
      );
      const member = () =>
        new Pipeline(cluster, groupId, input, output, groupProtocol, { retryAborted: true });
      const first = member();
      const pipelines = [first];
      try {
        await waitFor(
          () => healthy(pipelines) && first.transactions > 0,
          60_000,
          'the first member to commit a transaction',
        );
        const second = member();
        pipelines.push(second);
        await waitFor(
          () => healthy(pipelines) && second.consumer.assignment().length > 0,
          60_000,
          'partitions for the second member',
        );
        await waitFor(
          () => healthy(pipelines) && production.sent() >= (2 * TOTAL) / 3,
          60_000,
          'two thirds produced',
        );
        await first.close(); // its partitions move to the second member mid-stream
        await production.done;
        await waitFor(
          () => healthy(pipelines) && outputs.counts.size >= TOTAL,
          90_000,
          'every output record',
        );
        for (const p of pipelines) expect(p.error).toBeUndefined();
        expect(second.transactions).toBeGreaterThan(0);
      } finally {
        production.stop();
        for (const p of pipelines) await p.close();
        await reader.close();
      }
      const expected = new Tally();
      for (let i = 0; i < TOTAL; i++) expected.add(`out-${i}`);
      expect([...expected.counts.keys()].filter((v) => !outputs.counts.has(v))).toEqual([]);
      expect(outputs.duplicates()).toEqual([]);
      expect(outputs.counts.size).toBe(TOTAL);
    }, 330_000);
  });
}
