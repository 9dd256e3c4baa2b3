// The classic group protocol (JoinGroup / SyncGroup / Heartbeat / LeaveGroup) against the real
// shared cluster: several ClassicMemberships driven directly, each with a recording listener,
// join one group, split its partitions, and take over a leaving member's share, eagerly with
// `range` and cooperatively (KIP-429) with `cooperative-sticky`.
import type { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, unique } from './admin-support.js';
import {
  classicMember,
  connect,
  ownedLabels,
  splitsExactly,
  type TestMember,
} from './consumer-classic-support.js';

const kafka = sharedCluster();
let cluster: Cluster;
const running: TestMember[] = [];

beforeAll(async () => {
  cluster = await connect(kafka.bootstrap);
});
afterAll(async () => {
  await Promise.all(running.map((m) => m.membership.leave()));
  await cluster?.close();
});

function track(member: TestMember): TestMember {
  running.push(member);
  return member;
}

async function topicWith(partitions: number): Promise<{ topic: string; labels: string[] }> {
  const topic = unique('classic');
  await kafka.admin.createTopic(topic, { partitions, replicationFactor: 1 });
  await cluster.refreshTopics([topic]);
  return { topic, labels: Array.from({ length: partitions }, (_, p) => `${topic}-${p}`).sort() };
}

