import { randomBytes } from 'node:crypto';
import { wireConnectionFactory } from '@kafkats/meta';
import { runRlmmOracle, sharedCluster } from '@kafkats/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  KafkaMetadataEventLog,
  type MetadataEventLog,
  metadataPartition,
  type RemoteLogMetadataEvent,
  RemoteLogMetadataManager,
  remotePartitionDeleteMetadata,
  serializeMetadataEvent,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip, update } from '../support/fixtures.js';
import { toJava } from '../support/java-events.js';
import { runKafkaLifecycleScenario } from '../support/lifecycle.js';

const cluster = sharedCluster();
const unique = (p: string) => `${p}-${randomBytes(4).toString('hex')}`;
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of open.reverse()) await c.close();
});

async function startLog(topic: string, numPartitions = 5): Promise<KafkaMetadataEventLog> {
  const log = await KafkaMetadataEventLog.start({
    bootstrap: cluster.bootstrap,
    topic,
    numPartitions,
    replicationFactor: 3,
  });
  open.push(log);
  return log;
}

function manager(
  log: MetadataEventLog,
  options: ConstructorParameters<typeof RemoteLogMetadataManager>[1] = {},
) {
  const m = new RemoteLogMetadataManager(log, options);
  open.push(m);
  return m;
}

/** Counts the records a log hands to its reader. */
function counting(log: MetadataEventLog): { log: MetadataEventLog; records: () => number } {
  let n = 0;
  const wrapped: MetadataEventLog = {
    topicId: log.topicId,
    numPartitions: log.numPartitions,
    write: (p, v) => log.write(p, v),
    assign: (p, o) => log.assign(p, o),
    unassign: (p) => log.unassign(p),
    assigned: () => log.assigned(),
    read: async function* (signal) {
      for await (const b of log.read(signal)) {
        n += b.records.length;
        yield b;
      }
    },
    highWaterMarks: (ps) => log.highWaterMarks(ps),
    visitRange: (p, f, t, v, o) => log.visitRange(p, f, t, v, o),
    close: () => log.close(),
  };
  return { log: wrapped, records: () => n };
}

