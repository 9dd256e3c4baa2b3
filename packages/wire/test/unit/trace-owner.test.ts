import { MetadataApi } from '@kafkats/codec';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BrokerConnection,
  type ConnectTraceContext,
  connectChannel,
  type RequestTraceContext,
  requestChannel,
} from '../../src/index.js';
import { startCodecBroker } from '../helpers/codec-broker.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('trace owner: telling connections apart on the process-wide channels', () => {
  it("hands each connection's traceOwner and client id to its request and connect traces", async () => {
    const broker = await startCodecBroker((raw, _conn, reply) => {
      if (raw.apiKey === MetadataApi.apiKey) reply(MetadataApi, MetadataApi.createResponse({}));
    });
    cleanups.push(() => broker.close());
    const requests: RequestTraceContext[] = [];
    const connects: ConnectTraceContext[] = [];
    const onRequest = { start: (ctx: RequestTraceContext) => requests.push(ctx) };
    const onConnect = { start: (ctx: ConnectTraceContext) => connects.push(ctx) };
    requestChannel.subscribe(onRequest as never);
    connectChannel.subscribe(onConnect as never);
    cleanups.push(() => {
      requestChannel.unsubscribe(onRequest as never);
      connectChannel.unsubscribe(onConnect as never);
    });
    const ownerA = { name: 'producer A' };
    const a = new BrokerConnection({
      host: broker.host,
      port: broker.port,
      clientId: 'app-a',
      traceOwner: ownerA,
    });
    const b = new BrokerConnection({ host: broker.host, port: broker.port, clientId: 'app-b' });
    cleanups.push(() => a.close());
    cleanups.push(() => b.close());
    const request = MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });
    await a.send(MetadataApi, request);
    await b.send(MetadataApi, request);
    const metadata = requests.filter((r) => r.api === 'Metadata');
    expect(metadata.map((r) => [r.owner, r.clientId])).toEqual([
      [ownerA, 'app-a'],
      [undefined, 'app-b'],
    ]);
    expect(connects.map((c) => c.owner)).toEqual([ownerA, undefined]);
  });
});
