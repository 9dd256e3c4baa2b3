import type { TopicPartition } from '../../../topic-partition.js';
import {
  compareStrings,
  compareTopicPartition,
  type GroupAssignment,
  type MemberSubscription,
  type PartitionAssignor,
  type PartitionsPerTopic,
  partitionKey,
} from './assignor.js';
import { javaHashMapOrder } from './java-hash-order.js';
import { topicPartitions } from './range.js';

/** Kafka's `AbstractStickyAssignor.DEFAULT_GENERATION`. */
const DEFAULT_GENERATION = -1;

/**
 * The generation a member's owned partitions belong to, as `CooperativeStickyAssignor.memberData`
 * reads it: the subscription's `generationId` (v2+) when set, else the generation the assignor
 * put in its `userData` (an int32), else -1.
 */
export function memberGeneration(s: MemberSubscription): number {
  if (s.generationId >= 0) return s.generationId;
  if (s.userData === null) return DEFAULT_GENERATION;
  return s.userData.length >= 4 ? s.userData.readInt32BE(0) : DEFAULT_GENERATION;
}

/** The input both builders share: who owns what once the generation rule was applied. */
interface StickyInput {
  readonly partitionsPerTopic: PartitionsPerTopic;
  readonly subscriptions: ReadonlyMap<string, MemberSubscription>;
  /** Members in the order Kafka's HashMap walks them. */
  readonly order: readonly string[];
  /** Owned partitions each member may keep (existing topics, conflicts resolved). */
  readonly owned: Map<string, TopicPartition[]>;
  /** Partitions two members of the same generation both claimed: neither keeps them. */
  readonly multiplyOwned: Set<string>;
}

/**
 * `AbstractStickyAssignor.allSubscriptionsEqual`: whether every member subscribes to the same
 * topics, and (as a side effect there, a separate result here) each member's claim on its owned
 * partitions: of two members claiming a partition, the higher generation keeps it; with equal
 * generations neither does (the partition is "multiply owned", a zombie's claim).
 */
function readOwnership(
  partitionsPerTopic: PartitionsPerTopic,
  subscriptions: ReadonlyMap<string, MemberSubscription>,
): { input: StickyInput; allEqual: boolean } {
  const order = javaHashMapOrder([...subscriptions.keys()]);
  const owned = new Map<string, TopicPartition[]>();
  const multiplyOwned = new Set<string>();
  const previousOwner = new Map<string, string>();
  let reference = new Set<string>();
  let allEqual = true;
  for (const member of order) {
    const s = subscriptions.get(member)!;
    const topics = new Set(s.topics);
    if (reference.size === 0) reference = topics;
    else if (
      allEqual &&
      (topics.size !== reference.size || [...topics].some((t) => !reference.has(t)))
    )
      allEqual = false;
    const generation = memberGeneration(s);
    const mine: TopicPartition[] = [];
    owned.set(member, mine);
    for (const tp of s.ownedPartitions) {
      if (!partitionsPerTopic.has(tp.topic)) continue;
      const key = partitionKey(tp);
      const other = previousOwner.get(key);
      if (other === undefined) {
        mine.push(tp);
        previousOwner.set(key, member);
        continue;
      }
      const otherGeneration = Math.max(subscriptions.get(other)!.generationId, DEFAULT_GENERATION);
      if (generation === otherGeneration) {
        multiplyOwned.add(key);
        removePartition(owned.get(other)!, key);
        previousOwner.set(key, member);
      } else if (generation > otherGeneration) {
        mine.push(tp);
        removePartition(owned.get(other)!, key);
        previousOwner.set(key, member);
      }
    }
  }
  return { input: { partitionsPerTopic, subscriptions, order, owned, multiplyOwned }, allEqual };
}

function removePartition(list: TopicPartition[], key: string): void {
  const i = list.findIndex((tp) => partitionKey(tp) === key);
  if (i >= 0) list.splice(i, 1);
}

/**
 * Kafka's `ConstrainedAssignmentBuilder` (every member subscribes to the same topics): each
 * member keeps up to its quota (floor or ceil of partitions / members) of what it owned, sorted
 * by partition then topic; the rest go round robin over the members still under quota, sorted
 * by member id. Returns the assignment and the partitions handed to a member other than the
 * one that owned them (which the cooperative protocol must first revoke).
 */
