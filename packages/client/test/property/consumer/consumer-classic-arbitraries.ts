// Assignor inputs for the classic group protocol's property tests and for the comparison with
// Kafka's own assignors: topics with partition counts, members with subscriptions, and owned
// partitions that come from a previous assignment (as a real group's do), sometimes with a
// stale claim from an older or the same generation.

import fc from 'fast-check';
import type {
  MemberSubscription,
  PartitionAssignor,
} from '../../../src/consumer/internal/assignors/assignor.js';
import type { TopicPartition } from '../../../src/topic-partition.js';

export interface AssignorCase {
  readonly partitionsPerTopic: Map<string, number>;
  /** In the order the leader saw them (JoinGroup's member list). */
  readonly members: MemberSubscription[];
}

export function subscriptionsOf(c: AssignorCase): Map<string, MemberSubscription> {
  return new Map(c.members.map((m) => [m.memberId, m]));
}

const memberIdArb = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}$/);

function member(
  memberId: string,
  topics: readonly string[],
  owned: readonly TopicPartition[] = [],
  generationId = -1,
  groupInstanceId: string | null = null,
): MemberSubscription {
  return {
    memberId,
    groupInstanceId,
    topics,
    ownedPartitions: owned,
    generationId,
    rackId: null,
    userData: null,
  };
}

/** Topics t0..tn with 1-12 partitions each (sometimes 0 members' worth: few partitions, many members). */
const topicsArb = fc
  .array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 })
  .map((counts) => new Map(counts.map((n, i) => [`t${i}`, n])));

/**
 * Members with no owned partitions: `equal` makes every member subscribe to every topic,
 * otherwise each subscribes to a non-empty subset. Some are static (KIP-345).
 */
export function freshCaseArb(equal: boolean): fc.Arbitrary<AssignorCase> {
  return topicsArb.chain((partitionsPerTopic) => {
    const topics = [...partitionsPerTopic.keys()];
    const subsetArb = equal ? fc.constant(topics) : fc.subarray(topics, { minLength: 1 });
    return fc
      .uniqueArray(
        fc.tuple(
          memberIdArb,
          subsetArb,
          fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { freq: 4 }),
        ),
        {
          minLength: 1,
          maxLength: 7,
          selector: ([id]) => id,
        },
      )
      .map((list) => {
        const usedInstances = new Set<string>();
        return restrict({
          partitionsPerTopic,
          members: list.map(([id, ts, instance]) => {
            // Instance ids are unique in a group.
            const unique = instance !== null && !usedInstances.has(instance) ? instance : null;
            if (unique !== null) usedInstances.add(unique);
            return member(id, ts, [], -1, unique === null ? null : `instance-${unique}`);
          }),
        });
      });
  });
}

/**
 * A group after a change: a previous generation's assignment (by `previous`, applied until
 * nothing is left to hand on) becomes the owned partitions; then some members leave, new ones
 * come, and optionally a stale member claims partitions another member owns, in the same or
 * an older generation.
 */
export function evolvedCaseArb(
  previous: PartitionAssignor,
  equal: boolean,
): fc.Arbitrary<AssignorCase> {
  return fc
    .tuple(
      freshCaseArb(equal),
      fc.integer({ min: 0, max: 3 }),
      fc.uniqueArray(memberIdArb, { maxLength: 3 }),
      fc.constantFrom('none', 'same', 'older'),
      fc.nat(),
    )
    .map(([fresh, leaving, newcomers, stale, seed]) => {
      const generation = 5;
      const owned = settle(previous, fresh);
      const stay = fresh.members.slice(0, Math.max(1, fresh.members.length - leaving));
      const allTopics = [...fresh.partitionsPerTopic.keys()];
      const members: MemberSubscription[] = stay.map((m) => ({
        ...m,
        ownedPartitions: owned.get(m.memberId) ?? [],
        generationId: generation,
      }));
      const known = new Set(members.map((m) => m.memberId));
      for (const id of newcomers)
        if (!known.has(id)) {
          known.add(id);
          const topics = equal ? allTopics : allTopics.filter((_, i) => (seed >> i) & 1 || i === 0);
          members.push(member(id, topics));
        }
      if (stale !== 'none' && members.length >= 2) {
        // A zombie: the last member claims what the first owns.
        const victim = members[0]!;
        const zombie = members[members.length - 1]!;
        const claims = victim.ownedPartitions.filter((tp) => zombie.topics.includes(tp.topic));
        if (claims.length > 0)
          members[members.length - 1] = {
            ...zombie,
            ownedPartitions: [...zombie.ownedPartitions, claims[seed % claims.length]!],
            generationId: stale === 'same' ? generation : generation - 1,
          };
      }
      return restrict({ partitionsPerTopic: fresh.partitionsPerTopic, members });
    });
}

/**
 * Only the topics some member subscribes to, as the leader asks the metadata for (Kafka's
 * `AbstractPartitionAssignor.assign` does the same).
 */
function restrict(c: AssignorCase): AssignorCase {
  const wanted = new Set(c.members.flatMap((m) => m.topics));
  return {
    partitionsPerTopic: new Map([...c.partitionsPerTopic].filter(([t]) => wanted.has(t))),
    members: c.members,
  };
}

/** Runs `assignor` until it hands nothing more on: what a cooperative group settles to. */
export function settle(
  assignor: PartitionAssignor,
  c: AssignorCase,
): Map<string, TopicPartition[]> {
  let current = c.members;
  let result = assignor.assign(c.partitionsPerTopic, subscriptionsOf(c));
  for (let round = 0; round < 5; round++) {
    const next = current.map((m) => ({
      ...m,
      ownedPartitions: result.get(m.memberId) ?? [],
      generationId: round + 1,
    }));
    const again = assignor.assign(c.partitionsPerTopic, new Map(next.map((m) => [m.memberId, m])));
    current = next;
    if (sameAssignment(again, result)) return again;
    result = again;
  }
  return result;
}

export function sameAssignment(
  a: ReadonlyMap<string, readonly TopicPartition[]>,
  b: ReadonlyMap<string, readonly TopicPartition[]>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === undefined || labels(v).join() !== labels(w).join()) return false;
  }
  return true;
}

export function labels(tps: readonly TopicPartition[]): string[] {
  return tps.map((tp) => `${tp.topic}:${tp.partition}`).sort();
}

/** The line ClassicAssignorVectors.java reads for this case. */
export function javaLine(assignor: string, c: AssignorCase): string {
  const topics = [...c.partitionsPerTopic].map(([t, n]) => `${t}:${n}`).join(',');
  const members = c.members
    .map(
      (m) =>
        `${m.memberId};${m.groupInstanceId ?? '-'};${m.topics.join(',')};${m.ownedPartitions
          .map((tp) => `${tp.topic}:${tp.partition}`)
          .join(',')};${m.generationId}`,
    )
    .join('#');
  return `${assignor}|${topics}|${members}`;
}

/** Our result in the form ClassicAssignorVectors.java prints. */
export function resultLine(
  c: AssignorCase,
  result: ReadonlyMap<string, readonly TopicPartition[]>,
): string {
  return c.members
    .map((m) => {
      const tps = [...(result.get(m.memberId) ?? [])].sort((a, b) =>
        a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
      );
      return `${m.memberId}=${tps.map((tp) => `${tp.topic}:${tp.partition}`).join(',')}`;
    })
    .join(' ');
}