describe('KafkaMetadataEventLog on a real 3-node cluster', () => {
  it('start() with a replication factor above the broker count fails naming both settings and the brokers', async () => {
    const error = await KafkaMetadataEventLog.start({
      bootstrap: cluster.bootstrap,
      topic: unique('rlmm-rf'),
      replicationFactor: 4,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_KAFKA_RLMM_TOPIC_INVALID',
      cause: { errorName: 'INVALID_REPLICATION_FACTOR' },
    });
    const message = (error as Error).message;
    expect(message).toContain('replicationFactor 4');
    expect(message).toContain('minInsyncReplicas 2');
    expect(message).toContain('the cluster has 3');
  });

  it('visitRange follows the leader when it moves in the middle of the range', async () => {
    const log = await KafkaMetadataEventLog.start({
      bootstrap: cluster.bootstrap,
      topic: unique('rlmm-range-move'),
      numPartitions: 1,
      replicationFactor: 3,
      fetchMaxBytes: 1, // a page is one record batch: the range takes many Fetches
    });
    open.push(log);
    for (let i = 0; i < 20; i++) await log.write(0, Buffer.from(`event-${i}`));
    const before = (await cluster.admin.describeTopic(log.topic)).partitions[0]!;
    const to = before.replicas.find((r) => r !== before.leader)!;
    const visited: string[] = [];
    await log.visitRange(0, 0n, 20n, async (record) => {
      visited.push(record.value?.toString() ?? '');
      if (visited.length !== 5) return;
      // Kafka's own admin moves the leadership to another replica while the range is read.
      await cluster.admin.reassignPartitions(log.topic, {
        0: [to, ...before.replicas.filter((r) => r !== to)],
      });
      while ((await cluster.admin.listReassignments()).some((r) => r.topic === log.topic))
        await new Promise((r) => setTimeout(r, 100));
      await cluster.admin.electLeaders(log.topic, { partitions: [0] });
      while ((await cluster.admin.describeTopic(log.topic)).partitions[0]?.leader !== to)
        await new Promise((r) => setTimeout(r, 100));
    });
    expect(visited).toEqual(Array.from({ length: 20 }, (_, i) => `event-${i}`));
    expect((await cluster.admin.describeTopic(log.topic)).partitions[0]?.leader).toBe(to);
  });

  it('reads a 50-partition metadata topic on 3 brokers over 3 fetch connections', async () => {
    const base = wireConnectionFactory({});
    const dedicated: (number | undefined)[] = [];
    const log = await KafkaMetadataEventLog.start({
      bootstrap: cluster.bootstrap,
      topic: unique('rlmm-50'),
      numPartitions: 50,
      replicationFactor: 3,
      cluster: {
        connectionFactory: (target) => {
          if (target.label.includes('dedicated')) dedicated.push(target.nodeId);
          return base(target);
        },
      },
    });
    open.push(log);
    expect(log.numPartitions).toBe(50);
    await Promise.all(
      Array.from({ length: 50 }, (_, p) => log.write(p, Buffer.from(`event-${p}`))),
    );
    for (let p = 0; p < 50; p++) log.assign(p, 0n);
    const seen = new Set<string>();
    const guard = AbortSignal.timeout(60_000);
    for await (const batch of log.read(guard)) {
      for (const r of batch.records) seen.add(r.value?.toString() ?? '');
      if (seen.size === 50) break;
    }
    expect(seen.size).toBe(50);
    const leaders = new Set(
      (await cluster.admin.describeTopic(log.topic)).partitions.map((p) => p.leader),
    );
    expect(leaders.size).toBe(3);
    expect([...dedicated].sort()).toEqual([...leaders].sort());
  });

  it('provisions the topic as Kafka does and reuses an existing one with its own partition count', async () => {
    const topic = unique('rlmm-provision');
    const log = await startLog(topic, 7);
    const described = await cluster.admin.describeTopic(topic);
    expect(described.topicId).toBe(log.topicId);
    expect(described.partitions).toHaveLength(7);
    expect(described.partitions[0]!.replicas).toHaveLength(3);
    const configs = await cluster.admin.describeConfigs('topic', topic);
    expect(configs).toMatchObject({
      'cleanup.policy': 'delete',
      'retention.ms': '-1',
      'min.insync.replicas': '2',
      'remote.storage.enable': 'false',
    });
    const again = await startLog(topic, 50);
    expect(again.numPartitions).toBe(7);
    expect(again.topicId).toBe(log.topicId);
  });

  it("passes Kafka's lifecycle scenario through the real topic; Kafka's serde reads every record we wrote", async () => {
    const topic = unique('rlmm-lifecycle');
    const log = await startLog(topic, 3);
    const m = manager(log);
    const tp = tip('orders', 0, randomUuid());
    await m.onPartitionLeadershipChanges([tp]);
    await m.waitUntilReady([tp]);
    await runKafkaLifecycleScenario(m, tp);

    // Kafka's consumer reads the records back: null keys, all in the partition Kafka's
    // partitioner picks, and Kafka's RemoteLogMetadataSerde decodes them into our events.
    const mp = metadataPartition(tp, 3);
    const [kafkaPartition] = (await runRlmmOracle([{ op: 'partition', ...tp, partitions: 3 }])) as {
      partition: number;
    }[];
    expect(kafkaPartition!.partition).toBe(mp);
    const consumed = await cluster.admin.consume(topic, {
      partition: mp,
      maxRecords: 10,
      timeoutMs: 30_000,
    });
    expect(consumed).toHaveLength(10);
    expect(consumed.every((r) => r.key === null)).toBe(true);
    const decoded = (await runRlmmOracle(
      consumed.map((r) => ({ op: 'deserialize', hex: r.value!.toString('hex') })),
    )) as {
      event: unknown;
    }[];
    expect(decoded.every((d) => d.event !== undefined)).toBe(true);
    const { deserializeMetadataEvent } = await import('../../src/index.js');
    expect(decoded.map((d) => d.event)).toEqual(
      consumed.map((r) => toJava(deserializeMetadataEvent(r.value))),
    );
    // highWaterMarks is one ListOffsets round, equal to what Kafka's admin lists.
    const java = await cluster.admin.listOffsets(topic, 'latest');
    const ours = await log.highWaterMarks();
    expect([...ours].sort((a, b) => a[0] - b[0])).toEqual(
      java.map((p) => [p.partition, p.offset]).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
  });

  it("reads records Kafka's own serde and producer wrote", async () => {
    const topic = unique('rlmm-from-kafka');
    const log = await startLog(topic, 5);
    const tp = tip('payments', 3, randomUuid());
    const a = segId(tp);
    const events: RemoteLogMetadataEvent[] = [
      segment(
        a,
        0,
        99,
        [
          [0, 0],
          [1, 50],
        ],
        { customMetadata: Buffer.from('abc'), txnIndexEmpty: true },
      ),
      update(a, 'COPY_SEGMENT_FINISHED'),
      remotePartitionDeleteMetadata({
        topicIdPartition: tp,
        state: 'DELETE_PARTITION_MARKED',
        eventTimestampMs: 7n,
        brokerId: 3,
      }),
    ];
    const answers = (await runRlmmOracle([
      { op: 'partition', ...tp, partitions: 5 },
      ...events.map((e) => ({ op: 'serialize', event: toJava(e) })),
    ])) as { partition?: number; hex?: string }[];
    const partition = answers[0]!.partition!;
    await cluster.admin.produce(
      topic,
      answers.slice(1).map((x) => ({ key: null, value: Buffer.from(x.hex!, 'hex'), partition })),
      { acks: 'all', idempotent: true },
    );
    const m = manager(log);
    await m.onPartitionLeadershipChanges([], [tp]);
    await m.waitUntilReady([tp]);
    const found = m.remoteLogSegmentMetadata(tp, 1, 60n);
    expect(found).toMatchObject({
      state: 'COPY_SEGMENT_FINISHED',
      startOffset: 0n,
      endOffset: 99n,
      txnIndexEmpty: true,
      brokerId: 2,
    });
    expect(found?.customMetadata).toBeNull();
    expect(m.highestOffsetForEpoch(tp, 0)).toBe(49n);
    expect(m.remotePartitionDeleteMetadata(tp)?.state).toBe('DELETE_PARTITION_MARKED');
  });

  it('openReadOnly reads, visits a range and refuses writes; a restart from the snapshot reads only what is new', async () => {
    const topic = unique('rlmm-readonly');
    const writerLog = await startLog(topic, 3);
    const writer = manager(writerLog);
    const tp = tip('t', 1, randomUuid());
    await writer.onPartitionLeadershipChanges([tp]);
    await writer.waitUntilReady([tp]);
    const ids = Array.from({ length: 20 }, () => segId(tp));
    for (let i = 0; i < ids.length; i++) {
      await writer.addRemoteLogSegmentMetadata(segment(ids[i]!, i * 10, i * 10 + 9, [[0, i * 10]]));
      await writer.updateRemoteLogSegmentMetadata(update(ids[i]!, 'COPY_SEGMENT_FINISHED'));
    }
    const ro = await KafkaMetadataEventLog.openReadOnly({ bootstrap: cluster.bootstrap, topic });
    open.push(ro);
    expect(ro.readOnly).toBe(true);
    await expect(ro.write(0, Buffer.alloc(1))).rejects.toMatchObject({
      code: 'ERR_KAFKA_RLMM_STATE',
    });
    const mp = metadataPartition(tp, 3);
    const seen: bigint[] = [];
    await ro.visitRange(mp, 5n, 25n, (r) => {
      seen.push(r.offset);
    });
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i + 5)));
    const java = await cluster.admin.consume(topic, {
      partition: mp,
      fromOffset: 5,
      maxRecords: 20,
      timeoutMs: 30_000,
    });
    const values: Buffer[] = [];
    await ro.visitRange(mp, 5n, 25n, (r) => {
      values.push(r.value!);
    });
    expect(values).toEqual(java.map((r) => r.value));

    const first = counting(ro);
    const reader = manager(first.log);
    await reader.onPartitionLeadershipChanges([tp]);
    await reader.waitUntilReady([tp]);
    expect(first.records()).toBe(40);
    expect(reader.listRemoteLogSegments(tp)).toHaveLength(20);
    const snapshot = reader.snapshot();
    await reader.close();

    await writer.addRemoteLogSegmentMetadata(segment(segId(tp), 200, 209, [[1, 200]]));
    const ro2 = await KafkaMetadataEventLog.openReadOnly({ bootstrap: cluster.bootstrap, topic });
    open.push(ro2);
    const second = counting(ro2);
    const resumed = manager(second.log, { snapshot });
    await resumed.onPartitionLeadershipChanges([tp]);
    await resumed.waitUntilReady([tp]);
    expect(second.records()).toBe(1);
    expect(resumed.listRemoteLogSegments(tp)).toHaveLength(21);
    expect(resumed.remoteLogSegmentMetadata(tp, 0, 155n)?.remoteLogSegmentId.id).toBe(ids[15]!.id);
  });

  it('cancels reading promptly and stops a metadata partition no registered partition maps to', async () => {
    const topic = unique('rlmm-cancel');
    const log = await startLog(topic, 3);
    const m = manager(log);
    const tp = tip('x', 0, randomUuid());
    await m.onPartitionLeadershipChanges([tp]);
    await m.waitUntilReady([tp]);
    expect(log.assigned()).toEqual([metadataPartition(tp, 3)]);
    await m.onStopPartitions([tp]);
    expect(log.assigned()).toEqual([]);
    await expect(
      m.addRemoteLogSegmentMetadata(segment(segId(tp), 0, 1, [[0, 0]])),
    ).rejects.toMatchObject({
      code: 'ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED',
    });
    // Kafka's consumer sees the record all the same.
    const java = await cluster.admin.listOffsets(topic, 'latest');
    expect(java.find((p) => p.partition === metadataPartition(tp, 3))?.offset).toBe(1n);
    const closing = m.close();
    await closing;
    expect(serializeMetadataEvent(segment(segId(tp), 0, 1, [[0, 0]])).length).toBeGreaterThan(0);
  });
});
