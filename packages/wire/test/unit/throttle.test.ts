import { API_DESCRIPTORS, MetadataApi } from '@kafkats/codec';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BrokerConnection,
  RequestTimeoutError,
  type RequestTraceContext,
  requestChannel,
} from '../../src/index.js';
import { clientThrottles, THROTTLED_API_NAMES } from '../../src/internal/throttle.js';
import { startCodecBroker } from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const metadataRequest = () =>
  MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

/**
 * A broker that answers Metadata at once, asking for `throttles[i]` ms of silence in its i-th
 * answer (0 after the list ends), as a broker over a client quota does since KIP-219.
 */
async function throttlingBroker(throttles: number[]) {
  let answered = 0;
  const broker = await startCodecBroker((raw, _conn, reply) => {
    if (raw.apiKey !== MetadataApi.apiKey) return;
    const throttleTimeMs = throttles[answered++] ?? 0;
    reply(
      MetadataApi,
      MetadataApi.createResponse({ clusterId: `c${raw.correlationId}`, throttleTimeMs }),
    );
  });
  cleanups.push(() => broker.close());
  return broker;
}

function connectionTo(broker: { host: string; port: number }, requestTimeoutMs = 30_000) {
  const c = new BrokerConnection({
    host: broker.host,
    port: broker.port,
    nodeId: 1,
    requestTimeoutMs,
  });
  cleanups.push(() => c.close());
  return c;
}

/** Every request trace context, collected while the test runs. */
function collectTraces(): RequestTraceContext[] {
  const seen: RequestTraceContext[] = [];
  const handlers = {
    start: (ctx: RequestTraceContext) => {
      seen.push(ctx);
    },
  };
  requestChannel.subscribe(handlers as never);
  cleanups.push(() => requestChannel.unsubscribe(handlers as never));
  return seen;
}

const metadataCount = (broker: { requests: readonly { apiKey: number }[] }) =>
  broker.requests.filter((r) => r.apiKey === MetadataApi.apiKey).length;

describe('KIP-219 throttling: the client sends nothing while the broker throttles it', () => {
  it('holds later requests in the queue, unwritten, until the throttle time has passed', async () => {
    const broker = await throttlingBroker([60_000]);
    const c = connectionTo(broker);
    await c.send(MetadataApi, metadataRequest());
    expect(c.throttledUntilMs).toBeGreaterThan(Date.now());
    const held = c.send(MetadataApi, metadataRequest());
    held.catch(() => {});
    // Written requests take a slot at once; this one waits in the queue instead.
    expect(c.inFlight).toBe(0);
    expect(c.queued).toBe(1);
    // A round trip on another connection to the same broker: the held request never arrived.
    const other = connectionTo(broker);
    await other.send(MetadataApi, metadataRequest());
    expect(metadataCount(broker)).toBe(2);
    expect(c.stats.throttles).toBe(1);
    expect(c.stats.throttleTimeMs).toBe(60_000);
    expect(c.metrics.snapshot()).toMatchObject({ throttles: 1, throttleTimeMs: 60_000 });
    await c.close();
    await expect(held).rejects.toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED' });
  });

  it('writes the held requests once the throttle ends, never before (trace timestamps)', async () => {
    const traces = collectTraces();
    const broker = await throttlingBroker([150]);
    const c = connectionTo(broker);
    await c.send(MetadataApi, metadataRequest());
    const answers = await Promise.all([
      c.send(MetadataApi, metadataRequest()),
      c.send(MetadataApi, metadataRequest()),
    ]);
    expect(answers).toHaveLength(2);
    const mine = traces.filter((t) => t.broker === c.name && t.api === 'Metadata');
    expect(mine).toHaveLength(3);
    const [first, ...rest] = mine as [RequestTraceContext, ...RequestTraceContext[]];
    expect(first.throttleTimeMs).toBe(150);
    expect(first.throttledUntil).toBeGreaterThan(first.writtenAt);
    for (const t of rest) {
      expect(t.throttleTimeMs).toBe(0);
      expect(t.throttledUntil).toBe(-1);
      expect(t.writtenAt).toBeGreaterThanOrEqual(first.throttledUntil);
    }
    expect(c.throttledUntilMs).toBe(0);
  });

  it('does not charge the throttle to the timeout of a request it holds', async () => {
    const broker = await throttlingBroker([400]);
    const c = connectionTo(broker, 100);
    await c.send(MetadataApi, metadataRequest());
    // Queued behind 400 ms of throttle with a 100 ms timeout: the clock starts at its end.
    const res = await c.send(MetadataApi, metadataRequest());
    expect(res.clusterId).toMatch(/^c\d+$/);
  });

  it('still times out a held request on its own clock once the throttle has ended', async () => {
    // The broker throttles, then never answers the next request.
    let answered = 0;
    const broker = await startCodecBroker((raw, _conn, reply) => {
      if (raw.apiKey !== MetadataApi.apiKey || answered++ > 0) return;
      reply(MetadataApi, MetadataApi.createResponse({ throttleTimeMs: 50 }));
    });
    cleanups.push(() => broker.close());
    const c = connectionTo(broker, 200);
    await c.send(MetadataApi, metadataRequest());
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
  });

  it('ignores throttleTimeMs at versions where the broker delayed the answer itself', async () => {
    const broker = await throttlingBroker([60_000]);
    const c = connectionTo(broker);
    // Metadata v5: the broker held the answer back before sending it (before KIP-219).
    await c.send(MetadataApi, metadataRequest(), { version: 5 });
    expect(c.throttledUntilMs).toBe(0);
    await c.send(MetadataApi, metadataRequest());
    expect(c.stats.throttles).toBe(0);
  });

  it('the table names only APIs the codec knows, with the versions of Kafka response classes', () => {
    const known = new Set(API_DESCRIPTORS.map((d) => d.name));
    for (const name of THROTTLED_API_NAMES) expect(known, name).toContain(name);
    const key = (name: string) => API_DESCRIPTORS.find((d) => d.name === name)?.apiKey ?? -1;
    // ProduceResponse.shouldClientThrottle: version >= 6; FetchResponse: >= 8.
    expect(clientThrottles(key('Produce'), 5)).toBe(false);
    expect(clientThrottles(key('Produce'), 6)).toBe(true);
    expect(clientThrottles(key('Fetch'), 7)).toBe(false);
    expect(clientThrottles(key('Fetch'), 8)).toBe(true);
    // An API whose response class keeps AbstractResponse's default never mutes.
    expect(clientThrottles(key('ConsumerGroupHeartbeat'), 0)).toBe(false);
    expect(clientThrottles(9_999, 0)).toBe(false);
  });
});
