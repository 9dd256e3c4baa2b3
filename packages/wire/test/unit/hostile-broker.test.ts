import { MetadataApi } from '@kafkats/codec';
import {
  type FakeBroker,
  type FakeBrokerConnection,
  hostileFrames,
  type RawRequest,
  startFaultProxy,
} from '@kafkats/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BrokerConnection,
  type BrokerConnectionOptions,
  ConnectionError,
  type DisconnectEvent,
  RequestTimeoutError,
} from '../../src/index.js';
import { encodeResponse, startCodecBroker } from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const metadataRequest = () =>
  MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

type Misbehaviour = (raw: RawRequest, conn: FakeBrokerConnection) => void;

/** A broker that negotiates normally, then answers Metadata number `n` with `bad`. */
async function brokerThatMisbehaves(bad: Misbehaviour): Promise<FakeBroker> {
  let metadataCount = 0;
  const broker = await startCodecBroker((raw, conn, reply) => {
    if (raw.apiKey !== MetadataApi.apiKey) return;
    metadataCount++;
    if (metadataCount === 2) bad(raw, conn);
    else reply(MetadataApi, MetadataApi.createResponse({ clusterId: `ok-${metadataCount}` }));
  });
  cleanups.push(() => broker.close());
  return broker;
}

function connect(
  broker: { host: string; port: number },
  options: Partial<BrokerConnectionOptions> = {},
) {
  const c = new BrokerConnection({ host: broker.host, port: broker.port, nodeId: 1, ...options });
  cleanups.push(() => c.close());
  return c;
}

/** Sends Metadata #1 (fine), #2 (hostile) and then #3 on a new connection. */
async function expectCleanFailureAndRecovery(
  bad: Misbehaviour,
  code: string,
  message: RegExp,
  options: Partial<BrokerConnectionOptions> = {},
) {
  const broker = await brokerThatMisbehaves(bad);
  const c = connect(broker, options);
  const events: DisconnectEvent[] = [];
  c.on('disconnect', (e) => events.push(e));
  expect((await c.send(MetadataApi, metadataRequest())).clusterId).toBe('ok-1');
  const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConnectionError);
  expect(err).toMatchObject({ code, retriable: true });
  expect((err as Error).message).toMatch(message);
  expect(events).toHaveLength(1);
  expect(events[0]?.broker).toBe('broker 1 (127.0.0.1:' + broker.port + ')');
  // The process survived; this connection is closed for good, and a new one (the pool's next
  // dial) works.
  expect(c.closed).toBe(true);
  expect((await connect(broker, options).send(MetadataApi, metadataRequest())).clusterId).toBe(
    'ok-3',
  );
  expect(broker.connectionsAccepted).toBe(2);
}

describe('hostile broker frames', () => {
  it('negative length closes the connection with a clear error', async () => {
    await expectCleanFailureAndRecovery(
      (_raw, conn) => conn.write(hostileFrames.negativeLength()),
      'ERR_KAFKA_CONNECTION_DESYNC',
      /frame size -1 is invalid/,
    );
  });

  it('a 2 GiB length is refused before any allocation', async () => {
    await expectCleanFailureAndRecovery(
      (_raw, conn) => conn.write(hostileFrames.hugeLength()),
      'ERR_KAFKA_CONNECTION_FRAME_TOO_LARGE',
      /2147483647 bytes exceeds maxResponseBytes 104857600/,
    );
  });

  it('a frame over maxResponseBytes closes the connection', async () => {
    await expectCleanFailureAndRecovery(
      (raw, conn) => {
        const big = MetadataApi.createResponse({ clusterId: 'x'.repeat(5000) });
        conn.write(encodeResponse(MetadataApi, raw.apiVersion, raw.correlationId, big));
      },
      'ERR_KAFKA_CONNECTION_FRAME_TOO_LARGE',
      /exceeds maxResponseBytes 4096/,
      { maxResponseBytes: 4096 },
    );
  });

  it('a truncated body followed by a close fails the request', async () => {
    await expectCleanFailureAndRecovery(
      (raw, conn) => {
        conn.write(hostileFrames.truncatedBody(raw.correlationId));
        conn.end();
      },
      'ERR_KAFKA_CONNECTION_LOST',
      /closed by the broker/,
    );
  });

  it('a wrong correlation id closes the connection (the stream is out of step)', async () => {
    await expectCleanFailureAndRecovery(
      (raw, conn) => conn.write(hostileFrames.wrongCorrelationId(raw.correlationId + 1000)),
      'ERR_KAFKA_CONNECTION_DESYNC',
      /correlation id \d+ but the oldest request in flight has \d+/,
    );
  });

  it('garbage bytes close the connection', async () => {
    await expectCleanFailureAndRecovery(
      (_raw, conn) => conn.write(hostileFrames.garbage(4096, 42)),
      expect.stringMatching(/ERR_KAFKA_CONNECTION_(DESYNC|FRAME_TOO_LARGE)/) as unknown as string,
      /frame|correlation/,
    );
  });

  it('a well-framed body that does not decode fails only that request', async () => {
    const broker = await brokerThatMisbehaves((raw, conn) =>
      conn.respond(raw.correlationId, Buffer.from([0, 1, 2])),
    );
    const c = connect(broker);
    await c.send(MetadataApi, metadataRequest());
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toMatchObject({
      code: expect.stringMatching(/^ERR_KAFKA_CODEC_/),
    });
    expect((await c.send(MetadataApi, metadataRequest())).clusterId).toBe('ok-3');
    expect(broker.connectionsAccepted).toBe(1);
  });

  it('a response with no request in flight closes the connection', async () => {
    const broker = await startCodecBroker((raw, conn, reply) => {
      if (raw.apiKey !== MetadataApi.apiKey) return;
      reply(MetadataApi, MetadataApi.createResponse({}));
      conn.write(hostileFrames.wrongCorrelationId(12345));
    });
    cleanups.push(() => broker.close());
    const c = connect(broker);
    const gone = new Promise<DisconnectEvent>((r) => c.once('disconnect', r));
    await c.send(MetadataApi, metadataRequest());
    expect((await gone).error.message).toMatch(/correlation id 12345 but no request in flight/);
  });
});

