// Acceptance tests for who owns timeouts and reconnects, against real Apache Kafka on a private
// 3-node cluster (its brokers are paused, killed and restarted). Requests and connections are
// counted where they happen (a spy around the wire's connection factory, a TCP proxy), never
// timed: the claims are "on a new connection", "in one attempt", "before the other settles".
import {
  AlterPartitionReassignmentsApi,
  createAlterPartitionReassignmentsRequest,
  createAlterPartitionReassignmentsRequestReassignablePartition,
  createAlterPartitionReassignmentsRequestReassignableTopic,
  createDescribeQuorumRequest,
  createDescribeQuorumRequestPartitionData,
  createDescribeQuorumRequestTopicData,
  createElectLeadersRequest,
  createElectLeadersRequestTopicPartitions,
  createListOffsetsRequest,
  createListOffsetsRequestPartition,
  createListOffsetsRequestTopic,
  createOffsetCommitRequest,
  DescribeQuorumApi,
  ElectLeadersApi,
  ListOffsetsApi,
  MetadataApi,
  type MetadataResponse,
  OffsetCommitApi,
} from '@kafkats/codec';
import { type KafkaCluster, startCluster, startFaultProxy } from '@kafkats/testkit';
import { BackpressureError, RequestTimeoutError } from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMetadataRequest,
  Cluster,
  type MetadataSnapshotAnswer,
  OperationTimeoutError,
} from '../../src/index.js';
import { connectsTo, spyFactory } from './spy-factory.js';

const metadata = (v: number) => buildMetadataRequest(null, v);

/** ListOffsets for the latest offset of partition 0. */
const latestOffset = (topic: string) =>
  createListOffsetsRequest({
    replicaId: -1,
    topics: [
      createListOffsetsRequestTopic({
        name: topic,
        partitions: [createListOffsetsRequestPartition({ partitionIndex: 0, timestamp: -1n })],
      }),
    ],
  });

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the metadata lists every broker again: a broker frozen or killed for longer than
 * `broker.session.timeout.ms` is fenced, and a topic cannot be placed on it until it is back.
 */
async function allBrokersRegistered(kafka: KafkaCluster): Promise<void> {
  const probe = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
  try {
    for (let i = 0; i < 600; i++) {
      if ((await probe.refresh()).brokers.length === kafka.brokers.length) return;
      await pause(100);
    }
    throw new Error('a broker stayed fenced for a minute');
  } finally {
    await probe.close();
  }
}

/**
 * Creates a topic on exactly `replicas`. A broker an earlier test froze or killed may still be
 * fenced at the controller after a Metadata answer already lists it again; the controller then
 * refuses the assignment (InvalidReplicaAssignmentException), so ask again until it is back.
 */
async function createTopicOn(kafka: KafkaCluster, topic: string, replicas: number[]) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await kafka.admin.createTopic(topic, { assignments: [replicas], waitForLeaders: true });
      return;
    } catch (error) {
      if (!(error instanceof Error && /fenced/.test(error.message)) || Date.now() > deadline)
        throw error;
      await pause(250);
    }
  }
}

