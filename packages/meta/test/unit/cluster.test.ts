import {
  ErrorCode,
  type KafkaError,
  ProtocolError,
  ListOffsetsApi as RealListOffsetsApi,
} from '@kafkats/codec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cluster, type ClusterConfig } from '../../src/index.js';
import { FakeCluster, fakeApi, retriableError, spreadTopic } from './fake-cluster.js';

const ProduceApi = fakeApi(0, 'Produce');
const CreateTopicsApi = fakeApi(19, 'CreateTopics');
const OffsetCommitApi = fakeApi(8, 'OffsetCommit');
const DescribeLogDirsApi = fakeApi(35, 'DescribeLogDirs');
const DescribeClusterApi = fakeApi(60, 'DescribeCluster');

const open: Cluster[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(fake: FakeCluster, config: Partial<ClusterConfig> = {}): Promise<Cluster> {
  const cluster = await Cluster.connect(fake.bootstrap(), {
    connectionFactory: fake.factory,
    refreshIntervalMs: 0,
    ...config,
    retry: { backoffMs: 1, maxBackoffMs: 2, ...config.retry },
  });
  open.push(cluster);
  return cluster;
}

const metadataRequests = (fake: FakeCluster) =>
  fake.sent
    .filter((s) => s.apiKey === 3)
    .map(
      (s) => s.request as { topics: { name: string }[] | null; allowAutoTopicCreation: boolean },
    );

describe('Cluster.connect and refresh', () => {
  it('fetches the first snapshot through a bootstrap address and learns every broker', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('orders', spreadTopic(3, 6));
    const cluster = await connect(fake);
    const s = cluster.snapshot();
    expect(s.brokers.map((b) => b.nodeId)).toEqual([1, 2, 3]);
    expect(s.leaderFor('orders', 5)).toBe(3);
    expect(cluster.pool.knownNodes().sort()).toEqual([1, 2, 3]);
    expect(metadataRequests(fake)[0]).toMatchObject({
      topics: null,
      allowAutoTopicCreation: false,
    });
  });

  it('asks for a missing topic without creating it and reports UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake);
    const s = await cluster.refreshTopics(['no-such-topic']);
    expect(s.topic('no-such-topic')?.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const last = metadataRequests(fake).at(-1);
    expect(last).toMatchObject({
      topics: [{ name: 'no-such-topic' }],
      allowAutoTopicCreation: false,
    });
    await expect(cluster.leaderFor('no-such-topic', 0)).rejects.toMatchObject({
      errorName: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
  });

  it('shares one request between concurrent refreshes and swaps the snapshot atomically', async () => {
    const fake = new FakeCluster(2);
    const cluster = await connect(fake);
    const before = metadataRequests(fake).length;
    const [a, b] = await Promise.all([cluster.refresh(), cluster.refresh()]);
    expect(a).toBe(b);
    expect(metadataRequests(fake).length).toBe(before + 1);
    expect(cluster.snapshot()).toBe(a);
  });

  it('refreshIfStale refreshes only a stale or empty snapshot; invalidate empties it', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { maxStalenessMs: 60_000 });
    const n = metadataRequests(fake).length;
    await cluster.refreshIfStale();
    expect(metadataRequests(fake).length).toBe(n);
    cluster.invalidate();
    expect(cluster.snapshot().brokers).toEqual([]);
    await cluster.refreshIfStale();
    expect(metadataRequests(fake).length).toBe(n + 1);
    expect(cluster.snapshot().brokers.length).toBe(1);
  });

  it('refreshes in the background on an unref-ed timer and stops on close', async () => {
    vi.useFakeTimers();
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { refreshIntervalMs: 30_000 });
    const n = metadataRequests(fake).length;
    await vi.advanceTimersByTimeAsync(90_000);
    expect(metadataRequests(fake).length).toBe(n + 3);
    await cluster.close();
    await vi.advanceTimersByTimeAsync(90_000);
    expect(metadataRequests(fake).length).toBe(n + 3);
  });

  it('does not keep the process alive with its background timer', async () => {
    const real = globalThis.setInterval;
    const timers: ReturnType<typeof setInterval>[] = [];
    const spy = vi.spyOn(globalThis, 'setInterval').mockImplementation(((
      ...args: Parameters<typeof setInterval>
    ) => {
      const timer = real(...args);
      timers.push(timer);
      return timer;
    }) as typeof setInterval);
    try {
      const fake = new FakeCluster(1);
      await connect(fake, { refreshIntervalMs: 30_000 });
      // The background refresh and the pool's idle-connection check.
      expect(timers.length).toBe(2);
      expect(timers.every((t) => !t.hasRef())).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('fails connect with the connection error when no bootstrap broker answers', async () => {
    const fake = new FakeCluster(2);
    for (const b of fake.brokers) b.up = false;
    await expect(connect(fake, { retry: { maxAttempts: 2 } })).rejects.toMatchObject({
      code: 'ERR_KAFKA_CONNECTION_FAILED',
    });
  });

  it('rejects a malformed bootstrap address with a typed error', async () => {
    const fake = new FakeCluster(1);
    await expect(
      Cluster.connect('localhost', { connectionFactory: fake.factory }),
    ).rejects.toMatchObject({
      code: 'ERR_KAFKA_BOOTSTRAP_INVALID',
    });
  });
});

describe('the dispatcher', () => {
  it('NOT_LEADER_OR_FOLLOWER from the old leader refreshes only that topic and retries on the new leader', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('orders', spreadTopic(3, 3, 1));
    fake.topics.set('other', spreadTopic(3, 3, 1));
    const cluster = await connect(fake);
    // Leadership of orders-0 moves from 1 to 2; broker 1 says so.
    fake.topics.get('orders')!.partitions[0] = { leader: 2, leaderEpoch: 2, replicas: [1, 2, 3] };
    fake.intercept = (node, apiKey) =>
      apiKey === 0 && node.nodeId === 1
        ? ProtocolError.fromCode(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'Produce')
        : undefined;
    const n = metadataRequests(fake).length;
    const response = await cluster.sendToLeader('orders', 0, ProduceApi, {});
    expect(response.servedBy).toBe(2);
    const refreshes = metadataRequests(fake).slice(n);
    expect(refreshes.map((r) => r.topics?.map((t) => t.name))).toEqual([['orders']]);
    expect(cluster.snapshot().partition('orders', 0)).toMatchObject({ leader: 2, leaderEpoch: 2 });
    expect(fake.sent.filter((s) => s.apiKey === 0).map((s) => s.node)).toEqual([1, 2]);
  });

  it('with retryInnerMetadataErrors, a stale leader inside the answer refreshes the topic and re-sends', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3, 1));
    const cluster = await connect(fake);
    fake.topics.get('t')!.partitions[0] = { leader: 3, leaderEpoch: 2, replicas: [1, 3] };
    const inner = (node: number) => ({
      errorCode: 0,
      servedBy: node,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: node === 1 ? 6 : 0 }] }],
    });
    fake.intercept = (node, apiKey) => (apiKey === 2 ? inner(node.nodeId) : undefined);
    // The generated walk of the real ListOffsets response finds the partition's code.
    const fake2 = fakeApi(2, 'ListOffsets');
    const ListOffsetsApi: typeof fake2 = {
      ...fake2,
      responseErrors: (r) => RealListOffsetsApi.responseErrors(r as never),
    };
    // Without the option the answer comes back as it is, error inside.
    expect((await cluster.sendToLeader('t', 0, ListOffsetsApi, {})).servedBy).toBe(1);
    const n = metadataRequests(fake).length;
    const answer = await cluster.sendToLeader(
      't',
      0,
      ListOffsetsApi,
      {},
      { retryInnerMetadataErrors: true },
    );
    expect(answer.servedBy).toBe(3);
    expect(
      metadataRequests(fake)
        .slice(n)
        .map((r) => r.topics?.map((t) => t.name)),
    ).toEqual([['t']]);
  });

  it('caps attempts for ordinary retriable errors', async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    const cluster = await connect(fake, { retry: { maxAttempts: 4 } });
    fake.intercept = (_n, apiKey) =>
      apiKey === 0 ? ProtocolError.fromCode(ErrorCode.NOT_ENOUGH_REPLICAS) : undefined;
    await expect(cluster.sendToLeader('t', 0, ProduceApi, {})).rejects.toMatchObject({
      errorName: 'NOT_ENOUGH_REPLICAS',
    });
    expect(fake.sent.filter((s) => s.apiKey === 0).length).toBe(4);
  });

  it('does not retry a non-retriable error', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake);
    fake.intercept = (_n, apiKey) =>
      apiKey === 60 ? ProtocolError.fromCode(ErrorCode.CLUSTER_AUTHORIZATION_FAILED) : undefined;
    await expect(cluster.sendAny(DescribeClusterApi, {})).rejects.toBeInstanceOf(ProtocolError);
    expect(fake.sent.filter((s) => s.apiKey === 60).length).toBe(1);
  });

  it('throws a non-zero top-level errorCode as a ProtocolError so the retry rules apply', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake);
    let calls = 0;
    fake.intercept = (_n, apiKey) =>
      apiKey === 60
        ? { errorCode: calls++ === 0 ? ErrorCode.REQUEST_TIMED_OUT : 0, servedBy: 1 }
        : undefined;
    await expect(cluster.sendAny(DescribeClusterApi, {})).resolves.toMatchObject({ errorCode: 0 });
    expect(calls).toBe(2);
    fake.intercept = (_n, apiKey) => (apiKey === 60 ? { errorCode: 79, servedBy: 1 } : undefined);
    await expect(
      cluster.sendAny(DescribeClusterApi, {}, { checkTopLevelError: false }),
    ).resolves.toMatchObject({
      errorCode: 79,
    });
  });

  it('NOT_CONTROLLER clears the controller, refreshes and retries on the new one', async () => {
    const fake = new FakeCluster(3);
    fake.controllerId = 1;
    const cluster = await connect(fake);
    fake.controllerId = 3;
    fake.intercept = (node, apiKey) =>
      apiKey === 19 && node.nodeId !== 3
        ? ProtocolError.fromCode(ErrorCode.NOT_CONTROLLER)
        : undefined;
    const response = await cluster.sendRouted(CreateTopicsApi, {});
    expect(response.servedBy).toBe(3);
    expect(fake.sent.filter((s) => s.apiKey === 19).map((s) => s.node)).toEqual([1, 3]);
    expect(cluster.snapshot().controllerId).toBe(3);
  });

  it('sendRouted refuses coordinator, caller and leader APIs with a clear error', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake);
    for (const [api, hint] of [
      [OffsetCommitApi, 'sendToCoordinator'],
      [DescribeLogDirsApi, 'sendToNode'],
      [ProduceApi, 'sendToLeader'],
    ] as const) {
      await expect(cluster.sendRouted(api, {})).rejects.toThrow(
        expect.objectContaining({
          code: 'ERR_KAFKA_ROUTING_NEEDS_TARGET',
          message: expect.stringContaining(hint),
        }),
      );
    }
    expect(fake.sent.filter((s) => s.apiKey !== 3).length).toBe(0);
  });

  it('sendToNode goes to the named broker', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake);
    expect((await cluster.sendToNode(2, DescribeLogDirsApi, {})).servedBy).toBe(2);
  });

  it('keeps one overall deadline that no inner refresh or coordinator wait extends', async () => {
    vi.useFakeTimers();
    const fake = new FakeCluster(3);
    const cluster = await connect(fake, {
      retry: {
        operationTimeoutMs: 5_000,
        coordinatorTimeoutMs: 600_000,
        backoffMs: 100,
        maxBackoffMs: 1000,
      },
    });
    // The coordinator never becomes available; the coordinator budget alone would wait 10 min.
    fake.findCoordinatorErrors = Array(100_000).fill(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const started = Date.now();
    let settledAt = 0;
    const result = cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {}).then(
      () => 'resolved',
      (e: KafkaError) => {
        settledAt = Date.now();
        return e.code;
      },
    );
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await result).toBe('ERR_KAFKA_OPERATION_TIMEOUT');
    expect(settledAt - started).toBeLessThanOrEqual(5_000 + 1_000);
    // Each attempt made exactly one FindCoordinator: no lookup ran a retry loop of its own.
    const lookups = fake.sent.filter((s) => s.apiKey === 10).length;
    expect(lookups).toBe(100_000 - fake.findCoordinatorErrors.length);
    expect(lookups).toBeLessThan(20);
  });

  it('ends the operation at its deadline even while a connect to the leader hangs', async () => {
    vi.useFakeTimers();
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake, { retry: { operationTimeoutMs: 5_000 } });
    fake.broker(1).connectGate = new Promise(() => {}); // the leader of t-0 never answers
    fake.drop(1); // (the bootstrap connection to it, adopted as node 1's, is gone)
    let outcome = 'pending';
    void cluster.sendToLeader('t', 0, ProduceApi, {}).then(
      () => {
        outcome = 'resolved';
      },
      (e: KafkaError) => {
        outcome = e.code;
      },
    );
    await vi.advanceTimersByTimeAsync(4_900);
    expect(outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(200);
    expect(outcome).toBe('ERR_KAFKA_OPERATION_TIMEOUT');
  });
});