function constrainedAssignment(input: StickyInput): {
  assignment: GroupAssignment;
  transferring: Map<string, string>;
} {
  const { partitionsPerTopic, order, owned, multiplyOwned } = input;
  let total = 0;
  for (const count of partitionsPerTopic.values()) total += count;
  const members = order.length;
  const minQuota = Math.floor(total / members);
  const maxQuota = Math.ceil(total / members);
  const expectedOverMin = total % members;
  let currentOverMin = 0;
  const assignment: GroupAssignment = new Map(order.map((m) => [m, []]));
  const assigned = new Set<string>();
  const maybeRevoked = new Map<string, string>();
  const transferring = new Map<string, string>();
  const unfilledUnderMin: string[] = [];
  let unfilledExactlyMin: string[] = [];

  for (const member of order) {
    const mine = owned
      .get(member)!
      .filter((tp) => !multiplyOwned.has(partitionKey(tp)))
      .sort((a, b) => a.partition - b.partition || compareStrings(a.topic, b.topic));
    const into = assignment.get(member)!;
    let keep: number;
    if (mine.length < minQuota) {
      keep = mine.length;
      unfilledUnderMin.push(member);
    } else if (mine.length >= maxQuota && currentOverMin < expectedOverMin) {
      currentOverMin++;
      if (currentOverMin === expectedOverMin) unfilledExactlyMin = [];
      keep = maxQuota;
    } else {
      keep = minQuota;
      if (currentOverMin < expectedOverMin) unfilledExactlyMin.push(member);
    }
    for (let i = 0; i < mine.length; i++) {
      const tp = mine[i]!;
      if (i < keep) {
        into.push(tp);
        assigned.add(partitionKey(tp));
      } else maybeRevoked.set(partitionKey(tp), member);
    }
  }

  const unassigned: TopicPartition[] = [];
  for (const topic of [...partitionsPerTopic.keys()].sort(compareStrings))
    for (const tp of topicPartitions(topic, partitionsPerTopic.get(topic)!))
      if (!assigned.has(partitionKey(tp))) unassigned.push(tp);
  unfilledUnderMin.sort(compareStrings);
  unfilledExactlyMin.sort(compareStrings);

  const assignNew = (tp: TopicPartition, member: string): number => {
    const into = assignment.get(member)!;
    into.push(tp);
    const key = partitionKey(tp);
    const previous = maybeRevoked.get(key);
    if ((previous !== undefined && previous !== member) || multiplyOwned.has(key))
      transferring.set(key, member);
    return into.length;
  };

  // Round robin over the members under quota (an iterator that restarts at the list's head),
  // then one extra partition each to members at exactly the minimum quota.
  let next = 0;
  for (const tp of unassigned) {
    let member: string;
    if (next < unfilledUnderMin.length) member = unfilledUnderMin[next++]!;
    else if (unfilledUnderMin.length === 0) {
      const first = unfilledExactlyMin.shift();
      if (first === undefined) throw new Error('cooperative-sticky: no member left to assign to');
      member = first;
    } else {
      member = unfilledUnderMin[0]!;
      next = 1;
    }
    const count = assignNew(tp, member);
    if (count === minQuota) {
      unfilledUnderMin.splice(--next, 1);
      unfilledExactlyMin.push(member);
    } else if (count === maxQuota) currentOverMin++;
  }
  return { assignment, transferring };
}

/**
 * Members with different subscriptions. Kafka's `GeneralAssignmentBuilder` (partition movement
 * graphs and repeated balancing passes) is not reproduced move for move; this gives the same
 * guarantees in a simpler way: each member keeps the owned partitions it still subscribes to,
 * unowned partitions (topics with fewer eligible members first) go to the least loaded
 * eligible member, then partitions move, newest first, from a member to an eligible member
 * with at least two fewer until none can. Each move lowers the sum of squared loads, so it
 * ends, with the assignment balanced in Kafka's sense (no partition could move to a member
 * with at least two fewer).
 */
