// What Kafka's RangeAssignor and CooperativeStickyAssignor promise, checked on generated groups:
// each partition goes to exactly one subscribed member, loads are balanced, owners keep what
// they own while that stays balanced, and (KIP-429) no partition moves straight from one owner
// to another within one rebalance. The same inputs are compared with Kafka's own assignors in
// test/integration/consumer-classic-assignors-java.test.ts.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionKey } from '../../../src/consumer/internal/assignors/assignor.js';
import { cooperativeStickyAssignor } from '../../../src/consumer/internal/assignors/cooperative-sticky.js';
import {
  javaHashMapOrder,
  javaStringHash,
} from '../../../src/consumer/internal/assignors/java-hash-order.js';
import { compareMembers, rangeAssignor } from '../../../src/consumer/internal/assignors/range.js';
import type { TopicPartition } from '../../../src/topic-partition.js';
import {
  type AssignorCase,
  evolvedCaseArb,
  freshCaseArb,
  labels,
  sameAssignment,
  settle,
  subscriptionsOf,
} from './consumer-classic-arbitraries.js';

const RUNS = { numRuns: 300 };

/** Every partition of a topic someone subscribes to, as keys. */
function subscribedPartitions(c: AssignorCase): string[] {
  const wanted = new Set(c.members.flatMap((m) => m.topics));
  const out: string[] = [];
  for (const [topic, n] of c.partitionsPerTopic)
    if (wanted.has(topic))
      for (let p = 0; p < n; p++) out.push(partitionKey({ topic, partition: p }));
  return out;
}

