// The Admin of the client README: what each call takes and what it returns. Build with
// `npx tsc -b examples`, then:
//   node examples/dist/admin.js 127.0.0.1:9092 orders-admin
import { Admin } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', name = 'orders-admin'] = process.argv.slice(2);

// #region readme
const admin = await Admin.connect(bootstrap); // owns its Cluster; new Admin(cluster) borrows one

// Every call resolves with a result object; an item that failed carries `error` instead of
// rejecting the call.
const created = await admin.createTopics(
  [{ name, numPartitions: 3, replicationFactor: 1, configs: { 'retention.ms': '86400000' } }],
  { waitForLeaders: true },
);
for (const t of created.topics) console.log(t.name, t.error?.errorName ?? t.topicId);

const { topics } = await admin.listTopics(); // [{ name, topicId, isInternal }], sorted
console.log(`${topics.length} topics`);

const described = await admin.describeTopics([name]); // { topics: [{ name, partitions, error? }] }
for (const p of described.topics[0]?.partitions ?? [])
  console.log(`partition ${p.partition} leader ${p.leader} replicas ${p.replicas}`);

// Configs change by operation: SET, DELETE, APPEND or SUBTRACT, per resource.
await admin.incrementalAlterConfigs([
  {
    type: 'TOPIC',
    name,
    ops: [
      { name: 'retention.ms', op: 'SET', value: '3600000' },
      { name: 'cleanup.policy', op: 'APPEND', value: 'compact' },
    ],
  },
]);
// The change reaches every broker through the metadata log a moment later, so a read right
// after it may still see the old value (as with Java's Admin): read until it shows.
let configs: readonly { name: string; value: string | null; source: string }[] = [];
for (let i = 0; i < 50 && !configs.some((c) => c.value === '3600000'); i++) {
  if (i > 0) await new Promise((r) => setTimeout(r, 100));
  const { resources } = await admin.describeConfigs([
    { type: 'TOPIC', name, keys: ['retention.ms', 'cleanup.policy'] },
  ]);
  configs = resources[0]?.configs ?? [];
}
for (const c of configs) console.log(`${c.name}=${c.value} (${c.source})`);

const { partitions } = await admin.listOffsets([
  { topic: name, partition: 0, spec: 'earliest' },
  { topic: name, partition: 0, spec: 'latest' },
]);
console.log(partitions.map((p) => `${p.topic}-${p.partition}: ${p.offset}`).join(', '));

const { groups } = await admin.listGroups(); // then describeGroups(ids) for members
console.log(`${groups.length} groups`);

await admin.deleteTopics([name]); // { topics: [{ name, error? }] }
await admin.close();
// #endregion readme