describe('coordinators', () => {
  it('waits out COORDINATOR_NOT_AVAILABLE on a fresh cluster for longer than the attempt cap', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake, {
      retry: { maxAttempts: 3, coordinatorTimeoutMs: 60_000 },
    });
    fake.findCoordinatorErrors = Array(8).fill(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(await cluster.coordinator('group', 'g1')).toBe(2);
    expect(fake.sent.filter((s) => s.apiKey === 10).length).toBe(9);
  });

  it('also waits out COORDINATOR_LOAD_IN_PROGRESS', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake, { retry: { maxAttempts: 2 } });
    fake.findCoordinatorErrors = Array(4).fill(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(await cluster.coordinator('transaction', 'tx')).toBe(2);
  });

  it('caches the coordinator, and NOT_COORDINATOR drops it and looks it up again', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake);
    expect((await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {})).servedBy).toBe(2);
    expect((await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {})).servedBy).toBe(2);
    expect(fake.sent.filter((s) => s.apiKey === 10).length).toBe(1);
    fake.coordinatorNode = 3;
    fake.intercept = (node, apiKey) =>
      apiKey === 8 && node.nodeId === 2
        ? ProtocolError.fromCode(ErrorCode.NOT_COORDINATOR)
        : undefined;
    expect((await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {})).servedBy).toBe(3);
    expect(fake.sent.filter((s) => s.apiKey === 10).length).toBe(2);
  });

  it('COORDINATOR_LOAD_IN_PROGRESS retries the same coordinator without a new lookup', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake, { retry: { maxAttempts: 2 } });
    let loads = 3;
    fake.intercept = (_node, apiKey) =>
      apiKey === 8 && loads-- > 0
        ? ProtocolError.fromCode(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        : undefined;
    expect((await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {})).servedBy).toBe(2);
    expect(fake.sent.filter((s) => s.apiKey === 10).length).toBe(1);
    expect(fake.sent.filter((s) => s.apiKey === 8).map((s) => s.node)).toEqual([2, 2, 2, 2]);
  });

  it('reads the coordinator from the shape the negotiated version has (v3 and v6)', async () => {
    for (const version of [3, 6]) {
      const fake = new FakeCluster(3);
      fake.versions.set(10, version);
      fake.coordinatorNode = 3;
      const cluster = await connect(fake);
      expect(await cluster.coordinator('group', 'g')).toBe(3);
      const request = fake.sent.find((s) => s.apiKey === 10)?.request;
      expect(request).toEqual(
        version >= 4
          ? { key: '', keyType: 0, coordinatorKeys: ['g'] }
          : { key: 'g', keyType: 0, coordinatorKeys: [] },
      );
    }
  });
});

