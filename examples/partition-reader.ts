// The PartitionReader of the client README: one partition, the caller owns the position. Build
// with `npx tsc -b examples`, then:
//   node examples/dist/partition-reader.js 127.0.0.1:9092 events 0 100
import { Cluster, PartitionReader } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', topic = 'events', partition = '0', upTo = '10'] =
  process.argv.slice(2);
let position = 0n;
const savePosition = (next: bigint) => {
  position = next;
};

// #region readme
const cluster = await Cluster.connect(bootstrap);
const controller = new AbortController();
const reader = new PartitionReader(cluster, {
  topic,
  partition: Number(partition),
  startOffset: 'earliest', // or an offset (bigint), or 'latest'
  signal: controller.signal,
});

for await (const batch of reader) {
  for (const record of batch.records) {
    // record.offset (bigint), record.timestamp (bigint ms), record.key, record.value,
    // record.headers: [{ key: string, value: Buffer | null }]
    console.log(`${record.offset} ${record.value?.toString()}`);
  }
  savePosition(batch.nextOffset); // resume here later: startOffset: batch.nextOffset
  if (batch.nextOffset >= BigInt(upTo)) controller.abort(); // ends the loop, no error
}
await cluster.close();
// #endregion readme
console.log(`read up to offset ${position}`);
