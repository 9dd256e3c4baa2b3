// Client quotas on the shared cluster: the Admin sets and reads them as Kafka's ConfigCommand
// (kafka-configs.sh) does, and under a quota the producer, a reader and the admin honour the
// broker's throttleTimeMs (KIP-219): the request trace shows nothing written on a connection
// between a throttled answer and the end of its throttle time, and nothing is lost.
import { Cluster } from '@kafkats/meta';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { type RequestTraceContext, requestChannel } from '@kafkats/wire';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Admin, PartitionReader, Producer } from '../../src/index.js';
import { eventually, unique } from './admin-support.js';

const kafka = sharedCluster();
let admin: Admin;

beforeAll(async () => {
  admin = await Admin.connect(kafka.bootstrap);
});
afterAll(async () => {
  await admin?.close();
});

/** Kafka's own `kafka-configs.sh` (ConfigCommand moved from core to tools in Kafka 4.0). */
async function kafkaConfigs(args: readonly string[]): Promise<string> {
  const full = ['--bootstrap-server', kafka.bootstrap, ...args];
  let run = await runKafkaTool('org.apache.kafka.tools.ConfigCommand', full);
  if (/ClassNotFoundException/.test(run.stderr)) {
    run = await runKafkaTool('kafka.admin.ConfigCommand', full);
  }
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** The quotas of one client id as ConfigCommand prints them (`key=value` pairs, sorted). */
async function javaClientQuotas(clientId: string): Promise<Record<string, number>> {
  const out = await kafkaConfigs([
    '--describe',
    '--entity-type',
    'clients',
    '--entity-name',
    clientId,
  ]);
  const found: Record<string, number> = {};
  const line = out.split('\n').find((l) => l.includes(`client-id '${clientId}'`)) ?? '';
  for (const m of line.matchAll(/([a-z_]+)=([0-9.]+)/g)) found[m[1] as string] = Number(m[2]);
  return found;
}

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

async function setQuota(clientId: string, key: string, value: number | null): Promise<void> {
  const res = await admin.alterClientQuotas([
    { entity: { 'client-id': clientId }, ops: [{ key, value }] },
  ]);
  expect(res.results[0]?.error).toBeUndefined();
  if (value !== null) stops.push(() => setQuota(clientId, key, null));
}

/** Every request trace while the test runs (each context is filled in as the request goes). */
function traceRequests(): RequestTraceContext[] {
  const seen: RequestTraceContext[] = [];
  const handlers = { start: (ctx: RequestTraceContext) => void seen.push(ctx) };
  requestChannel.subscribe(handlers as never);
  stops.push(() => requestChannel.unsubscribe(handlers as never));
  return seen;
}

/**
 * The throttled answers among `traces`, after checking KIP-219's rule on each: no request on the
 * same connection was written from the throttled answer until its throttle time had passed.
 */
function throttledAnswers(traces: readonly RequestTraceContext[]): RequestTraceContext[] {
  const throttled = traces.filter((t) => t.throttledUntil > 0);
  for (const t of throttled) {
    const answeredAt = t.throttledUntil - t.throttleTimeMs;
    const during = traces.filter(
      (u) => u.broker === t.broker && u.writtenAt >= answeredAt && u.writtenAt < t.throttledUntil,
    );
    expect(
      during.map(
        (u) =>
          `${u.api} written ${(u.writtenAt - answeredAt).toFixed(1)} ms into a ${t.throttleTimeMs} ms throttle`,
      ),
    ).toEqual([]);
  }
  return throttled;
}

describe('Admin client quotas, checked with Kafka ConfigCommand', () => {
  it('sets, describes and removes client-id quotas that kafka-configs.sh sees, and reads its changes', async () => {
    const clientId = unique('quota-admin');
    const set = await admin.alterClientQuotas([
      {
        entity: { 'client-id': clientId },
        ops: [
          { key: 'producer_byte_rate', value: 1_048_576 },
          { key: 'consumer_byte_rate', value: 2_097_152 },
        ],
      },
    ]);
    expect(set.results).toEqual([{ entity: { 'client-id': clientId } }]);
    // Another broker may answer before it has the change: a metadata propagation.
    expect(
      await eventually(
        () => javaClientQuotas(clientId),
        (q) => Object.keys(q).length === 2,
      ),
    ).toEqual({
      consumer_byte_rate: 2_097_152,
      producer_byte_rate: 1_048_576,
    });

    await kafkaConfigs([
      '--alter',
      '--entity-type',
      'clients',
      '--entity-name',
      clientId,
      '--add-config',
      'request_percentage=150',
    ]);
    const described = await eventually(
      () =>
        admin.describeClientQuotas({ components: [{ entityType: 'client-id', name: clientId }] }),
      (d) => d.entries[0]?.quotas.request_percentage !== undefined,
    );
    expect(described.entries).toEqual([
      {
        entity: { 'client-id': clientId },
        quotas: {
          consumer_byte_rate: 2_097_152,
          producer_byte_rate: 1_048_576,
          request_percentage: 150,
        },
      },
    ]);

    const removed = await admin.alterClientQuotas([
      {
        entity: { 'client-id': clientId },
        ops: ['producer_byte_rate', 'consumer_byte_rate', 'request_percentage'].map((key) => ({
          key,
          value: null,
        })),
      },
    ]);
    expect(removed.results[0]?.error).toBeUndefined();
    expect(
      await eventually(
        () => javaClientQuotas(clientId),
        (q) => Object.keys(q).length === 0,
      ),
    ).toEqual({});
    const gone = await eventually(
      () =>
        admin.describeClientQuotas({ components: [{ entityType: 'client-id', name: clientId }] }),
      (d) => d.entries.length === 0,
    );
    expect(gone.entries).toEqual([]);
  });

  it('matches default entities and any named entity, and refuses an unknown quota key per entry', async () => {
    const user = unique('quota-user');
    const set = await admin.alterClientQuotas([
      { entity: { user, 'client-id': null }, ops: [{ key: 'producer_byte_rate', value: 4096 }] },
    ]);
    expect(set.results[0]?.error).toBeUndefined();
    stops.push(async () => {
      await admin.alterClientQuotas([
        { entity: { user, 'client-id': null }, ops: [{ key: 'producer_byte_rate', value: null }] },
      ]);
    });
    // The user's default client-id entity: found by exact user and default client id...
    const exact = await eventually(
      () =>
        admin.describeClientQuotas({
          components: [
            { entityType: 'user', name: user },
            { entityType: 'client-id', name: null },
          ],
          strict: true,
        }),
      (d) => d.entries.length > 0,
    );
    expect(exact.entries).toEqual([
      { entity: { user, 'client-id': null }, quotas: { producer_byte_rate: 4096 } },
    ]);
    // ...and among every entity with a named user.
    const anyUser = await admin.describeClientQuotas({ components: [{ entityType: 'user' }] });
    expect(anyUser.entries.map((e) => e.entity)).toContainEqual({ user, 'client-id': null });
    // Only user entities, strictly: the (user, default client id) entity is not one.
    const onlyUsers = await admin.describeClientQuotas({
      components: [{ entityType: 'user', name: user }],
      strict: true,
    });
    expect(onlyUsers.entries).toEqual([]);

    const bad = await admin.alterClientQuotas(
      [{ entity: { 'client-id': unique('quota-bad') }, ops: [{ key: 'no_such_quota', value: 1 }] }],
      { validateOnly: true },
    );
    expect(bad.results[0]?.error?.errorName).toBe('INVALID_REQUEST');
  });
});

describe('KIP-219: nothing is sent to a broker while it throttles us', () => {
  // The broker's quota window (quota.window.num 11 x 1 s) starts with about ten seconds of
  // credit: at 100 KiB/s the first MiB passes, then each answer asks the client to hold off.
  const quota = 102_400;
  const enough = 3;

  it('a producer over producer_byte_rate waits out each throttle; every record lands once', async () => {
    const clientId = unique('quota-producer');
    await setQuota(clientId, 'producer_byte_rate', quota);
    const topic = unique('quota-produce');
    await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }], {
      waitForLeaders: true,
    });
    const cluster = await Cluster.connect(kafka.bootstrap, { connection: { clientId } });
    stops.push(() => cluster.close());
    const traces = traceRequests();
    const produces = () => traces.filter((t) => t.api === 'Produce');
    const producer = new Producer(cluster, { lingerMs: 0, batchSize: 16_384 });
    const value = Buffer.alloc(1000, 'q');
    // Rounds of two requests each, until the broker has throttled us a few times (the quota
    // is reached within about 70 rounds): a round that starts during a throttle waits in the
    // connection's queue.
    const offsets: bigint[] = [];
    for (let round = 0; round < 200; round++) {
      if (produces().filter((t) => t.throttledUntil > 0).length >= enough) break;
      const sent = await Promise.all(
        Array.from({ length: 32 }, (_, i) => producer.send({ topic, key: `${round}-${i}`, value })),
      );
      offsets.push(...sent.map((m) => m.offset));
    }
    await producer.close();
    expect(offsets).toEqual(Array.from({ length: offsets.length }, (_, i) => BigInt(i)));

    const throttled = throttledAnswers(produces());
    expect(throttled.length).toBeGreaterThanOrEqual(enough);
    expect(throttled.every((t) => t.outcome === 'ok' && t.errorCode === 0)).toBe(true);
    const metrics = cluster.pool.metrics();
    expect(metrics.reduce((n, m) => n + m.throttles, 0)).toBe(throttled.length);
    // What the broker let through while it throttled, for the record (not asserted: the pace
    // is the broker's): bytes written from the first throttle's end to the last one's.
    const from = (throttled[0] as RequestTraceContext).throttledUntil;
    const to = (throttled.at(-1) as RequestTraceContext).throttledUntil;
    const bytes = produces()
      .filter((t) => t.writtenAt >= from && t.writtenAt < to)
      .reduce((n, t) => n + t.bytesOut, 0);
    console.info(
      `produce under a ${quota} B/s quota: ${throttled.length} throttled answers ` +
        `(${throttled.map((t) => t.throttleTimeMs).join(', ')} ms); ` +
        `${Math.round((bytes / (to - from)) * 1000)} B/s between the first and the last`,
    );
  });

  it('a reader over consumer_byte_rate waits out each throttle; it reads in order, nothing skipped', async () => {
    const clientId = unique('quota-reader');
    await setQuota(clientId, 'consumer_byte_rate', quota);
    const topic = unique('quota-fetch');
    await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }], {
      waitForLeaders: true,
    });
    const count = 1600;
    const writer = await Cluster.connect(kafka.bootstrap);
    stops.push(() => writer.close());
    const producer = new Producer(writer);
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        producer.send({ topic, key: String(i), value: Buffer.alloc(1000, 'r') }),
      ),
    );
    await producer.close();

    const cluster = await Cluster.connect(kafka.bootstrap, { connection: { clientId } });
    stops.push(() => cluster.close());
    const traces = traceRequests();
    const fetches = () => traces.filter((t) => t.api === 'Fetch');
    const reader = new PartitionReader(cluster, {
      topic,
      partition: 0,
      startOffset: 0n,
      partitionMaxBytes: 16_384,
    });
    stops.push(() => reader.close());
    const offsets: bigint[] = [];
    for await (const batch of reader) {
      for (const r of batch.records) offsets.push(r.offset);
      if (offsets.length >= count) break;
      if (fetches().filter((t) => t.throttledUntil > 0).length >= enough) break;
    }
    expect(offsets).toEqual(Array.from({ length: offsets.length }, (_, i) => BigInt(i)));
    expect(throttledAnswers(fetches()).length).toBeGreaterThanOrEqual(enough);
  });

  it('an admin over controller_mutation_rate (KIP-599) waits out the throttle and creates every topic', async () => {
    const clientId = unique('quota-mutations');
    // Five partitions per second, with a burst of about eleven seconds' worth: the third topic
    // of 30 partitions is refused with THROTTLING_QUOTA_EXCEEDED and a throttle time, and sent
    // again once it has passed.
    await setQuota(clientId, 'controller_mutation_rate', 5);
    const mutator = new Admin(await Cluster.connect(kafka.bootstrap, { connection: { clientId } }));
    stops.push(() => mutator.cluster.close());
    const traces = traceRequests();
    const names = [unique('quota-m'), unique('quota-m'), unique('quota-m')];
    stops.push(async () => {
      await admin.deleteTopics(names);
    });
    const created = [];
    for (const name of names) {
      const res = await mutator.createTopics([{ name, numPartitions: 30, replicationFactor: 1 }]);
      created.push(...res.topics);
    }
    expect(created.map((t) => [t.name, t.error])).toEqual(names.map((n) => [n, undefined]));
    const throttled = throttledAnswers(traces.filter((t) => t.api === 'CreateTopics'));
    expect(throttled.length).toBeGreaterThan(0);
  });
});
