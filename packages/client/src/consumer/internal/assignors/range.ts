import type { TopicPartition } from '../../../topic-partition.js';
import {
  compareStrings,
  type GroupAssignment,
  type MemberSubscription,
  type PartitionAssignor,
  type PartitionsPerTopic,
} from './assignor.js';

/**
 * Kafka's `AbstractPartitionAssignor.MemberInfo` order: static members (KIP-345) first, by
 * `group.instance.id`, then dynamic members by member id. Static members sorted by their
 * stable id keep their ranges across restarts.
 */
export function compareMembers(a: MemberSubscription, b: MemberSubscription): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null)
    return compareStrings(a.groupInstanceId, b.groupInstanceId);
  if (a.groupInstanceId !== null) return -1;
  if (b.groupInstanceId !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

/**
 * Kafka's `RangeAssignor` (eager only): topic by topic, the members subscribed to the topic in
 * {@link compareMembers} order each take a consecutive range of `partitions / members`
 * partitions, the first `partitions % members` of them one more. Members with the same
 * subscription therefore get the same partition numbers of co-partitioned topics.
 *
 * Not done: the rack-aware variant (KIP-881), which Kafka uses only when members send a rack
 * and the partitions' replicas have racks; without it the result is Kafka's whenever brokers
 * have no `broker.rack` or members no `client.rack`.
 */
export const rangeAssignor: PartitionAssignor = {
  name: 'range',
  cooperative: false,
  subscriptionUserData: () => null,
  assign(partitionsPerTopic: PartitionsPerTopic, subscriptions): GroupAssignment {
    const assignment: GroupAssignment = new Map();
    const membersPerTopic = new Map<string, MemberSubscription[]>();
    for (const [memberId, subscription] of subscriptions) {
      assignment.set(memberId, []);
      for (const topic of new Set(subscription.topics)) {
        let members = membersPerTopic.get(topic);
        if (members === undefined) membersPerTopic.set(topic, (members = []));
        members.push(subscription);
      }
    }
    const topics = [...partitionsPerTopic.keys()].sort(compareStrings);
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic) ?? 0;
      const members = membersPerTopic.get(topic);
      if (count <= 0 || members === undefined) continue;
      members.sort(compareMembers);
      const perMember = Math.floor(count / members.length);
      const withExtra = count % members.length;
      let next = 0;
      for (let i = 0; i < members.length && next < count; i++) {
        const take = perMember + (i < withExtra ? 1 : 0);
        const into = assignment.get(members[i]!.memberId)!;
        for (let p = next; p < next + take; p++) into.push({ topic, partition: p });
        next += take;
      }
    }
    return assignment;
  },
};

/** The partitions of `topic`, 0 to `count - 1`. */
export function topicPartitions(topic: string, count: number): TopicPartition[] {
  const out: TopicPartition[] = [];
  for (let p = 0; p < count; p++) out.push({ topic, partition: p });
  return out;
}
