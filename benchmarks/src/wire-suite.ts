/**
 * Wire suite.
 *  0. What `Cluster.send` costs over a bare `BrokerConnection.send`: the same Metadata request
 *     (no topics, the negotiated version) to the in-process fake broker, bursts at 1 and 64 in
 *     flight; the cluster adds target resolution, the pool lookup, the version choice and the
 *     top-level error check. Both answers are compared before timing.
 *  1. Pipelined small requests (Metadata, no topics) per second over one connection to one
 *     local broker at maxInFlight 1, 5 and 64: kafkats vs kafkajs and @platformatic/kafka
 *     (their own Connection classes, reached through their modules), same run, same broker.
 *  2. Bytes per socket write() under a burst of 1,000 requests.
 *  3. Client CPU per request (process.cpuUsage, user + system, over bursts of 512 at 5 in
 *     flight) for the three clients against the same broker: only client work is counted when
 *     the broker is a real Kafka (another process); against the fake broker (smoke) the
 *     broker's own CPU is in the figure too.
 * Full mode starts a 1-node Kafka from the testkit (or uses KAFKATS_BENCH_BROKER=host:port);
 * `--smoke` (or KAFKATS_BENCH_FAKE=1) answers from an in-process fake broker, so CI needs no
 * cluster and the figures show client overhead alone. Peers speak their
 * own highest Metadata version (kafkajs v6, platformatic v12, kafkats the negotiated one).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ApiDescriptor, ApiVersionsApi, MetadataApi, Writer } from '@kafkats/codec';
import { Cluster } from '@kafkats/meta';
import {
  type FakeBroker,
  type KafkaCluster,
  startCluster,
  startFakeBroker,
} from '@kafkats/testkit';
import {
  BrokerConnection,
  Histogram,
  type RequestTraceContext,
  requestChannel,
} from '@kafkats/wire';
import { Bench } from 'tinybench';

const require = createRequire(import.meta.url);

type Send = () => Promise<unknown>;
interface Client {
  name: string;
  send: Send;
  writes(): { writes: number; bytes: number };
  close(): Promise<void>;
  /** Around this client's measured bursts (the traced variant subscribes to its channel). */
  enter?(): void;
  leave?(): void;
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

/**
 * kafkats with a `kafkats:request` subscriber of the kind a metrics exporter would be: every
 * finished request's duration into a histogram and its bytes into a counter. Subscribed only
 * while this client's bursts run, so the plain kafkats row measures the unsubscribed path.
 */
