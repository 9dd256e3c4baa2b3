// A kafkajs consumer group as a kafkajs user writes it: subscribe from the beginning, run with
// eachMessage, stop after EXPECTED messages, disconnect. Switching to kafkats changes only the
// import line: `import { Kafka } from '@kafkats/kafkajs'`.
//
//   KAFKA_BROKERS=127.0.0.1:9092 TOPIC=orders GROUP_ID=billing EXPECTED=13 node consumer.mjs
import { Kafka, logLevel } from 'kafkajs';

const { env } = process;

const brokers = (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const topic = env.TOPIC ?? 'orders';
const groupId = env.GROUP_ID ?? 'billing';
const expected = Number(env.EXPECTED ?? 13);

const kafka = new Kafka({ clientId: 'billing-consumer', brokers, logLevel: logLevel.ERROR });
const consumer = kafka.consumer({ groupId });

let count = 0;
let finish;
const finished = new Promise((resolve) => {
  finish = resolve;
});

await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await consumer.run({
  eachMessage: async ({ topic, partition, message }) => {
    const headers = {};
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      headers[name] = Buffer.isBuffer(value) ? value.toString() : String(value);
    }
    console.log(
      JSON.stringify({
        topic,
        partition,
        offset: message.offset,
        key: message.key?.toString() ?? null,
        value: message.value?.toString() ?? null,
        headers,
        timestampIsString: typeof message.timestamp === 'string',
      }),
    );
    count += 1;
    if (count === expected) finish();
  },
});
await finished;
await consumer.disconnect();
console.log(JSON.stringify({ done: true, count }));
