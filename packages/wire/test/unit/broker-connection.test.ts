import { inspect } from 'node:util';
import {
  ApiVersionsApi,
  type ApiVersionsRequest,
  createMetadataResponseTopic,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  encodeRequestFrame,
  MetadataApi,
  ProduceApi,
  SaslAuthenticateApi,
  type SaslAuthenticateRequest,
  SaslHandshakeApi,
} from '@kafkats/codec';
import { type FakeBroker, startFakeBroker, startFaultProxy } from '@kafkats/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AbortedError,
  AuthenticationError,
  BackpressureError,
  BrokerConnection,
  type BrokerConnectionOptions,
  ConnectionError,
  type ConnectionState,
  type DisconnectEvent,
  RequestTimeoutError,
  UnsupportedVersionError,
} from '../../src/index.js';
import {
  allApiKeys,
  decodeRequest,
  encodeResponse,
  startCodecBroker,
} from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function connectionTo(
  broker: FakeBroker,
  options: Partial<BrokerConnectionOptions> = {},
): BrokerConnection {
  const c = new BrokerConnection({ host: broker.host, port: broker.port, nodeId: 7, ...options });
  cleanups.push(() => c.close());
  return c;
}

async function track<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const t = await thing;
  cleanups.push(() => t.close());
  return t;
}

const metadataRequest = () =>
  MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

/** A broker that answers Metadata with an empty cluster named after the correlation id. */
function answeringBroker() {
  return track(
    startCodecBroker((raw, _conn, reply) => {
      if (raw.apiKey === MetadataApi.apiKey) {
        reply(MetadataApi, MetadataApi.createResponse({ clusterId: `c${raw.correlationId}` }));
      }
    }),
  );
}

