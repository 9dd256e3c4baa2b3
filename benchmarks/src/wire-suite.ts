/**
 * Wire suite.
 *  1. Pipelined small requests (Metadata, no topics) per second over one connection to one
 *     local broker at maxInFlight 1, 5 and 64: kafkats vs kafkajs and @platformatic/kafka
 *     (their own Connection classes, reached through their modules), same run, same broker.
 *  2. Bytes per socket write() under a burst of 1,000 requests.
 * Full mode starts a 1-node Kafka from the testkit (or uses KAFKATS_BENCH_BROKER=host:port);
 * `--smoke` (or KAFKATS_BENCH_FAKE=1) answers from an in-process fake broker, so CI needs no
 * cluster and the figures show client overhead alone. Peers speak their
 * own highest Metadata version (kafkajs v6, platformatic v12, kafkats the negotiated one).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ApiDescriptor, ApiVersionsApi, MetadataApi, Writer } from '@kafkats/codec';
import {
  type FakeBroker,
  type KafkaCluster,
  startCluster,
  startFakeBroker,
} from '@kafkats/testkit';
import { BrokerConnection } from '@kafkats/wire';
import { Bench } from 'tinybench';

const require = createRequire(import.meta.url);

type Send = () => Promise<unknown>;
interface Client {
  name: string;
  send: Send;
  writes(): { writes: number; bytes: number };
  close(): Promise<void>;
}

// ---------------------------------------------------------------- broker

function responseFrame<Res>(
  api: ApiDescriptor<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
): Buffer {
  const w = new Writer(256);
  w.pos = 4;
  w.writeInt32(correlationId);
  if (api.responseHeaderVersion(version) === 1) w.writeUvarint(0);
  api.encodeResponse(w, body, version);
  w.buf.writeInt32BE(w.pos - 4, 0);
  return Buffer.from(w.finish());
}

/** An in-process broker answering ApiVersions and Metadata (3 brokers, no topics). */
async function fakeBroker(): Promise<FakeBroker> {
  const apiKeys = [
    { apiKey: ApiVersionsApi.apiKey, minVersion: 0, maxVersion: 4 },
    { apiKey: MetadataApi.apiKey, minVersion: 0, maxVersion: 12 },
  ];
  const cache = new Map<number, Buffer>();
  let port = 0;
  const broker = await startFakeBroker((raw, conn) => {
    if (raw.apiKey === ApiVersionsApi.apiKey) {
      const v = Math.min(raw.apiVersion, 4);
      conn.write(
        responseFrame(
          ApiVersionsApi,
          v,
          raw.correlationId,
          ApiVersionsApi.createResponse({ apiKeys }),
        ),
      );
    } else if (raw.apiKey === MetadataApi.apiKey) {
      let frame = cache.get(raw.apiVersion);
      if (frame === undefined) {
        const body = MetadataApi.createResponse({
          brokers: [1, 2, 3].map((nodeId) => ({ nodeId, host: '127.0.0.1', port, rack: null })),
          clusterId: 'kafkats-bench',
          controllerId: 1,
        });
        frame = responseFrame(MetadataApi, raw.apiVersion, 0, body);
        cache.set(raw.apiVersion, frame);
      }
      const out = Buffer.from(frame);
      out.writeInt32BE(raw.correlationId, 4);
      conn.write(out);
    } else {
      conn.destroy();
    }
  });
  port = broker.port;
  return broker;
}

// ---------------------------------------------------------------- clients

function countWrites(socket: { write: (...a: unknown[]) => boolean }) {
  const counts = { writes: 0, bytes: 0 };
  const original = socket.write.bind(socket);
  socket.write = (...args: unknown[]) => {
    counts.writes++;
    const chunk = args[0];
    counts.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
    return original(...args);
  };
  return counts;
}

async function kafkats(host: string, port: number, maxInFlight: number): Promise<Client> {
  const c = new BrokerConnection({
    host,
    port,
    maxInFlight,
    maxQueuedRequests: 100_000,
    clientId: 'bench',
  });
  await c.connect();
  const request = MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });
  const base = c.stats;
  return {
    name: 'kafkats',
    send: () => c.send(MetadataApi, request),
    writes: () => ({
      writes: c.stats.writes - base.writes,
      bytes: c.stats.bytesWritten - base.bytesWritten,
    }),
    close: () => c.close(),
  };
}

async function kafkajs(host: string, port: number, maxInFlight: number): Promise<Client> {
  const root = join(dirname(require.resolve('kafkajs')), 'src');
  const Connection = require(join(root, 'network/connection.js')) as new (
    o: unknown,
  ) => {
    connect(): Promise<void>;
    send(r: unknown): Promise<unknown>;
    disconnect(): Promise<void>;
    socket: { write: (...a: unknown[]) => boolean };
  };
  const { createLogger, LEVELS } = require(join(root, 'loggers/index.js')) as {
    createLogger(o: unknown): unknown;
    LEVELS: { NOTHING: number };
  };
  const socketFactory = (require(join(root, 'network/socketFactory.js')) as () => unknown)();
  const metadata = require(join(root, 'protocol/requests/metadata/index.js')) as {
    protocol(o: { version: number }): (a: unknown) => unknown;
  };
  const conn = new Connection({
    host,
    port,
    logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} }),
    socketFactory,
    requestTimeout: 30_000,
    connectionTimeout: 10_000,
    maxInFlightRequests: maxInFlight,
    clientId: 'bench',
  });
  await conn.connect();
  const counts = countWrites(conn.socket);
  const v6 = metadata.protocol({ version: 6 });
  return {
    name: 'kafkajs',
    send: () => conn.send(v6({ topics: [], allowAutoTopicCreation: false })),
    writes: () => ({ ...counts }),
    close: () => conn.disconnect(),
  };
}

