// Exactly-once consume-transform-produce, as in the client README: each batch read from `input`
// is written to `output` and its offsets committed in one transaction. Build with
// `npx tsc -b examples`, then:
//   node examples/dist/transactions.js 127.0.0.1:9092 orders invoices billing 101
import { Cluster, Consumer, Producer, TransactionAbortableError } from '@kafkats/client';

const [
  bootstrap = '127.0.0.1:9092',
  input = 'orders',
  output = 'invoices',
  groupId = 'billing',
  wanted = '10',
] = process.argv.slice(2);
const invoiceFor = (order: Buffer | null) => `invoice for ${order?.toString() ?? 'nothing'}`;

const cluster = await Cluster.connect(bootstrap);
// #region readme
const consumer = new Consumer(cluster, {
  groupId,
  topics: [input],
  isolationLevel: 'read_committed', // skip aborted and open transactions
  enableAutoCommit: false, // offsets are committed by the transaction
  autoOffsetReset: 'earliest',
});
const producer = new Producer(cluster, { transactionalId: `${groupId}-tx` });
await producer.initTransactions(); // fences older producers with this id

let copied = 0;
for await (const batch of consumer) {
  producer.beginTransaction();
  try {
    // Not awaited: in a transaction a failed record fails commitTransaction() instead.
    for (const r of batch.records)
      producer.send({ topic: output, key: r.key, value: invoiceFor(r.value) });
    await producer.sendOffsetsToTransaction(
      [{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset }],
      consumer.groupMetadata(), // the member's generation: a zombie's offsets are refused
    );
    await producer.commitTransaction();
    copied += batch.records.length;
  } catch (error) {
    if (!(error instanceof TransactionAbortableError)) throw error;
    await producer.abortTransaction();
    // Read the batch again, unless the group moved the partition away meanwhile.
    if (consumer.position(batch) !== undefined) consumer.seek(batch, batch.fetchOffset);
  }
  if (copied >= Number(wanted)) break;
}
await producer.close();
await consumer.close();
// #endregion readme
await cluster.close();
console.log(`${copied} records copied in transactions`);