describe('BrokerConnection: connect and negotiate', () => {
  it('sends ApiVersions with the client software name, negotiates, then serves requests', async () => {
    const broker = await answeringBroker();
    const c = connectionTo(broker, {
      clientSoftwareName: 'kafkats-test',
      clientSoftwareVersion: '9.9.9',
    });
    const states: ConnectionState[] = [];
    c.on('state', (s) => states.push(s));
    const res = await c.send(MetadataApi, metadataRequest());
    expect(res.clusterId).toMatch(/^c\d+$/);
    expect(states).toEqual(['connecting', 'negotiating', 'ready']);
    const first = broker.requests[0];
    if (first === undefined) throw new Error('no request');
    expect(first.apiKey).toBe(ApiVersionsApi.apiKey);
    expect(first.apiVersion).toBe(ApiVersionsApi.maxVersion);
    const av = decodeRequest(first).body as ApiVersionsRequest;
    expect(av.clientSoftwareName).toBe('kafkats-test');
    expect(av.clientSoftwareVersion).toBe('9.9.9');
    expect(c.negotiatedVersion(MetadataApi.apiKey)).toBe(MetadataApi.maxVersion);
    expect(c.capabilities?.range(MetadataApi.apiKey)?.maxVersion).toBe(MetadataApi.maxVersion);
    expect(broker.requests[1]?.apiVersion).toBe(MetadataApi.maxVersion);
  });

  it('falls back to the ApiVersions version the broker states on UNSUPPORTED_VERSION', async () => {
    const broker = await track(
      startCodecBroker((raw, conn, reply) => {
        if (raw.apiKey === ApiVersionsApi.apiKey) return;
        if (raw.apiKey === MetadataApi.apiKey) reply(MetadataApi, MetadataApi.createResponse({}));
        void conn;
      }),
    );
    // Like a Kafka 2.4+ broker that only knows ApiVersions v0-2: a v0 body with error 35.
    broker.setHandler((raw, conn) => {
      if (raw.apiKey === ApiVersionsApi.apiKey) {
        if (raw.apiVersion > 2) {
          const body = ApiVersionsApi.createResponse({
            errorCode: 35,
            apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }],
          });
          conn.write(encodeResponse(ApiVersionsApi, 0, raw.correlationId, body));
        } else {
          const keys = allApiKeys({
            18: { minVersion: 0, maxVersion: 2 },
            3: { minVersion: 0, maxVersion: 9 },
          });
          conn.write(
            encodeResponse(
              ApiVersionsApi,
              raw.apiVersion,
              raw.correlationId,
              ApiVersionsApi.createResponse({ apiKeys: keys }),
            ),
          );
        }
      } else if (raw.apiKey === MetadataApi.apiKey) {
        conn.write(
          encodeResponse(
            MetadataApi,
            raw.apiVersion,
            raw.correlationId,
            MetadataApi.createResponse({}),
          ),
        );
      }
    });
    const c = connectionTo(broker);
    const caps = await c.connect();
    expect(caps.apiVersionsVersion).toBe(2);
    expect(broker.requests.map((r) => `${r.apiKey}v${r.apiVersion}`)).toEqual([
      `18v${ApiVersionsApi.maxVersion}`,
      '18v2',
    ]);
    expect(c.negotiatedVersion(MetadataApi)).toBe(9);
    await c.send(MetadataApi, metadataRequest());
    expect(broker.requests[2]?.apiVersion).toBe(9);
  });

  it('refuses an API the broker does not offer, or a pinned version outside both ranges, before writing', async () => {
    const broker = await track(
      startCodecBroker(
        (raw, _c, reply) => {
          if (raw.apiKey === MetadataApi.apiKey) reply(MetadataApi, MetadataApi.createResponse({}));
        },
        allApiKeys({
          [ProduceApi.apiKey]: null,
          [MetadataApi.apiKey]: { minVersion: 4, maxVersion: 10 },
        }),
      ),
    );
    const c = connectionTo(broker);
    await c.connect();
    const produce = c.send(ProduceApi, ProduceApi.createRequest({ acks: -1 }));
    await expect(produce).rejects.toBeInstanceOf(UnsupportedVersionError);
    await expect(produce).rejects.toThrow(/broker 7 \(127\.0\.0\.1:\d+\) does not offer Produce/);
    await expect(c.send(MetadataApi, metadataRequest(), { version: 11 })).rejects.toThrow(
      /Metadata v11/,
    );
    await expect(c.send(MetadataApi, metadataRequest(), { version: 3 })).rejects.toMatchObject({
      code: 'ERR_KAFKA_VERSION_UNSUPPORTED',
    });
    await c.send(MetadataApi, metadataRequest(), { version: 5 });
    expect(broker.requests.map((r) => `${r.apiKey}v${r.apiVersion}`).slice(1)).toEqual(['3v5']);
  });

  it('refuses client software names the broker would reject (KIP-511 rule)', () => {
    const make = (o: Partial<BrokerConnectionOptions>) => () =>
      new BrokerConnection({ host: '127.0.0.1', port: 1, ...o });
    expect(make({ clientSoftwareName: 'kafka ts' })).toThrow(TypeError);
    expect(make({ clientSoftwareName: '-kafkats' })).toThrow(/clientSoftwareName/);
    expect(make({ clientSoftwareVersion: '1.0 beta' })).toThrow(/clientSoftwareVersion/);
    expect(
      make({ clientSoftwareName: 'kafkats-cli', clientSoftwareVersion: '1.2.3' }),
    ).not.toThrow();
  });

  it('renegotiates on every connection (a broker rolled back between two)', async () => {
    let metadataMax = 12;
    const broker = await track(startCodecBroker(() => {}));
    broker.setHandler((raw, conn) => {
      if (raw.apiKey === ApiVersionsApi.apiKey) {
        const keys = allApiKeys({ 3: { minVersion: 0, maxVersion: metadataMax } });
        conn.write(
          encodeResponse(
            ApiVersionsApi,
            raw.apiVersion,
            raw.correlationId,
            ApiVersionsApi.createResponse({ apiKeys: keys }),
          ),
        );
      } else {
        conn.write(
          encodeResponse(
            MetadataApi,
            raw.apiVersion,
            raw.correlationId,
            MetadataApi.createResponse({}),
          ),
        );
      }
    });
    const c = connectionTo(broker);
    await c.connect();
    expect(c.negotiatedVersion(MetadataApi)).toBe(12);
    metadataMax = 8;
    const gone = new Promise((r) => c.once('disconnect', r));
    broker.dropConnections();
    await gone;
    const next = connectionTo(broker);
    await next.send(MetadataApi, metadataRequest());
    expect(next.negotiatedVersion(MetadataApi)).toBe(8);
    expect(broker.requests.at(-1)?.apiVersion).toBe(8);
  });

  it('keeps the finalized feature levels the broker states (KIP-584)', async () => {
    const broker = await track(startCodecBroker(() => {}));
    broker.setHandler((raw, conn) => {
      conn.write(
        encodeResponse(
          ApiVersionsApi,
          raw.apiVersion,
          raw.correlationId,
          ApiVersionsApi.createResponse({
            apiKeys: allApiKeys(),
            finalizedFeaturesEpoch: 42n,
            finalizedFeatures: [
              { name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 },
              { name: 'group.version', minVersionLevel: 1, maxVersionLevel: 1 },
            ],
          }),
        ),
      );
    });
    const c = connectionTo(broker);
    expect(c.finalizedFeature('transaction.version')).toBeUndefined();
    const caps = await c.connect();
    expect(c.finalizedFeature('transaction.version')).toBe(2);
    expect(c.finalizedFeature('share.version')).toBeUndefined();
    expect(caps.finalizedFeaturesEpoch).toBe(42n);
    expect([...caps.finalizedFeatures]).toEqual([
      ['transaction.version', 2],
      ['group.version', 1],
    ]);
  });
});

