// kafkajs's consumer-protocol serializers and round-robin assigner, checked byte for byte and
// partition for partition against kafkajs 2.2.4's own.
import type { MemberSubscription } from '@kafkats/client';
import fc from 'fast-check';
import {
  AssignerProtocol as KafkaJSAssignerProtocol,
  PartitionAssigners as KafkaJSPartitionAssigners,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { AssignerProtocol, PartitionAssigners } from '../../src/index.js';
import { adaptAssigner, roundRobinAssignor } from '../../src/internal/consumer-assigners.js';
import { createLogger } from '../../src/logger.js';

const topicName = fc.stringMatching(/^[a-z][a-z0-9._-]{0,12}$/);
const userData = fc.uint8Array({ maxLength: 12 }).map((a) => Buffer.from(a));

describe('AssignerProtocol', () => {
  it('MemberMetadata encodes as kafkajs does and decodes what kafkajs encodes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(topicName, { maxLength: 5 }),
        userData,
        (version, topics, data) => {
          const value = { version, topics, userData: data };
          const ours = AssignerProtocol.MemberMetadata.encode(value);
          expect(ours).toEqual(KafkaJSAssignerProtocol.MemberMetadata.encode(value));
          expect(AssignerProtocol.MemberMetadata.decode(ours)).toEqual(
            KafkaJSAssignerProtocol.MemberMetadata.decode(ours),
          );
        },
      ),
    );
  });

  it('MemberAssignment encodes as kafkajs does and decodes what kafkajs encodes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.dictionary(topicName, fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 6 })),
        userData,
        (version, assignment, data) => {
          const value = { version, assignment, userData: data };
          const ours = AssignerProtocol.MemberAssignment.encode(value);
          expect(ours).toEqual(KafkaJSAssignerProtocol.MemberAssignment.encode(value));
          expect(AssignerProtocol.MemberAssignment.decode(ours)).toEqual(
            KafkaJSAssignerProtocol.MemberAssignment.decode(ours),
          );
        },
      ),
    );
  });

  it('MemberAssignment.decode gives null for an empty buffer, as kafkajs', () => {
    expect(AssignerProtocol.MemberAssignment.decode(Buffer.alloc(0))).toBeNull();
    expect(KafkaJSAssignerProtocol.MemberAssignment.decode(Buffer.alloc(0))).toBeNull();
  });
});

function subscriptions(members: string[], topics: string[]): Map<string, MemberSubscription> {
  return new Map(
    members.map((memberId) => [
      memberId,
      {
        memberId,
        groupInstanceId: null,
        topics,
        ownedPartitions: [],
        generationId: -1,
        rackId: null,
        userData: null,
      },
    ]),
  );
}

/** kafkajs's cluster as its round-robin assigner reads it. */
function fakeCluster(counts: Map<string, number>) {
  return {
    findTopicPartitionMetadata: (topic: string) =>
      Array.from({ length: counts.get(topic) ?? 0 }, (_, partitionId) => ({ partitionId })),
  };
}

const group = fc.record({
  members: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}-[0-9a-f]{4}$/), {
    minLength: 1,
    maxLength: 5,
  }),
  counts: fc
    .uniqueArray(fc.tuple(topicName, fc.integer({ min: 1, max: 12 })), {
      minLength: 1,
      maxLength: 4,
      selector: ([t]) => t,
    })
    .map((pairs) => new Map(pairs)),
});

