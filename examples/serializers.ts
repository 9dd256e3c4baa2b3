// Typed keys and values of the client README: a producer with serializers and a group consumer
// with deserializers, one record that cannot be read failing alone. Build with
// `npx tsc -b examples`, then:
//   node examples/dist/serializers.js 127.0.0.1:9092 typed-orders typed-billing
import {
  Cluster,
  Consumer,
  DeserializationError,
  jsonDeserializer,
  jsonSerializer,
  Producer,
  stringDeserializer,
  stringSerializer,
} from '@kafkats/client';

const [bootstrap = '127.0.0.1:9092', topic = 'typed-orders', groupId = 'typed-billing'] =
  process.argv.slice(2);

// #region readme
interface Order {
  id: number;
  item: string;
}

const cluster = await Cluster.connect(bootstrap);
const producer = new Producer<string, Order>(cluster, {
  serializers: { key: stringSerializer, value: jsonSerializer },
});
await producer.send({ topic, key: 'customer-7', value: { id: 1, item: 'pen' } });
await producer.send({ topic, key: 'customer-7', value: { id: 2, item: 'ink' } });
await producer.close();

// A record some other program wrote, that is not JSON.
const raw = new Producer(cluster);
await raw.send({ topic, key: 'customer-9', value: 'not json' });
await raw.close();

const consumer = new Consumer<string, Order>(cluster, {
  groupId,
  topics: [topic],
  autoOffsetReset: 'earliest',
  deserializers: { key: stringDeserializer, value: jsonDeserializer<Order>() },
});
let read = 0;
for await (const batch of consumer) {
  for (const record of batch.records) {
    try {
      console.log(`${record.key} ordered ${record.value?.item}`);
    } catch (error) {
      // Only this record failed: send its bytes to a dead-letter topic, go on with the rest.
      if (!(error instanceof DeserializationError)) throw error;
      console.log(`skipped offset ${error.offset}: ${error.data.toString()}`);
    }
  }
  read += batch.records.length;
  if (read >= 3) break;
}
await consumer.close();
await cluster.close();
// #endregion readme