describe('faults through the TCP proxy', () => {
  async function proxied(options: Partial<BrokerConnectionOptions> = {}, hold = { on: false }) {
    const broker = await startCodecBroker((raw, _conn, reply) => {
      if (raw.apiKey === MetadataApi.apiKey && !hold.on) {
        reply(MetadataApi, MetadataApi.createResponse({ clusterId: 'via-proxy' }));
      }
    });
    cleanups.push(() => broker.close());
    const proxy = await startFaultProxy({ target: { host: broker.host, port: broker.port } });
    cleanups.push(() => proxy.close());
    const c = connect(proxy, options);
    return { broker, proxy, c };
  }

  it('a delayed link still works', async () => {
    const { proxy, c } = await proxied();
    proxy.delayMs = 30;
    expect((await c.send(MetadataApi, metadataRequest())).clusterId).toBe('via-proxy');
    expect(proxy.connectionsAccepted).toBe(1);
  });

  it('a cut in the middle of a response frame fails the request and closes the connection for good', async () => {
    const { proxy, c } = await proxied();
    await c.connect();
    proxy.cut('toClient', 10);
    const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true });
    // Dialling again is the pool's decision: this connection stays closed and says why.
    expect(c.state).toBe('closed');
    await expect(c.send(MetadataApi, metadataRequest())).rejects.toBe(err);
    const again = connect(proxy);
    expect((await again.send(MetadataApi, metadataRequest())).clusterId).toBe('via-proxy');
    expect(proxy.connectionsAccepted).toBe(2);
  });

  it('a corrupted correlation id is caught as a desync', async () => {
    const { proxy, c } = await proxied();
    await c.connect();
    proxy.corrupt('toClient', 5, 0x40); // byte 5 = second byte of the correlation id
    const err = await c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_DESYNC' });
  });

  it('a black hole ends in a request timeout that closes the connection, not a hang', async () => {
    const { proxy, c } = await proxied();
    await c.connect();
    proxy.blackhole = true;
    await expect(c.send(MetadataApi, metadataRequest(), { timeoutMs: 200 })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    expect(c.state).toBe('closed');
  });

  it('a dropped link fails every request in flight, emits one disconnect and closes', async () => {
    const hold = { on: false };
    const { broker, proxy, c } = await proxied({}, hold);
    await c.connect();
    hold.on = true;
    const events: DisconnectEvent[] = [];
    c.on('disconnect', (e) => events.push(e));
    const closes: (Error | undefined)[] = [];
    c.onClose((e) => closes.push(e));
    const inFlight = [1, 2, 3].map(() =>
      c.send(MetadataApi, metadataRequest()).catch((e: unknown) => e),
    );
    while (broker.requests.filter((r) => r.apiKey === MetadataApi.apiKey).length < 3) {
      await new Promise((r) => setTimeout(r, 5));
    }
    proxy.dropAll();
    for (const err of await Promise.all(inFlight)) {
      expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true });
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ nodeId: 1, inFlight: 3 });
    expect(closes).toHaveLength(1);
    expect(closes[0]).toBe(events[0]?.error);
    expect(c.closed).toBe(true);
    hold.on = false;
    const again = connect(proxy);
    expect((await again.send(MetadataApi, metadataRequest())).clusterId).toBe('via-proxy');
    expect(proxy.connectionsAccepted).toBe(2);
  });

  it('a broker that refuses connections fails the connect at once with a retriable error', async () => {
    const { proxy, c } = await proxied();
    proxy.refuse = true;
    const err = await c
      .send(MetadataApi, metadataRequest(), { timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_FAILED', retriable: true });
    expect(c.state).toBe('closed');
  });
});