describe('round-robin', () => {
  it("assigns as kafkajs's RoundRobinAssigner when members subscribe to the same topics", async () => {
    await fc.assert(
      fc.asyncProperty(group, async ({ members, counts }) => {
        const topics = [...counts.keys()].sort();
        const ours = await roundRobinAssignor(() => undefined).assign(
          counts,
          subscriptions(members, topics),
        );
        const kafkajs = KafkaJSPartitionAssigners.roundRobin({
          cluster: fakeCluster(counts),
          groupId: 'g',
          // biome-ignore lint/suspicious/noExplicitAny: kafkajs's logger is not read by the assigner
        } as any);
        const theirs = await kafkajs.assign({
          members: members.map((memberId) => ({ memberId, memberMetadata: Buffer.alloc(0) })),
          topics,
        });
        for (const memberId of members) {
          const mine = ours.get(memberId) ?? [];
          const bytes = theirs.find((t) => t.memberId === memberId)?.memberAssignment;
          const decoded =
            bytes === undefined
              ? {}
              : KafkaJSAssignerProtocol.MemberAssignment.decode(bytes)!.assignment;
          const expected = Object.entries(decoded).flatMap(([topic, ps]) =>
            (ps as number[]).map((partition) => ({ topic, partition })),
          );
          expect(mine).toEqual(expected);
        }
      }),
    );
  });

  it('gives a member only topics it subscribes to', async () => {
    const counts = new Map([
      ['a', 2],
      ['b', 2],
    ]);
    const subs = subscriptions(['m1', 'm2'], ['a', 'b']);
    subs.set('m2', { ...subs.get('m2')!, topics: ['a'] });
    const out = await roundRobinAssignor(() => undefined).assign(counts, subs);
    expect(out.get('m2')!.every((tp) => tp.topic === 'a')).toBe(true);
    expect([...out.values()].flat()).toHaveLength(4);
  });

  it('tells the consumer it led the group', async () => {
    let led: string | undefined;
    await roundRobinAssignor((p) => {
      led = p;
    }).assign(new Map([['a', 1]]), subscriptions(['m'], ['a']));
    expect(led).toBe('RoundRobinAssigner');
  });

  it("the facade's PartitionAssigners.roundRobin, called directly, assigns as kafkajs's", async () => {
    const counts = new Map([['t', 5]]);
    const make = (factory: typeof PartitionAssigners.roundRobin) =>
      factory({ cluster: fakeCluster(counts), groupId: 'g', logger: createLogger() });
    const members = ['x', 'y'].map((memberId) => ({ memberId, memberMetadata: Buffer.alloc(0) }));
    const ours = await make(PartitionAssigners.roundRobin).assign({ members, topics: ['t'] });
    const theirs = await make(
      KafkaJSPartitionAssigners.roundRobin as unknown as typeof PartitionAssigners.roundRobin,
    ).assign({ members, topics: ['t'] });
    expect(ours).toEqual(theirs);
    expect(make(PartitionAssigners.roundRobin).protocol({ topics: ['t'] })).toEqual(
      make(
        KafkaJSPartitionAssigners.roundRobin as unknown as typeof PartitionAssigners.roundRobin,
      ).protocol({ topics: ['t'] }),
    );
  });
});

describe("an application's kafkajs assigner", () => {
  it('runs through the adapter: metadata in, assignments out, userData kept', async () => {
    let seenMembers: { memberId: string; memberMetadata: Buffer }[] = [];
    const custom = () => ({
      name: 'MyAssigner',
      version: 1,
      async assign({ members }: { members: { memberId: string; memberMetadata: Buffer }[] }) {
        seenMembers = members;
        return [
          {
            memberId: members[0]!.memberId,
            memberAssignment: AssignerProtocol.MemberAssignment.encode({
              version: 1,
              assignment: { t: [0, 1] },
              userData: Buffer.alloc(0),
            }),
          },
        ];
      },
      protocol: ({ topics }: { topics: string[] }) => ({
        name: 'MyAssigner',
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics,
          userData: Buffer.from('hello'),
        }),
      }),
    });
    const assignor = adaptAssigner(custom, {
      groupId: 'g',
      logger: createLogger(),
      cluster: () => undefined,
      topics: () => ['t'],
      onLeader: () => undefined,
    });
    expect(assignor.name).toBe('MyAssigner');
    expect(assignor.subscriptionUserData(-1)).toEqual(Buffer.from('hello'));
    const subs = subscriptions(['m1', 'm2'], ['t']);
    subs.set('m1', { ...subs.get('m1')!, userData: Buffer.from('u1') });
    const out = await assignor.assign(new Map([['t', 2]]), subs);
    expect(out.get('m1')).toEqual([
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
    ]);
    expect(out.get('m2')).toEqual([]);
    const decoded = seenMembers.map((m) =>
      AssignerProtocol.MemberMetadata.decode(m.memberMetadata),
    );
    expect(decoded[0]).toEqual({ version: 1, topics: ['t'], userData: Buffer.from('u1') });
  });
});
