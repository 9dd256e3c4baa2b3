// The contract between the cluster and a connection: who picks the version, how long one
// attempt may wait, what a running-out operation reports, and what back-pressure does not do.
import { ErrorCode, MetadataApi, ProtocolError, ZERO_UUID } from '@kafkats/codec';
import { AbortedError, BackpressureError, RequestTimeoutError } from '@kafkats/wire';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cluster,
  type ClusterConfig,
  OperationTimeoutError,
  ReadOnlyError,
} from '../../src/index.js';
import { FakeCluster, fakeApi, spreadTopic } from './fake-cluster.js';

const ProduceApi = fakeApi(0, 'Produce');
const FetchApi = fakeApi(1, 'Fetch');
const OffsetCommitApi = fakeApi(8, 'OffsetCommit');

const open: Cluster[] = [];
afterEach(async () => {
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

const sentOf = (fake: FakeCluster, apiKey: number) => fake.sent.filter((s) => s.apiKey === apiKey);

describe('one version decision', () => {
  it('builds the request for the version of the connection it goes on, and sends exactly that', async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    fake.versions.set(1, 13);
    const cluster = await connect(fake);
    const asked: number[] = [];
    await cluster.sendToLeader('t', 0, FetchApi, (version) => {
      asked.push(version);
      return { byTopicId: version >= 13 };
    });
    expect(asked).toEqual([13]);
    expect(sentOf(fake, 1)).toMatchObject([{ version: 13, request: { byTopicId: true } }]);
  });

  it('calls the builder again for each attempt, with that attempt connection version', async () => {
    const fake = new FakeCluster(2);
    fake.topics.set('t', spreadTopic(2, 1));
    fake.versions.set(1, 16);
    const cluster = await connect(fake);
    // The first attempt goes to broker 1, which says it no longer leads; broker 2 is older.
    fake.topics.get('t')!.partitions[0] = { leader: 2, leaderEpoch: 1, replicas: [1, 2] };
    fake.intercept = (node, apiKey) => {
      if (apiKey !== 1) return undefined;
      if (node.nodeId === 1) {
        fake.versions.set(1, 12);
        return ProtocolError.fromCode(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'Fetch');
      }
      return undefined;
    };
    const asked: number[] = [];
    await cluster.sendToLeader('t', 0, FetchApi, (version) => {
      asked.push(version);
      return {};
    });
    expect(asked).toEqual([16, 12]);
    expect(sentOf(fake, 1).map((s) => [s.node, s.version])).toEqual([
      [1, 16],
      [2, 12],
    ]);
  });

  it('pins a caller-chosen version', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake);
    await cluster.sendAny(OffsetCommitApi, {}, { version: 2 });
    expect(sentOf(fake, 8).map((s) => s.version)).toEqual([2]);
  });

  it('refuses an API the broker does not offer before anything is sent', async () => {
    const fake = new FakeCluster(1);
    fake.versions.set(8, -1);
    const cluster = await connect(fake);
    await expect(cluster.sendAny(OffsetCommitApi, {})).rejects.toMatchObject({
      code: 'ERR_KAFKA_VERSION_UNSUPPORTED',
      retriable: false,
    });
    expect(sentOf(fake, 8)).toEqual([]);
  });
});

