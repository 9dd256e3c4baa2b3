// The group consumer of the client README: reads a topic's records as a member of a group,
// then commits and leaves. Build with `npx tsc -b examples`, then:
//   node examples/dist/consumer.js 127.0.0.1:9092 orders billing 101
import { Cluster, Consumer } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', topic = 'orders', groupId = 'billing', wanted = '10'] =
  process.argv.slice(2);
const handle = (key: Buffer | null, value: Buffer | null) =>
  console.log(`${key?.toString() ?? '-'} ${value?.toString() ?? 'null'}`);

// #region readme
const cluster = await Cluster.connect(bootstrap);
const consumer = new Consumer(cluster, { groupId, topics: [topic], autoOffsetReset: 'earliest' });

let read = 0;
for await (const batch of consumer) {
  // One partition's records per batch; the batch counts as finished when the next is asked
  // for, or when the loop is left.
  for (const record of batch.records) handle(record.key, record.value);
  read += batch.records.length;
  if (read >= Number(wanted)) break;
}

await consumer.commit(); // resolves once OffsetCommit succeeded
await consumer.close(); // stop fetching, commit, leave the group; the cluster stays open
await cluster.close();
// #endregion readme
console.log(`${read} records read`);