describe('BrokerConnection: pipeline, coalescing, back-pressure', () => {
  it('coalesces a burst of requests into one write', async () => {
    const broker = await answeringBroker();
    const c = connectionTo(broker, { maxInFlight: 64 });
    await c.connect();
    const before = c.stats.writes;
    const burst = [];
    for (let i = 0; i < 50; i++) burst.push(c.send(MetadataApi, metadataRequest()));
    const results = await Promise.all(burst);
    expect(results).toHaveLength(50);
    expect(c.stats.writes - before).toBe(1);
    // Each response matched its own request: the broker echoed the correlation ids in order.
    const ids = results.map((r) => Number(r.clusterId?.slice(1)));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('keeps memory bounded under a flood to a stalled broker (wait policy)', async () => {
    const broker = await track(startCodecBroker(() => {})); // never answers Metadata
    const c = connectionTo(broker, {
      maxInFlight: 4,
      maxQueuedRequests: 10,
      requestTimeoutMs: 60_000,
    });
    await c.connect();
    const outcomes = { backpressure: 0, other: 0 };
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 10_000; i++) {
      pending.push(
        c.send(MetadataApi, metadataRequest()).catch((e: unknown) => {
          if (e instanceof BackpressureError) outcomes.backpressure++;
          else outcomes.other++;
        }),
      );
    }
    // Every refusal is immediate; the 4 sent requests reach the broker shortly.
    await vi.waitFor(() => expect(outcomes.backpressure).toBe(10_000 - 14), { timeout: 10_000 });
    await vi.waitFor(
      () => expect(broker.requests.filter((r) => r.apiKey === MetadataApi.apiKey)).toHaveLength(4),
      { timeout: 10_000 },
    );
    expect(c.inFlight).toBe(4);
    expect(c.queued).toBe(10);
    expect(c.stats.backpressureRejections).toBe(10_000 - 14);
    await c.close();
    await Promise.all(pending);
    expect(outcomes.other).toBe(14);
  });

  it('rejects at once when every slot is busy with the reject policy', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker, { maxInFlight: 2, queuePolicy: 'reject' });
    await c.connect();
    const a = c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    const b = c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toMatchObject({
      code: 'ERR_KAFKA_CONNECTION_BACKPRESSURE',
      retriable: true,
    });
    expect(c.inFlight).toBe(2);
    await c.close();
    expect(await a).toBeInstanceOf(ConnectionError);
    expect(await b).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED', retriable: false });
  });

  it('resolves Produce acks=0 on write without taking a slot', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker, { maxInFlight: 1 });
    await c.connect();
    const stalled = c.send(MetadataApi, metadataRequest()).catch(() => 'failed');
    const res = await c.send(ProduceApi, ProduceApi.createRequest({ acks: 0, timeoutMs: 1000 }));
    expect(res.responses).toEqual([]);
    expect(c.inFlight).toBe(1);
    const produce = await vi.waitFor(
      () => {
        const found = broker.requests.find((r) => r.apiKey === ProduceApi.apiKey);
        if (found === undefined) throw new Error('Produce not received yet');
        return found;
      },
      { timeout: 10_000 },
    );
    // Its id comes from the same counter as the slots': never one a pending request holds.
    expect(produce.correlationId).toBe(2);
    await c.close();
    expect(await stalled).toBe('failed');
  });
});