describe('a send to a broker whose connection is open', () => {
  // The common case (a producer's batch, a fetch) skips the connection lookup; what it does
  // must be what every other send does.
  async function openTo(fake: FakeCluster, config: Partial<ClusterConfig> = {}) {
    const cluster = await connect(fake, config);
    await cluster.sendToNode(1, OffsetCommitApi, {});
    return cluster;
  }

  /** OffsetCommit answers COORDINATOR_LOAD_IN_PROGRESS `next` times (settable), then as usual. */
  function loadingCoordinator(fake: FakeCluster, times: number) {
    const failing = { next: times };
    fake.intercept = (_node, apiKey) => {
      if (apiKey !== 8 || failing.next === 0) return undefined;
      failing.next--;
      return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, servedBy: 1 };
    };
    return failing;
  }

  it('a failed first attempt is attempt 1 of the retry loop: retried up to maxAttempts, then thrown', async () => {
    const fake = new FakeCluster(1);
    const cluster = await openTo(fake);
    const failing = loadingCoordinator(fake, 1);
    const before = sentOf(fake, 8).length;
    expect(await cluster.sendToNode(1, OffsetCommitApi, {}, { maxAttempts: 2 })).toMatchObject({
      errorCode: 0,
    });
    expect(sentOf(fake, 8).length - before).toBe(2);

    failing.next = 2;
    const error = await cluster
      .sendToNode(1, OffsetCommitApi, {}, { maxAttempts: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
    expect((error as Error).message).toContain('OffsetCommit v');
    expect((error as Error).message).toContain('to broker 1');
    expect(sentOf(fake, 8).length - before).toBe(3);
  });

  it('a builder that throws rejects the send, and nothing is sent', async () => {
    const fake = new FakeCluster(1);
    const cluster = await openTo(fake);
    const before = fake.sent.length;
    const sent = cluster.sendToNode(1, ProduceApi, () => {
      throw new RangeError('no such record');
    });
    await expect(sent).rejects.toThrow('no such record');
    expect(fake.sent.length).toBe(before);
  });

  /** sendToNodeCallback's outcome as a promise, and whether a handler ran inside the call. */
  function viaCallback(
    cluster: Cluster,
    node: number,
    build: (version: number, context: string) => Record<string, unknown>,
    options: Parameters<Cluster['sendToNodeCallback']>[3] = {},
  ) {
    let inside = true;
    let ranInside = false;
    const outcome = new Promise<{ ok: boolean; value: unknown; context: string }>((resolve) => {
      cluster.sendToNodeCallback(
        node,
        OffsetCommitApi,
        build,
        options,
        (value, context) => {
          ranInside ||= inside;
          resolve({ ok: true, value, context });
        },
        (value, context) => {
          ranInside ||= inside;
          resolve({ ok: false, value, context });
        },
        'the context',
      );
    });
    inside = false;
    return { outcome, ranInside: () => ranInside };
  }

  it('sendToNodeCallback: the first attempt goes through the connection callback, built for its version', async () => {
    const fake = new FakeCluster(1);
    fake.versions.set(8, 7);
    const cluster = await openTo(fake, { requestTimeoutMs: 1_500 });
    const before = fake.callbackSends;
    const asked: [number, string][] = [];
    const { outcome } = viaCallback(
      cluster,
      1,
      (version, context) => {
        asked.push([version, context]);
        return { built: version };
      },
      { operationTimeoutMs: 400 },
    );
    expect(await outcome).toEqual({
      ok: true,
      value: { errorCode: 0, servedBy: 1 },
      context: 'the context',
    });
    expect(asked).toEqual([[7, 'the context']]);
    expect(fake.callbackSends - before).toBe(1);
    const last = sentOf(fake, 8).at(-1);
    expect(last).toMatchObject({ version: 7, request: { built: 7 } });
    expect(last?.timeoutMs).toBeGreaterThan(0);
    expect(last?.timeoutMs).toBeLessThanOrEqual(400);
  });

  it('sendToNodeCallback: a failed first attempt goes on in the retry loop; its end reaches a handler', async () => {
    const fake = new FakeCluster(1);
    const cluster = await openTo(fake);
    const failing = loadingCoordinator(fake, 1);
    const before = sentOf(fake, 8).length;
    const retried = viaCallback(cluster, 1, () => ({}), { maxAttempts: 2 });
    expect(await retried.outcome).toMatchObject({ ok: true, value: { errorCode: 0 } });
    expect(sentOf(fake, 8).length - before).toBe(2);

    failing.next = 1;
    const spent = viaCallback(cluster, 1, () => ({}), { maxAttempts: 1 });
    const failed = await spent.outcome;
    expect(failed).toMatchObject({ ok: false, context: 'the context' });
    expect(failed.value).toBeInstanceOf(ProtocolError);
    expect(failed.value).toMatchObject({ errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
    expect(String((failed.value as Error).message)).toContain('to broker 1');
  });

  it('sendToNodeCallback: a builder that throws reaches onError after the call, and nothing is sent', async () => {
    const fake = new FakeCluster(1);
    const cluster = await openTo(fake);
    const before = fake.sent.length;
    const { outcome, ranInside } = viaCallback(cluster, 1, () => {
      throw new RangeError('no such record');
    });
    const failed = await outcome;
    expect(ranInside()).toBe(false);
    expect(failed).toMatchObject({ ok: false, context: 'the context' });
    expect(String((failed.value as Error).message)).toContain('no such record');
    expect(fake.sent.length).toBe(before);
  });

  it('sendToNodeCallback: on a connection without the callback form, it sends as sendToNode does', async () => {
    const fake = new FakeCluster(1);
    fake.callbacks = false;
    const cluster = await openTo(fake);
    const { outcome } = viaCallback(cluster, 1, (version) => ({ built: version }));
    expect(await outcome).toMatchObject({ ok: true, context: 'the context' });
    expect(fake.callbackSends).toBe(0);
    expect(sentOf(fake, 8).at(-1)).toMatchObject({ request: { built: 0 } });
  });

  it('picks the version, cuts the timeout to the operation and refuses an API the broker lacks', async () => {
    const fake = new FakeCluster(1);
    const cluster = await openTo(fake, { requestTimeoutMs: 1_500 });
    await cluster.sendToNode(1, OffsetCommitApi, {}, { operationTimeoutMs: 400 });
    const cut = sentOf(fake, 8).at(-1)?.timeoutMs ?? Number.NaN;
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThanOrEqual(400);
    await cluster.sendToNode(1, OffsetCommitApi, {}, { version: 2 });
    expect(sentOf(fake, 8).at(-1)?.version).toBe(2);
    fake.versions.set(0, -1);
    await expect(cluster.sendToNode(1, ProduceApi, {})).rejects.toMatchObject({
      code: 'ERR_KAFKA_VERSION_UNSUPPORTED',
      retriable: false,
    });
    expect(sentOf(fake, 0)).toEqual([]);
  });
});

describe('timeouts', () => {
  it('gives each attempt the request timeout, cut to what the operation has left', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { requestTimeoutMs: 1_500 });
    await cluster.sendAny(OffsetCommitApi, {});
    expect(sentOf(fake, 8).at(-1)?.timeoutMs).toBe(1_500);
    await cluster.sendAny(OffsetCommitApi, {}, { operationTimeoutMs: 400 });
    const cut = sentOf(fake, 8).at(-1)?.timeoutMs ?? Number.NaN;
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThanOrEqual(400);
    await cluster.sendAny(OffsetCommitApi, {}, { timeoutMs: 200 });
    expect(sentOf(fake, 8).at(-1)?.timeoutMs).toBe(200);
  });

  it('an operation that runs out of time throws one retriable error whose cause is the last attempt', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { requestTimeoutMs: 100 });
    let attempts = 0;
    fake.intercept = (_node, apiKey) => {
      if (apiKey !== 8) return undefined;
      attempts++;
      return new Promise((_resolve, reject) =>
        setTimeout(() => reject(new RequestTimeoutError('broker 1', 'OffsetCommit v9', 100)), 100),
      );
    };
    const error = await cluster
      .sendAny(OffsetCommitApi, {}, { operationTimeoutMs: 350, maxAttempts: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_OPERATION_TIMEOUT', retriable: true });
    expect((error as Error).cause).toBeInstanceOf(RequestTimeoutError);
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  it('sends no metadata refresh for a leader whose request used up the operation', async () => {
    const fake = new FakeCluster(2);
    fake.topics.set('t', spreadTopic(2, 1));
    const cluster = await connect(fake, { requestTimeoutMs: 5_000 });
    await cluster.refresh();
    const metadataBefore = sentOf(fake, 3).length;
    // The leader's answer never comes: the attempt is cut to the operation's 150 ms, and a
    // timed-out leader would call for a refresh, which no longer has any time to run in.
    fake.intercept = (_node, apiKey) => {
      if (apiKey !== 0) return undefined;
      const timeoutMs = sentOf(fake, 0).at(-1)?.timeoutMs ?? 0;
      return new Promise((_resolve, reject) =>
        setTimeout(
          () => reject(new RequestTimeoutError('broker 1', 'Produce', timeoutMs)),
          timeoutMs,
        ),
      );
    };
    const error = await cluster
      .sendToLeader('t', 0, ProduceApi, {}, { operationTimeoutMs: 150, maxAttempts: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect(sentOf(fake, 0)).toHaveLength(1);
    expect(sentOf(fake, 3)).toHaveLength(metadataBefore);
  });

  it('the same stall gives the same error class every time', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { requestTimeoutMs: 60 });
    fake.intercept = (_node, apiKey) =>
      apiKey === 8
        ? new Promise((_resolve, reject) =>
            setTimeout(() => reject(new RequestTimeoutError('broker 1', 'OffsetCommit', 60)), 60),
          )
        : undefined;
    const names = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const e = await cluster
        .sendAny(OffsetCommitApi, {}, { operationTimeoutMs: 60, maxAttempts: 3 })
        .catch((x: unknown) => x);
      names.add((e as Error).constructor.name);
    }
    expect([...names]).toEqual(['OperationTimeoutError']);
  });
});

describe('back-pressure and cancellation', () => {
  it('a full local queue is retried without a metadata refresh or a coordinator lookup', async () => {
    const fake = new FakeCluster(2);
    fake.topics.set('t', spreadTopic(2, 2));
    const cluster = await connect(fake);
    await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {});
    const metadataBefore = sentOf(fake, 3).length;
    const lookupsBefore = sentOf(fake, 10).length;
    let refusals = 0;
    fake.intercept = (_node, apiKey) => {
      if ((apiKey === 0 || apiKey === 8) && refusals < 4) {
        refusals++;
        return new BackpressureError('broker 1', 'queue full');
      }
      return undefined;
    };
    await cluster.sendToLeader('t', 0, ProduceApi, {});
    await cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {});
    expect(refusals).toBe(4);
    expect(sentOf(fake, 3).length).toBe(metadataBefore);
    expect(sentOf(fake, 10).length).toBe(lookupsBefore);
  });

  it('an abort ends the operation at once, also while it waits to retry', async () => {
    const fake = new FakeCluster(1);
    const cluster = await connect(fake, { retry: { backoffMs: 10_000, maxBackoffMs: 10_000 } });
    fake.intercept = (_node, apiKey) =>
      apiKey === 8 ? ProtocolError.fromCode(ErrorCode.REQUEST_TIMED_OUT, 'x') : undefined;
    const abort = new AbortController();
    const pending = cluster.sendAny(OffsetCommitApi, {}, { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 20));
    abort.abort(new Error('user left the page'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(sentOf(fake, 8)).toHaveLength(1);
  });
});

describe('dedicated connections', () => {
  it('openConnection opens a connection the pool does not share; sendOn picks its version', async () => {
    const fake = new FakeCluster(1);
    fake.versions.set(1, 15);
    const cluster = await connect(fake);
    const before = fake.connects.length;
    const dedicated = await cluster.openConnection(1);
    expect(fake.connects.length).toBe(before + 1);
    expect(fake.connects.at(-1)).toMatch(/dedicated/);
    const asked: number[] = [];
    await cluster.sendOn(dedicated, FetchApi, (v) => {
      asked.push(v);
      return {};
    });
    expect(asked).toEqual([15]);
    expect(await cluster.pool.get({ nodeId: 1 })).not.toBe(dedicated);
    await cluster.close();
    expect(dedicated.closed).toBe(true);
  });
});

describe('the read-only gate', () => {
  it('refuses a mutating request before it is built or sent, and lets reads through', async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    const cluster = await connect(fake, { readOnly: true });
    expect(cluster.readOnly).toBe(true);
    let built = 0;
    const error = await cluster
      .sendToLeader('t', 0, ProduceApi, () => {
        built++;
        return {};
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReadOnlyError);
    expect(error).toMatchObject({ code: 'ERR_KAFKA_READ_ONLY', retriable: false, apiKey: 0 });
    expect((error as Error).message).toMatch(/^Produce \(key 0\)/);
    expect(built).toBe(0);
    await expect(
      cluster.sendToCoordinator('group', 'g', OffsetCommitApi, {}),
    ).rejects.toBeInstanceOf(ReadOnlyError);
    // An API the table does not know is refused too.
    await expect(cluster.sendAny(fakeApi(9_999, 'FromTheFuture'), {})).rejects.toBeInstanceOf(
      ReadOnlyError,
    );
    const dedicated = await cluster.openConnection(1);
    await expect(cluster.sendOn(dedicated, ProduceApi, {})).rejects.toBeInstanceOf(ReadOnlyError);
    expect(sentOf(fake, 0)).toEqual([]);
    expect(sentOf(fake, 8)).toEqual([]);
    expect(sentOf(fake, 10)).toEqual([]); // not even the coordinator lookup
    // Reads go through.
    await cluster.sendToLeader('t', 0, FetchApi, {});
    await cluster.sendOn(dedicated, FetchApi, {});
    expect(sentOf(fake, 1)).toHaveLength(2);
  });

  it("holds on a connection from openConnection(): the connection's own send passes the gate", async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    const cluster = await connect(fake, { readOnly: true });
    const dedicated = await cluster.openConnection(1);
    const version = dedicated.negotiatedVersion(ProduceApi.apiKey) as number;
    await expect(dedicated.send(ProduceApi, {} as never, { version })).rejects.toBeInstanceOf(
      ReadOnlyError,
    );
    expect(sentOf(fake, 0)).toEqual([]);
    // Reads, and the connection's own state, are the connection's.
    const fetchVersion = dedicated.negotiatedVersion(FetchApi.apiKey) as number;
    await dedicated.send(FetchApi, {}, { version: fetchVersion });
    expect(sentOf(fake, 1)).toHaveLength(1);
    expect(dedicated.closed).toBe(false);
    await dedicated.close();
    expect(dedicated.closed).toBe(true);
    await cluster.close();
  });

  it('refuses a Metadata request that may create topics, and a Fetch sent as a replica, on every path', async () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 1));
    const cluster = await connect(fake, { readOnly: true });
    const sentBefore = sentOf(fake, MetadataApi.apiKey).length;
    const creating = MetadataApi.createRequest({
      topics: [{ topicId: ZERO_UUID, name: 'typo' }],
      allowAutoTopicCreation: true,
    });
    const dedicated = await cluster.openConnection(1);
    const v = dedicated.negotiatedVersion(MetadataApi.apiKey) as number;
    const refusals = [
      cluster.sendAny(MetadataApi, creating),
      cluster.sendToNode(1, MetadataApi, creating),
      cluster.sendOn(dedicated, MetadataApi, creating),
      dedicated.send(MetadataApi, creating, { version: v }),
      // Below v4 a named topic is created when auto-creation is on: no way to say otherwise.
      cluster.sendAny(MetadataApi, { ...creating, allowAutoTopicCreation: false }, { version: 3 }),
      cluster.sendToLeader('t', 0, FetchApi, { replicaId: 2 }),
      cluster.sendOn(dedicated, FetchApi, { replicaId: -1, replicaState: { replicaId: 2 } }),
    ];
    for (const r of await Promise.all(
      refusals.map((p) =>
        p.then(
          () => 'sent',
          (e: unknown) => e,
        ),
      ),
    )) {
      expect(r).toBeInstanceOf(ReadOnlyError);
      expect((r as Error).message).toMatch(/may create the topics it names|as a replica's fetch/);
    }
    expect(sentOf(fake, MetadataApi.apiKey).length).toBe(sentBefore);
    expect(sentOf(fake, FetchApi.apiKey)).toEqual([]);
    // The same requests without the mutation are reads.
    await cluster.sendAny(MetadataApi, { ...creating, allowAutoTopicCreation: false });
    await dedicated.send(
      MetadataApi,
      { ...creating, allowAutoTopicCreation: false },
      { version: v },
    );
    expect(sentOf(fake, MetadataApi.apiKey).length).toBe(sentBefore + 2);
    await cluster.close();
  });
});

