import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepNewerLeaderEpochs, MetadataSnapshot, type TopicInfo } from '../../src/index.js';

const TOPIC_ID = 'TOPICIDAAAAAAAAAAAAAAA';

/** One broker's answer: for some partitions of topic t, a leader and an epoch. */
const answer = fc.array(
  fc.record({
    partition: fc.integer({ min: 0, max: 3 }),
    leader: fc.integer({ min: 1, max: 3 }),
    epoch: fc.integer({ min: 0, max: 20 }),
  }),
  { minLength: 1, maxLength: 4 },
);

function snapshotOf(
  rows: { partition: number; leader: number; epoch: number }[],
  at: number,
): MetadataSnapshot {
  const byPartition = new Map(rows.map((r) => [r.partition, r]));
  const topic: TopicInfo = {
    name: 't',
    topicId: TOPIC_ID,
    isInternal: false,
    errorCode: 0,
    partitions: [...byPartition.values()].map((r) => ({
      partition: r.partition,
      leader: r.leader,
      leaderEpoch: r.epoch,
      replicas: [1, 2, 3],
      isr: [1, 2, 3],
      offlineReplicas: [],
      errorCode: 0,
    })),
  };
  return new MetadataSnapshot({ brokers: [], topics: [topic], clusterId: null, fetchedAtMs: at });
}

describe('installing answers in any order', () => {
  it('keeps, per partition, the leader of the highest epoch seen so far (full and merged installs)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(answer, fc.boolean()), { minLength: 1, maxLength: 12 }),
        (answers) => {
          let current = MetadataSnapshot.empty();
          const best = new Map<number, { leader: number; epoch: number }>();
          answers.forEach(([rows, merge], i) => {
            const fresh = snapshotOf(rows, i);
            current = merge
              ? current.withTopicsMerged(fresh)
              : keepNewerLeaderEpochs(fresh, current);
            const seen = new Map(rows.map((r) => [r.partition, r]));
            for (const [p, r] of seen) {
              const before = best.get(p);
              if (before === undefined || r.epoch >= before.epoch)
                best.set(p, { leader: r.leader, epoch: r.epoch });
            }
            // A full install drops partitions the answer does not name; a merge replaces the topic.
            for (const [p, r] of best) {
              if (!seen.has(p)) best.delete(p);
              else {
                const installed = current.partition('t', p);
                expect(installed?.leaderEpoch).toBe(r.epoch);
                if (installed?.leaderEpoch === seen.get(p)?.epoch)
                  expect(installed?.leader).toBe(seen.get(p)?.leader);
              }
            }
            expect(Object.isFrozen(current.topic('t')?.partitions)).toBe(true);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