describe('BrokerConnection: zero-copy record batches', () => {
  it('sends a Produce request whose batches go by reference with the bytes of a copied frame', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker, { clientId: 'zero-copy' });
    await c.connect();
    const batches = [Buffer.alloc(40_000, 1), Buffer.alloc(100, 2), Buffer.alloc(90_000, 3)];
    const request = ProduceApi.createRequest({
      acks: 0,
      timeoutMs: 1000,
      topicData: [
        createProduceRequestTopicProduceData({
          name: 'orders',
          partitionData: batches.map((records, index) =>
            createProduceRequestPartitionProduceData({ index, records }),
          ),
        }),
      ],
    });
    const before = c.metrics.bytesOut;
    await c.send(ProduceApi, request);
    const version = c.negotiatedVersion(ProduceApi.apiKey) as number;
    const expected = encodeRequestFrame(ProduceApi, version, 1, 'zero-copy', request);
    const received = await vi.waitFor(
      () => {
        const found = broker.requests.find((r) => r.apiKey === ProduceApi.apiKey);
        if (found === undefined) throw new Error('Produce not received yet');
        return found;
      },
      { timeout: 10_000 },
    );
    // The correlation id is the connection's; everything else is the copied frame's bytes.
    expect(received.frame.length).toBe(expected.length - 4);
    expect(received.frame.subarray(8).equals(expected.subarray(12))).toBe(true);
    expect(c.metrics.bytesOut - before).toBe(expected.length);
  });
});

describe('BrokerConnection: settling every send', () => {
  // An acks=0 Produce settles when its frame is handed to the socket. A close() in the same
  // tick dropped the queued frame together with its callback, and the caller's promise never
  // settled: the send must fail with the teardown's error instead.
  it('close() right after an acks=0 Produce rejects it instead of leaving it pending', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker);
    await c.connect();
    const produce = c.send(ProduceApi, ProduceApi.createRequest({ acks: 0, timeoutMs: 1000 })).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await c.close();
    expect(await produce).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED', retriable: false });
    expect(broker.requests.some((r) => r.apiKey === ProduceApi.apiKey)).toBe(false);
  });

  // Requests with short timeouts queued behind one with a long timeout time out and are
  // marked dead, but stayed in the queue array (each holding its request) until the head
  // moved: a stalled broker and a steady trickle of short sends grew memory without bound.
  it('timed-out queued requests behind a long-waiting head do not pile up', async () => {
    const broker = await track(startCodecBroker(() => {})); // never answers Metadata
    const c = connectionTo(broker, {
      maxInFlight: 1,
      maxQueuedRequests: 4,
      requestTimeoutMs: 3_600_000,
    });
    await c.connect();
    const settled: Promise<unknown>[] = [];
    settled.push(c.send(MetadataApi, metadataRequest()).catch(() => {})); // in flight
    settled.push(c.send(MetadataApi, metadataRequest()).catch(() => {})); // queued, 1 h
    let timedOut = 0;
    for (let round = 0; round < 100; round++) {
      const batch = [1, 2, 3].map(() =>
        c.send(MetadataApi, metadataRequest(), { timeoutMs: 1 }).catch((e: unknown) => {
          if (e instanceof RequestTimeoutError) timedOut++;
        }),
      );
      await Promise.all(batch);
    }
    expect(timedOut).toBe(300);
    expect(c.queued).toBe(1);
    // The private queue array is what holds the memory; it stays near maxQueuedRequests.
    const backing = (c as unknown as { queue: { items: unknown[] } }).queue.items;
    expect(backing.length).toBeLessThanOrEqual(2 * 4 + 64 + 1);
    await c.close();
    await Promise.all(settled);
  });
});

