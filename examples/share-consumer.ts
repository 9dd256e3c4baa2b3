// The share consumer of the client README (KIP-932, Kafka 4.1+): reads a topic as a queue, each
// record acquired by this member alone until it acknowledges it. Build with `npx tsc -b
// examples`, then:
//   node examples/dist/share-consumer.js 127.0.0.1:9092 orders packers 101
import { Admin, Cluster, ShareConsumer } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', topic = 'orders', groupId = 'packers', wanted = '10'] =
  process.argv.slice(2);
// Returns false for a record to hand back to the group (delivered again, maybe elsewhere).
const handle = (key: Buffer | null, value: Buffer | null): boolean => {
  console.log(`${key?.toString() ?? '-'} ${value?.toString() ?? 'null'}`);
  return true;
};

// #region readme
const cluster = await Cluster.connect(bootstrap);
// A new share group starts at the end of the log (share.auto.offset.reset=latest, a group
// config): read what is there already.
await new Admin(cluster).incrementalAlterConfigs([
  {
    type: 'GROUP',
    name: groupId,
    ops: [{ name: 'share.auto.offset.reset', op: 'SET', value: 'earliest' }],
  },
]);

const consumer = new ShareConsumer(cluster, {
  groupId,
  topics: [topic],
  acknowledgementMode: 'explicit',
});
await consumer.start();
let accepted = 0;
for await (const records of consumer) {
  for (const record of records) {
    const done = handle(record.key, record.value);
    consumer.acknowledge(record, done ? 'accept' : 'release');
    if (done) accepted++;
  }
  if (accepted >= Number(wanted)) break;
}

await consumer.commit(); // sends the acknowledgements; resolves with what each leader said
await consumer.close(); // closes the share sessions (what is still acquired goes back) and leaves
await cluster.close();
// #endregion readme
console.log(`${accepted} records accepted`);
