// Our range and cooperative-sticky assignors against Kafka's own RangeAssignor and
// CooperativeStickyAssignor (the pinned release's jars, through ClassicAssignorVectors.java) on
// the same generated groups. Range must match exactly. Cooperative-sticky must match exactly
// when every member subscribes to the same topics (Kafka's ConstrainedAssignmentBuilder, which
// ours follows step by step, HashMap member order included); with different subscriptions
// Kafka's GeneralAssignmentBuilder and ours may pick different partitions to move, so there
// both must keep the same promises instead.

import { join } from 'node:path';
import { runKafkaTool } from '@kafkats/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionKey } from '../../src/consumer/internal/assignors/assignor.js';
import { cooperativeStickyAssignor } from '../../src/consumer/internal/assignors/cooperative-sticky.js';
import { rangeAssignor } from '../../src/consumer/internal/assignors/range.js';
import type { TopicPartition } from '../../src/topic-partition.js';
import {
  type AssignorCase,
  evolvedCaseArb,
  freshCaseArb,
  javaLine,
  resultLine,
  subscriptionsOf,
} from '../property/consumer/consumer-classic-arbitraries.js';

const JAVA_SOURCE = join(import.meta.dirname, '..', 'support', 'ClassicAssignorVectors.java');

async function javaAssign(lines: readonly string[]): Promise<string[]> {
  const run = await runKafkaTool(JAVA_SOURCE, [], {
    input: `${lines.join('\n')}\n`,
    timeoutMs: 300_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trimEnd().split('\n');
}

/** `member=t:p,t:p member2=...` back into a map. */
function parseLine(line: string): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>();
  for (const entry of line.split(' ')) {
    const [member, list] = entry.split('=') as [string, string];
    out.set(
      member,
      list === ''
        ? []
        : list.split(',').map((tp) => {
            const [topic, partition] = tp.split(':') as [string, string];
            return { topic, partition: Number(partition) };
          }),
    );
  }
  return out;
}

const member = (
  memberId: string,
  topics: string[],
  owned: [string, number][] = [],
  generationId = -1,
) => ({
  memberId,
  groupInstanceId: null,
  topics,
  ownedPartitions: owned.map(([topic, partition]) => ({ topic, partition })),
  generationId,
  rackId: null,
  userData: null,
});

/** Hand-picked groups: a first join, a newcomer, a leaver, a zombie's claim. */
const SIMPLE: AssignorCase[] = [
  {
    partitionsPerTopic: new Map([['orders', 6]]),
    members: [
      member('consumer-1', ['orders']),
      member('consumer-2', ['orders']),
      member('consumer-3', ['orders']),
    ],
  },
  {
    partitionsPerTopic: new Map([['orders', 5]]),
    members: [
      member(
        'consumer-1',
        ['orders'],
        [0, 1, 2, 3, 4].map((p) => ['orders', p] as [string, number]),
        3,
      ),
      member('consumer-2', ['orders']),
    ],
  },
  {
    partitionsPerTopic: new Map([
      ['orders', 4],
      ['payments', 2],
    ]),
    members: [
      member(
        'consumer-1',
        ['orders', 'payments'],
        [
          ['orders', 0],
          ['orders', 1],
          ['payments', 0],
        ],
        7,
      ),
      member(
        'consumer-3',
        ['orders', 'payments'],
        [
          ['orders', 2],
          ['orders', 3],
          ['payments', 1],
        ],
        7,
      ),
    ],
  },
  {
    partitionsPerTopic: new Map([['orders', 4]]),
    members: [
      member(
        'consumer-1',
        ['orders'],
        [
          ['orders', 0],
          ['orders', 1],
        ],
        4,
      ),
      member(
        'consumer-2',
        ['orders'],
        [
          ['orders', 2],
          ['orders', 3],
        ],
        4,
      ),
      member('zombie', ['orders'], [['orders', 1]], 4),
    ],
  },
];

describe("classic assignors against Kafka's", () => {
  const equalCases = [
    ...SIMPLE,
    ...fc.sample(freshCaseArb(true), { numRuns: 60, seed: 7 }),
    ...fc.sample(evolvedCaseArb(cooperativeStickyAssignor, true), { numRuns: 120, seed: 11 }),
    ...fc.sample(evolvedCaseArb(rangeAssignor, true), { numRuns: 40, seed: 13 }),
  ];
  const unequalCases = [
    ...fc.sample(freshCaseArb(false), { numRuns: 60, seed: 17 }),
    ...fc.sample(evolvedCaseArb(cooperativeStickyAssignor, false), { numRuns: 100, seed: 19 }),
  ];
  const rangeCases = [
    ...SIMPLE,
    ...fc.sample(freshCaseArb(false), { numRuns: 100, seed: 23 }),
    ...fc.sample(freshCaseArb(true), { numRuns: 40, seed: 29 }),
  ];

  it('range: the same assignment as RangeAssignor, and cooperative-sticky as CooperativeStickyAssignor', async () => {
    const lines = [
      ...rangeCases.map((c) => javaLine('range', c)),
      ...equalCases.map((c) => javaLine('cooperative-sticky', c)),
      ...unequalCases.map((c) => javaLine('cooperative-sticky', c)),
    ];
    const java = await javaAssign(lines);
    expect(java).toHaveLength(lines.length);
    let i = 0;
    for (const c of rangeCases) {
      const ours = resultLine(c, rangeAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c)));
      expect(ours, javaLine('range', c)).toBe(java[i++]);
    }
    for (const c of equalCases) {
      const ours = resultLine(
        c,
        cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c)),
      );
      expect(ours, javaLine('cooperative-sticky', c)).toBe(java[i++]);
    }
    // Different subscriptions: Kafka's answer keeps the promises ours keeps, and hands out as
    // many partitions as ours in the same round.
    for (const c of unequalCases) {
      const theirs = parseLine(java[i++]!);
      const ours = cooperativeStickyAssignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
      for (const result of [theirs, ours]) {
        const seen = new Set<string>();
        for (const m of c.members)
          for (const tp of result.get(m.memberId) ?? []) {
            expect(m.topics).toContain(tp.topic);
            expect(seen.has(partitionKey(tp))).toBe(false);
            seen.add(partitionKey(tp));
            // KIP-429: no partition goes straight from one claimant to a non-claimant.
            if (!m.ownedPartitions.some((o) => partitionKey(o) === partitionKey(tp)))
              for (const other of c.members)
                expect(other.ownedPartitions.map(partitionKey)).not.toContain(partitionKey(tp));
          }
      }
    }
  });
});