describe('BrokerConnection: sendCallback', () => {
  it('hands each answer to the one handler with its own context, in order, queued ones too', async () => {
    const broker = await answeringBroker();
    const c = connectionTo(broker, { maxInFlight: 2 });
    await c.connect();
    const seen: [string, number][] = [];
    const failures: unknown[] = [];
    const onResponse = (r: { clusterId: string | null }, n: number) =>
      seen.push([r.clusterId ?? '', n]);
    for (let n = 0; n < 5; n++) {
      c.sendCallback(
        MetadataApi,
        metadataRequest(),
        undefined,
        onResponse,
        (e) => failures.push(e),
        n,
      );
    }
    expect(c.queued).toBe(3);
    await vi.waitFor(() => expect(seen).toHaveLength(5), { timeout: 10_000 });
    expect(seen.map(([, n]) => n)).toEqual([0, 1, 2, 3, 4]);
    // Each answer is its own request's: the broker named the cluster after the correlation id.
    const ids = seen.map(([id]) => Number(id.slice(1)));
    expect(new Set(ids).size).toBe(5);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(failures).toEqual([]);
  });

  it('reports a timeout and the teardown behind it once the connection has closed, and a refusal after the call', async () => {
    const broker = await track(startCodecBroker(() => {})); // never answers Metadata
    const c = connectionTo(broker);
    await c.connect();
    const failed: { context: string; code: unknown; state: ConnectionState }[] = [];
    const onError = (e: unknown, context: string) =>
      failed.push({ context, code: (e as { code?: unknown }).code, state: c.state });
    const ignore = () => {};
    c.sendCallback(MetadataApi, metadataRequest(), { timeoutMs: 100 }, ignore, onError, 'first');
    c.sendCallback(
      MetadataApi,
      metadataRequest(),
      { timeoutMs: 60_000 },
      ignore,
      onError,
      'behind',
    );
    await vi.waitFor(() => expect(failed).toHaveLength(2), { timeout: 10_000 });
    expect(failed).toEqual([
      { context: 'first', code: 'ERR_KAFKA_REQUEST_TIMEOUT', state: 'closed' },
      { context: 'behind', code: 'ERR_KAFKA_CONNECTION_LOST', state: 'closed' },
    ]);
    let inside = true;
    let ranInside = false;
    c.sendCallback(
      MetadataApi,
      metadataRequest(),
      undefined,
      ignore,
      (e, context: string) => {
        ranInside ||= inside;
        onError(e, context);
      },
      'refused',
    );
    inside = false;
    await vi.waitFor(() => expect(failed).toHaveLength(3), { timeout: 10_000 });
    expect(ranInside).toBe(false);
    expect(failed[2]).toEqual({
      context: 'refused',
      code: 'ERR_KAFKA_CONNECTION_LOST',
      state: 'closed',
    });
  });

  it('rethrows what a handler throws on the next tick, and reads the next answer', async () => {
    const broker = await answeringBroker();
    const c = connectionTo(broker);
    await c.connect();
    const thrown: unknown[] = [];
    const nextTick = process.nextTick.bind(process);
    vi.spyOn(process, 'nextTick').mockImplementation((fn, ...args) =>
      nextTick(() => {
        try {
          (fn as (...a: unknown[]) => void)(...args);
        } catch (error) {
          thrown.push(error);
        }
      }),
    );
    const oops = new Error('a handler that throws');
    const answered: number[] = [];
    const onResponse = (_r: unknown, n: number) => {
      answered.push(n);
      if (n === 0) throw oops;
    };
    c.sendCallback(MetadataApi, metadataRequest(), undefined, onResponse, () => {}, 0);
    c.sendCallback(MetadataApi, metadataRequest(), undefined, onResponse, () => {}, 1);
    await vi.waitFor(() => expect(thrown).toEqual([oops]), { timeout: 10_000 });
    vi.restoreAllMocks();
    expect(answered).toEqual([0, 1]);
    expect(c.state).toBe('ready');
  });
});