function generalAssignment(input: StickyInput): GroupAssignment {
  const { partitionsPerTopic, subscriptions, order, owned, multiplyOwned } = input;
  const subscribers = new Map<string, string[]>();
  for (const member of [...order].sort(compareStrings))
    for (const topic of new Set(subscriptions.get(member)!.topics)) {
      if (!partitionsPerTopic.has(topic)) continue;
      let list = subscribers.get(topic);
      if (list === undefined) subscribers.set(topic, (list = []));
      list.push(member);
    }
  const assignment: GroupAssignment = new Map();
  const assigned = new Set<string>();
  for (const member of order) {
    const topics = new Set(subscriptions.get(member)!.topics);
    const keep = owned
      .get(member)!
      .filter(
        (tp) =>
          topics.has(tp.topic) &&
          tp.partition < partitionsPerTopic.get(tp.topic)! &&
          !multiplyOwned.has(partitionKey(tp)),
      )
      .sort(compareTopicPartition);
    assignment.set(member, keep);
    for (const tp of keep) assigned.add(partitionKey(tp));
  }
  const leastLoaded = (candidates: readonly string[], below: number): string | undefined => {
    let best: string | undefined;
    for (const m of candidates) {
      const size = assignment.get(m)!.length;
      if (size >= below) continue;
      if (best === undefined || size < assignment.get(best)!.length) best = m;
    }
    return best;
  };
  const topics = [...subscribers.keys()].sort(
    (a, b) => subscribers.get(a)!.length - subscribers.get(b)!.length || compareStrings(a, b),
  );
  for (const topic of topics)
    for (const tp of topicPartitions(topic, partitionsPerTopic.get(topic)!)) {
      if (assigned.has(partitionKey(tp))) continue;
      const to = leastLoaded(subscribers.get(topic)!, Number.POSITIVE_INFINITY);
      if (to !== undefined) assignment.get(to)!.push(tp);
    }
  for (;;) {
    let moved = false;
    const bySize = [...assignment.keys()].sort(
      (a, b) => assignment.get(b)!.length - assignment.get(a)!.length || compareStrings(a, b),
    );
    outer: for (const from of bySize) {
      const list = assignment.get(from)!;
      for (let i = list.length - 1; i >= 0; i--) {
        const tp = list[i]!;
        const to = leastLoaded(subscribers.get(tp.topic)!, list.length - 1);
        if (to === undefined) continue;
        list.splice(i, 1);
        assignment.get(to)!.push(tp);
        moved = true;
        break outer;
      }
    }
    if (!moved) return assignment;
  }
}

/**
 * The cooperative part (`CooperativeStickyAssignor.computePartitionsTransferringOwnership`):
 * partitions some member gets that another member owned and gives up in this round.
 */
function transferringOwnership(
  subscriptions: ReadonlyMap<string, MemberSubscription>,
  assignment: GroupAssignment,
  multiplyOwned: ReadonlySet<string>,
): Map<string, string> {
  const added = new Map<string, string>();
  const revoked = new Set<string>();
  for (const [member, partitions] of assignment) {
    const ownedKeys = new Set(subscriptions.get(member)!.ownedPartitions.map(partitionKey));
    const assignedKeys = new Set(partitions.map(partitionKey));
    for (const key of assignedKeys) if (!ownedKeys.has(key)) added.set(key, member);
    for (const key of ownedKeys) if (!assignedKeys.has(key)) revoked.add(key);
  }
  const out = new Map<string, string>();
  for (const [key, member] of added) if (revoked.has(key)) out.set(key, member);
  // Stricter than Kafka's general builder, which may leave such a partition with one of its
  // claimants: a partition two members claim in the same generation goes to neither.
  for (const [member, partitions] of assignment)
    for (const tp of partitions)
      if (multiplyOwned.has(partitionKey(tp))) out.set(partitionKey(tp), member);
  return out;
}

/**
 * Kafka's `CooperativeStickyAssignor` (KIP-429, on `AbstractStickyAssignor`): balanced (loads
 * differ by at most one when subscriptions are equal), sticky (a member keeps what it owned as
 * far as balance allows), and cooperative: a partition that changes owner is left unassigned in
 * this round, so its owner revokes it first and a second rebalance hands it on. Owned partitions
 * are weighed by generation (ConsumerProtocolSubscription v2+, or the generation the assignor
 * writes in its `userData`): the higher generation's claim wins, and a partition claimed by two
 * members of the same generation goes to neither in this round.
 *
 * Identical to Kafka's output when all members subscribe to the same topics (Kafka's
 * `ConstrainedAssignmentBuilder`, member order included); for different subscriptions the
 * result has the same guarantees but may differ in which partitions move (see
 * {@link generalAssignment}). The rack-aware variant (KIP-881) is not done.
 */
export const cooperativeStickyAssignor: PartitionAssignor = {
  name: 'cooperative-sticky',
  cooperative: true,
  subscriptionUserData(generationId: number): Buffer {
    // COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0: one int32 "generation", for members that read
    // subscriptions older than v2.
    const out = Buffer.alloc(4);
    out.writeInt32BE(generationId, 0);
    return out;
  },
  assign(allPartitionsPerTopic, subscriptions): GroupAssignment {
    if (subscriptions.size === 0) return new Map();
    // Only topics some member subscribes to (what Kafka's leader asks the metadata for).
    const wanted = new Set([...subscriptions.values()].flatMap((s) => s.topics));
    const partitionsPerTopic = new Map([...allPartitionsPerTopic].filter(([t]) => wanted.has(t)));
    const { input, allEqual } = readOwnership(partitionsPerTopic, subscriptions);
    let assignment: GroupAssignment;
    let transferring: Map<string, string>;
    if (allEqual) ({ assignment, transferring } = constrainedAssignment(input));
    else {
      assignment = generalAssignment(input);
      transferring = transferringOwnership(subscriptions, assignment, input.multiplyOwned);
    }
    for (const [key, member] of transferring) removePartition(assignment.get(member)!, key);
    return assignment;
  },
};