describe('ClassicMembership', () => {
  it('range: three members split the partitions per topic, then two take over a leaver', async () => {
    const { topic, labels } = await topicWith(6);
    const group = unique('g-range');
    const members = [1, 2, 3].map(() => track(classicMember(cluster, group, [topic])));
    await Promise.all(members.map((m) => m.membership.start()));
    await eventually(
      async () => members,
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 2),
      60_000,
    );
    expect(splitsExactly(members, labels)).toBe(true);
    for (const m of members) {
      expect(m.membership.identity.generationId).toBeGreaterThan(0);
      expect(m.membership.identity.memberId).not.toBe('');
      // The listener saw exactly what the membership says it owns.
      expect([...m.listener.owned].sort()).toEqual(ownedLabels(m));
      // Range gives consecutive partitions.
      const ps = ownedLabels(m)
        .map((l) => Number(l.slice(topic.length + 1)))
        .sort((a, b) => a - b);
      expect(ps[1]! - ps[0]!).toBe(1);
    }
    expect(members.filter((m) => m.membership.isLeader)).toHaveLength(1);

    const [a, b, c] = members as [TestMember, TestMember, TestMember];
    await c.membership.leave();
    expect(c.membership.assignment).toEqual([]);
    expect(c.listener.events.at(-1)?.kind).toBe('revoked');
    await eventually(
      async () => [a, b],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 3),
      60_000,
    );
    expect(splitsExactly([a, b], labels)).toBe(true);
    for (const m of [a, b]) {
      // Eager: everything was revoked before the rejoin, nothing was lost.
      expect(m.listener.events.some((e) => e.kind === 'revoked')).toBe(true);
      expect(m.listener.events.some((e) => e.kind === 'lost')).toBe(false);
      expect([...m.listener.owned].sort()).toEqual(ownedLabels(m));
    }
  });

  it('cooperative-sticky: owners keep their partitions when a member leaves and when one joins', async () => {
    const { topic, labels } = await topicWith(6);
    const group = unique('g-coop');
    const options = { assignors: ['cooperative-sticky'] as const };
    const members = [1, 2, 3].map(() =>
      track(classicMember(cluster, group, [topic], { assignors: [...options.assignors] })),
    );
    expect(members[0]!.membership.rebalanceProtocol).toBe('cooperative');
    await Promise.all(members.map((m) => m.membership.start()));
    await eventually(
      async () => members,
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 2),
      60_000,
    );
    expect(splitsExactly(members, labels)).toBe(true);
    const [a, b, c] = members as [TestMember, TestMember, TestMember];
    const before = new Map([a, b].map((m) => [m, ownedLabels(m)]));
    const revokedBefore = new Map(
      [a, b].map((m) => [m, m.listener.events.filter((e) => e.kind === 'revoked').length]),
    );

    await c.membership.leave();
    await eventually(
      async () => [a, b],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 3),
      60_000,
    );
    expect(splitsExactly([a, b], labels)).toBe(true);
    for (const m of [a, b]) {
      // Sticky and cooperative: each kept what it had, and gave up nothing.
      for (const p of before.get(m)!) expect(ownedLabels(m)).toContain(p);
      expect(m.listener.events.filter((e) => e.kind === 'revoked').length).toBe(
        revokedBefore.get(m),
      );
      expect(m.listener.events.some((e) => e.kind === 'lost')).toBe(false);
    }

    // A newcomer: the owners give up one partition each (revoked, then a second rebalance
    // hands them on), never two members owning one partition at the same time.
    const d = track(classicMember(cluster, group, [topic], { assignors: ['cooperative-sticky'] }));
    const kept = new Map([a, b].map((m) => [m, ownedLabels(m)]));
    await d.membership.start();
    await eventually(
      async () => [a, b, d],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 2),
      60_000,
    );
    expect(splitsExactly([a, b, d], labels)).toBe(true);
    for (const m of [a, b]) for (const p of ownedLabels(m)) expect(kept.get(m)).toContain(p);
    for (const m of [a, b]) {
      const revoked = m.listener.events.filter((e) => e.kind === 'revoked').at(-1);
      expect(revoked?.partitions).toHaveLength(1);
    }
  });

  it('mid-upgrade (KIP-429): an eager member offering range first and cooperative members share cooperative-sticky', async () => {
    const { topic, labels } = await topicWith(6);
    const group = unique('g-upgrade');
    // Java's default list: range first, so this member stays eager.
    const a = track(
      classicMember(cluster, group, [topic], { assignors: ['range', 'cooperative-sticky'] }),
    );
    const b = track(classicMember(cluster, group, [topic], { assignors: ['cooperative-sticky'] }));
    expect(a.membership.rebalanceProtocol).toBe('eager');
    expect(b.membership.rebalanceProtocol).toBe('cooperative');
    await Promise.all([a.membership.start(), b.membership.start()]);
    await eventually(
      async () => [a, b],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 3),
      60_000,
    );
    // The only protocol both offer.
    expect(a.membership.protocolName).toBe('cooperative-sticky');
    expect(b.membership.protocolName).toBe('cooperative-sticky');
    const bBefore = ownedLabels(b);
    const c = track(classicMember(cluster, group, [topic], { assignors: ['cooperative-sticky'] }));
    await c.membership.start();
    await eventually(
      async () => [a, b, c],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 2),
      60_000,
    );
    expect(splitsExactly([a, b, c], labels)).toBe(true);
    // The cooperative member kept two of its three; the eager one revoked all before rejoining.
    for (const p of ownedLabels(b)) expect(bBefore).toContain(p);
    expect(
      a.listener.events.filter((e) => e.kind === 'revoked').some((e) => e.partitions.length === 3),
    ).toBe(true);
  });

  it('static members (KIP-345) send no LeaveGroup: a restarted instance gets its partitions back', async () => {
    const { topic, labels } = await topicWith(4);
    const group = unique('g-static');
    const a = track(classicMember(cluster, group, [topic], { groupInstanceId: 'instance-a' }));
    const b = track(classicMember(cluster, group, [topic], { groupInstanceId: 'instance-b' }));
    await Promise.all([a.membership.start(), b.membership.start()]);
    await eventually(
      async () => [a, b],
      (ms) => splitsExactly(ms, labels) && ms.every((m) => ownedLabels(m).length === 2),
      60_000,
    );
    // Range sorts static members by instance id: instance-a gets the first range.
    expect(ownedLabels(a)).toEqual([`${topic}-0`, `${topic}-1`]);
    const generation = b.membership.identity.generationId;
    await a.membership.leave();
    // Static: no LeaveGroup, so the group does not rebalance; a new instance-a takes its place.
    const a2 = track(classicMember(cluster, group, [topic], { groupInstanceId: 'instance-a' }));
    await a2.membership.start();
    expect(ownedLabels(a2)).toEqual([`${topic}-0`, `${topic}-1`]);
    expect(ownedLabels(b)).toEqual([`${topic}-2`, `${topic}-3`]);
    expect(b.listener.events.filter((e) => e.kind === 'revoked')).toHaveLength(0);
    expect(b.membership.identity.generationId).toBe(generation);
  });
});
