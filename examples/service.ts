// A whole service on @kafkats/client alone: it reads orders as a member of a consumer group,
// writes an invoice for each, and on SIGINT or SIGTERM stops reading, commits what it finished,
// leaves the group and exits. Build with `npx tsc -b examples`, then:
//   node examples/dist/service.js 127.0.0.1:9092 orders invoices
import { Cluster, Consumer, Producer } from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', input = 'orders', output = 'invoices'] = process.argv.slice(2);
const invoiceFor = (order: Buffer | null) => `invoice for ${order?.toString() ?? 'nothing'}`;

// #region readme
const cluster = await Cluster.connect(bootstrap, { connection: { clientId: 'billing' } });
const producer = new Producer(cluster);
const consumer = new Consumer(cluster, {
  groupId: 'billing',
  topics: [input],
  autoOffsetReset: 'earliest',
});

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

let invoiced = 0;
try {
  // Resolves when `signal` aborts (or the consumer closes); rejects with what eachBatch threw.
  await consumer.run({
    signal: stop.signal,
    eachBatch: async (batch) => {
      // The batch counts as finished (and its offsets commit) once every invoice is written.
      await Promise.all(
        batch.records.map((r) =>
          producer.send({
            topic: output,
            key: r.key,
            value: invoiceFor(r.value),
            headers: { 'order-offset': String(r.offset) },
          }),
        ),
      );
      invoiced += batch.records.length;
      console.log(`invoiced ${invoiced}`);
    },
  });
} finally {
  await consumer.close(); // commits what was finished, leaves the group
  await producer.close(); // sends what is still buffered
  await cluster.close();
}
// #endregion readme
console.log(`stopped after ${invoiced} invoices`);
