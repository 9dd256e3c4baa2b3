// kafkajs's classic-protocol assignors on kafkats's consumer. kafkajs members offer the
// protocol `RoundRobinAssigner` with a version-0 ConsumerProtocolSubscription; a facade member
// offers the same name, so kafkajs members and facade members can share one group while a
// service moves over. Whichever member leads computes everybody's partitions.
import type {
  Cluster,
  GroupAssignment,
  MemberSubscription,
  PartitionAssignor,
  PartitionsPerTopic,
  TopicPartition,
} from '@kafkats/client';
import {
  createConsumerProtocolAssignment,
  createConsumerProtocolSubscription,
  decodeConsumerProtocolAssignment,
  decodeConsumerProtocolSubscription,
  encodeConsumerProtocolAssignment,
  encodeConsumerProtocolSubscription,
  Reader,
  Writer,
} from '@kafkats/codec';
import type { Assigner, MemberAssignment, MemberMetadata, PartitionAssigner } from '../consumer.js';
import { KafkaJSNonRetriableError } from '../errors.js';
import type { Logger } from '../logger.js';

/** `MemberMetadata`: the version, then ConsumerProtocolSubscription v0 (topics, userData). */
export const memberMetadata = {
  encode({ version, topics, userData = Buffer.alloc(0) }: MemberMetadataInput): Buffer {
    const w = new Writer(64);
    w.writeInt16(version);
    encodeConsumerProtocolSubscription(
      w,
      createConsumerProtocolSubscription({ topics: [...topics], userData }),
      0,
    );
    return Buffer.from(w.finish());
  },
  decode(buffer: Buffer): MemberMetadata | null {
    if (buffer.length < 2) return null;
    const r = new Reader(buffer);
    const version = r.readInt16();
    // Later versions only append fields (owned partitions, generation, rack): v0 reads them all.
    const m = decodeConsumerProtocolSubscription(r, 0);
    return {
      version,
      topics: [...m.topics],
      userData: m.userData === null ? Buffer.alloc(0) : Buffer.from(m.userData),
    };
  },
};

interface MemberMetadataInput {
  version: number;
  topics: string[];
  userData?: Buffer;
}

interface MemberAssignmentInput {
  version: number;
  assignment: Record<string, number[]>;
  userData?: Buffer;
}