describe('stalls, floods and restarts on a private 3-node cluster', () => {
  let kafka: KafkaCluster;

  beforeAll(async () => {
    kafka = await startCluster({
      nodes: 3,
      brokerConfig: { 'auto.leader.rebalance.enable': 'false' },
    });
  });
  afterAll(async () => {
    await kafka?.stop();
  });

  it('a broker that stops answering times out after requestTimeoutMs, delays no other broker, and serves again after one connect', async () => {
    const { factory, connects, sent } = spyFactory({});
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      requestTimeoutMs: 1_500,
      refreshIntervalMs: 0,
    });
    const [a, b] = kafka.brokers;
    if (a === undefined || b === undefined) throw new Error('brokers');
    try {
      // Warm both connections.
      await cluster.sendToNode(a.nodeId, MetadataApi, metadata);
      await cluster.sendToNode(b.nodeId, MetadataApi, metadata);
      const connectsBefore = connectsTo(connects, a.nodeId);
      kafka.pauseNode(a.nodeId);
      const order: string[] = [];
      let stalled: unknown;
      try {
        const toPaused = cluster
          .sendToNode(a.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
          .then(
            () => order.push('paused broker answered'),
            (e: unknown) => {
              stalled = e;
              order.push('paused broker timed out');
            },
          );
        const toOther = cluster
          .sendToNode(b.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
          .then(() => order.push('other broker answered'));
        await Promise.all([toPaused, toOther]);
      } finally {
        kafka.resumeNode(a.nodeId);
      }
      // The other broker's answer came while the paused one was still waiting.
      expect(order).toEqual(['other broker answered', 'paused broker timed out']);
      expect(stalled).toBeInstanceOf(RequestTimeoutError);
      expect(stalled).toMatchObject({ code: 'ERR_KAFKA_REQUEST_TIMEOUT', retriable: true });
      expect((stalled as Error).message).toMatch(/got no response in 1500 ms/);

      // After SIGCONT: one new connection, one request, success.
      const sentBefore = sent.length;
      await cluster.sendToNode(a.nodeId, MetadataApi, metadata, { maxAttempts: 1 });
      expect(connectsTo(connects, a.nodeId)).toBe(connectsBefore + 1);
      const after = sent.slice(sentBefore).map(({ nodeId, apiKey, outcome }) => ({
        node: nodeId,
        apiKey,
        outcome,
      }));
      expect(after.filter((s) => s.node === a.nodeId)).toEqual([
        { node: a.nodeId, apiKey: MetadataApi.apiKey, outcome: 'ok' },
      ]);
    } finally {
      await cluster.close();
    }
  });

  it('a response held past its timeout costs the next call nothing: it goes out at once on a new connection', async () => {
    const target = kafka.brokers[1];
    if (target === undefined) throw new Error('broker');
    const proxy = await startFaultProxy({ target: { host: target.host, port: target.port } });
    // Node `target` is reached through the proxy; the others directly.
    const { factory, sent } = spyFactory({}, (t) =>
      t.nodeId === target.nodeId ? { host: proxy.host, port: proxy.port } : t,
    );
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      requestTimeoutMs: 1_000,
      refreshIntervalMs: 0,
    });
    try {
      await cluster.sendToNode(target.nodeId, MetadataApi, metadata);
      const acceptedBefore = proxy.connectionsAccepted;
      proxy.delayMs = 5_000; // the answer to the next request arrives long after its timeout
      const held = await cluster
        .sendToNode(target.nodeId, MetadataApi, metadata, { maxAttempts: 1 })
        .catch((e: unknown) => e);
      expect(held).toBeInstanceOf(RequestTimeoutError);
      proxy.delayMs = 0;
      const sentBefore = sent.length;
      const next = await cluster.sendToNode(target.nodeId, MetadataApi, metadata, {
        maxAttempts: 1,
      });
      expect(next.brokers.length).toBe(3);
      // One attempt, on a connection opened after the timeout: it never queued behind the
      // held answer, which would have arrived only after another 4 s.
      expect(
        sent
          .slice(sentBefore)
          .map(({ nodeId, apiKey, outcome }) => ({ node: nodeId, apiKey, outcome })),
      ).toEqual([{ node: target.nodeId, apiKey: MetadataApi.apiKey, outcome: 'ok' }]);
      expect(proxy.connectionsAccepted).toBe(acceptedBefore + 1);
    } finally {
      await cluster.close();
      await proxy.close();
    }
  });

  it('flooding one connection to a full queue refreshes no metadata and looks up no coordinator', async () => {
    const { factory, sent } = spyFactory({
      maxInFlight: 1,
      maxQueuedRequests: 2,
      queuePolicy: 'reject',
    });
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
      retry: { maxAttempts: 3, backoffMs: 1, maxBackoffMs: 5 },
    });
    const group = `flood-${Date.now()}`;
    try {
      // Know the coordinator first; then every OffsetCommit goes to it.
      await cluster.coordinator('group', group);
      const metadataBefore = sent.filter((s) => s.apiKey === MetadataApi.apiKey).length;
      const lookupsBefore = sent.filter((s) => s.apiKey === 10).length;
      const commit = () =>
        createOffsetCommitRequest({ groupId: group, generationIdOrMemberEpoch: -1, topics: [] });
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, () =>
          cluster
            .sendToCoordinator('group', group, OffsetCommitApi, commit, { maxAttempts: 1 })
            .then(
              () => 'ok',
              (e: unknown) => (e instanceof BackpressureError ? 'backpressure' : String(e)),
            ),
        ),
      );
      expect(outcomes.filter((o) => o === 'backpressure').length).toBeGreaterThan(0);
      expect(outcomes.filter((o) => o !== 'backpressure' && o !== 'ok')).toEqual([]);
      // With retries on, refused sends come back later and still refresh nothing.
      await Promise.all(
        Array.from({ length: 50 }, () =>
          cluster
            .sendToCoordinator('group', group, OffsetCommitApi, commit)
            .catch((e: unknown) => e),
        ),
      );
      expect(sent.filter((s) => s.apiKey === MetadataApi.apiKey).length).toBe(metadataBefore);
      expect(sent.filter((s) => s.apiKey === 10).length).toBe(lookupsBefore);
    } finally {
      await cluster.close();
    }
  });

  it('fails requests retriably while a broker is killed mid-traffic, and the pool dials it again once it is back', async () => {
    const { factory, connects } = spyFactory({ maxInFlight: 8 });
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
      pool: { reconnectBackoffMs: 50, reconnectBackoffMaxMs: 1000 },
    });
    const victim = kafka.brokers[2];
    if (victim === undefined) throw new Error('broker');
    try {
      let ok = 0;
      let stop = false;
      const failures: unknown[] = [];
      const worker = async () => {
        while (!stop) {
          try {
            await cluster.sendToNode(victim.nodeId, MetadataApi, metadata, { maxAttempts: 1 });
            ok++;
          } catch (error) {
            failures.push(error);
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      while (ok < 200) await new Promise((r) => setTimeout(r, 10));
      const connectsBefore = connectsTo(connects, victim.nodeId);
      await kafka.stopNode(victim.nodeId, { signal: 'SIGKILL' });
      while (failures.length < 10) await new Promise((r) => setTimeout(r, 20));
      const okWhileDown = ok;
      await kafka.startNode(victim.nodeId);
      while (ok < okWhileDown + 200) await new Promise((r) => setTimeout(r, 20));
      stop = true;
      await Promise.all(workers);
      for (const f of failures) {
        expect(f).toMatchObject({ retriable: true });
        expect((f as { code: string }).code).toMatch(/^ERR_KAFKA_CONNECTION_(LOST|FAILED)$/);
      }
      // The pool dialled again (after its backoff) and the connection it got serves requests.
      expect(connectsTo(connects, victim.nodeId)).toBeGreaterThan(connectsBefore);
    } finally {
      await cluster.close();
    }
  });
  it('keeps the newer leader epoch when a broker whose metadata lags answers a targeted refresh with an older one', async () => {
    // A broker frozen (SIGSTOP) while leadership moves still holds the old metadata image when
    // it thaws; a Metadata request already waiting in its socket is answered from that image
    // before the broker catches up with the controller. Kafka's client ignores a partition's
    // older leader epoch (Metadata.updateLatestMetadata); so must we.
    await allBrokersRegistered(kafka);
    const probe = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    // The frozen broker must not lead the KRaft quorum (these nodes are brokers and controllers
    // at once): a reassignment forwarded to a frozen controller waits out a request timeout.
    // Metadata's controllerId names a random broker under KRaft, so ask the quorum itself.
    const quorum = await probe.sendAny(DescribeQuorumApi, () =>
      createDescribeQuorumRequest({
        topics: [
          createDescribeQuorumRequestTopicData({
            topicName: '__cluster_metadata',
            partitions: [createDescribeQuorumRequestPartitionData({ partitionIndex: 0 })],
          }),
        ],
      }),
    );
    const quorumLeader = quorum.topics[0]?.partitions[0]?.leaderId ?? -1;
    const lagging = kafka.brokers.find((b) => b.nodeId !== quorumLeader);
    if (lagging === undefined) throw new Error('broker');
    const [a, b] = kafka.brokers
      .filter((x) => x.nodeId !== lagging.nodeId)
      .map((x) => x.nodeId) as [number, number];
    const topic = `lagging-epoch-${Date.now()}`;
    await kafka.admin.createTopic(topic, {
      assignments: [[a, b, lagging.nodeId]],
      waitForLeaders: true,
    });
    const leaderSeenBy = async (nodeId: number) => {
      const m = await probe.sendToNode(nodeId, MetadataApi, (v) =>
        buildMetadataRequest([topic], v),
      );
      const p = m.topics[0]?.partitions[0];
      return { leader: p?.leaderId ?? -1, epoch: p?.leaderEpoch ?? -1 };
    };
    // Only the lagging broker is ever asked by this cluster: it is the bootstrap, and the only
    // connection the pool holds, so every refresh goes to it.
    const { factory, sent } = spyFactory({});
    const cluster = await Cluster.connect(`${lagging.host}:${lagging.port}`, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
    });
    try {
      for (let i = 0; i < 100; i++) {
        const snap = await cluster.refreshTopics([topic]);
        if (snap.leaderFor(topic, 0) === a) break;
        await pause(100);
      }
      expect(cluster.snapshot().leaderFor(topic, 0)).toBe(a);

      let staleAnswers = 0;
      let leader = a;
      for (let round = 0; round < 4 && staleAnswers === 0; round++) {
        const next = leader === a ? b : a;
        const other = leader;
        kafka.pauseNode(lagging.nodeId);
        let refreshing: Promise<unknown> | undefined;
        let learnt = { leader: -1, epoch: -1 };
        let sentBefore = 0;
        try {
          // Asked of a broker that is not frozen (it forwards to the controller): an admin
          // client of its own choosing might wait on the frozen one.
          const moved = await probe.sendToNode(
            next,
            AlterPartitionReassignmentsApi,
            createAlterPartitionReassignmentsRequest({
              topics: [
                createAlterPartitionReassignmentsRequestReassignableTopic({
                  name: topic,
                  partitions: [
                    createAlterPartitionReassignmentsRequestReassignablePartition({
                      partitionIndex: 0,
                      replicas: [next, other, lagging.nodeId],
                    }),
                  ],
                }),
              ],
            }),
          );
          expect(moved.errorCode).toBe(0);
          for (let i = 0; i < 200; i++) {
            // Preferred election, asked again until the reordered replicas have taken effect.
            await probe.sendToNode(
              next,
              ElectLeadersApi,
              createElectLeadersRequest({
                electionType: 0,
                topicPartitions: [
                  createElectLeadersRequestTopicPartitions({ topic, partitions: [0] }),
                ],
              }),
            );
            const [x, y] = await Promise.all([leaderSeenBy(a), leaderSeenBy(b)]);
            if (x.leader === next && y.leader === next && x.epoch === y.epoch) {
              learnt = x;
              break;
            }
            await pause(100);
          }
          expect(learnt.leader).toBe(next);
          // Our cluster learns the new leader and epoch from the up-to-date brokers' answer.
          expect(
            cluster.applyLeaderHints([
              { topic, partition: 0, leaderId: learnt.leader, leaderEpoch: learnt.epoch },
            ]),
          ).toBe(1);
          sentBefore = sent.length;
          refreshing = cluster.refreshTopics([topic]);
          // Let the request reach the frozen broker's socket before it thaws.
          await pause(200);
        } finally {
          kafka.resumeNode(lagging.nodeId);
        }
        await refreshing;
        const answer = sent
          .slice(sentBefore)
          .find((s) => s.apiKey === MetadataApi.apiKey && s.outcome === 'ok');
        // Refreshes decode the answer straight into a snapshot (MetadataSnapshotApi); a plain
        // MetadataResponse is read the same way.
        const response = answer?.response as MetadataSnapshotAnswer | MetadataResponse | undefined;
        let answered: { leaderId: number; leaderEpoch: number } | undefined;
        if (response !== undefined && 'snapshot' in response) {
          const p = response.snapshot.partition(topic, 0);
          if (p !== undefined) answered = { leaderId: p.leader ?? -1, leaderEpoch: p.leaderEpoch };
        } else answered = response?.topics[0]?.partitions[0];
        expect(answer?.nodeId ?? lagging.nodeId).toBe(lagging.nodeId);
        if (answered !== undefined && answered.leaderEpoch < learnt.epoch) {
          staleAnswers++;
          console.info(
            `lagging broker ${lagging.nodeId} answered leader ${answered.leaderId} epoch ${answered.leaderEpoch}; held: leader ${learnt.leader} epoch ${learnt.epoch} (round ${round + 1})`,
          );
        }
        // Whatever the lagging broker said, the snapshot holds the newest leader and epoch.
        const held = cluster.snapshot().partition(topic, 0);
        expect({ leader: held?.leader, epoch: held?.leaderEpoch }).toEqual(learnt);
        leader = next;
      }
      // The scenario really happened: at least one answer carried an older epoch.
      expect(staleAnswers).toBeGreaterThan(0);
    } finally {
      await cluster.close();
      await probe.close();
    }
  });

  it('gives one operation one deadline across a broker restart: capped attempts while it is frozen, retries while it is down, success once it is back', async () => {
    await allBrokersRegistered(kafka);
    const probe = await Cluster.connect(kafka.bootstrap, { refreshIntervalMs: 0 });
    const controllerId = (await probe.refresh()).controllerId;
    await probe.close();
    const victim = kafka.brokers.find((b) => b.nodeId !== controllerId);
    if (victim === undefined) throw new Error('broker');
    const topic = `one-deadline-${Date.now()}`;
    // One replica, on the victim: while it is down the partition has no leader anywhere.
    await createTopicOn(kafka, topic, [victim.nodeId]);
    const { factory, sent, connects } = spyFactory({});
    const cluster = await Cluster.connect(kafka.bootstrap, {
      connectionFactory: factory,
      refreshIntervalMs: 0,
      requestTimeoutMs: 30_000,
    });
    // What each phase sent and how it ended, for a failure message that says what happened.
    const trail = (from: number) =>
      sent
        .slice(from)
        .map(
          (s) =>
            `api ${s.apiKey} to ${s.nodeId ?? s.address} (timeout ${s.timeoutMs} ms): ${s.outcome ?? 'pending'}${s.failed === undefined ? '' : ` ${s.failed}`}${s.inner?.length ? ` [${s.inner.join(', ')}]` : ''}`,
        )
        .join('; ');
    const send = (operationTimeoutMs: number) =>
      cluster.sendToLeader(topic, 0, ListOffsetsApi, latestOffset(topic), {
        operationTimeoutMs,
        maxAttempts: 1_000,
      });
    try {
      // The victim leads the partition and answers it. A broker that has not yet applied its
      // own new leadership answers with an error inside the answer: asked again until it has.
      const first = await cluster.sendToLeader(topic, 0, ListOffsetsApi, latestOffset(topic), {
        operationTimeoutMs: 30_000,
        maxAttempts: 1_000,
        retryInnerMetadataErrors: true,
      });
      expect(first.topics[0]?.partitions[0]?.errorCode, trail(0)).toBe(0);
      expect(sent.filter((s) => s.apiKey === ListOffsetsApi.apiKey).at(-1)?.address).toBe(
        `${victim.host}:${victim.port}`,
      );

      // 1. Frozen: the one attempt waits for the time left in the operation, not for the
      // 30 s request timeout, and the operation fails with the attempt's error as its cause.
      kafka.pauseNode(victim.nodeId);
      let frozen: unknown;
      const sentBeforeFreeze = sent.length;
      try {
        frozen = await send(2_000).catch((e: unknown) => e);
      } finally {
        kafka.resumeNode(victim.nodeId);
      }
      expect(frozen, `frozen phase: ${trail(sentBeforeFreeze)}`).toBeInstanceOf(
        OperationTimeoutError,
      );
      expect((frozen as Error).cause).toBeInstanceOf(RequestTimeoutError);
      const frozenAttempts = sent.slice(sentBeforeFreeze);
      expect(frozenAttempts.map((s) => s.apiKey)).toEqual([ListOffsetsApi.apiKey]);
      expect(frozenAttempts[0]?.timeoutMs).toBeLessThanOrEqual(2_000);

      // 2. Down: attempts fail, metadata is refreshed between them, and when the deadline is
      // spent the operation fails; nothing of it is sent afterwards.
      await kafka.stopNode(victim.nodeId, { signal: 'SIGKILL' });
      const sentBeforeDown = sent.length;
      const down = await send(3_000).catch((e: unknown) => e);
      expect(down, `down phase: ${trail(sentBeforeDown)}`).toBeInstanceOf(OperationTimeoutError);
      expect(down).toMatchObject({ code: 'ERR_KAFKA_OPERATION_TIMEOUT', retriable: true });
      expect(sent.slice(sentBeforeDown).some((s) => s.apiKey === MetadataApi.apiKey)).toBe(true);
      for (const s of sent.slice(sentBeforeDown)) {
        expect(s.timeoutMs).toBeLessThanOrEqual(3_000);
      }
      const activityAfterDeadline = sent.length + connects.length;
      await pause(2_000);
      expect(sent.length + connects.length).toBe(activityAfterDeadline);

      // 3. One operation that starts while the broker is down and ends after it is back: its
      // attempts span the restart and it succeeds.
      const sentBeforeSpan = sent.length;
      let settled = false;
      const spanning = send(120_000).finally(() => {
        settled = true;
      });
      await pause(1_000);
      expect(settled).toBe(false);
      await kafka.startNode(victim.nodeId);
      const answer = await spanning;
      expect(answer.topics[0]?.partitions[0]?.errorCode).toBe(0);
      const span = sent.slice(sentBeforeSpan);
      expect(span.filter((s) => s.apiKey === MetadataApi.apiKey).length).toBeGreaterThan(0);
      const offsets = span.filter((s) => s.apiKey === ListOffsetsApi.apiKey);
      expect(offsets.at(-1)).toMatchObject({ nodeId: victim.nodeId, outcome: 'ok' });
    } finally {
      await cluster.close();
    }
  });
});
