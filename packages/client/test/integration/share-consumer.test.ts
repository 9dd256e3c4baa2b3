// The share consumer (KIP-932) on real 4.4 brokers, beside Kafka's own KafkaShareConsumer:
// every record accepted exactly once across members, released records delivered again with a
// higher delivery count, rejected ones never, and records held by a member that vanished
// handed to another. The version check (3.9, 4.0) is in share-consumer-versions.test.ts.
import { JavaShareConsumer, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Admin,
  Cluster,
  Producer,
  type ShareAcknowledgementResult,
  ShareConsumer,
  type ShareRecord,
} from '../../src/index.js';
import { eventually } from './admin-support.js';
import { unique } from './support.js';

const shared = sharedCluster();
let admin: Admin;
let cluster: Cluster;
let producer: Producer;

beforeAll(async () => {
  admin = await Admin.connect(shared.bootstrap);
  cluster = await Cluster.connect(shared.bootstrap);
  producer = new Producer(cluster);
});

afterAll(async () => {
  await producer?.close();
  await cluster?.close();
  await admin?.close();
});

async function topicWith(partitions: number): Promise<string> {
  const topic = unique('share');
  await shared.admin.createTopic(topic, { partitions, replicationFactor: 3 });
  await admin.waitForTopics([topic]);
  return topic;
}

async function produce(topic: string, partitions: number, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++)
    producer.send({ topic, partition: i % partitions, value: Buffer.from(`r${i}`) });
  await producer.flush();
}

/** A share group reading from the earliest offset, with `configs` beside. */
async function shareGroup(configs: Record<string, string> = {}): Promise<string> {
  const group = unique('share-group');
  const ops = Object.entries({ 'share.auto.offset.reset': 'earliest', ...configs }).map(
    ([name, value]) => ({ name, value, op: 'SET' as const }),
  );
  const result = await admin.incrementalAlterConfigs([{ type: 'GROUP', name: group, ops }]);
  expect(result.resources[0]?.error ?? null).toBeNull();
  return group;
}

/** Polls `consumer` until `done()` or `timeoutMs`, handing each record to `each`. */
async function pollUntil(
  consumer: ShareConsumer,
  done: () => boolean,
  each: (record: ShareRecord) => void,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) for (const r of await consumer.poll(500)) each(r);
}

