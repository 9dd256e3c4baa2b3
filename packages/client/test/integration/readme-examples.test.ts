// The README's code, compiled and run: the files in examples/ (whose `readme` regions the
// READMEs show, kept identical by scripts/readme-examples.mjs) are built with `tsc -b examples`
// and run as child processes against the shared cluster, and what they did is checked with
// Kafka's own consumer and group command.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKafkaTool, sharedCluster, startOAuthServer } from '@kafkats/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unique } from './admin-support.js';

const shared = sharedCluster();
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const built = join(root, 'examples', 'dist');
const RECORDS = 101;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// Examples still running when a test ends (a failed wait) are killed, never left behind.
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** A running example: its output so far, and a wait for a line of it. */
function start(example: string, args: readonly string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [join(built, `${example}.js`), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  running.add(child);
  child.on('close', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stdout?.on('data', (d) => {
    stdout += d;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<Run>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    child,
    exited,
    /** Resolves once stdout has `text` (the test's timeout bounds the wait). */
    async printed(text: string): Promise<void> {
      while (!stdout.includes(text)) {
        const more = new Promise<void>((r) => waiters.push(r));
        const ended = await Promise.race([more.then(() => false), exited.then(() => true)]);
        if (ended && !stdout.includes(text))
          throw new Error(`${example} exited without printing ${JSON.stringify(text)}: ${stderr}`);
      }
    },
  };
}

const run = (example: string, args: readonly string[], env: Record<string, string> = {}) =>
  start(example, args, env).exited;

/** Committed offsets per group, summed over partitions, as Kafka's ConsumerGroupCommand reports. */
async function committedByGroup(groups: readonly string[]): Promise<Map<string, bigint>> {
  const out = await runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
    '--bootstrap-server',
    shared.bootstrap,
    '--describe',
    ...groups.flatMap((g) => ['--group', g]),
  ]);
  expect(out.status).toBe(0);
  const sums = new Map<string, bigint>();
  for (const line of out.stdout.split('\n')) {
    // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    const cols = line.trim().split(/\s+/);
    if (groups.includes(cols[0] ?? '') && /^\d+$/.test(cols[3] ?? ''))
      sums.set(cols[0]!, (sums.get(cols[0]!) ?? 0n) + BigInt(cols[3]!));
  }
  return sums;
}

let orders: string;

beforeAll(async () => {
  // Compiling is part of the check: an example that no longer typechecks fails here.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-b', join(root, 'examples')], {
    encoding: 'utf8',
  });
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.status).toBe(0);
  orders = unique('readme-orders');
  await shared.admin.createTopic(orders, { partitions: 3, replicationFactor: 3 });
});

