// Prints every request and connect as it finishes, produces and reads three records, then prints
// the metrics snapshots. Build with `npx tsc -b examples`, then:
//   node examples/dist/trace-and-metrics.js 127.0.0.1:9092
import { Admin, PartitionReader, Producer } from '@kafkats/client';
import { Cluster } from '@kafkats/meta';
import {
  type ConnectTraceContext,
  connectChannel,
  filterLogger,
  type RequestTraceContext,
  requestChannel,
} from '@kafkats/wire';

const ignore = () => {};
requestChannel.subscribe({
  start: ignore,
  end: ignore,
  asyncStart: ignore,
  error: ignore,
  asyncEnd(message) {
    const r = message as RequestTraceContext;
    console.log(
      `request ${r.api} v${r.version} to ${r.broker} #${r.correlationId}: ${r.outcome}` +
        ` errorCode=${r.errorCode} out=${r.bytesOut}B in=${r.bytesIn}B ${r.durationMs.toFixed(1)}ms`,
    );
  },
});
connectChannel.subscribe({
  start: ignore,
  end: ignore,
  asyncStart: ignore,
  error: ignore,
  asyncEnd(message) {
    const c = message as ConnectTraceContext;
    console.log(`connect ${c.broker} via ${c.address}: ${c.outcome} ${c.durationMs.toFixed(1)}ms`);
  },
});

// Any (fields, message) logger fits (pino, console); this one prints a line per call.
const line = (level: string) => (fields: object, message: string) =>
  console.log(`[${level}] ${message} ${JSON.stringify(fields)}`);
const logger = {
  debug: line('debug'),
  info: line('info'),
  warn: line('warn'),
  error: line('error'),
};
const cluster = await Cluster.connect(process.argv[2] ?? '127.0.0.1:9092', {
  logger: filterLogger(logger, 'info'),
});
const topic = `traced-${Date.now()}`;
await new Admin(cluster).createTopics([{ name: topic, numPartitions: 1 }], {
  waitForLeaders: true,
});
const producer = new Producer(cluster, { lingerMs: 0 });
await Promise.all(['a', 'b', 'c'].map((value) => producer.send({ topic, partition: 0, value })));
const reader = new PartitionReader(cluster, { topic, partition: 0, startOffset: 0n });
for await (const batch of reader) if (batch.nextOffset >= 3n) break;

const { metadataAgeMs, totals, brokers } = cluster.metrics();
console.log({
  metadataAgeMs,
  requests: totals.requests,
  bytesOut: totals.bytesOut,
  bytesIn: totals.bytesIn,
});
const ms = (us: number) => (us / 1000).toFixed(2);
for (const b of brokers) {
  const latency = Object.entries(b.latencyUs).map(
    ([api, h]) => `${api} n=${h.count} p50=${ms(h.p50)} p99=${ms(h.p99)} max=${ms(h.max)}ms`,
  );
  console.log(
    `${b.endpoint}: connects=${b.connects} reconnects=${b.reconnects} requests=${b.requests}` +
      ` inFlight=${b.inFlight} queued=${b.queued} | ${latency.join(' | ')}`,
  );
}
console.log('producer', producer.metrics());
console.log('reader', reader.metrics());
await producer.close();
await cluster.close();
