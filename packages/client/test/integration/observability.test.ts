// Tracing channels, metrics and logs against the shared 3-node Kafka cluster: what a subscriber
// to kafkats:request, kafkats:connect, kafkats:produce and kafkats:fetch is told about real
// requests, what the metrics snapshots say as requests are made, and what the logger is called
// with at which level.
import type { TracingChannel } from 'node:diagnostics_channel';
import { InitProducerIdApi, MetadataApi } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import { sharedCluster } from '@kafkats/testkit';
import {
  BrokerConnection,
  type ConnectTraceContext,
  connectChannel,
  type Logger,
  type RequestTraceContext,
  requestChannel,
  UnsupportedVersionError,
} from '@kafkats/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FetchTraceContext,
  fetchChannel,
  PartitionReader,
  Producer,
  type ProduceTraceContext,
  produceChannel,
} from '../../src/index.js';
import { readWhile, unique } from './support.js';

type EventName = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** Every event of one tracing channel, with the context it carried. */
function record<C extends object>(channel: TracingChannel<unknown, C>) {
  const events: { name: EventName; context: C; snapshot: C }[] = [];
  const on = (name: EventName) => (message: unknown) => {
    const context = message as C;
    events.push({ name, context, snapshot: { ...context } });
  };
  const handlers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  };
  channel.subscribe(handlers);
  return {
    events,
    /** Contexts whose trace finished (asyncEnd seen). */
    finished: () => events.filter((e) => e.name === 'asyncEnd').map((e) => e.context),
    stop: () => channel.unsubscribe(handlers),
  };
}

interface LogLine {
  level: keyof Logger;
  fields: Record<string, unknown>;
  message: string;
}

function spyLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: keyof Logger) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return {
    lines,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

const shared = sharedCluster();
const requests = record<RequestTraceContext>(requestChannel);
const connects = record<ConnectTraceContext>(connectChannel);
const produces = record<ProduceTraceContext>(produceChannel);
const fetches = record<FetchTraceContext>(fetchChannel);
const log = spyLogger();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(shared.bootstrap, { logger: log.logger, refreshIntervalMs: 0 });
});

afterAll(async () => {
  for (const r of [requests, connects, produces, fetches]) r.stop();
  await cluster?.close();
});

/** Polls `check` until it holds or `guardMs` passes (a guard against hanging, not a timing check). */
async function eventually(check: () => boolean, guardMs = 60_000): Promise<void> {
  const until = Date.now() + guardMs;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}