describe('connection drops', () => {
  it('forgets the partitions a dropped broker led, so the next send re-routes', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake);
    await cluster.sendToLeader('t', 1, ProduceApi, {});
    fake.drop(2);
    expect(cluster.snapshot().leaderFor('t', 1)).toBeUndefined();
    expect(cluster.snapshot().leaderFor('t', 0)).toBe(1);
    fake.topics.get('t')!.partitions[1] = { leader: 3, leaderEpoch: 1, replicas: [3] };
    expect((await cluster.sendToLeader('t', 1, ProduceApi, {})).servedBy).toBe(3);
  });

  it('refreshes the topic when its leader cannot be reached at all', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake);
    fake.broker(1).up = false;
    fake.drop(1);
    fake.topics.get('t')!.partitions[0] = { leader: 3, leaderEpoch: 1, replicas: [3] };
    const n = metadataRequests(fake).length;
    expect((await cluster.sendToLeader('t', 0, ProduceApi, {})).servedBy).toBe(3);
    expect(
      metadataRequests(fake)
        .slice(n)
        .map((r) => r.topics?.map((t) => t.name)),
    ).toEqual([['t']]);
  });

  it('retries a send whose connection was lost', async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    const cluster = await connect(fake);
    let lost = 1;
    fake.intercept = (_n, apiKey) =>
      apiKey === 0 && lost-- > 0 ? retriableError('ERR_KAFKA_CONNECTION_LOST') : undefined;
    expect((await cluster.sendToLeader('t', 0, ProduceApi, {})).servedBy).toBe(1);
  });
});