describe('BrokerConnection: timeouts, aborts and late responses', () => {
  it('discards a late response to an aborted request whole and parses the next one', async () => {
    const held: { id: number; version: number; write: (b: Buffer) => void }[] = [];
    const broker = await track(
      startCodecBroker((raw, conn, reply) => {
        if (raw.apiKey !== MetadataApi.apiKey) return;
        if (held.length === 0) {
          held.push({ id: raw.correlationId, version: raw.apiVersion, write: conn.write });
          return;
        }
        // First the late answer to the held request (a big one, to prove it is skipped whole)...
        const late = held[0];
        if (late === undefined) return;
        const topics = Array.from({ length: 200 }, (_, i) =>
          createMetadataResponseTopic({ name: `late-${i}` }),
        );
        conn.write(
          encodeResponse(
            MetadataApi,
            late.version,
            late.id,
            MetadataApi.createResponse({ clusterId: 'late', topics }),
          ),
        );
        // ...then the answer to this one.
        reply(MetadataApi, MetadataApi.createResponse({ clusterId: 'fresh' }));
      }),
    );
    const c = connectionTo(broker);
    await c.connect();
    const abort = new AbortController();
    const first = c.send(MetadataApi, metadataRequest(), { signal: abort.signal });
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 10_000 });
    abort.abort(new Error('caller gave up'));
    await expect(first).rejects.toBeInstanceOf(AbortedError);
    await expect(first).rejects.toMatchObject({ code: 'ERR_KAFKA_ABORTED', retriable: false });
    expect(c.inFlight).toBe(1); // still on the wire: its answer must be read and dropped
    const second = await c.send(MetadataApi, metadataRequest(), { timeoutMs: 5000 });
    expect(second.clusterId).toBe('fresh');
    expect(c.stats.lateResponsesDiscarded).toBe(1);
    expect(c.inFlight).toBe(0);
    expect(c.state).toBe('ready');
    expect(broker.connectionsAccepted).toBe(1);
  });

  it('an abort while queued takes the request out of the queue; nothing is written', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker, { maxInFlight: 1 });
    await c.connect();
    const head = c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    const abort = new AbortController();
    const queued = c.send(MetadataApi, metadataRequest(), { signal: abort.signal });
    expect(c.queued).toBe(1);
    abort.abort();
    await expect(queued).rejects.toBeInstanceOf(AbortedError);
    expect(c.queued).toBe(0);
    await vi.waitFor(
      () => expect(broker.requests.some((r) => r.apiKey === MetadataApi.apiKey)).toBe(true),
      { timeout: 10_000 },
    );
    await c.close();
    expect(await head).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED' });
    expect(broker.requests.filter((r) => r.apiKey === MetadataApi.apiKey)).toHaveLength(1);
  });

  // Kafka answers a connection's requests in order, so every request behind one the broker
  // holds waits for it. Kafka's NetworkClient disconnects on a request timeout; so do we, and
  // the requests behind it fail as retriable at once instead of timing out one by one.
  it('a request timeout closes the connection and fails the requests behind it as retriable', async () => {
    const broker = await track(startCodecBroker(() => {})); // never answers Metadata
    const c = connectionTo(broker);
    await c.connect();
    const disconnects: DisconnectEvent[] = [];
    c.on('disconnect', (e) => disconnects.push(e));
    const first = c.send(MetadataApi, metadataRequest(), { timeoutMs: 100 });
    const behind = c.send(MetadataApi, metadataRequest(), { timeoutMs: 60_000 });
    await expect(first).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(first).rejects.toMatchObject({
      code: 'ERR_KAFKA_REQUEST_TIMEOUT',
      retriable: true,
    });
    await expect(behind).rejects.toMatchObject({
      code: 'ERR_KAFKA_CONNECTION_LOST',
      retriable: true,
    });
    expect(disconnects).toHaveLength(1);
    expect(disconnects[0]?.error.message).toMatch(
      /closed after Metadata v\d+ got no response in 100 ms/,
    );
    expect(c.state).toBe('closed');
    expect(c.stats.requestTimeouts).toBe(1);
    expect(c.inFlight).toBe(0);
  });

  it('closes the connection when an aborted request never gets its late response', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker);
    await c.connect();
    const abort = new AbortController();
    const sent = c.send(MetadataApi, metadataRequest(), { timeoutMs: 100, signal: abort.signal });
    abort.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortedError);
    await vi.waitFor(() => expect(c.state).toBe('closed'), { timeout: 10_000 });
    expect(c.inFlight).toBe(0);
  });

  it('times out a request queued behind a connect that never finishes its handshake', async () => {
    const broker = await track(startFakeBroker(() => {})); // accepts, never answers ApiVersions
    const c = connectionTo(broker, { requestTimeoutMs: 60_000 });
    const err = await c
      .send(MetadataApi, metadataRequest(), { timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(c.queued).toBe(0);
  });

  it('fails queued requests with the connect error when the broker cannot be reached', async () => {
    const c = new BrokerConnection({
      host: 'broker.invalid',
      port: 9092,
      requestTimeoutMs: 60_000,
      resolver: async () => {
        throw new Error('NXDOMAIN');
      },
    });
    cleanups.push(() => c.close());
    const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_FAILED', retriable: true });
    expect(String((err as Error).message)).toMatch(/NXDOMAIN/);
    expect(c.queued).toBe(0);
    expect(c.state).toBe('closed');
  });
});

