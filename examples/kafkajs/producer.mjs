// A kafkajs producer as a kafkajs user writes it: several keyed batches with headers through
// send(), one sendBatch() over two topics, then disconnect. Switching to kafkats changes only
// the import line: `import { Kafka, Partitioners } from '@kafkats/kafkajs'`.
//
//   KAFKA_BROKERS=127.0.0.1:9092 TOPIC=orders AUDIT_TOPIC=orders-audit node producer.mjs
import { CompressionTypes, Kafka, logLevel, Partitioners } from 'kafkajs';

const { env } = process;

const brokers = (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const topic = env.TOPIC ?? 'orders';
const auditTopic = env.AUDIT_TOPIC ?? 'orders-audit';
const batches = Number(env.BATCHES ?? 3);
const perBatch = Number(env.PER_BATCH ?? 4);

const kafka = new Kafka({ clientId: 'orders-producer', brokers, logLevel: logLevel.ERROR });
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });

/** One line per acknowledged partition write: what the app reports. */
const report = (call, metadata) => {
  for (const m of metadata) {
    console.log(
      JSON.stringify({
        call,
        topic: m.topicName,
        partition: m.partition,
        errorCode: m.errorCode,
        baseOffset: m.baseOffset,
      }),
    );
  }
};

await producer.connect();
let sent = 0;
for (let b = 0; b < batches; b++) {
  const messages = [];
  for (let i = 0; i < perBatch; i++) {
    const n = b * perBatch + i;
    messages.push({
      key: `customer-${n % 5}`,
      value: JSON.stringify({ order: n, amount: (n * 7) % 100 }),
      headers: { 'correlation-id': `order-${n}`, source: Buffer.from('web') },
    });
  }
  const metadata = await producer.send({
    topic,
    messages,
    acks: -1,
    compression: b % 2 === 0 ? CompressionTypes.None : CompressionTypes.GZIP,
  });
  report('send', metadata);
  sent += messages.length;
}

const metadata = await producer.sendBatch({
  topicMessages: [
    {
      topic,
      messages: [{ key: 'customer-0', value: JSON.stringify({ order: 'refund', amount: -7 }) }],
    },
    {
      topic: auditTopic,
      messages: [{ key: 'batch', value: `${sent} orders`, headers: { kind: 'summary' } }],
    },
  ],
});
report('sendBatch', metadata);
await producer.disconnect();
console.log(JSON.stringify({ done: true, sent: sent + 2 }));
