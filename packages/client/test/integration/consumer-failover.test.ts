// The group coordinator's broker is killed (SIGKILL) mid-run on a private 3-node cluster: the
// KIP-848 members find the new coordinator, keep or regain their partitions, and go on from the
// offsets committed before the kill. No record is lost; a record is processed again only when
// it lies at or after its partition's last committed offset from before the kill. Then an
// exactly-once pipeline (KIP-98, KIP-447) loses a broker mid-run, with each group protocol:
// the read_committed output holds every input record exactly once.
import { Cluster } from '@kafkats/meta';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { unique } from './admin-support.js';
import {
  describePipelines,
  healthy,
  Member,
  Pipeline,
  produceNumbered,
  Tally,
  waitFor,
} from './consumer-support.js';

const TOTAL = 3000;
const PARTITIONS = 3;

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

/** A member that records each processed (partition, offset) with whether it came after the kill. */
class Recorder {
  readonly consumer: Consumer;
  readonly running: Promise<void>;
  error: unknown;

  constructor(
    options: ConsumerOptions,
    seen: { key: string; afterKill: boolean }[],
    killed: () => boolean,
  ) {
    this.consumer = new Consumer(cluster, { autoOffsetReset: 'earliest', ...options });
    this.running = this.consumer
      .run({
        eachBatch: async (batch) => {
          for (const r of batch.records)
            seen.push({ key: `${batch.partition}:${r.offset}`, afterKill: killed() });
        },
      })
      .catch((error: unknown) => {
        this.error = error;
      });
  }

  async close(): Promise<void> {
    await this.consumer.close();
    await this.running;
  }
}

describe('group coordinator failover', () => {
  it('the coordinator broker dies mid-run: the group recovers and resumes from the offsets committed before', async () => {
    const topic = unique('failover');
    await kafka.admin.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 3 });
    await cluster.refreshTopics([topic]);
    const groupId = unique('g-failover');
    const seen: { key: string; afterKill: boolean }[] = [];
    let killedAt = false;
    const options = { groupId, topics: [topic], autoCommitIntervalMs: 500 };
    const production = produceNumbered(cluster, topic, TOTAL, PARTITIONS, {
      perRound: 50,
      pauseMs: 200,
    });
    const members = [
      new Recorder(options, seen, () => killedAt),
      new Recorder(options, seen, () => killedAt),
    ];
    let coordinator = -1;
    try {
      await waitFor(() => production.sent() >= TOTAL / 3 && seen.length >= TOTAL / 4, 90_000);
      // What the group had committed when the broker died.
      coordinator = await cluster.coordinator('group', groupId);
      const committed = await members[0]!.consumer.committed(
        Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })),
      );
      await kafka.stopNode(coordinator, { signal: 'SIGKILL' });
      killedAt = true;
      const beforeKill = seen.filter((s) => !s.afterKill).length;
      await production.done;
      const keys = () => new Set(seen.map((s) => s.key)).size;
      await waitFor(() => keys() >= TOTAL, 120_000);
      for (const m of members) expect(m.error).toBeUndefined();
      expect(seen.length).toBeGreaterThan(beforeKill);
      expect(keys()).toBe(TOTAL);
      // Anything processed twice was at or after the offset committed before the kill.
      const counts = new Map<string, number>();
      for (const s of seen) counts.set(s.key, (counts.get(s.key) ?? 0) + 1);
      for (const [key, n] of counts) {
        if (n === 1) continue;
        const [partition, offset] = key.split(':').map((x) => BigInt(x)) as [bigint, bigint];
        const from = committed.get(`${topic}-${partition}`)?.offset ?? 0n;
        expect(offset >= from, `${key} processed ${n} times, committed ${from}`).toBe(true);
      }
      // The group is whole again: every partition owned by exactly one member.
      const owned = members.flatMap((m) => m.consumer.assignment().map((p) => p.partition));
      expect(owned.sort()).toEqual([0, 1, 2]);
    } finally {
      for (const m of members) await m.close();
      if (coordinator >= 0) await kafka.startNode(coordinator).catch(() => undefined);
    }
  });
});

describe('exactly-once pipeline across a broker failure', () => {
  for (const groupProtocol of ['consumer', 'classic'] as const) {
    it(`groupProtocol '${groupProtocol}': a broker dies mid-run; the read_committed output holds each of ${TOTAL} inputs exactly once`, async () => {
      const input = unique(`eos-kill-in-${groupProtocol}`);
      const output = unique(`eos-kill-out-${groupProtocol}`);
      await kafka.admin.createTopic(input, { partitions: 4, replicationFactor: 3 });
      await kafka.admin.createTopic(output, { partitions: 2, replicationFactor: 3 });
      await cluster.refreshTopics([input, output]);
      const groupId = unique('g-eos-kill');
      const production = produceNumbered(cluster, input, TOTAL, 4, { perRound: 100, pauseMs: 200 });
      const outputs = new Tally();
      const reader = new Member(
        cluster,
        {
          groupId: unique('g-eos-kill-verify'),
          topics: [output],
          isolationLevel: 'read_committed',
        },
        outputs,
      );
      const pipelines = [
        new Pipeline(cluster, groupId, input, output, groupProtocol, { retryAborted: true }),
        new Pipeline(cluster, groupId, input, output, groupProtocol, { retryAborted: true }),
      ];
      let killed = -1;
      try {
        await waitFor(
          () => healthy(pipelines) && pipelines.every((p) => p.transactions > 0),
          90_000,
          'a committed transaction from each member',
        );
        await waitFor(
          () => healthy(pipelines) && production.sent() >= TOTAL / 3,
          60_000,
          'a third of the input',
        );
        // The group coordinator's broker: it also leads some partitions of both topics and
        // may coordinate transactions.
        killed = await cluster.coordinator('group', groupId);
        await kafka.stopNode(killed, { signal: 'SIGKILL' });
        await production.done;
        await waitFor(
          () => healthy(pipelines) && outputs.counts.size >= TOTAL,
          180_000,
          () =>
            `every output record (${outputs.counts.size} of ${TOTAL} read back, ${production.sent()} inputs sent, broker ${killed} killed; ${describePipelines(pipelines)})`,
        );
        for (const p of pipelines) expect(p.error).toBeUndefined();
      } finally {
        production.stop();
        for (const p of pipelines) await p.close();
        await reader.close();
        if (killed >= 0) await kafka.startNode(killed).catch(() => undefined);
      }
      const missing: string[] = [];
      for (let i = 0; i < TOTAL; i++) if (!outputs.counts.has(`out-${i}`)) missing.push(`out-${i}`);
      expect(missing).toEqual([]);
      expect(outputs.duplicates()).toEqual([]);
      expect(outputs.counts.size).toBe(TOTAL);
    }, 330_000);
  }
});