describe('BrokerConnection: failures', () => {
  it('fails in-flight requests with a retriable ConnectionError naming the broker and closes for good', async () => {
    const broker = await track(
      startCodecBroker((raw, conn) => {
        if (raw.apiKey === MetadataApi.apiKey) conn.destroy();
      }),
    );
    const c = connectionTo(broker);
    const events: DisconnectEvent[] = [];
    c.on('disconnect', (e) => events.push(e));
    await c.connect();
    const lost = c.send(MetadataApi, metadataRequest());
    const err = await lost.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true });
    expect(String((err as Error).message)).toMatch(/^broker 7 \(127\.0\.0\.1:\d+\)/);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ nodeId: 7, inFlight: 1 });
    expect(events[0]?.broker).toBe(c.name);
    // No redial of its own: the connection reports the loss to every later caller.
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toBe(err);
    await expect(c.connect()).rejects.toBe(err);
    expect(broker.connectionsAccepted).toBe(1);
  });

  it('fails SASL authentication at once with the broker reason, no retry, no password', async () => {
    const password = 'hunter2-secret';
    const broker = await track(
      startCodecBroker((raw, conn, reply) => {
        if (raw.apiKey === SaslHandshakeApi.apiKey) {
          reply(
            SaslHandshakeApi,
            SaslHandshakeApi.createResponse({ mechanisms: ['PLAIN', 'SCRAM-SHA-512'] }),
          );
        } else if (raw.apiKey === SaslAuthenticateApi.apiKey) {
          reply(
            SaslAuthenticateApi,
            SaslAuthenticateApi.createResponse({
              errorCode: 58,
              errorMessage: 'Authentication failed: Invalid username or password',
            }),
          );
          conn.end();
        }
      }),
    );
    const c = connectionTo(broker, { sasl: { mechanism: 'PLAIN', username: 'alice', password } });
    const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_AUTHENTICATION_FAILED', retriable: false });
    expect((err as Error).message).toContain('Invalid username or password');
    expect((err as Error).message).not.toContain(password);
    expect(c.state).toBe('closed');
    await new Promise((r) => setTimeout(r, 100));
    expect(broker.connectionsAccepted).toBe(1);
    expect(broker.requests.filter((r) => r.apiKey === SaslAuthenticateApi.apiKey)).toHaveLength(1);
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toBe(err);
  });

  it('keeps credentials out of util.inspect (a logged connection leaks nothing)', () => {
    const c = new BrokerConnection({
      host: '127.0.0.1',
      port: 1,
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'pa55-secret' },
      tls: { key: 'PRIVATE-KEY-PEM', passphrase: 'key-pass' },
    });
    const shown = inspect(c, { depth: 10, showHidden: true }) + JSON.stringify(c);
    expect(shown).not.toContain('pa55-secret');
    expect(shown).not.toContain('PRIVATE-KEY-PEM');
    expect(shown).not.toContain('key-pass');
  });

  it('refuses a mechanism the broker does not enable', async () => {
    const broker = await track(
      startCodecBroker((raw, _conn, reply) => {
        if (raw.apiKey === SaslHandshakeApi.apiKey) {
          reply(
            SaslHandshakeApi,
            SaslHandshakeApi.createResponse({ errorCode: 33, mechanisms: ['SCRAM-SHA-512'] }),
          );
        }
      }),
    );
    const c = connectionTo(broker, { sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } });
    await expect(c.connect()).rejects.toMatchObject({
      code: 'ERR_KAFKA_AUTHENTICATION_MECHANISM',
      message: expect.stringContaining('SCRAM-SHA-512'),
    });
  });

  it('authenticates with PLAIN and re-authenticates on the same socket before the session expires (KIP-368)', async () => {
    const tokens: string[] = [];
    const broker = await track(
      startCodecBroker((raw, _conn, reply) => {
        if (raw.apiKey === SaslHandshakeApi.apiKey) {
          reply(SaslHandshakeApi, SaslHandshakeApi.createResponse({ mechanisms: ['PLAIN'] }));
        } else if (raw.apiKey === SaslAuthenticateApi.apiKey) {
          tokens.push(
            (decodeRequest(raw).body as SaslAuthenticateRequest).authBytes.toString('utf8'),
          );
          reply(
            SaslAuthenticateApi,
            SaslAuthenticateApi.createResponse({ sessionLifetimeMs: 300n }),
          );
        } else if (raw.apiKey === MetadataApi.apiKey) {
          reply(MetadataApi, MetadataApi.createResponse({}));
        }
      }),
    );
    const c = connectionTo(broker, {
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'pw' },
    });
    await c.connect();
    expect(tokens).toEqual(['\0alice\0pw']);
    for (let i = 0; i < 40 && tokens.length < 2; i++) {
      await c.send(MetadataApi, metadataRequest());
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    expect(broker.connectionsAccepted).toBe(1);
    await c.send(MetadataApi, metadataRequest());
    expect(c.state).toBe('ready');
  });
});