describe('leader hints (KIP-951)', () => {
  it('moves a partition to the hinted leader without a Metadata request, learning its address', async () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 3, 4));
    const cluster = await connect(fake);
    const metadataBefore = sentOf(fake, 3).length;
    const moved = cluster.applyLeaderHints(
      [{ topic: 't', partition: 0, leaderId: 3, leaderEpoch: 5 }],
      [{ nodeId: 3, host: '127.0.0.1', port: 9003, rack: null }],
    );
    expect(moved).toBe(1);
    expect(cluster.snapshot().partition('t', 0)).toMatchObject({ leader: 3, leaderEpoch: 5 });
    expect(sentOf(fake, 3).length).toBe(metadataBefore);
    expect((await cluster.sendToLeader('t', 0, ProduceApi, {})).servedBy).toBe(3);
    expect(sentOf(fake, 3).length).toBe(metadataBefore);
  });

  it('never goes back in epoch, and ignores a leader whose address nobody knows', async () => {
    const fake = new FakeCluster(2);
    fake.topics.set('t', spreadTopic(2, 2, 7));
    const cluster = await connect(fake);
    const before = cluster.snapshot();
    expect(
      cluster.applyLeaderHints([
        { topic: 't', partition: 0, leaderId: 2, leaderEpoch: 6 }, // older
        { topic: 't', partition: 0, leaderId: 2, leaderEpoch: 7 }, // same
        { topic: 't', partition: 1, leaderId: 9, leaderEpoch: 8 }, // unknown broker, no endpoint
        { topic: 't', partition: 1, leaderId: -1, leaderEpoch: 8 }, // no leader
        { topic: 'other', partition: 0, leaderId: 1, leaderEpoch: 99 }, // unknown topic
      ]),
    ).toBe(0);
    expect(cluster.snapshot()).toBe(before);
  });
});

