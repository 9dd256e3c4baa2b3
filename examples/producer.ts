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

// Many records: enqueue resolves once the record is buffered (bounded by bufferMemory),
// its `result` once the broker acknowledged it.
const pending = [];
for (const order of orders) pending.push((await producer.enqueue({ topic, value: order })).result);
await Promise.all(pending);

await producer.flush(); // send now, wait for everything sent so far
await producer.close(); // drain, then refuse new records; the cluster stays open
await cluster.close();
// #endregion readme
console.log(`${pending.length + 1} records acknowledged`);