/** `MemberAssignment`: the version, then ConsumerProtocolAssignment v0 (partitions, userData). */
export const memberAssignment = {
  encode({ version, assignment, userData = Buffer.alloc(0) }: MemberAssignmentInput): Buffer {
    const w = new Writer(64);
    w.writeInt16(version);
    encodeConsumerProtocolAssignment(
      w,
      createConsumerProtocolAssignment({
        assignedPartitions: Object.keys(assignment).map((topic) => ({
          topic,
          partitions: [...(assignment[topic] ?? [])],
        })),
        userData,
      }),
      0,
    );
    return Buffer.from(w.finish());
  },
  decode(buffer: Buffer): MemberAssignment | null {
    if (buffer.length < 2) return null;
    const r = new Reader(buffer);
    const version = r.readInt16();
    const a = decodeConsumerProtocolAssignment(r, 0);
    const assignment: Record<string, number[]> = {};
    for (const t of a.assignedPartitions)
      Object.defineProperty(assignment, t.topic, {
        value: [...t.partitions],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return {
      version,
      assignment,
      userData: a.userData === null ? Buffer.alloc(0) : Buffer.from(a.userData),
    };
  },
};

/** Told when this member's assignor ran: the member leads the group for that generation. */
export type LeaderHook = (protocol: string) => void;

/** The name kafkajs's round-robin assigner joins with. */
export const ROUND_ROBIN = 'RoundRobinAssigner';

/**
 * kafkajs's round-robin: every partition of the group's topics (by topic name, then partition)
 * goes to the next member in member-id order. A member is skipped for a topic it does not
 * subscribe to (kafkajs hands it out anyway, which a kafkats member would refuse); with equal
 * subscriptions, the usual case, the result is kafkajs's.
 */
export function roundRobinAssignor(onLeader: LeaderHook): PartitionAssignor {
  return {
    name: ROUND_ROBIN,
    cooperative: false,
    subscriptionUserData: () => null,
    assign(
      partitionsPerTopic: PartitionsPerTopic,
      subscriptions: ReadonlyMap<string, MemberSubscription>,
    ): GroupAssignment {
      onLeader(ROUND_ROBIN);
      const members = [...subscriptions.keys()].sort();
      const out: GroupAssignment = new Map(members.map((m) => [m, []]));
      const topics = [...partitionsPerTopic.keys()].sort();
      let next = 0;
      for (const topic of topics) {
        const count = partitionsPerTopic.get(topic) ?? 0;
        for (let partition = 0; partition < count; partition++) {
          for (let tried = 0; tried < members.length; tried++) {
            const member = members[next % members.length]!;
            next++;
            if (subscriptions.get(member)?.topics.includes(topic)) {
              out.get(member)!.push({ topic, partition });
              break;
            }
          }
        }
      }
      return out;
    },
  };
}

/**
 * kafkajs's `PartitionAssigners.roundRobin`. The consumer recognises this factory and runs
 * {@link roundRobinAssignor} instead; called directly (by an application's own code) it gives
 * kafkajs's assigner over the metadata its `cluster` argument offers.
 */
export const roundRobin: PartitionAssigner = ({ cluster }) => ({
  name: ROUND_ROBIN,
  version: 0,
  async assign({ members, topics }) {
    const ids = members.map((m) => m.memberId).sort();
    const assignment = new Map<string, Record<string, number[]>>();
    let i = 0;
    for (const topic of topics) {
      const partitions: { partitionId: number }[] = cluster.findTopicPartitionMetadata(topic);
      for (const { partitionId } of partitions) {
        const member = ids[i++ % ids.length]!;
        let byTopicOf = assignment.get(member);
        if (byTopicOf === undefined) assignment.set(member, (byTopicOf = {}));
        (byTopicOf[topic] ??= []).push(partitionId);
      }
    }
    return [...assignment].map(([memberId, a]) => ({
      memberId,
      memberAssignment: memberAssignment.encode({ version: 0, assignment: a }),
    }));
  },
  protocol({ topics }) {
    return { name: ROUND_ROBIN, metadata: memberMetadata.encode({ version: 0, topics }) };
  },
});

/** What a kafkajs assigner sees as `cluster`: the partition metadata of a topic, from kafkats's. */
function assignerCluster(cluster: () => Cluster | undefined): unknown {
  return {
    findTopicPartitionMetadata(topic: string) {
      const info = cluster()?.snapshot().topic(topic);
      return (info?.partitions ?? []).map((p) => ({
        partitionErrorCode: p.errorCode,
        partitionId: p.partition,
        leader: p.leader ?? -1,
        replicas: [...p.replicas],
        isr: [...p.isr],
        offlineReplicas: [...p.offlineReplicas],
      }));
    },
  };
}

/**
 * A kafkajs `PartitionAssigner` (an application's own) as a kafkats assignor: its `protocol()`
 * gives the userData this member subscribes with, its `assign()` receives each member's
 * subscription as a version-0 `MemberMetadata` and returns `MemberAssignment`s, decoded here.
 * The assignment's userData is not passed on (kafkats members take partitions only).
 */
export function adaptAssigner(
  factory: PartitionAssigner,
  args: {
    groupId: string;
    logger: Logger;
    cluster: () => Cluster | undefined;
    topics: () => string[];
    onLeader: LeaderHook;
  },
): PartitionAssignor {
  const assigner: Assigner = factory({
    groupId: args.groupId,
    logger: args.logger,
    // biome-ignore lint/suspicious/noExplicitAny: kafkajs's Cluster type; only the metadata lookup is offered
    cluster: assignerCluster(args.cluster) as any,
  });
  if (typeof assigner?.name !== 'string' || typeof assigner.assign !== 'function')
    throw new KafkaJSNonRetriableError('A partition assigner needs a name and an assign function');
  return {
    name: assigner.name,
    cooperative: false,
    subscriptionUserData(): Buffer | null {
      const state = assigner.protocol({ topics: args.topics() });
      try {
        const m = memberMetadata.decode(state.metadata);
        return m === null || m.userData.length === 0 ? null : m.userData;
      } catch {
        return null;
      }
    },
    async assign(partitionsPerTopic, subscriptions): Promise<GroupAssignment> {
      args.onLeader(assigner.name);
      const members = [...subscriptions.values()].map((s) => ({
        memberId: s.memberId,
        memberMetadata: memberMetadata.encode({
          version: assigner.version ?? 0,
          topics: [...s.topics],
          ...(s.userData === null ? {} : { userData: s.userData }),
        }),
      }));
      const result = await assigner.assign({ members, topics: [...partitionsPerTopic.keys()] });
      const out: GroupAssignment = new Map([...subscriptions.keys()].map((m) => [m, []]));
      for (const { memberId, memberAssignment: bytes } of result) {
        const decoded = memberAssignment.decode(bytes);
        const list: TopicPartition[] | undefined = out.get(memberId);
        if (list === undefined) continue; // not a member of this generation
        if (decoded !== null)
          for (const [topic, partitions] of Object.entries(decoded.assignment))
            for (const partition of partitions) list.push({ topic, partition });
      }
      return out;
    },
  };
}
