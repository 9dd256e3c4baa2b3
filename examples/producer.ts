// The producer of the client README: one record awaited, many records with flow control, then a
// clean shutdown. Build with `npx tsc -b examples`, then:
//   node examples/dist/producer.js 127.0.0.1:9092 orders
import { Cluster, Producer } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', topic = 'orders'] = process.argv.slice(2);
const orders = Array.from({ length: 100 }, (_, i) => JSON.stringify({ order: i }));

// #region readme
const cluster = await Cluster.connect(bootstrap);
const producer = new Producer(cluster, { compression: 'zstd' });

const { partition, offset } = await producer.send({
  topic,
  key: 'order-1',
  value: '{"order":1}',
  headers: { source: 'checkout' }, // or [{ key: 'source', value: 'checkout' }]
});
console.log(`order-1 written at ${topic}-${partition} offset ${offset}`);

// Many records, no promise each: the callback hears of each delivery; the awaited promise
// settles once the record is in the buffer (at once while there is room and the sender keeps up).
let failed: Error | undefined;
let acknowledged = 0;
for (const order of orders.slice(0, 50)) {
  await producer.send({ topic, value: order }, (error) => {
    if (error) failed ??= error;
    else acknowledged++;
  });
}

// Or one promise for many records: each one's metadata is made when read.
const batch = orders.slice(50).map((value) => ({ topic, key: 'batch', value }));
const result = await producer.sendBatch(batch);
console.log(`the batch's first record is at offset ${result.metadata(0).offset}`);

await producer.flush(); // send now, wait for everything sent so far
await producer.close(); // drain, then refuse new records; the cluster stays open
await cluster.close();
// #endregion readme
if (failed) throw failed;
console.log(`${acknowledged + result.count + 1} records acknowledged`);
