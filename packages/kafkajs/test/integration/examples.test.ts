// The two kafkajs example apps in examples/kafkajs/ (a producer: keyed batches with headers,
// sendBatch; a consumer group: eachMessage until N) run unchanged on the facade. Each app runs
// twice against the shared cluster, once as written (kafkajs 2.2.4 itself) and once with only
// its import line rewritten to '@kafkats/kafkajs', each pair on its own topics; what the apps
// print (partitions, offsets, keys, values, headers, counts) must be the same.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const shared = sharedCluster();
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const examples = join(repoRoot, 'examples', 'kafkajs');
const KAFKAJS_IMPORT = /^(import .* from )'kafkajs';$/m;

let work: string;

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'packages', 'kafkajs', 'dist', 'index.js'))) {
    throw new Error(
      'build @kafkats/kafkajs first (npx tsc -b packages/kafkajs): the apps import its dist',
    );
  }
  // The apps run from a temp dir whose node_modules is the repository's, so 'kafkajs' and
  // '@kafkats/kafkajs' (the built facade in packages/kafkajs/dist) resolve as they would in an app.
  work = mkdtempSync(join(tmpdir(), 'kafkajs-examples-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
});
afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

type Client = 'kafkajs' | 'facade';

/** The app's source for a client: as written, or with only its kafkajs import line rewritten. */
function appSource(app: string, client: Client): string {
  const text = readFileSync(join(examples, app), 'utf8');
  const imports = text.match(new RegExp(KAFKAJS_IMPORT.source, 'gm')) ?? [];
  expect(imports, `${app} imports kafkajs on exactly one line`).toHaveLength(1);
  if (client === 'kafkajs') return text;
  const rewritten = text.replace(KAFKAJS_IMPORT, "$1'@kafkats/kafkajs';");
  const changed = text.split('\n').filter((line, i) => line !== rewritten.split('\n')[i]);
  expect(changed).toHaveLength(1);
  return rewritten;
}

/** Runs an app to completion (120 s deadline) and returns its stdout lines. */
function runApp(app: string, client: Client, env: Record<string, string>): Promise<string[]> {
  const file = join(work, `${client}-${app}`);
  writeFileSync(file, appSource(app, client));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file],
      {
        cwd: work,
        timeout: 120_000,
        env: { ...process.env, KAFKA_BROKERS: shared.bootstrap, ...env },
      },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(new Error(`${client} ${app} failed: ${error.message}\n${stderr}`));
          return;
        }
        resolve(stdout.split('\n').filter((l) => l !== ''));
      },
    );
  });
}

/** The app's output with its run's topic names replaced, in a stable order. */
function observable(lines: string[], topics: Record<string, string>): string[] {
  return lines
    .map((line) => {
      let out = line;
      for (const [name, placeholder] of Object.entries(topics)) {
        out = out.split(JSON.stringify(name)).join(JSON.stringify(placeholder));
      }
      return out;
    })
    .sort();
}

async function runPair(client: Client): Promise<{ produced: string[]; consumed: string[] }> {
  const suffix = `${client}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const topic = `kjs-example-orders-${suffix}`;
  const auditTopic = `kjs-example-audit-${suffix}`;
  await shared.admin.createTopic(topic, { partitions: 3, replicationFactor: 3 });
  await shared.admin.createTopic(auditTopic, { partitions: 1, replicationFactor: 3 });
  const produced = await runApp('producer.mjs', client, { TOPIC: topic, AUDIT_TOPIC: auditTopic });
  const consumed = await runApp('consumer.mjs', client, {
    TOPIC: topic,
    GROUP_ID: `kjs-example-billing-${suffix}`,
    EXPECTED: '13',
  });
  const names = { [topic]: 'orders', [auditTopic]: 'orders-audit' };
  return { produced: observable(produced, names), consumed: observable(consumed, names) };
}

describe('kafkajs example apps, unchanged but for the import', () => {
  it('the producer and the consumer group print the same with kafkajs and with the facade', async () => {
    const kafkajs = await runPair('kafkajs');
    const facade = await runPair('facade');

    // kafkajs's own run is the reference: 14 messages produced, 13 read back from the topic.
    expect(kafkajs.produced).toContain(JSON.stringify({ done: true, sent: 14 }));
    expect(kafkajs.consumed).toContain(JSON.stringify({ done: true, count: 13 }));
    expect(kafkajs.consumed).toHaveLength(14);

    expect(facade.produced).toEqual(kafkajs.produced);
    expect(facade.consumed).toEqual(kafkajs.consumed);
  });
});
