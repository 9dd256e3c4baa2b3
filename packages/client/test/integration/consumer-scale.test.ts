// A group scaled 1 -> 3 -> 1 kafkats consumers while records are produced, on the shared
// cluster, with both group protocols: at each step the members split the partitions exactly,
// the coordinator's view (ConsumerGroupDescribe for KIP-848, DescribeGroups for classic)
// agrees with what each member says it owns, and at the end no record is lost or doubled.
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../src/index.js';
import { unique } from './admin-support.js';
import {
  describeConsumerGroup,
  labels,
  Member,
  produceNumbered,
  Tally,
  waitFor,
} from './consumer-support.js';

const kafka = sharedCluster();
let cluster: Cluster;
let admin: Admin;

beforeAll(async () => {
  cluster = await Cluster.connect(kafka.bootstrap);
  admin = new Admin(cluster);
});
afterAll(async () => {
  await cluster?.close();
});

const TOTAL = 20_000;
const PARTITIONS = 6;

/** The coordinator's member id -> owned partitions. */
async function brokerView(protocol: 'consumer' | 'classic', groupId: string) {
  if (protocol === 'consumer') return describeConsumerGroup(cluster, groupId);
  const { groups } = await admin.describeGroups([groupId]);
  const view = new Map<string, string[]>();
  for (const m of groups[0]?.members ?? [])
    view.set(m.memberId, labels(m.assignedPartitions ?? []));
  return view;
}

function ourView(members: readonly Member[]): Map<string, string[]> {
  return new Map(
    members.map((m) => [m.consumer.groupMetadata().memberId, labels(m.consumer.assignment())]),
  );
}

const same = (a: Map<string, string[]>, b: Map<string, string[]>) =>
  a.size === b.size && [...a].every(([id, ps]) => JSON.stringify(b.get(id)) === JSON.stringify(ps));

/** Waits until the members split every partition exactly and the coordinator agrees. */
async function settled(
  protocol: 'consumer' | 'classic',
  groupId: string,
  members: readonly Member[],
  all: readonly string[],
) {
  let broker = new Map<string, string[]>();
  const ok = async () => {
    const owned = members.flatMap((m) => labels(m.consumer.assignment())).sort();
    if (JSON.stringify(owned) !== JSON.stringify(all)) return false;
    if (members.some((m) => m.consumer.assignment().length === 0)) return false;
    broker = await brokerView(protocol, groupId);
    return same(broker, ourView(members));
  };
  const deadline = Date.now() + 90_000;
  while (!(await ok()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  expect(ourView(members)).toEqual(broker);
  expect(members.flatMap((m) => labels(m.consumer.assignment())).sort()).toEqual(all);
}

for (const groupProtocol of ['consumer', 'classic'] as const) {
  describe(`groupProtocol '${groupProtocol}'`, () => {
    it(`scales 1 -> 3 -> 1 consumers while ${TOTAL} records are produced: the coordinator agrees at each step, every record processed once`, async () => {
      const topic = unique(`scale-${groupProtocol}`);
      await kafka.admin.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 3 });
      await cluster.refreshTopics([topic]);
      const all = Array.from({ length: PARTITIONS }, (_, p) => `${topic}-${p}`).sort();
      const groupId = unique('g-scale');
      const tally = new Tally();
      const options = { groupId, groupProtocol, topics: [topic], autoCommitIntervalMs: 1000 };
      const production = produceNumbered(cluster, topic, TOTAL, PARTITIONS, {
        perRound: 200,
        pauseMs: 300,
      });
      const first = new Member(cluster, options, tally);
      const members = [first];
      try {
        await settled(groupProtocol, groupId, [first], all);
        members.push(new Member(cluster, options, tally), new Member(cluster, options, tally));
        await settled(groupProtocol, groupId, members, all);
        await waitFor(() => production.sent() >= TOTAL / 2, 90_000);
        await members[1]!.close();
        await members[2]!.close();
        await settled(groupProtocol, groupId, [first], all);
        await production.done;
        await waitFor(() => tally.counts.size >= TOTAL, 90_000);
        for (const m of members) expect(m.error).toBeUndefined();
        expect(members.every((m) => m.processed > 0)).toBe(true);
      } finally {
        for (const m of members) await m.close();
      }
      expect(tally.missing(TOTAL)).toEqual([]);
      expect(tally.duplicates()).toEqual([]);
    });
  });
}
