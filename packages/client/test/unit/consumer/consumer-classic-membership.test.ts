// ClassicMembership against a scripted coordinator: the answers of Kafka's AbstractCoordinator
// and ConsumerCoordinator handlers (MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, NOT_COORDINATOR, ...), eager and cooperative (KIP-429)
// revocation, the rejoin triggers, and what goes on the wire.
import {
  type ConsumerProtocolSubscription,
  decodeConsumerProtocolSubscription,
  ErrorCode,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type LeaveGroupRequest,
  ProtocolError,
  Reader,
  type SyncGroupRequest,
} from '@kafkats/codec';
import { afterEach, describe, expect, it } from 'vitest';
import { ClassicMembershipError } from '../../../src/consumer/consumer-errors.js';
import { decodeAssignment } from '../../../src/consumer/internal/consumer-protocol.js';
import type { ClassicMembership } from '../../../src/consumer/internal/membership-classic.js';
import type { PartitionAssignor } from '../../../src/consumer/partition-assignor.js';
import { FakeGroupCluster, fakeMember, until } from './consumer-classic-fake.js';

const started: ClassicMembership[] = [];
afterEach(() => {
  for (const m of started.splice(0)) m.abandon();
});

function track<T extends { membership: ClassicMembership }>(m: T): T {
  started.push(m.membership);
  return m;
}

function subscriptionOf(
  join: JoinGroupRequest,
  index = 0,
): { version: number; s: ConsumerProtocolSubscription } {
  const r = new Reader(join.protocols[index]!.metadata);
  const version = r.readInt16();
  return { version, s: decodeConsumerProtocolSubscription(r, version) };
}