describe('the README examples, compiled and run against real brokers', () => {
  it('producer: 101 records acknowledged; Kafka’s consumer reads them, headers included', async () => {
    const r = await run('producer', [shared.bootstrap, orders]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`order-1 written at ${orders}-\\d offset 0`));
    expect(r.stdout).toContain(`${RECORDS} records acknowledged`);
    const read = await shared.admin.consume(orders, { maxRecords: RECORDS, timeoutMs: 20_000 });
    expect(read).toHaveLength(RECORDS);
    const first = read.find((x) => x.key?.toString() === 'order-1');
    expect(first?.headers.map((h) => [h.key, h.value?.toString()])).toEqual([
      ['source', 'checkout'],
    ]);
  });

  it('consumer, transactions and the service read those records as groups; Kafka’s tools see the results', async () => {
    const readers = unique('readme-readers');
    const copiers = unique('readme-copiers');
    const txOut = unique('readme-invoices-tx');
    const serviceOut = unique('readme-invoices-svc');
    await shared.admin.createTopic(txOut, { partitions: 1, replicationFactor: 3 });
    await shared.admin.createTopic(serviceOut, { partitions: 1, replicationFactor: 3 });

    const consumed = await run('consumer', [shared.bootstrap, orders, readers, String(RECORDS)]);
    expect(consumed.stderr).toBe('');
    expect(consumed.code).toBe(0);
    expect(consumed.stdout).toContain(`${RECORDS} records read`);

    const copied = await run('transactions', [
      shared.bootstrap,
      orders,
      txOut,
      copiers,
      String(RECORDS),
    ]);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.stdout).toContain(`${RECORDS} records copied in transactions`);
    const invoices = await shared.admin.consume(txOut, {
      isolationLevel: 'read_committed',
      maxRecords: RECORDS,
      timeoutMs: 20_000,
    });
    expect(invoices).toHaveLength(RECORDS);
    expect(invoices.every((x) => x.value?.toString().startsWith('invoice for {"order"'))).toBe(
      true,
    );

    // The service runs until SIGINT, then commits, leaves and exits 0.
    const service = start('service', [shared.bootstrap, orders, serviceOut]);
    await service.printed(`invoiced ${RECORDS}\n`);
    service.child.kill('SIGINT');
    const stopped = await service.exited;
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`stopped after ${RECORDS} invoices`);
    const served = await shared.admin.consume(serviceOut, {
      maxRecords: RECORDS,
      timeoutMs: 20_000,
    });
    expect(served).toHaveLength(RECORDS);
    expect(served[0]?.headers[0]?.key).toBe('order-offset');

    // Each group committed exactly what it finished: every record of the topic.
    const committed = await committedByGroup([readers, copiers, 'billing']);
    expect(committed).toEqual(
      new Map([
        [readers, BigInt(RECORDS)],
        [copiers, BigInt(RECORDS)],
        ['billing', BigInt(RECORDS)],
      ]),
    );
  });

  it('partition reader: reads a partition up to its end and stops on abort', async () => {
    // The fullest partition: sticky partitioning may have left one empty.
    const [fullest] = (await shared.admin.listOffsets(orders, 'latest')).sort((a, b) =>
      Number(b.offset - a.offset),
    );
    const end = fullest!.offset;
    expect(end).toBeGreaterThan(0n);
    const r = await run('partition-reader', [
      shared.bootstrap,
      orders,
      String(fullest!.partition),
      String(end),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(Number(end) + 1);
    expect(r.stdout).toContain(`read up to offset ${end}`);
  });

  it('share consumer: every record accepted once by a share group; Kafka’s ShareGroupCommand sees it', async () => {
    const packers = unique('readme-packers');
    const r = await run('share-consumer', [shared.bootstrap, orders, packers, String(RECORDS)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${RECORDS} records accepted`);
    const values = r.stdout.trim().split('\n').slice(0, -1);
    expect(new Set(values).size).toBe(RECORDS);
    // Kafka's view of the group: no lag left on any partition that holds records.
    const out = await runKafkaTool('org.apache.kafka.tools.consumer.group.ShareGroupCommand', [
      '--bootstrap-server',
      shared.bootstrap,
      '--describe',
      '--offsets',
      '--group',
      packers,
    ]);
    expect(out.status, out.stderr).toBe(0);
    const lag = new Map<number, string>();
    for (const line of out.stdout.split('\n')) {
      // GROUP TOPIC PARTITION START-OFFSET LAG
      const cols = line.trim().split(/\s+/);
      if (cols[0] === packers && cols[1] === orders) lag.set(Number(cols[2]), cols[4] ?? '');
    }
    const filled = (await shared.admin.listOffsets(orders, 'latest')).filter((p) => p.offset > 0n);
    expect(filled.length).toBeGreaterThan(0);
    for (const p of filled) expect(lag.get(p.partition), out.stdout).toBe('0');
  });

  it('admin: creates, describes, alters and deletes a topic as its comments say', async () => {
    const name = unique('readme-admin');
    const r = await run('admin', [shared.bootstrap, name]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${name} [A-Za-z0-9_-]{22}$`, 'm'));
    expect(r.stdout).toContain('partition 2 leader');
    expect(r.stdout).toContain('retention.ms=3600000 (DYNAMIC_TOPIC_CONFIG)');
    expect(r.stdout).toContain('cleanup.policy=delete,compact (DYNAMIC_TOPIC_CONFIG)');
    expect(r.stdout).toContain(`${name}-0: 0, ${name}-0: 0`);
    expect(await shared.admin.listTopics()).not.toContain(name);
  });

  it('oauth: produces over SASL/OAUTHBEARER with a token from the token endpoint', async () => {
    const topic = unique('readme-oauth');
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    const server = await startOAuthServer(shared.security!.oauth!, [
      { clientId: 'orders-service', clientSecret: 'readme-secret-9' },
    ]);
    try {
      const r = await run(
        'oauth',
        [shared.listeners.SASL_PLAINTEXT!, server.tokenEndpointUrl, 'orders-service', topic],
        { CLIENT_SECRET: 'readme-secret-9' },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`delivered to ${topic}-0 at offset 0\n`);
      expect(server.issued.get('orders-service')).toBe(1);
    } finally {
      await server.close();
    }
    const records = await shared.admin.consume(topic, { maxRecords: 1 });
    expect(records.map((x) => `${x.key}=${x.value}`)).toEqual(['order-1=paid']);
  });

  it('serializers: typed orders written as JSON, read back typed; the unreadable record fails alone', async () => {
    const topic = unique('readme-typed');
    await shared.admin.createTopic(topic, { partitions: 1, replicationFactor: 3 });
    const r = await run('serializers', [shared.bootstrap, topic, unique('readme-typed-group')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'customer-7 ordered pen\ncustomer-7 ordered ink\nskipped offset 2: not json\n',
    );
    const records = await shared.admin.consume(topic, { maxRecords: 3 });
    expect(records.map((x) => `${x.key}=${x.value}`)).toEqual([
      'customer-7={"id":1,"item":"pen"}',
      'customer-7={"id":2,"item":"ink"}',
      'customer-9=not json',
    ]);
  });

  it('trace-and-metrics: prints request traces and the metrics snapshots', async () => {
    const r = await run('trace-and-metrics', [shared.bootstrap]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/request Produce v\d+ to broker \d/);
    expect(r.stdout).toContain('producer {');
    expect(r.stdout).toContain('reader {');
  });
});