describe('batched coordinator lookups (KIP-699)', () => {
  it('concurrent lookups of several groups ride one FindCoordinator v4+ request', async () => {
    const fake = new FakeCluster(3);
    fake.versions.set(10, 6);
    const cluster = await connect(fake);
    const groups = ['g1', 'g2', 'g3', 'g4', 'g2'];
    const nodes = await Promise.all(groups.map((g) => cluster.coordinator('group', g)));
    expect(nodes).toEqual([2, 2, 2, 2, 2]);
    const lookups = sentOf(fake, 10);
    expect(lookups).toHaveLength(1);
    const request = lookups[0]?.request as { coordinatorKeys: string[] } | undefined;
    expect(request?.coordinatorKeys).toEqual(['g1', 'g2', 'g3', 'g4']);
  });

  it('each key keeps its own answer: one key failing does not fail the others', async () => {
    const fake = new FakeCluster(3);
    fake.versions.set(10, 6);
    const cluster = await connect(fake);
    fake.intercept = (_node, apiKey, request) => {
      if (apiKey !== 10) return undefined;
      const keys = (request as { coordinatorKeys: string[] }).coordinatorKeys;
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        nodeId: 0,
        host: '',
        port: 0,
        coordinators: keys.map((key) =>
          key === 'forbidden'
            ? { key, nodeId: -1, host: '', port: -1, errorCode: 30, errorMessage: 'no' }
            : { key, nodeId: 3, host: '127.0.0.1', port: 9003, errorCode: 0, errorMessage: null },
        ),
      };
    };
    const [ok, denied] = await Promise.allSettled([
      cluster.coordinator('group', 'fine'),
      cluster.coordinator('group', 'forbidden'),
    ]);
    expect(ok).toEqual({ status: 'fulfilled', value: 3 });
    expect(denied).toMatchObject({
      status: 'rejected',
      reason: { errorName: 'GROUP_AUTHORIZATION_FAILED' },
    });
    expect(sentOf(fake, 10)).toHaveLength(1);
  });

  it('below v4 each key gets its own request', async () => {
    const fake = new FakeCluster(3);
    fake.versions.set(10, 3);
    const cluster = await connect(fake);
    await Promise.all(['a', 'b', 'c'].map((g) => cluster.coordinator('group', g)));
    expect(sentOf(fake, 10).map((s) => (s.request as { key: string }).key)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});

describe('rebootstrap (KIP-899, KIP-1102)', () => {
  it('REBOOTSTRAP_REQUIRED makes the cluster forget the brokers it learnt and start over from bootstrap', async () => {
    const fake = new FakeCluster(2);
    const cluster = await connect(fake);
    await cluster.sendToNode(2, OffsetCommitApi, {});
    let told = false;
    fake.intercept = (_node, apiKey) => {
      if (apiKey !== 8 || told) return undefined;
      told = true;
      return { errorCode: ErrorCode.REBOOTSTRAP_REQUIRED, servedBy: 2 };
    };
    const connectsBefore = fake.connects.length;
    expect((await cluster.sendToNode(2, OffsetCommitApi, {})).servedBy).toBe(2);
    const after = fake.connects.slice(connectsBefore);
    // The next metadata came through a bootstrap address, then the node was dialled again.
    expect(after[0]).toMatch(/^bootstrap /);
    expect(after).toContain('broker 2 (127.0.0.1:9002)');
  });

  it('no metadata for the trigger period sends the next refresh through bootstrap', async () => {
    const fake = new FakeCluster(2);
    const cluster = await connect(fake, { metadataRecoveryRebootstrapTriggerMs: 30 });
    await cluster.sendToNode(1, OffsetCommitApi, {});
    await new Promise((r) => setTimeout(r, 60));
    const connectsBefore = fake.connects.length;
    await cluster.refresh();
    expect(fake.connects.slice(connectsBefore)[0]).toMatch(/^bootstrap /);
  });

  it("with 'none', a cluster whose known brokers are all down never dials bootstrap again", async () => {
    const fake = new FakeCluster(2);
    const cluster = await connect(fake, {
      metadataRecoveryStrategy: 'none',
      retry: { maxAttempts: 2 },
    });
    for (const b of fake.brokers) b.up = false;
    for (const id of [1, 2]) fake.drop(id);
    const connectsBefore = fake.connects.length;
    await expect(cluster.refresh()).rejects.toMatchObject({ retriable: true });
    expect(fake.connects.slice(connectsBefore).some((c) => c.startsWith('bootstrap'))).toBe(false);
  });
});