describe('BrokerConnection: close', () => {
  it('close() while negotiating fails queued requests with a non-retriable CLOSED', async () => {
    const broker = await track(startCodecBroker(() => {}));
    broker.setHandler(() => {}); // never answers ApiVersions
    const c = connectionTo(broker);
    const pending = c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    while (c.state !== 'negotiating') await new Promise((r) => setTimeout(r, 5));
    await c.close();
    expect(await pending).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED', retriable: false });
    expect(c.state).toBe('closed');
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toMatchObject({
      code: 'ERR_KAFKA_CONNECTION_CLOSED',
    });
  });

  it('close({ retriable }) fails what is in flight with a retriable LOST, still a close by the caller', async () => {
    const broker = await track(startCodecBroker(() => {}));
    const c = connectionTo(broker);
    await c.connect();
    const events: DisconnectEvent[] = [];
    c.on('disconnect', (e) => events.push(e));
    const closes: (Error | undefined)[] = [];
    c.onClose((e) => closes.push(e));
    const inFlight = c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    await vi.waitFor(() => expect(c.pending).toBe(1));
    await c.close({ retriable: true, reason: 'broker 7 moved to 10.0.0.9:9092' });
    const err = await inFlight;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true });
    expect((err as Error).message).toContain(
      'closed by its owner: broker 7 moved to 10.0.0.9:9092',
    );
    expect(c.state).toBe('closed');
    expect(events).toEqual([]);
    expect(closes).toEqual([undefined]);
  });

  it('close() while resolving leaves no socket behind', async () => {
    const broker = await answeringBroker();
    const proxy = await track(
      startFaultProxy({ target: { host: broker.host, port: broker.port } }),
    );
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const c = new BrokerConnection({
      host: 'slow-dns.test',
      port: proxy.port,
      resolver: async () => {
        await gate;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const attempt = c.connect().catch((e: unknown) => e);
    await c.close();
    release();
    expect(await attempt).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED' });
    await new Promise((r) => setTimeout(r, 100));
    await vi.waitFor(() => expect(proxy.activeConnections).toBe(0), { timeout: 10_000 });
  });
});

describe('BrokerConnection: DNS', () => {
  it('tries IPv4 first: a name that resolves to ::1 first reaches a broker on 127.0.0.1 only', async () => {
    const broker = await answeringBroker();
    let calls = 0;
    const resolver = async (host: string) => {
      calls++;
      expect(host).toBe('kafka-1.test');
      return [
        { address: '::1', family: 6 as const },
        { address: '127.0.0.1', family: 4 as const },
      ];
    };
    const c = connectionTo(broker, { host: 'kafka-1.test', resolver });
    await c.send(MetadataApi, metadataRequest());
    expect(c.state).toBe('ready');
    // The next connection to the same name resolves it again (a broker may have moved).
    await connectionTo(broker, { host: 'kafka-1.test', resolver }).send(
      MetadataApi,
      metadataRequest(),
    );
    expect(calls).toBe(2);
  });

  it('tries every address until one answers', async () => {
    const broker = await answeringBroker();
    const c = connectionTo(broker, {
      host: 'kafka-2.test',
      resolver: async () => [
        { address: '127.0.0.2', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    await c.connect();
    expect(c.state).toBe('ready');
  });

  it('reports every address it tried when none answers', async () => {
    const broker = await answeringBroker();
    const port = broker.port;
    await broker.close();
    const c = new BrokerConnection({
      host: 'kafka-3.test',
      port,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    cleanups.push(() => c.close());
    const err = await c.connect().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_FAILED', retriable: true });
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect(c.state).toBe('closed');
  });
});