describe('ShareConsumer', () => {
  it('accepts every record exactly once across three members and a KafkaShareConsumer', async () => {
    const partitions = 6;
    const total = 10_000;
    const topic = await topicWith(partitions);
    const group = await shareGroup();
    await produce(topic, partitions, 0, total / 2);

    const java = await JavaShareConsumer.start({
      bootstrap: shared.bootstrap,
      groupId: group,
      topics: [topic],
    });
    // Accepted values per member, from the acknowledgement results the brokers answered.
    const accepted = new Map<string, string[]>();
    const members: { consumer: ShareConsumer; seen: Map<string, string> }[] = [];
    try {
      const deadline = Date.now() + 60_000;
      while (java.records.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(java.records.length, java.stderrTail).toBeGreaterThan(0);

      for (let m = 0; m < 3; m++) {
        const name = `kafkats-${m}`;
        const mine: string[] = [];
        accepted.set(name, mine);
        // Values by partition and offset, to name what each acknowledgement result applied.
        const seen = new Map<string, string>();
        const consumer = new ShareConsumer(cluster, {
          groupId: group,
          topics: [topic],
          onAcknowledgementCommit: (result: ShareAcknowledgementResult) => {
            if (result.error !== null) return;
            for (const offset of result.offsets) {
              const value = seen.get(`${result.partition}@${offset}`);
              if (value !== undefined) mine.push(value);
            }
          },
        });
        members.push({ consumer, seen });
      }
      await Promise.all(members.map((m) => m.consumer.start()));
      // A share group assigns on its own schedule (a member hears of a new assignment at its
      // next heartbeat): the second half is written once the coordinator has settled on an
      // assignment that gives each of the four members partitions, and each kafkats member
      // reads what the coordinator says it owns.
      const view = (m: { consumer: ShareConsumer }) =>
        m.consumer
          .assignment()
          .map((p) => p.partition)
          .sort()
          .join(',');
      const settled = await eventually(
        () => admin.describeShareGroups([group]),
        (r) => {
          const g = r.groups[0];
          if (g === undefined || g.members.length !== 4 || g.assignmentEpoch !== g.groupEpoch)
            return false;
          // Every member, Java's too, has heard of this assignment (its epoch is the group's).
          if (g.members.some((x) => x.assignment.length === 0 || x.memberEpoch !== g.groupEpoch))
            return false;
          return members.every((m) => {
            const owned = g.members.find((x) => x.memberId === m.consumer.memberId);
            return (
              owned !== undefined &&
              owned.assignment
                .map((p) => p.partition)
                .sort()
                .join(',') === view(m)
            );
          });
        },
        60_000,
      );
      expect(settled.groups[0]?.members.map((x) => x.assignment.length > 0)).toEqual([
        true,
        true,
        true,
        true,
      ]);
      await produce(topic, partitions, total / 2, total);

      const distinct = () =>
        new Set([...[...accepted.values()].flat(), ...java.records.map((r) => r.value!)]).size;
      await Promise.all(
        members.map(({ consumer, seen }) =>
          pollUntil(
            consumer,
            () => distinct() >= total,
            (r) => seen.set(`${r.partition}@${r.offset}`, r.value!.toString()),
            120_000,
          ),
        ),
      );
      // What the last polls delivered is accepted by commit (implicit mode).
      await Promise.all(members.map((m) => m.consumer.commit()));
    } finally {
      await java.stop();
      await Promise.all(members.map((m) => m.consumer.close()));
    }
    accepted.set(
      'java',
      java.records.map((r) => r.value!),
    );
    const all = [...accepted.values()].flat();
    const counts = [...accepted].map(([name, values]) => `${name}: ${values.length}`).join(', ');
    console.log(`share group accepted per member: ${counts}`);
    expect(java.failures).toEqual([]);
    expect(new Set(all).size).toBe(total);
    expect(all.length, `duplicates; ${counts}`).toBe(total);
    for (const values of accepted.values()) expect(values.length, counts).toBeGreaterThan(0);
  }, 240_000);

  it('delivers released records again with a higher count and never rejected ones', async () => {
    const topic = await topicWith(1);
    const group = await shareGroup();
    await produce(topic, 1, 0, 100);

    const first = new ShareConsumer(cluster, {
      groupId: group,
      topics: [topic],
      acknowledgementMode: 'explicit',
    });
    const released = new Set<bigint>();
    const rejected = new Set<bigint>();
    const results: ShareAcknowledgementResult[] = [];
    await first.start();
    let read = 0;
    try {
      await pollUntil(
        first,
        () => read >= 100,
        (r) => {
          read++;
          expect(r.deliveryCount).toBe(1);
          const kind =
            r.offset % 10n === 0n ? 'release' : r.offset % 10n === 1n ? 'reject' : 'accept';
          if (kind === 'release') released.add(r.offset);
          if (kind === 'reject') rejected.add(r.offset);
          first.acknowledge(r, kind);
        },
      );
      results.push(...(await first.commit()));
    } finally {
      await first.close();
    }
    expect(read).toBe(100);
    expect(results.every((r) => r.error === null)).toBe(true);
    expect(results.flatMap((r) => r.offsets).length).toBe(100);

    const second = new ShareConsumer(cluster, { groupId: group, topics: [topic] });
    const again = new Map<bigint, number>();
    await second.start();
    try {
      await pollUntil(
        second,
        () => again.size >= released.size,
        (r) => again.set(r.offset, r.deliveryCount),
      );
      // Nothing else is left to deliver: one more long poll stays empty.
      expect(await second.poll(1500)).toEqual([]);
    } finally {
      await second.close();
    }
    console.log(
      `share group: first member accepted ${100 - released.size - rejected.size}, released ${released.size}, rejected ${rejected.size}; second member got ${again.size} again`,
    );
    expect([...again.keys()].sort()).toEqual([...released].sort());
    for (const count of again.values()) expect(count).toBe(2);
    for (const offset of rejected) expect(again.has(offset)).toBe(false);
  }, 120_000);

  it('hands records of a vanished member and of a stalled one to another member', async () => {
    const topic = await topicWith(1);
    const lockMs = 15_000; // the broker's least (group.share.min.record.lock.duration.ms)
    const group = await shareGroup({ 'share.record.lock.duration.ms': String(lockMs) });
    const joined = async (c: ShareConsumer) => {
      await c.start();
      const deadline = Date.now() + 60_000;
      while (c.assignment().length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
    };
    const take = async (c: ShareConsumer, n: number) => {
      const offsets = new Set<bigint>();
      await pollUntil(
        c,
        () => offsets.size >= n,
        (r) => offsets.add(r.offset),
      );
      return offsets;
    };

    // A stalled member: it polls once and never again, its connections open. Only the
    // acquisition lock gives its records back.
    const stalled = new ShareConsumer(cluster, { groupId: group, topics: [topic] });
    await joined(stalled);
    await produce(topic, 1, 0, 25);
    const heldByStalled = await take(stalled, 25);

    // A vanished member, on a cluster of its own that is shut without a word to the group: no
    // acknowledgement, no session close, no leave (a process killed).
    const own = await Cluster.connect(shared.bootstrap);
    const vanished = new ShareConsumer(own, { groupId: group, topics: [topic] });
    await joined(vanished);
    await produce(topic, 1, 25, 50);
    const heldByVanished = await take(vanished, 25);
    await own.close();

    const other = new ShareConsumer(cluster, { groupId: group, topics: [topic] });
    const redelivered = new Map<bigint, number>();
    await joined(other);
    try {
      await pollUntil(
        other,
        () => redelivered.size >= 50,
        (r) => redelivered.set(r.offset, r.deliveryCount),
        lockMs + 60_000,
      );
    } finally {
      await other.close();
      await stalled.close();
      await vanished.close();
    }
    console.log(
      `share group: stalled member held ${heldByStalled.size}, vanished member ${heldByVanished.size}; another member got ${redelivered.size} again`,
    );
    expect(heldByStalled.size + heldByVanished.size).toBe(50);
    expect([...redelivered.keys()].sort()).toEqual([...heldByStalled, ...heldByVanished].sort());
    for (const count of redelivered.values()) expect(count).toBe(2);
  }, 180_000);
});
