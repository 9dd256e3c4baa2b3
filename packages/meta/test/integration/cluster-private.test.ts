// Acceptance tests for @kafkats/meta against real Apache Kafka. The second,
// independent client is Kafka's own Java admin from the testkit; connections are the wire's.
// This file: coordinator lookups, errors and broker restarts on a private 3-node cluster
// (cluster.test.ts has the shared-cluster ones).
import { randomUUID } from 'node:crypto';
import {
  createListOffsetsRequest,
  createOffsetCommitRequest,
  ErrorCode,
  FindCoordinatorApi,
  ListOffsetsApi,
  type ListOffsetsResponse,
  MetadataApi,
  OffsetCommitApi,
} from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy, TestkitError } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetadataRequest, Cluster, wireConnectionFactory } from '../../src/index.js';
import { type Sent, spyFactory } from './spy-factory.js';

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

const listOffsets = (topic: string, partition: number) =>
  createListOffsetsRequest({
    replicaId: -1,
    topics: [
      {
        name: topic,
        partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }],
      },
    ],
  } as never);

/**
 * The leader of `topic`-0 as `cluster` sees it, refreshing the topic (up to 10 s) while the
 * broker asked has not learnt it yet.
 */
async function leaderSeen(cluster: Cluster, topic: string): Promise<number> {
  let leader = cluster.snapshot().leaderFor(topic, 0);
  for (let i = 0; i < 100 && leader === undefined; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    leader = (await cluster.refreshTopics([topic])).leaderFor(topic, 0);
  }
  if (leader === undefined) throw new Error(`no leader for ${topic}-0 within 10 s`);
  return leader;
}

function partitionError(response: ListOffsetsResponse): number {
  return response.topics[0]?.partitions[0]?.errorCode ?? -999;
}