describe('ClassicMembership', () => {
  it('joins again with the member id MEMBER_ID_REQUIRED gives (KIP-394), leads, and assigns with range', async () => {
    const fake = new FakeGroupCluster({ t: 3, other: 2 });
    fake.errors.JoinGroup.push({ code: ErrorCode.MEMBER_ID_REQUIRED, memberId: 'given-1' });
    const { membership } = track(fakeMember(fake));
    await membership.start();
    const joins = fake.requests<JoinGroupRequest>('JoinGroup');
    expect(joins.map((j) => j.memberId)).toEqual(['', 'given-1']);
    expect(joins[0]!.protocolType).toBe('consumer');
    expect(joins[0]!.protocols.map((p) => p.name)).toEqual(['range']);
    expect(membership.identity).toEqual({
      memberId: 'given-1',
      generationId: 1,
      groupInstanceId: null,
    });
    expect(membership.isLeader).toBe(true);
    expect(fake.log).toContain('assigned[t-0,t-1,t-2]');
    expect(membership.assignment).toEqual(
      [0, 1, 2].map((partition) => ({ topic: 't', partition })),
    );
    const sync = fake.requests<SyncGroupRequest>('SyncGroup')[0]!;
    expect(sync.protocolName).toBe('range');
    expect(decodeAssignment(sync.assignments[0]!.assignment)).toEqual(membership.assignment);
  });

  it('writes ConsumerProtocolSubscription v3: sorted topics, owned partitions, generation, rack, userData', async () => {
    const fake = new FakeGroupCluster({ b: 1, a: 1 });
    const { membership } = track(
      fakeMember(fake, { topics: ['b', 'a'], assignors: ['cooperative-sticky'], rackId: 'rack-1' }),
    );
    await membership.start();
    const first = subscriptionOf(fake.requests<JoinGroupRequest>('JoinGroup')[0]!);
    expect(first.version).toBe(3);
    expect(first.s.topics).toEqual(['a', 'b']);
    expect(first.s.ownedPartitions).toEqual([]);
    expect(first.s.generationId).toBe(-1);
    expect(first.s.rackId).toBe('rack-1');
    expect(first.s.userData?.readInt32BE(0)).toBe(-1);
    // A rebalance: the cooperative member rejoins with what it owns and its generation.
    fake.errors.Heartbeat.push({ code: ErrorCode.REBALANCE_IN_PROGRESS });
    expect(await until(() => fake.count('SyncGroup') === 2)).toBe(true);
    const second = subscriptionOf(fake.requests<JoinGroupRequest>('JoinGroup')[1]!);
    expect(second.s.ownedPartitions.map((t) => [t.topic, t.partitions])).toEqual([
      ['a', [0]],
      ['b', [0]],
    ]);
    expect(second.s.generationId).toBe(1);
    expect(second.s.userData?.readInt32BE(0)).toBe(1);
    // Cooperative: nothing was revoked, nothing assigned twice.
    expect(fake.log.filter((l) => l.startsWith('revoked'))).toEqual([]);
  });

  it('eager (range): revokes everything before the JoinGroup that REBALANCE_IN_PROGRESS asks for', async () => {
    const fake = new FakeGroupCluster({ t: 2 });
    const { membership } = track(fakeMember(fake, { assignors: ['cooperative-sticky', 'range'] }));
    expect(membership.rebalanceProtocol).toBe('eager');
    await membership.start();
    fake.errors.Heartbeat.push({ code: ErrorCode.REBALANCE_IN_PROGRESS });
    expect(await until(() => fake.count('SyncGroup') === 2)).toBe(true);
    expect(await until(() => fake.log.filter((l) => l.startsWith('assigned')).length === 2)).toBe(
      true,
    );
    const at = (s: string, from = 0) => fake.log.indexOf(s, from);
    const revoked = at('revoked[t-0,t-1]');
    expect(revoked).toBeGreaterThan(at('assigned[t-0,t-1]'));
    const secondJoin = fake.log.findIndex((l, i) => i > revoked && l.startsWith('JoinGroup'));
    expect(secondJoin).toBeGreaterThan(revoked);
    // The eager member owned nothing when it joined again.
    expect(
      subscriptionOf(fake.requests<JoinGroupRequest>('JoinGroup')[1]!).s.ownedPartitions,
    ).toEqual([]);
  });

  it('ILLEGAL_GENERATION from a heartbeat: partitions lost, rejoin with the same member id', async () => {
    const fake = new FakeGroupCluster({ t: 2 });
    const { membership } = track(fakeMember(fake, { assignors: ['cooperative-sticky'] }));
    await membership.start();
    fake.errors.Heartbeat.push({ code: ErrorCode.ILLEGAL_GENERATION });
    expect(await until(() => fake.count('SyncGroup') === 2)).toBe(true);
    expect(fake.log).toContain('lost[t-0,t-1]');
    expect(fake.log.filter((l) => l.startsWith('revoked'))).toEqual([]);
    const joins = fake.requests<JoinGroupRequest>('JoinGroup');
    expect(joins[1]!.memberId).toBe(joins[0]!.memberId === '' ? 'member-1' : joins[0]!.memberId);
    // Lost before the JoinGroup; the rejoin claims nothing in generation -1.
    const second = subscriptionOf(joins[1]!).s;
    expect(second.ownedPartitions).toEqual([]);
    expect(second.generationId).toBe(-1);
    expect(await until(() => membership.assignment.length === 2)).toBe(true);
  });

  it('UNKNOWN_MEMBER_ID from SyncGroup: the member id is reset and the member joins anew', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.errors.SyncGroup.push({ code: ErrorCode.UNKNOWN_MEMBER_ID });
    const { membership } = track(fakeMember(fake));
    await membership.start();
    expect(fake.requests<JoinGroupRequest>('JoinGroup').map((j) => j.memberId)).toEqual(['', '']);
    expect(membership.identity.memberId).toBe('member-2');
  });

  it('FENCED_INSTANCE_ID is fatal (KIP-345): onFatal, no more requests', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    const { membership, listener } = track(fakeMember(fake, { groupInstanceId: 'instance-1' }));
    await membership.start();
    expect(fake.requests<JoinGroupRequest>('JoinGroup')[0]!.groupInstanceId).toBe('instance-1');
    fake.errors.Heartbeat.push({ code: ErrorCode.FENCED_INSTANCE_ID });
    expect(await until(() => listener.fatal.length === 1)).toBe(true);
    expect(listener.fatal[0]).toBeInstanceOf(ProtocolError);
    expect((listener.fatal[0] as ProtocolError).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const sent = fake.received.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.received.length).toBe(sent);
    // Leaving afterwards reports the partitions lost, and a static member sends no LeaveGroup.
    await membership.leave();
    expect(fake.log).toContain('lost[t-0]');
    expect(fake.count('LeaveGroup')).toBe(0);
  });

  it('GROUP_AUTHORIZATION_FAILED in JoinGroup rejects start() and is fatal', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.errors.JoinGroup.push({ code: ErrorCode.GROUP_AUTHORIZATION_FAILED });
    const { membership, listener } = track(fakeMember(fake));
    await expect(membership.start()).rejects.toThrow(ProtocolError);
    expect(listener.fatal).toHaveLength(1);
  });

  it('NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS: the coordinator is found again, then joined', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.errors.JoinGroup.push(
      { code: ErrorCode.NOT_COORDINATOR },
      { code: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS },
    );
    const { membership } = track(fakeMember(fake));
    await membership.start();
    expect(fake.count('JoinGroup')).toBe(3);
    expect(fake.invalidations).toBe(1);
    expect(fake.coordinatorLookups).toBe(2);
  });

  // AbstractCoordinator.markCoordinatorUnknown disconnects from the coordinator; what was in
  // flight on that connection fails with a retriable DisconnectException and is sent again to
  // the coordinator found next. Closing our connection fails it with ERR_KAFKA_CONNECTION_CLOSED,
  // which alone would be final: these pin that the member retries instead of going fatal.
  it('a heartbeat NOT_COORDINATOR drops the connection a SyncGroup waits on: the join is retried, not fatal', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.holdOnce.add('SyncGroup');
    fake.errors.Heartbeat.push({ code: ErrorCode.NOT_COORDINATOR });
    const { membership, listener } = track(fakeMember(fake));
    const start = membership.start();
    // Heartbeats go on while the SyncGroup waits; the first answer drops the connection.
    expect(await until(() => fake.connections[0]?.closed === true)).toBe(true);
    expect(fake.isHeld('SyncGroup')).toBe(true);
    await start;
    expect(listener.fatal).toEqual([]);
    expect(fake.requests<JoinGroupRequest>('JoinGroup').map((j) => j.memberId)).toEqual([
      '',
      'member-1',
    ]);
    expect(fake.coordinatorLookups).toBeGreaterThanOrEqual(2);
    expect(membership.assignment).toEqual([{ topic: 't', partition: 0 }]);
  });

  it('a heartbeat NOT_COORDINATOR drops the connection a JoinGroup waits on: the join is retried, not fatal', async () => {
    const fake = new FakeGroupCluster({ t: 1, u: 1 });
    const { membership, listener } = track(fakeMember(fake));
    await membership.start();
    // A heartbeat in flight when the member starts to rejoin, answered while the JoinGroup waits.
    fake.holdOnce.add('Heartbeat');
    expect(await until(() => fake.isHeld('Heartbeat'))).toBe(true);
    fake.holdOnce.add('JoinGroup');
    membership.subscribe(['t', 'u']);
    expect(await until(() => fake.isHeld('JoinGroup'))).toBe(true);
    fake.errors.Heartbeat.push({ code: ErrorCode.NOT_COORDINATOR });
    fake.release('Heartbeat');
    expect(await until(() => membership.assignment.length === 2)).toBe(true);
    expect(listener.fatal).toEqual([]);
    // The held JoinGroup was never answered; the one answered went on a new connection.
    expect(fake.connections[0]?.closed).toBe(true);
    expect(fake.connections.length).toBeGreaterThanOrEqual(2);
    expect(fake.count('JoinGroup')).toBe(2);
    expect(membership.assignment).toEqual([
      { topic: 't', partition: 0 },
      { topic: 'u', partition: 0 },
    ]);
  });

  it('a SyncGroup NOT_COORDINATOR drops the connection a heartbeat waits on: heartbeats go on, not fatal', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.holdOnce.add('SyncGroup');
    fake.holdOnce.add('Heartbeat');
    const { membership, listener } = track(fakeMember(fake));
    const start = membership.start();
    expect(await until(() => fake.isHeld('SyncGroup') && fake.isHeld('Heartbeat'))).toBe(true);
    fake.errors.SyncGroup.push({ code: ErrorCode.NOT_COORDINATOR });
    fake.release('SyncGroup');
    await start;
    expect(listener.fatal).toEqual([]);
    expect(fake.connections[0]?.closed).toBe(true);
    const heartbeats = fake.count('Heartbeat');
    expect(await until(() => fake.count('Heartbeat') > heartbeats)).toBe(true);
    expect(listener.fatal).toEqual([]);
  });

  it('backs off after COORDINATOR_LOAD_IN_PROGRESS (a rejoin request does not cut it short); leave() does', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.errors.JoinGroup.push({ code: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
    const { membership } = track(
      fakeMember(fake, { retryBackoffMs: 60_000, retryBackoffMaxMs: 60_000 }),
    );
    const start = membership.start();
    expect(await until(() => fake.count('JoinGroup') === 1)).toBe(true);
    membership.subscribe(['t', 'u']);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.count('JoinGroup')).toBe(1);
    await membership.leave();
    await expect(start).rejects.toMatchObject({ code: 'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED' });
  });

  it('cooperative: revokes only what the new assignment leaves out, then rebalances once more', async () => {
    const fake = new FakeGroupCluster({ t: 3 });
    fake.followerAssignments = [
      [
        { topic: 't', partition: 0 },
        { topic: 't', partition: 1 },
      ],
      [{ topic: 't', partition: 0 }],
      [{ topic: 't', partition: 0 }],
    ];
    const { membership } = track(fakeMember(fake, { assignors: ['cooperative-sticky'] }));
    await membership.start();
    expect(membership.isLeader).toBe(false);
    fake.errors.Heartbeat.push({ code: ErrorCode.REBALANCE_IN_PROGRESS });
    // The second round takes t-1 away: revoked, then a third JoinGroup without it.
    expect(await until(() => fake.count('SyncGroup') === 3)).toBe(true);
    expect(fake.log).toContain('revoked[t-1]');
    const joins = fake.requests<JoinGroupRequest>('JoinGroup');
    expect(subscriptionOf(joins[1]!).s.ownedPartitions[0]!.partitions).toEqual([0, 1]);
    expect(subscriptionOf(joins[2]!).s.ownedPartitions[0]!.partitions).toEqual([0]);
    expect(membership.assignment).toEqual([{ topic: 't', partition: 0 }]);
    expect(fake.log.filter((l) => l.startsWith('lost'))).toEqual([]);
  });

  it('subscribe(): rejoins with the new topics; a cooperative member revokes the dropped topic first', async () => {
    const fake = new FakeGroupCluster({ t: 1, u: 1 });
    const { membership } = track(
      fakeMember(fake, { topics: ['t', 'u'], assignors: ['cooperative-sticky'] }),
    );
    await membership.start();
    membership.subscribe(['t']);
    expect(await until(() => fake.count('SyncGroup') === 2)).toBe(true);
    const revoked = fake.log.indexOf('revoked[u-0]');
    expect(revoked).toBeGreaterThan(0);
    expect(fake.log.findIndex((l, i) => i > revoked && l.startsWith('JoinGroup'))).toBeGreaterThan(
      revoked,
    );
    expect(subscriptionOf(fake.requests<JoinGroupRequest>('JoinGroup')[1]!).s.topics).toEqual([
      't',
    ]);
    expect(await until(() => membership.assignment.length === 1)).toBe(true);
    expect(membership.assignment).toEqual([{ topic: 't', partition: 0 }]);
  });

  it('the leader rejoins when a subscribed topic gains partitions', async () => {
    const fake = new FakeGroupCluster({ t: 2 });
    const { membership } = track(fakeMember(fake));
    await membership.start();
    fake.partitions.set('t', 4);
    expect(await until(() => membership.assignment.length === 4)).toBe(true);
    expect(fake.count('JoinGroup')).toBe(2);
  });

  it('leave(): revokes, then LeaveGroup v3+ with the member identity and a reason', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    const { membership } = track(fakeMember(fake));
    await membership.start();
    await membership.leave();
    await membership.leave();
    expect(fake.log.at(-2)).toBe('revoked[t-0]');
    const leave = fake.requests<LeaveGroupRequest>('LeaveGroup');
    expect(leave).toHaveLength(1);
    expect(leave[0]!.members).toEqual([
      { memberId: 'member-1', groupInstanceId: null, reason: 'the consumer is being closed' },
    ]);
    expect(membership.identity.generationId).toBe(-1);
    expect(membership.assignment).toEqual([]);
  });

  it('heartbeats carry the generation and member id, and stop after abandon()', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    const { membership } = track(fakeMember(fake));
    await membership.start();
    expect(await until(() => fake.count('Heartbeat') >= 3)).toBe(true);
    const hb = fake.requests<HeartbeatRequest>('Heartbeat')[0]!;
    expect(hb).toMatchObject({
      groupId: 'g',
      generationId: 1,
      memberId: 'member-1',
      groupInstanceId: null,
    });
    membership.abandon();
    const sent = fake.received.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.received.length).toBe(sent);
    expect(fake.count('LeaveGroup')).toBe(0);
  });

  it('leave() while the coordinator holds the JoinGroup: start() rejects, nothing was owned, no LeaveGroup', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.unanswered.add('JoinGroup');
    const { membership, listener } = track(fakeMember(fake));
    const start = membership.start();
    expect(await until(() => fake.log.includes('JoinGroup held'))).toBe(true);
    await membership.leave();
    await expect(start).rejects.toMatchObject({ code: 'ERR_KAFKA_GROUP_MEMBERSHIP_STOPPED' });
    expect(listener.fatal).toEqual([]);
    expect(fake.count('LeaveGroup')).toBe(0);
    expect(fake.log.filter((l) => /^(assigned|revoked|lost)/.test(l))).toEqual([]);
  });

  it('start(signal): an abort before the first assignment rejects start() and leaves', async () => {
    const fake = new FakeGroupCluster({ t: 1 });
    fake.unanswered.add('SyncGroup');
    const { membership } = track(fakeMember(fake));
    const controller = new AbortController();
    const start = membership.start(controller.signal);
    expect(await until(() => fake.log.includes('SyncGroup held'))).toBe(true);
    controller.abort();
    await expect(start).rejects.toBeInstanceOf(ClassicMembershipError);
    // It had joined (a member id and generation), so it says goodbye.
    expect(await until(() => fake.count('LeaveGroup') === 1)).toBe(true);
    await expect(membership.start()).rejects.toMatchObject({
      code: 'ERR_KAFKA_GROUP_MEMBERSHIP_STARTED',
    });
  });

  it('refuses an empty or unknown assignor list with a typed error', () => {
    const fake = new FakeGroupCluster({ t: 1 });
    expect(() => fakeMember(fake, { assignors: [] })).toThrow(ClassicMembershipError);
    expect(() => fakeMember(fake, { assignors: ['roundrobin' as 'range'] })).toThrow(
      /unknown assignor "roundrobin"/,
    );
  });

  it("runs an application's own assignor object: its name in JoinGroup, its async assign() as leader", async () => {
    const fake = new FakeGroupCluster({ t: 2 });
    const mine: PartitionAssignor = {
      name: 'RoundRobinAssigner',
      cooperative: false,
      subscriptionUserData: () => Buffer.from('ud'),
      async assign(partitionsPerTopic, subscriptions) {
        await Promise.resolve();
        const [memberId] = [...subscriptions.keys()];
        const count = partitionsPerTopic.get('t') ?? 0;
        return new Map([
          [memberId!, Array.from({ length: count }, (_, partition) => ({ topic: 't', partition }))],
        ]);
      },
    };
    const { membership } = track(fakeMember(fake, { assignors: [mine, 'range'] }));
    await membership.start();
    const join = fake.requests<JoinGroupRequest>('JoinGroup')[0]!;
    expect(join.protocols.map((p) => p.name)).toEqual(['RoundRobinAssigner', 'range']);
    expect(Buffer.from(subscriptionOf(join).s.userData!)).toEqual(Buffer.from('ud'));
    expect(membership.protocolName).toBe('RoundRobinAssigner');
    expect(membership.assignment).toEqual([0, 1].map((partition) => ({ topic: 't', partition })));
  });
});
