// Consumer.metrics() on the shared cluster, beside Kafka's own kafka-consumer-groups.sh
// (ConsumerGroupCommand): a member that has read part of a topic and committed its position
// reports per partition the lag that tool shows in its LAG column at the same moment; its
// counters add up to what it handed out; its assignment changes are traced on
// `kafkats:rebalance` and logged.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { runKafkaTool, sharedCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Cluster,
  Consumer,
  Producer,
  REBALANCE_CHANNEL,
  type RebalanceTraceContext,
} from '../../src/index.js';
import { unique } from './admin-support.js';

const shared = sharedCluster();
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.connect(shared.bootstrap);
});
afterAll(async () => {
  await cluster?.close();
});

describe('Consumer.metrics()', () => {
  it('reports the lag kafka-consumer-groups.sh shows, and counts what it handed out', async () => {
    const topic = unique('metrics');
    const groupId = unique('metrics-group');
    await shared.admin.createTopic(topic, { partitions: 2, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    // One batch per send, so that small fetches hand out a few records at a time.
    const producer = new Producer(cluster, { lingerMs: 0 });
    try {
      for (let i = 0; i < 60; i++) await producer.send({ topic, partition: i % 2, value: `v${i}` });
    } finally {
      await producer.close();
    }
    const traced: RebalanceTraceContext[] = [];
    const onEnd = (m: unknown) => traced.push(m as RebalanceTraceContext);
    subscribe(`tracing:${REBALANCE_CHANNEL}:asyncEnd`, onEnd);
    const logged: string[] = [];
    const log = (_fields: unknown, message: string) => logged.push(message);
    const consumer = new Consumer(cluster, {
      groupId,
      topics: [topic],
      autoOffsetReset: 'earliest',
      enableAutoCommit: false,
      maxPartitionFetchBytes: 1,
      logger: { debug: () => {}, info: log, warn: log, error: log },
    });
    try {
      let handed = 0;
      for await (const batch of consumer) {
        handed += batch.records.length;
        if (handed >= 20) break;
      }
      await consumer.commit();
      const m = consumer.metrics();
      expect(m.recordsConsumed).toBe(handed);
      expect(m.bytesConsumed).toBeGreaterThan(0);
      expect(m.fetches).toBeGreaterThan(0);
      expect(m.commits).toBe(1);
      expect(m.rebalances).toBeGreaterThanOrEqual(1);
      expect(m.partitions.reduce((n, p) => n + p.records, 0)).toBe(handed);
      for (const p of m.partitions) {
        expect(p.highWatermark).toBe(30n);
        expect(p.committed).toBe(p.position);
      }
      expect(m.lag).toBe(BigInt(60 - handed));

      const out = await runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
        '--bootstrap-server',
        shared.bootstrap,
        '--describe',
        '--group',
        groupId,
      ]);
      expect(out.status, out.stderr).toBe(0);
      // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
      const kafka = new Map<number, string[]>();
      for (const line of out.stdout.split('\n')) {
        const cols = line.trim().split(/\s+/);
        if (cols[0] === groupId && cols[1] === topic) kafka.set(Number(cols[2]), cols.slice(3, 6));
      }
      expect(kafka.size).toBe(2);
      for (const p of m.partitions)
        expect(kafka.get(p.partition)).toEqual([
          String(p.committed),
          String(p.highWatermark),
          String(p.lag),
        ]);

      expect(traced.some((t) => t.kind === 'assigned' && t.groupId === groupId)).toBe(true);
      expect(traced.find((t) => t.kind === 'assigned')?.partitions).toHaveLength(2);
      expect(logged).toContain('partitions assigned');
    } finally {
      unsubscribe(`tracing:${REBALANCE_CHANNEL}:asyncEnd`, onEnd);
      await consumer.close();
    }
  });
});