/** @platformatic/kafka 2.x calls Node 22's Promise.withResolvers; Node 20 lacks it. */
function polyfillWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = () => {
    let resolve: unknown;
    let reject: unknown;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

async function platformatic(host: string, port: number, maxInFlight: number): Promise<Client> {
  polyfillWithResolvers();
  const pf = dirname(require.resolve('@platformatic/kafka'));
  const load = async <T>(p: string): Promise<T> =>
    (await import(pathToFileURL(join(pf, p)).href)) as T;
  const { Connection } = await load<{
    Connection: new (
      clientId: string,
      o: unknown,
    ) => {
      connect(h: string, p: number): Promise<void>;
      close(): Promise<void>;
      socket: { write: (...a: unknown[]) => boolean };
    };
  }>('network/connection.js');
  const { api } = await load<{ api: { async(c: unknown, ...a: unknown[]): Promise<unknown> } }>(
    'apis/metadata/metadata-v12.js',
  );
  const conn = new Connection('bench', { maxInflights: maxInFlight, requestTimeout: 30_000 });
  await conn.connect(host, port);
  const counts = countWrites(conn.socket);
  return {
    name: '@platformatic/kafka',
    send: () => api.async(conn, [], false, false),
    writes: () => ({ ...counts }),
    close: () => conn.close(),
  };
}

// ---------------------------------------------------------------- 2 and 3

async function burst(client: Client, n: number): Promise<void> {
  const all: Promise<unknown>[] = new Array(n);
  for (let i = 0; i < n; i++) all[i] = client.send();
  await Promise.all(all);
}

async function pipelined(smoke: boolean, host: string, port: number): Promise<void> {
  const perBurst = smoke ? 64 : 512;
  const rows: Record<string, string>[] = [];
  const writeRows: Record<string, string>[] = [];
  const makers = [kafkats, kafkajs, platformatic];
  for (const maxInFlight of [1, 5, 64]) {
    const clients: Client[] = [];
    for (const make of makers) clients.push(await make(host, port, maxInFlight));
    const bench = new Bench(
      smoke ? { iterations: 2, time: 0, warmup: false } : { time: 1500, warmupTime: 300 },
    );
    for (const c of clients)
      bench.add(`${c.name}, maxInFlight ${maxInFlight}`, () => burst(c, perBurst));
    await bench.run();
    const rates = bench.tasks.map((t) => {
      const r = t.result;
      if (r.state === 'errored') throw new Error(`${t.name}: ${String(r.error)}`);
      return r.state === 'completed' ? perBurst / (r.latency.mean / 1000) : Number.NaN;
    });
    bench.tasks.forEach((t, i) => {
      rows.push({
        task: t.name,
        'requests/s': (rates[i] as number).toFixed(0),
        'kafkats / peer': ((rates[0] as number) / (rates[i] as number)).toFixed(2),
      });
    });
    // 3. One burst of 1,000 on a measured socket.
    for (const c of clients) {
      const before = c.writes();
      await burst(c, 1000);
      const after = c.writes();
      const writes = after.writes - before.writes;
      writeRows.push({
        client: `${c.name}, maxInFlight ${maxInFlight}`,
        'write() calls': String(writes),
        'bytes/write': ((after.bytes - before.bytes) / Math.max(1, writes)).toFixed(0),
      });
    }
    for (const c of clients) await c.close();
  }
  console.log(
    `suite: wire / pipelined Metadata (no topics) over one connection, bursts of ${perBurst} (kafkats / peer above 1 = kafkats faster)`,
  );
  console.table(rows);
  console.log('suite: wire / socket writes for a burst of 1,000 requests');
  console.table(writeRows);
}

/** Runs the wire suite and prints its tables. */
export async function runWireSuite(smoke: boolean): Promise<void> {
  let fake: FakeBroker | undefined;
  let cluster: KafkaCluster | undefined;
  let host: string;
  let port: number;
  const given = process.env.KAFKATS_BENCH_BROKER;
  if (smoke || process.env.KAFKATS_BENCH_FAKE === '1') {
    fake = await fakeBroker();
    host = fake.host;
    port = fake.port;
    console.log('wire: in-process fake broker (client overhead only)');
  } else if (given !== undefined && given !== '') {
    const colon = given.lastIndexOf(':');
    host = given.slice(0, colon);
    port = Number(given.slice(colon + 1));
    console.log(`wire: broker ${given}`);
  } else {
    cluster = await startCluster({ nodes: 1 });
    const b = cluster.brokers[0];
    if (b === undefined) throw new Error('no broker');
    host = b.host;
    port = b.port;
    console.log(`wire: 1-node Kafka ${host}:${port} (testkit)`);
  }
  try {
    await pipelined(smoke, host, port);
  } finally {
    await fake?.close();
    await cluster?.stop();
  }
}