/**
 * Holds the first request of `apiKey` to `nodeId` unanswered (in flight) until its connection
 * fails it; every other request is answered as usual. `held()` resolves once it is in flight.
 */
function holdFirst(fake: FakeCluster, apiKey: number, nodeId: number) {
  let seen = false;
  let arrived: () => void = () => {};
  const inFlight = new Promise<void>((r) => {
    arrived = r;
  });
  fake.intercept = (node, key) => {
    if (seen || key !== apiKey || node.nodeId !== nodeId) return undefined;
    seen = true;
    arrived();
    return new Promise(() => {});
  };
  return { held: () => inFlight };
}

describe('connections the pool closes on its own behalf', () => {
  // As Kafka's NetworkClient completes a request whose connection it disconnected with a
  // (retriable) DisconnectException: the request is sent again, on the broker's new connection.
  it('a request in flight when metadata moves its broker to a new address is sent again there', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake);
    const hold = holdFirst(fake, ProduceApi.apiKey, 1);
    const sending = cluster.sendToLeader('t', 0, ProduceApi, {});
    await hold.held();
    fake.broker(1).port = 9101; // broker 1 restarts on another port
    await cluster.refresh();
    expect((await sending).servedBy).toBe(1);
    expect(fake.connects).toContain('broker 1 (127.0.0.1:9101)');
    expect(fake.sent.filter((s) => s.apiKey === ProduceApi.apiKey).map((s) => s.node)).toEqual([
      1, 1,
    ]);
  });

  it('an OffsetCommit in flight when its coordinator moves to a new address is sent again there', async () => {
    const fake = new FakeCluster(3);
    const cluster = await connect(fake);
    await cluster.coordinator('group', 'g');
    const hold = holdFirst(fake, OffsetCommitApi.apiKey, 2);
    const committing = cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {});
    await hold.held();
    fake.broker(2).port = 9102;
    await cluster.refresh();
    expect((await committing).servedBy).toBe(2);
    expect(fake.connects).toContain('broker 2 (127.0.0.1:9102)');
  });

  it('a request in flight to a broker that leaves the metadata is sent again to the new leader', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake);
    const hold = holdFirst(fake, ProduceApi.apiKey, 3);
    const sending = cluster.sendToLeader('t', 2, ProduceApi, {});
    await hold.held();
    // Broker 3 is scaled in; partition 2 is led by broker 1 now.
    fake.brokers = fake.brokers.filter((b) => b.nodeId !== 3);
    fake.topics.get('t')!.partitions[2] = { leader: 1, leaderEpoch: 1, replicas: [1, 2] };
    await cluster.refresh();
    expect((await sending).servedBy).toBe(1);
    expect(fake.sent.filter((s) => s.apiKey === ProduceApi.apiKey).map((s) => s.node)).toEqual([
      3, 1,
    ]);
  });

  it('a request in flight when the cluster is closed still fails, and is not sent again', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3));
    const cluster = await connect(fake);
    const hold = holdFirst(fake, ProduceApi.apiKey, 1);
    const sending = cluster.sendToLeader('t', 0, ProduceApi, {}).catch((e: unknown) => e);
    await hold.held();
    await cluster.close();
    expect(await sending).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED', retriable: false });
    expect(fake.sent.filter((s) => s.apiKey === ProduceApi.apiKey)).toHaveLength(1);
  });
});