describe('tracing channels, metrics and logs', () => {
  it('traces each connect with the address reached, and each request with its api, version, broker and bytes', async () => {
    const ok = connects.finished().filter((c) => c.outcome === 'ok');
    expect(ok.length).toBeGreaterThan(0);
    for (const c of ok) {
      expect(c.address).toMatch(/^[\d.[\]:a-f]+:\d+$/);
      expect(c.address?.endsWith(`:${c.port}`)).toBe(true);
      expect(c.tls).toBe(false);
      expect(c.saslMechanism).toBeNull();
      expect(c.durationMs).toBeGreaterThanOrEqual(0);
    }
    // Every connect trace has its start and its end, on the same context object.
    for (const c of connects.finished()) {
      expect(connects.events.some((e) => e.name === 'start' && e.context === c)).toBe(true);
    }

    const snapshot = await cluster.refresh();
    const metadata = requests.finished().filter((r) => r.api === 'Metadata');
    expect(metadata.length).toBeGreaterThanOrEqual(2);
    const brokerIds = snapshot.brokers.map((b) => b.nodeId);
    for (const r of metadata) {
      expect(r.apiKey).toBe(MetadataApi.apiKey);
      expect(r.outcome).toBe('ok');
      expect(r.errorCode).toBe(0);
      expect(r.correlationId).toBeGreaterThanOrEqual(0);
      expect(r.bytesOut).toBeGreaterThan(20);
      expect(r.bytesIn).toBeGreaterThan(r.bytesOut);
      expect(r.nodeId === -1 || brokerIds.includes(r.nodeId)).toBe(true);
      expect(r.broker).toContain(`${r.host}:${r.port}`);
    }
    // The version is the one the connection negotiated with that broker.
    const last = metadata[metadata.length - 1] as RequestTraceContext;
    const connection = await cluster.pool.get(
      last.nodeId === -1 ? { bootstrap: `${last.host}:${last.port}` } : { nodeId: last.nodeId },
    );
    expect(last.version).toBe(connection.negotiatedVersion(MetadataApi.apiKey));
    // The start event is published before the request is written: version and id not known yet.
    const start = requests.events.find((e) => e.name === 'start' && e.context === last);
    expect(start?.snapshot.correlationId).toBe(-1);
    expect(start?.snapshot.api).toBe('Metadata');
  });

  it('traces a produce per batch and a fetch per answer, and the reader and producer metrics move', async () => {
    const topic = unique('observed');
    // The reader starts before the topic exists: it retries (logged at debug) until it does.
    const guard = new AbortController();
    const reader = new PartitionReader(cluster, {
      topic,
      partition: 0,
      startOffset: 0n,
      maxWaitMs: 200,
      retryBackoffMaxMs: 200,
      signal: guard.signal,
    });
    const reading = readWhile(reader, (all) => all.flatMap((b) => b.records).length >= 5, {
      guard,
      guardMs: 90_000,
    });
    await eventually(() => log.lines.some((l) => l.message === 'retrying a fetch'));
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });

    const producer = new Producer(cluster, { lingerMs: 0 });
    const acks = await Promise.all(
      [1, 2, 3, 4, 5].map(() => producer.send({ topic, partition: 0, value: 'v' })),
    );
    const leader = cluster.snapshot().leaderFor(topic, 0);
    const batches = await reading;
    await reader.close();

    const produced = produces.finished().filter((p) => p.topic === topic && p.outcome === 'ok');
    expect(produced.reduce((n, p) => n + p.records, 0)).toBe(5);
    for (const p of produced) {
      expect(p.partition).toBe(0);
      expect(p.nodeId).toBe(leader);
      expect(p.bytes).toBeGreaterThan(61);
      expect(p.errorCode).toBe(0);
      expect(p.attempt).toBeGreaterThanOrEqual(1);
      expect(p.producerId).toBeGreaterThanOrEqual(0n);
      expect(acks.map((a) => a.offset)).toContain(p.baseOffset);
    }
    const produceRequests = requests.finished().filter((r) => r.api === 'Produce');
    expect(produceRequests.some((r) => r.nodeId === leader && r.outcome === 'ok')).toBe(true);

    const fetched = fetches.finished().filter((f) => f.topic === topic && f.outcome === 'ok');
    expect(fetched.reduce((n, f) => n + f.records, 0)).toBe(5);
    const withRecords = fetched.filter((f) => f.records > 0);
    expect(withRecords.length).toBeGreaterThan(0);
    for (const f of withRecords) {
      expect(f.nodeId).toBe(leader);
      expect(f.version).toBeGreaterThanOrEqual(12);
      expect(f.errorCode).toBe(0);
      expect(f.bytes).toBeGreaterThan(0);
      expect(f.highWatermark).toBe(5n);
      expect(f.lag).toBe(f.highWatermark - f.nextOffset);
    }
    expect(batches.flatMap((b) => b.records)).toHaveLength(5);

    const pm = producer.metrics();
    expect(pm.recordsAcked).toBe(5);
    expect(pm.batchesAcked).toBeGreaterThanOrEqual(1);
    expect(pm.batchesSent).toBeGreaterThanOrEqual(pm.batchesAcked);
    expect(pm.bytesSent).toBeGreaterThan(0);
    expect(pm.inFlightRequests).toBe(0);
    const rm = reader.metrics();
    expect(rm.records).toBe(5);
    expect(rm.position).toBe(5n);
    expect(rm.highWatermark).toBe(5n);
    expect(rm.lag).toBe(0n);
    expect(rm.retries).toBeGreaterThanOrEqual(1);
    await producer.close();

    const retry = log.lines.find((l) => l.message === 'retrying a fetch');
    expect(retry?.level).toBe('debug');
    expect(retry?.fields).toMatchObject({ topic, partition: 0 });
  });

  it('reports the error outcome of a request that fails, and a broker error code in the answer', async () => {
    const before = requests.finished().length;
    await expect(
      cluster.sendAny(MetadataApi, MetadataApi.createRequest({ topics: [] }), {
        version: 99,
        maxAttempts: 1,
      }),
    ).rejects.toBeInstanceOf(UnsupportedVersionError);
    const refused = requests.finished().slice(before);
    expect(refused).toHaveLength(1);
    const r = refused[0] as RequestTraceContext;
    expect(r).toMatchObject({ api: 'Metadata', outcome: 'error', version: -1, bytesOut: 0 });
    expect(r.error).toBeInstanceOf(UnsupportedVersionError);
    expect(requests.events.some((e) => e.name === 'error' && e.context === r)).toBe(true);

    // InitProducerId for a transactional id goes to its coordinator; the two other brokers
    // answer NOT_COORDINATOR (16) at the top level, which the trace reports.
    const initBefore = requests.finished().length;
    const transactionalId = unique('observed-txn');
    const nodes = cluster.snapshot().brokers.map((b) => b.nodeId);
    await Promise.allSettled(
      nodes.map((node) =>
        cluster.sendToNode(
          node,
          InitProducerIdApi,
          InitProducerIdApi.createRequest({ transactionalId, transactionTimeoutMs: 60_000 }),
          { maxAttempts: 1 },
        ),
      ),
    );
    // (NOT_COORDINATOR is retried while the coordinator wait lasts: more than one per broker.)
    const init = requests
      .finished()
      .slice(initBefore)
      .filter((q) => q.api === 'InitProducerId');
    expect(init.length).toBeGreaterThanOrEqual(nodes.length);
    expect(init.every((q) => q.outcome === 'ok' && q.bytesIn > 0)).toBe(true);
    const refusedBy = new Set(init.filter((q) => q.errorCode === 16).map((q) => q.nodeId));
    expect(refusedBy.size).toBeGreaterThanOrEqual(nodes.length - 1);
  });

  it('moves the cluster metrics as requests are made', async () => {
    const before = cluster.metrics();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        cluster.sendAny(MetadataApi, MetadataApi.createRequest({ topics: [] })),
      ),
    );
    const after = cluster.metrics();
    expect(after.totals.requests - before.totals.requests).toBeGreaterThanOrEqual(20);
    expect(after.totals.responses - before.totals.responses).toBeGreaterThanOrEqual(20);
    expect(after.totals.bytesOut).toBeGreaterThan(before.totals.bytesOut);
    expect(after.totals.bytesIn).toBeGreaterThan(before.totals.bytesIn);
    const metadata = after.totals.latencyUs.Metadata;
    expect(metadata?.count).toBeGreaterThanOrEqual(
      (before.totals.latencyUs.Metadata?.count ?? 0) + 20,
    );
    expect(metadata?.p50).toBeGreaterThan(0);
    expect(metadata?.p50).toBeLessThanOrEqual(metadata?.p99 ?? 0);
    expect(metadata?.p99).toBeLessThanOrEqual(metadata?.max ?? 0);
    expect(after.metadataAgeMs).toBeGreaterThanOrEqual(0);
    const nodes = cluster.snapshot().brokers.map((b) => b.nodeId);
    const brokers = after.brokers.filter((b) => b.nodeId >= 0);
    expect(brokers.map((b) => b.nodeId).sort()).toEqual([...nodes].sort());
    for (const b of brokers) {
      expect(b.connects).toBeGreaterThanOrEqual(1);
      expect(b.inFlight).toBe(0);
      expect(b.queued).toBe(0);
    }
    expect(after.totals.connects).toBeGreaterThanOrEqual(brokers.length);

    // The pool's connection to a broker goes; the next request to it is a reconnect.
    const node = nodes[0] as number;
    const reconnectsBefore = after.brokers.find((b) => b.nodeId === node)?.reconnects ?? -1;
    await (await cluster.pool.get({ nodeId: node })).close();
    await cluster.sendToNode(node, MetadataApi, MetadataApi.createRequest({ topics: [] }));
    const again = cluster.metrics().brokers.find((b) => b.nodeId === node);
    expect(again?.reconnects).toBe(reconnectsBefore + 1);
    expect(again?.connected).toBe(true);
  });

  it('logs connection lifecycle at info and a fatal authentication failure at error', async () => {
    const connected = log.lines.filter((l) => l.message === 'connected');
    expect(connected.length).toBeGreaterThan(0);
    expect(connected.every((l) => l.level === 'info')).toBe(true);
    expect(connected[0]?.fields).toMatchObject({ tls: false, sasl: null });
    expect(typeof connected[0]?.fields.broker).toBe('string');

    // SASL against a plaintext listener: the broker refuses the handshake, which is fatal.
    const own = spyLogger();
    const broker = shared.brokers[0] as { readonly host: string; readonly port: number };
    const before = connects.finished().length;
    const connection = new BrokerConnection({
      host: broker.host,
      port: broker.port,
      logger: own.logger,
      sasl: { mechanism: 'PLAIN', username: 'u', password: 'secret-password' },
    });
    await expect(connection.connect()).rejects.toMatchObject({ retriable: false });
    await connection.close();
    const failed = own.lines.find((l) => l.level === 'error');
    expect(failed?.message).toBe('authentication failed: the connection will not be retried');
    expect(JSON.stringify(own.lines)).not.toContain('secret-password');
    const trace = connects.finished().slice(before);
    expect(trace).toHaveLength(1);
    expect(trace[0]).toMatchObject({ outcome: 'error', saslMechanism: 'PLAIN' });

    // A connection closed by its owner logs that at info too.
    const plain = new BrokerConnection({
      host: broker.host,
      port: broker.port,
      logger: own.logger,
    });
    await plain.connect();
    await plain.close();
    expect(own.lines.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
      'connected',
      'connection closed',
    ]);
  });
});