describe('against a private 3-node cluster with auto.create.topics.enable=true', () => {
  let kafka: KafkaCluster;

  beforeAll(async () => {
    kafka = await startCluster({
      nodes: 3,
      brokerConfig: {
        'auto.create.topics.enable': 'true',
        // No preferred-leader rebalance during the test: a restarted broker stays a follower.
        'auto.leader.rebalance.enable': 'false',
      },
    });
  });
  afterAll(async () => {
    await kafka?.stop();
  });

  it('finds the group coordinator on the first lookup against the fresh cluster, waiting out COORDINATOR_NOT_AVAILABLE', async () => {
    const spy = spyFactory();
    const cluster = await Cluster.connect(kafka.bootstrap, {
      refreshIntervalMs: 0,
      connectionFactory: spy.factory,
    });
    try {
      // __consumer_offsets does not exist yet: the broker answers COORDINATOR_NOT_AVAILABLE
      // until it is created and has leaders, which the lookup waits out.
      const node = await cluster.coordinator('group', unique('fresh-group'));
      expect(kafka.brokers.map((b) => b.nodeId)).toContain(node);
      const lookups = spy.sent.filter((s) => s.apiKey === FindCoordinatorApi.apiKey);
      // Seen in the broker's own answers, not assumed.
      expect(lookups[0]?.inner).toContain('COORDINATOR_NOT_AVAILABLE');
      expect(lookups.at(-1)?.inner).toEqual([]);
      console.log(
        `fresh cluster: ${lookups.length} FindCoordinator requests, ${lookups.filter((l) => l.inner?.includes('COORDINATOR_NOT_AVAILABLE')).length} answered COORDINATOR_NOT_AVAILABLE`,
      );
    } finally {
      await cluster.close();
    }
  });

  it('looks the coordinator up again once when its broker stops, and commits on the new one', async () => {
    const spy = spyFactory();
    const cluster = await Cluster.connect(kafka.bootstrap, {
      refreshIntervalMs: 0,
      connectionFactory: spy.factory,
    });
    const group = unique('moving-group');
    const commit = () =>
      createOffsetCommitRequest({ groupId: group, generationIdOrMemberEpoch: -1, topics: [] });
    try {
      await cluster.sendToCoordinator('group', group, OffsetCommitApi, commit);
      const before = await cluster.coordinator('group', group);
      await kafka.stopNode(before);
      try {
        const sentBefore = spy.sent.length;
        await cluster.sendToCoordinator('group', group, OffsetCommitApi, commit);
        const after = await cluster.coordinator('group', group);
        expect(after).not.toBe(before);
        const lookups = spy.sent
          .slice(sentBefore)
          .filter((s) => s.apiKey === FindCoordinatorApi.apiKey);
        // Lookups that named a coordinator: exactly one (answers of a coordinator still
        // loading, COORDINATOR_NOT_AVAILABLE, may come before it).
        expect(lookups.filter((l) => l.failed === undefined && l.inner?.length === 0)).toHaveLength(
          1,
        );
      } finally {
        await kafka.startNode(before);
      }
    } finally {
      await cluster.close();
    }
  }, 240_000);

  it('reports UNKNOWN_TOPIC_OR_PARTITION for a missing topic and the Java admin confirms it was not created', async () => {
    const cluster = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    const topic = unique('meta-typo');
    try {
      const snapshot = await cluster.refreshTopics([topic]);
      expect(snapshot.topic(topic)?.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      await expect(cluster.leaderFor(topic, 0)).rejects.toMatchObject({
        errorName: 'UNKNOWN_TOPIC_OR_PARTITION',
      });
      // Control: the same broker does create a topic for a request that allows it, so only our
      // `false` kept the first one away.
      const control = unique('meta-control');
      const broker = kafka.brokers[0];
      if (broker === undefined) throw new Error('no broker');
      const c = await wireConnectionFactory()({
        host: broker.host,
        port: broker.port,
        label: 'control',
      });
      try {
        const v = c.negotiatedVersion(MetadataApi.apiKey) ?? 12;
        const request = buildMetadataRequest([control], v);
        request.allowAutoTopicCreation = true;
        await c.send(MetadataApi, request, { version: v });
      } finally {
        await c.close();
      }
      // The Java admin's listing that shows the control topic (asked for after ours) must
      // not show ours.
      let listing: string[] = [];
      const deadline = Date.now() + 60_000;
      while (!listing.includes(control) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        listing = await kafka.admin.listTopics();
      }
      expect(listing).toContain(control);
      expect(listing).not.toContain(topic);
    } finally {
      await cluster.close();
    }
  });

  it('a send to the old leader gets NOT_LEADER_OR_FOLLOWER, refreshes only that topic, and succeeds on the new leader', async () => {
    const topic = unique('meta-moved');
    const other = unique('meta-bystander');
    await kafka.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    await kafka.admin.createTopic(other, { partitions: 1, replicationFactor: 3 });
    const spy = spyFactory();
    // Bootstrap through a broker that does not lead the topic: the pool adopts its bootstrap
    // connection as that broker's, so we hold no connection to the leader that could tell us
    // it went away.
    const leaderBefore = (await kafka.admin.describeTopic(topic)).partitions[0]?.leader;
    const bystander = kafka.brokers.find((b) => b.nodeId !== leaderBefore);
    if (bystander === undefined) throw new Error('no other broker');
    const cluster = await Cluster.connect(`${bystander.host}:${bystander.port}`, {
      refreshIntervalMs: 0,
      connectionFactory: spy.factory,
    });
    try {
      // The bystander may not have learnt the new topic when it answered the first refresh.
      const oldLeader = await leaderSeen(cluster, topic);
      expect(oldLeader).toBe(leaderBefore);
      // Move leadership away and bring the old leader back as a follower. Our snapshot still
      // names it, and we hold no node connection to it that could have told us it went away.
      await kafka.stopNode(oldLeader);
      await kafka.startNode(oldLeader);
      const java = await kafka.admin.describeTopic(topic);
      const newLeader = java.partitions[0]?.leader;
      expect(newLeader).not.toBe(oldLeader);
      expect(cluster.snapshot().leaderFor(topic, 0)).toBe(oldLeader);

      const before = spy.sent.length;
      // ListOffsets carries the error per partition; it is an idempotent read, so the
      // dispatcher may treat a stale-leader error inside the answer as the attempt's failure.
      const response = await cluster.sendToLeader(topic, 0, ListOffsetsApi, listOffsets(topic, 0), {
        retryInnerMetadataErrors: true,
      });
      expect(partitionError(response)).toBe(ErrorCode.NONE);
      const after = spy.sent.slice(before);
      const offsets = after.filter((s) => s.apiKey === ListOffsetsApi.apiKey);
      // A bootstrap connection the pool adopted carries no node id: name it by its address.
      const nodeAt = (s: Sent) =>
        s.nodeId ?? kafka.brokers.find((b) => `${b.host}:${b.port}` === s.address)?.nodeId;
      expect(offsets.map(nodeAt)).toEqual([oldLeader, newLeader]);
      // The old leader answered, with the error inside a successful response.
      expect(offsets[0]?.failed).toBeUndefined();
      expect(offsets[0]?.inner).toEqual(['NOT_LEADER_OR_FOLLOWER']);
      expect(offsets[1]?.inner).toEqual([]);
      const refreshes = after.filter((s) => s.apiKey === MetadataApi.apiKey);
      expect(
        refreshes.map((s) =>
          (s.request as { topics: { name: string }[] | null }).topics?.map((t) => t.name),
        ),
      ).toEqual([[topic]]);
      expect(cluster.snapshot().leaderFor(topic, 0)).toBe(newLeader);
    } finally {
      await cluster.close();
    }
  });

  it('forgets the partitions a broker led as soon as the wire reports its connection dropped', async () => {
    const topic = unique('meta-drop');
    await kafka.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
    const cluster = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    try {
      // The testkit waited until one broker named every leader; the broker our refresh asks may
      // not have learnt the new topic yet.
      const leader = await leaderSeen(cluster, topic);
      const led = cluster.snapshot().partitionsLedBy(leader);
      // Opens the node connection the drop will be seen on.
      await cluster.sendToLeader(topic, 0, ListOffsetsApi, listOffsets(topic, 0), {
        retryInnerMetadataErrors: true,
      });
      await kafka.stopNode(leader);
      try {
        const deadline = Date.now() + 30_000;
        while (cluster.snapshot().leaderFor(topic, 0) === leader && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
        }
        // No refresh ran: the drop alone cleared every partition that broker led.
        for (const p of led)
          expect(cluster.snapshot().leaderFor(p.topic, p.partition)).toBeUndefined();
        // The next send re-routes to the new leader.
        const response = await cluster.sendToLeader(
          topic,
          0,
          ListOffsetsApi,
          listOffsets(topic, 0),
          {
            retryInnerMetadataErrors: true,
          },
        );
        expect(partitionError(response)).toBe(ErrorCode.NONE);
        expect(cluster.snapshot().leaderFor(topic, 0)).not.toBe(leader);
      } finally {
        await kafka.startNode(leader);
      }
    } finally {
      await cluster.close();
    }
  }, 240_000);

  it('recovers through the bootstrap address after every broker restarts on a new port', async () => {
    const first = kafka.brokers[0];
    if (first === undefined) throw new Error('no broker');
    // The stable bootstrap address a load balancer or Kubernetes service would give.
    const proxy = await startFaultProxy({ target: { host: first.host, port: first.port } });
    const spy = spyFactory();
    const cluster = await Cluster.connect([proxy.address], {
      refreshIntervalMs: 0,
      connectionFactory: spy.factory,
    });
    try {
      const topic = unique('meta-roll');
      await kafka.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
      await cluster.refreshTopics([topic]);
      await cluster.sendToLeader(topic, 0, ListOffsetsApi, listOffsets(topic, 0));
      const oldPorts = new Set(cluster.snapshot().brokers.map((b) => b.port));
      for (const b of [...kafka.brokers]) await restartOnNewPort(kafka, b.nodeId);
      const moved = kafka.brokers[0];
      if (moved === undefined) throw new Error('no broker');
      proxy.retarget({ host: moved.host, port: moved.port });
      expect(kafka.brokers.every((b) => !oldPorts.has(b.port))).toBe(true);

      // Every address the pool learnt is dead now; only the bootstrap address leads back.
      const snapshot = await retry(() => cluster.refresh());
      expect(new Set(snapshot.brokers.map((b) => b.port))).toEqual(
        new Set(kafka.brokers.map((b) => b.port)),
      );
      const response = await cluster.sendToLeader(topic, 0, ListOffsetsApi, listOffsets(topic, 0));
      expect(partitionError(response)).toBe(ErrorCode.NONE);
      expect(spy.connects.filter((l) => l.startsWith('bootstrap')).length).toBeGreaterThan(1);
    } finally {
      await cluster.close();
      await proxy.close();
    }
    // Three sequential broker restarts on two cores take minutes, not the default two.
  }, 900_000);
});

/**
 * `restartNode` on a new port, tolerating one known testkit failure: its readiness check asks
 * a Java admin bootstrapped with the cluster's *original* addresses, and when the roll has
 * moved every broker that admin can fall into the very trap this test is about ("Timed out
 * waiting for a node assignment"). Then a fresh Java admin on the current addresses decides
 * whether every node is registered on its new port.
 */
async function restartOnNewPort(kafka: KafkaCluster, nodeId: number): Promise<void> {
  try {
    await kafka.restartNode(nodeId);
    return;
  } catch (error) {
    if (!(error instanceof TestkitError) || !/not ready after/.test(error.message)) throw error;
  }
  const fresh = kafka.javaAdmin();
  const want = kafka.brokers.map((b) => `${b.nodeId}@${b.port}`).join(',');
  let seen = '';
  const deadline = Date.now() + 120_000;
  while (seen !== want && Date.now() < deadline) {
    try {
      seen = (await fresh.describeCluster()).nodes.map((n) => `${n.id}@${n.port}`).join(',');
    } catch {
      // Still settling.
    }
    if (seen !== want) await new Promise((r) => setTimeout(r, 500));
  }
  expect(seen).toBe(want);
}

/** The caller-level retry an application would do around a refresh while the cluster settles. */
async function retry<T>(fn: () => Promise<T>, attempts = 20): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn();
    } catch (error) {
      last = error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw last;
}