/** No partition twice, each to a member that subscribes to its topic, every member present. */
function expectValid(
  c: AssignorCase,
  result: ReadonlyMap<string, readonly TopicPartition[]>,
): void {
  expect([...result.keys()].sort()).toEqual(c.members.map((m) => m.memberId).sort());
  const seen = new Set<string>();
  for (const m of c.members) {
    for (const tp of result.get(m.memberId)!) {
      expect(m.topics).toContain(tp.topic);
      expect(tp.partition).toBeLessThan(c.partitionsPerTopic.get(tp.topic)!);
      const key = partitionKey(tp);
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  }
}

/** Whether `memberId`'s claim on `tp` beats every other claim (Kafka's generation rule). */
function winsClaim(c: AssignorCase, memberId: string, tp: TopicPartition): boolean {
  const me = c.members.find((m) => m.memberId === memberId)!;
  return c.members.every(
    (o) =>
      o.memberId === memberId ||
      o.generationId < me.generationId ||
      !o.ownedPartitions.some((x) => partitionKey(x) === partitionKey(tp)),
  );
}

function loads(result: ReadonlyMap<string, readonly TopicPartition[]>): number[] {
  return [...result.values()].map((v) => v.length);
}

describe('range assignor (Kafka RangeAssignor)', () => {
  it('gives each topic consecutive ranges, in member order, extras to the first members', () => {
    fc.assert(
      fc.property(fc.boolean().chain(freshCaseArb), (c) => {
        const result = rangeAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
        expectValid(c, result);
        expect(new Set([...result.values()].flatMap((v) => v.map(partitionKey)))).toEqual(
          new Set(subscribedPartitions(c)),
        );
        for (const [topic, n] of c.partitionsPerTopic) {
          const members = c.members.filter((m) => m.topics.includes(topic)).sort(compareMembers);
          let next = 0;
          members.forEach((m, i) => {
            const mine = result
              .get(m.memberId)!
              .filter((tp) => tp.topic === topic)
              .map((tp) => tp.partition);
            const want = Math.floor(n / members.length) + (i < n % members.length ? 1 : 0);
            expect(mine).toEqual(Array.from({ length: want }, (_, k) => next + k));
            next += want;
          });
        }
      }),
      RUNS,
    );
  });

  it('sorts static members (KIP-345) first, by instance id', () => {
    const member = (memberId: string, groupInstanceId: string | null) => ({
      memberId,
      groupInstanceId,
      topics: ['t'],
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
      userData: null,
    });
    const subs = new Map(
      [member('a', null), member('z', 'instance-2'), member('b', 'instance-1')].map((m) => [
        m.memberId,
        m,
      ]),
    );
    const result = rangeAssignor.assign(new Map([['t', 3]]), subs);
    expect(labels(result.get('b')!)).toEqual(['t:0']);
    expect(labels(result.get('z')!)).toEqual(['t:1']);
    expect(labels(result.get('a')!)).toEqual(['t:2']);
  });
});

describe('cooperative-sticky assignor (Kafka CooperativeStickyAssignor)', () => {
  const anyCase = fc
    .boolean()
    .chain((equal) =>
      fc.oneof(
        freshCaseArb(equal),
        evolvedCaseArb(cooperativeStickyAssignor, equal),
        evolvedCaseArb(rangeAssignor, equal),
      ),
    );

  it('assigns each partition to at most one subscribed member, and the same input the same way', () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const result = cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
        expectValid(c, result);
        expect(
          sameAssignment(
            result,
            cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c)),
          ),
        ).toBe(true);
      }),
      RUNS,
    );
  });

  it('never hands a partition some member claims to a member that does not claim it (KIP-429)', () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const result = cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
        for (const m of c.members) {
          const mine = new Set(m.ownedPartitions.map(partitionKey));
          for (const tp of result.get(m.memberId)!) {
            if (mine.has(partitionKey(tp))) continue;
            for (const other of c.members)
              expect(other.ownedPartitions.map(partitionKey)).not.toContain(partitionKey(tp));
          }
        }
      }),
      RUNS,
    );
  });

  it('gives a partition claimed by two members of the same generation to neither', () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const claims = new Map<string, number[]>();
        for (const m of c.members)
          for (const tp of m.ownedPartitions) {
            const key = partitionKey(tp);
            claims.set(key, [...(claims.get(key) ?? []), m.generationId]);
          }
        const result = cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
        const assigned = new Set([...result.values()].flatMap((v) => v.map(partitionKey)));
        for (const [key, gens] of claims)
          if (gens.length > 1 && gens.every((g) => g === gens[0]))
            expect(assigned.has(key)).toBe(false);
      }),
      RUNS,
    );
  });

  it('settles (after the revocations) to every partition assigned, balanced for equal subscriptions', () => {
    fc.assert(
      fc.property(
        fc
          .boolean()
          .chain((equal) =>
            fc.tuple(fc.constant(equal), evolvedCaseArb(cooperativeStickyAssignor, equal)),
          ),
        ([equal, c]) => {
          const settled = settle(cooperativeStickyAssignor, c);
          expectValid(c, settled);
          expect([...settled.values()].flatMap((v) => v.map(partitionKey)).sort()).toEqual(
            subscribedPartitions(c).sort(),
          );
          if (equal)
            expect(Math.max(...loads(settled)) - Math.min(...loads(settled))).toBeLessThanOrEqual(
              1,
            );
          // Balanced in Kafka's sense: no partition could move to a member with two fewer.
          for (const tps of settled.values())
            for (const tp of tps)
              for (const m of c.members)
                if (m.topics.includes(tp.topic))
                  expect(settled.get(m.memberId)!.length).toBeGreaterThanOrEqual(tps.length - 1);
        },
      ),
      RUNS,
    );
  });

  it('keeps a balanced assignment as it is, and each owner its share when members come and go', () => {
    fc.assert(
      fc.property(evolvedCaseArb(cooperativeStickyAssignor, true), (c) => {
        // Settled and rejoining with what it owns: nothing moves.
        const settled = settle(cooperativeStickyAssignor, c);
        const again = c.members.map((m) => ({
          ...m,
          ownedPartitions: settled.get(m.memberId)!,
          generationId: 9,
        }));
        const same = cooperativeStickyAssignor.assign(
          c.partitionsPerTopic,
          new Map(again.map((m) => [m.memberId, m])),
        );
        expect(sameAssignment(same, settled)).toBe(true);
        // After a change, each member keeps min(owned, floor(partitions / members)) of the
        // partitions its claim wins (no other member claims them in the same or a newer generation).
        const total = subscribedPartitions(c).length;
        const minQuota = Math.floor(total / c.members.length);
        const result = cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
        for (const m of c.members) {
          const valid = new Set(
            m.ownedPartitions.filter((tp) => winsClaim(c, m.memberId, tp)).map(partitionKey),
          );
          const kept = result.get(m.memberId)!.filter((tp) => valid.has(partitionKey(tp)));
          expect(kept.length).toBeGreaterThanOrEqual(Math.min(valid.size, minQuota));
        }
      }),
      RUNS,
    );
  });
});

describe("Java's HashMap order", () => {
  it('String.hashCode as Java computes it', () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('a')).toBe(97);
    expect(javaStringHash('hello')).toBe(99162322);
    // Overflows int32 as Java does: this one is Integer.MIN_VALUE.
    expect(javaStringHash('polygenelubricants')).toBe(-2147483648);
  });

  it('walks buckets by spread hash, insertion order within a bucket, and keeps every key once', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 40 }), (keys) => {
        const order = javaHashMapOrder(keys);
        expect([...order].sort()).toEqual([...keys].sort());
      }),
    );
    // 'Aa' and 'BB' share a hash code: insertion order decides.
    expect(javaHashMapOrder(['BB', 'Aa'])).toEqual(['BB', 'Aa']);
    expect(javaHashMapOrder(['Aa', 'BB'])).toEqual(['Aa', 'BB']);
  });
});