describe('readers during refreshes', () => {
  it('never see a mixed snapshot', async () => {
    const fake = new FakeCluster(3);
    // Generation g: every partition at epoch g, led by (g % 3) + 1, cluster id "gen-g".
    const setGeneration = (g: number) => {
      fake.clusterId = `gen-${g}`;
      for (const name of ['a', 'b', 'c']) {
        fake.topics.set(name, {
          topicId: 'TOPICIDAAAAAAAAAAAAAAA',
          partitions: Array.from({ length: 8 }, () => ({
            leader: (g % 3) + 1,
            leaderEpoch: g,
            replicas: [1, 2, 3],
          })),
        });
      }
    };
    setGeneration(0);
    const cluster = await connect(fake);
    let checked = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const s = cluster.snapshot();
        const g = Number(s.clusterId?.slice(4));
        for (const t of s.topics) {
          for (const p of t.partitions) {
            expect(p.leaderEpoch).toBe(g);
            expect(p.leader).toBe((g % 3) + 1);
          }
        }
        checked++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let g = 1; g <= 50; g++) {
      setGeneration(g);
      // Half-way through the refresh the reader gets turns too (the fake answers a tick later).
      await Promise.all([cluster.refresh(), new Promise((r) => setImmediate(r))]);
      await new Promise((r) => setImmediate(r));
    }
    stop = true;
    await reader;
    expect(checked).toBeGreaterThan(10);
    expect(cluster.snapshot().clusterId).toBe('gen-50');
  });
});