async function kafkatsTraced(host: string, port: number, maxInFlight: number): Promise<Client> {
  const plain = await kafkats(host, port, maxInFlight);
  const durations = new Histogram();
  let bytes = 0;
  const subscriber = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (message: unknown) => {
      const context = message as RequestTraceContext;
      durations.record(context.durationMs * 1000);
      bytes += context.bytesOut + context.bytesIn;
    },
    error: () => {},
  };
  return {
    ...plain,
    name: 'kafkats + request subscriber',
    enter: () => requestChannel.subscribe(subscriber),
    leave: () => {
      requestChannel.unsubscribe(subscriber);
      if (durations.count > 0 && bytes === 0) throw new Error('the subscriber saw no bytes');
    },
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

// ---------------------------------------------------------------- 0. Cluster.send overhead

async function clusterOverhead(smoke: boolean): Promise<void> {
  const fake = await fakeBroker();
  const rows: Record<string, string>[] = [];
  try {
    for (const maxInFlight of [1, 64]) {
      const options = { maxInFlight, maxQueuedRequests: 100_000, clientId: 'bench' };
      const bare = new BrokerConnection({
        host: fake.host,
        port: fake.port,
        nodeId: 1,
        ...options,
      });
      await bare.connect();
      const cluster = await Cluster.connect(`${fake.host}:${fake.port}`, {
        connection: options,
        refreshIntervalMs: 0,
      });
      const version = bare.negotiatedVersion(MetadataApi) ?? 0;
      const request = MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false });
      const viaBare = () => bare.send(MetadataApi, request, { version });
      const viaCluster = () => cluster.sendToNode(1, MetadataApi, request);
      // Same work: both get the same answer at the same version.
      const [a, b] = await Promise.all([viaBare(), viaCluster()]);
      if (JSON.stringify(a) !== JSON.stringify(b))
        throw new Error('Cluster.send and BrokerConnection.send answered differently');
      const perBurst = maxInFlight === 1 ? 64 : 512;
      const burstOf = (send: () => Promise<unknown>) => async () => {
        const all: Promise<unknown>[] = new Array(perBurst);
        for (let i = 0; i < perBurst; i++) all[i] = send();
        await Promise.all(all);
      };
      const bench = new Bench(
        smoke ? { iterations: 2, time: 0, warmup: false } : { time: 1500, warmupTime: 300 },
      );
      bench.add(`BrokerConnection.send, ${maxInFlight} in flight`, burstOf(viaBare));
      bench.add(`Cluster.sendToNode, ${maxInFlight} in flight`, burstOf(viaCluster));
      await bench.run();
      const perRequest = bench.tasks.map((t) => {
        const r = t.result;
        if (r.state === 'errored') throw new Error(`${t.name}: ${String(r.error)}`);
        return r.state === 'completed' ? (r.latency.mean * 1e6) / perBurst : Number.NaN;
      });
      const [bareNs, clusterNs] = perRequest as [number, number];
      bench.tasks.forEach((t, i) => {
        rows.push({
          task: t.name,
          'ns/request': (perRequest[i] as number).toFixed(0),
          'overhead vs bare':
            i === 0 ? '' : `${(((clusterNs - bareNs) / bareNs) * 100).toFixed(1)}%`,
        });
      });
      await cluster.close();
      await bare.close();
    }
  } finally {
    await fake.close();
  }
  console.log(
    'suite: wire / Cluster.send over a bare BrokerConnection.send (in-process fake broker)',
  );
  console.table(rows);
}

// ---------------------------------------------------------------- 3. CPU per request

async function cpuPerRequest(smoke: boolean, host: string, port: number): Promise<void> {
  const perBurst = 512;
  const bursts = smoke ? 2 : 40;
  const rounds = smoke ? 1 : 5;
  const makers = [kafkats, kafkatsTraced, kafkajs, platformatic];
  const clients: Client[] = [];
  for (const make of makers) clients.push(await make(host, port, 5));
  const samples = new Map<string, number[]>();
  try {
    for (const c of clients) {
      c.enter?.();
      await burst(c, perBurst); // warm up
      c.leave?.();
    }
    for (let round = 0; round < rounds; round++) {
      // Rotate the order so no client always runs right after another's garbage.
      for (let k = 0; k < clients.length; k++) {
        const c = clients[(round + k) % clients.length] as Client;
        c.enter?.();
        const before = process.cpuUsage();
        for (let i = 0; i < bursts; i++) await burst(c, perBurst);
        const used = process.cpuUsage(before);
        c.leave?.();
        const us = (used.user + used.system) / (bursts * perBurst);
        samples.set(c.name, [...(samples.get(c.name) ?? []), us]);
      }
    }
  } finally {
    for (const c of clients) await c.close();
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] as number;
  };
  const ours = median(samples.get('kafkats') ?? []);
  const rows = [...samples].map(([name, xs]) => ({
    client: name,
    'CPU µs/request (median)': median(xs).toFixed(2),
    'min-max': `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`,
    'kafkats / peer': (ours / median(xs)).toFixed(2),
  }));
  console.log(
    `suite: wire / client CPU per pipelined Metadata request, ${rounds} rounds of ${bursts} x ${perBurst} at 5 in flight (kafkats / peer below 1 = kafkats uses less)`,
  );
  console.table(rows);
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
    await clusterOverhead(smoke);
    await pipelined(smoke, host, port);
    await cpuPerRequest(smoke, host, port);
  } finally {
    await fake?.close();
    await cluster?.stop();
  }
}
