// Acceptance: an idempotent producer keeps every record exactly once and in order per partition
// while partition leaders are killed (SIGKILL: the outcome of in-flight requests is unknown)
// and restarted mid-stream. Kafka's own Java consumer reads the topic back.
import { randomUUID } from 'node:crypto';
import { Cluster } from '@kafkats/meta';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Producer, type RecordMetadata } from '../../src/index.js';

const TOTAL = 200_000;
const PARTITIONS = 6;

describe('Producer under leader failover (private 3-node cluster)', () => {
  let kafka: KafkaCluster;
  let cluster: Cluster;

  beforeAll(async () => {
    kafka = await startCluster({ nodes: 3 });
    cluster = await Cluster.connect(kafka.bootstrap);
  });

  afterAll(async () => {
    await cluster?.close();
    await kafka?.stop();
  });

  async function leaderOf(topic: string, partition: number): Promise<number> {
    const description = await kafka.admin.describeTopic(topic);
    const leader = description.partitions.find((p) => p.partition === partition)?.leader;
    if (leader === undefined || leader < 0) throw new Error(`${topic}-${partition} has no leader`);
    return leader;
  }

  it('delivers 200,000 records exactly once, in per-partition order, while two leaders are killed and restarted', async () => {
    const topic = `failover-${randomUUID().slice(0, 8)}`;
    await kafka.admin.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    const producer = new Producer(cluster, { lingerMs: 5 });
    const results: Promise<RecordMetadata>[] = [];
    // Two faults, each pinned inside the stream: the producer pauses at `kill` until the leader
    // is down, keeps producing while it is down and restarting, and pauses at `back` until it is
    // up again, so records are in flight at both edges.
    const faults = [
      { partition: 0, kill: TOTAL * 0.2, back: TOTAL * 0.35 },
      { partition: 1, kill: TOTAL * 0.5, back: TOTAL * 0.65 },
    ].map((f) => {
      let killed!: () => void;
      let restarted!: () => void;
      return {
        ...f,
        killed: new Promise<void>((r) => {
          killed = r;
        }),
        restarted: new Promise<void>((r) => {
          restarted = r;
        }),
        markKilled: () => killed(),
        markRestarted: () => restarted(),
      };
    });
    const produce = (async () => {
      for (let i = 0; i < TOTAL; i++) {
        for (const f of faults) {
          if (i === f.kill) await f.killed;
          if (i === f.back) await f.restarted;
        }
        // Keyed records (murmur2 spreads them over the six partitions); the value carries i.
        const delivery = await producer.enqueue({
          topic,
          key: `key-${i % 997}`,
          value: String(i).padStart(7, '0'),
        });
        results.push(delivery.result);
        if (i % 20_000 === 0) console.log(`failover: ${i} records enqueued`);
        // Pace the stream so the window between kill and restart sees many batches.
        if (i % 500 === 0) await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const faulting = (async () => {
      for (const f of faults) {
        await new Promise((r) => setTimeout(r, 500));
        const leader = await leaderOf(topic, f.partition);
        await kafka.stopNode(leader, { signal: 'SIGKILL' });
        console.log(`failover: leader ${leader} of ${topic}-${f.partition} killed`);
        f.markKilled();
        await new Promise((r) => setTimeout(r, 3000));
        await kafka.startNode(leader);
        console.log(`failover: broker ${leader} restarted`);
        f.markRestarted();
        // The next fault starts only once the stream has reached its kill point.
        const next = faults[faults.indexOf(f) + 1];
        if (next !== undefined)
          while (results.length < next.kill) await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.all([produce, faulting]);
    const metadata = await Promise.all(results);
    await producer.close();
    expect(metadata).toHaveLength(TOTAL);
    console.log('failover: every record acknowledged; reading back with the Java consumer');

    // Read back with Kafka's Java consumer, one partition at a time, exactly as many records as
    // the producer reported there; the log end offsets then show nothing else was written.
    const counts = new Array<number>(PARTITIONS).fill(0);
    for (const m of metadata) counts[m.partition]!++;
    const ends = await kafka.admin.listOffsets(topic, 'latest');
    for (const e of ends) expect(e.offset).toBe(BigInt(counts[e.partition]!));
    const consumed = [];
    for (let p = 0; p < PARTITIONS; p++) {
      const records = await kafka.admin.consume(topic, {
        partition: p,
        maxRecords: counts[p]!,
        timeoutMs: 120_000,
      });
      expect(records).toHaveLength(counts[p]!);
      consumed.push(...records);
    }
    expect(consumed).toHaveLength(TOTAL);
    const seen = new Uint8Array(TOTAL);
    const lastByPartition = new Map<number, number>();
    let outOfOrder = 0;
    for (const r of consumed) {
      const i = Number(r.value!.toString());
      seen[i]! += 1;
      const last = lastByPartition.get(r.partition) ?? -1;
      if (i <= last) outOfOrder++;
      lastByPartition.set(r.partition, i);
    }
    expect(outOfOrder).toBe(0);
    expect(seen.every((n) => n === 1)).toBe(true);
    // What the producer reported is where the Java consumer found each record.
    const where = new Map(consumed.map((r) => [Number(r.value!.toString()), r]));
    for (let i = 0; i < TOTAL; i += 997) {
      const m = metadata[i]!;
      expect(where.get(i)?.partition).toBe(m.partition);
      expect(where.get(i)?.offset).toBe(m.offset);
    }
  }, 600_000);
});
