/**
 * A hang where DNS is part of the transport: a broker advertised as `localhost`
 * resolved to the IPv6 loopback first, where nothing listened, and a pinned coordinator
 * connection waited forever. The fix has three parts, each pinned here: every address is
 * tried, IPv4 first; an address that accepts but never answers ends in a typed error within
 * the request timeout; and a dead address never blocks the next attempt (re-resolved).
 */
import { MetadataApi } from '@kafkats/codec';
import { startFaultProxy } from '@kafkats/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerConnection, ConnectionError } from '../../src/index.js';
import { startCodecBroker } from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const metadata = () => MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });

async function broker() {
  const b = await startCodecBroker((raw, _c, reply) => {
    if (raw.apiKey === MetadataApi.apiKey)
      reply(MetadataApi, MetadataApi.createResponse({ clusterId: 'v4' }));
  });
  cleanups.push(() => b.close());
  return b;
}

describe('regression: localhost resolving to ::1 first', () => {
  it('connects over IPv4 when the name answers ::1 first and the broker listens on 127.0.0.1 only', async () => {
    const b = await broker();
    const c = new BrokerConnection({
      host: 'localhost',
      port: b.port,
      resolver: async () => [
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    cleanups.push(() => c.close());
    expect((await c.send(MetadataApi, metadata())).clusterId).toBe('v4');
  });

  it('falls through to the next address when an IPv6-only answer is dead, on the next resolve', async () => {
    const b = await broker();
    let answers: { address: string; family: 4 | 6 }[] = [{ address: '::1', family: 6 }];
    const resolver = async () => answers;
    const c = new BrokerConnection({ host: 'localhost', port: b.port, resolver });
    cleanups.push(() => c.close());
    const first = await c.connect().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ConnectionError);
    expect(first).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_FAILED', retriable: true });
    expect((first as Error).message).toContain(`[::1]:${b.port}`);
    answers = [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    // The owner dials again with a new connection, which resolves the name afresh.
    const again = new BrokerConnection({ host: 'localhost', port: b.port, resolver });
    cleanups.push(() => again.close());
    expect((await again.send(MetadataApi, metadata(), { timeoutMs: 10_000 })).clusterId).toBe('v4');
  });

  it('an address that accepts and then says nothing ends in a typed error, not a hang', async () => {
    const b = await broker();
    const silent = await startFaultProxy({ target: { host: b.host, port: b.port } });
    cleanups.push(() => silent.close());
    silent.blackhole = true;
    const c = new BrokerConnection({
      host: 'localhost',
      port: silent.port,
      requestTimeoutMs: 300,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    cleanups.push(() => c.close());
    const err = await c.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toMatch(/ApiVersions v\d+ got no response in 300 ms/);
  });
});
