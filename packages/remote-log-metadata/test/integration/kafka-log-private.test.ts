// The metadata log on a private 3-node cluster with ACLs: a principal holding only READ and
// DESCRIBE reads through openReadOnly, and a leader killed in the middle of writes loses and
// repeats no acknowledged event.
import { randomBytes } from 'node:crypto';
import { type KafkaCluster, startCluster } from '@kafkats/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deserializeMetadataEvent,
  KafkaMetadataEventLog,
  metadataPartition,
  RemoteLogMetadataManager,
  type RemoteLogSegmentMetadata,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip } from '../support/fixtures.js';

const unique = (p: string) => `${p}-${randomBytes(4).toString('hex')}`;
let kafka: KafkaCluster;

beforeAll(async () => {
  kafka = await startCluster({ nodes: 3, acls: true, listeners: ['SASL_PLAINTEXT'] });
});
afterAll(async () => {
  await kafka?.stop();
});

describe('KafkaMetadataEventLog on a private cluster', () => {
  it('openReadOnly works for a principal with only READ and DESCRIBE, and sends nothing that mutates', async () => {
    const topic = unique('rlmm-acl');
    const writerLog = await KafkaMetadataEventLog.start({
      bootstrap: kafka.bootstrap,
      topic,
      numPartitions: 3,
    });
    const writer = new RemoteLogMetadataManager(writerLog);
    const tp = tip('acl', 0, randomUuid());
    await writer.onPartitionLeadershipChanges([tp]);
    await writer.waitUntilReady([tp]);
    for (let i = 0; i < 5; i++)
      await writer.addRemoteLogSegmentMetadata(
        segment(segId(tp), i * 10, i * 10 + 9, [[0, i * 10]]),
      );
    await writer.close();
    await writerLog.close();

    const alice = kafka.security?.users.find((u) => u.username === 'alice');
    if (alice === undefined) throw new Error('no alice');
    await kafka.admin.createAcls([
      { name: topic, principal: 'User:alice', operation: 'READ' },
      { name: topic, principal: 'User:alice', operation: 'DESCRIBE' },
    ]);
    const config = {
      bootstrap: kafka.describe().listeners.SASL_PLAINTEXT as string,
      topic,
      cluster: {
        connection: {
          sasl: {
            mechanism: 'SCRAM-SHA-256' as const,
            username: alice.username,
            password: alice.password,
          },
        },
      },
    };
    // Kafka's own producer, as alice, is refused: the ACLs hold no WRITE.
    const javaAlice = kafka.javaAdmin({
      listener: 'SASL_PLAINTEXT',
      user: alice,
      mechanism: 'SCRAM-SHA-256',
    });
    await expect(
      javaAlice.produce(topic, [{ value: 'x', partition: 0 }], { timeoutMs: 10_000 }),
    ).rejects.toThrow();

    const ro = await KafkaMetadataEventLog.openReadOnly(config);
    const reader = new RemoteLogMetadataManager(ro);
    try {
      await reader.onPartitionLeadershipChanges([tp]);
      await reader.waitUntilReady([tp]);
      expect(reader.listRemoteLogSegments(tp)).toHaveLength(5);
      const hwm = await ro.highWaterMarks();
      expect(hwm.get(metadataPartition(tp, 3))).toBe(5n);
      let visited = 0;
      await ro.visitRange(metadataPartition(tp, 3), 0n, 100n, () => {
        visited++;
      });
      expect(visited).toBe(5);
      await expect(
        reader.addRemoteLogSegmentMetadata(segment(segId(tp), 100, 109, [[0, 100]])),
      ).rejects.toMatchObject({
        code: 'ERR_KAFKA_RLMM_STATE',
      });
      // The gate refuses mutating APIs before they are built: the cluster says so itself.
      expect(ro.cluster.readOnly).toBe(true);
      // Only the writer ever produced to the topic (one producer id), as Kafka's admin reports.
      const producers = await kafka.admin.describeProducers(topic);
      const ids = new Set(producers.flatMap((p) => p.producers.map((s) => String(s.producerId))));
      expect(ids.size).toBe(1);
    } finally {
      await reader.close();
      await ro.close();
    }
  });

  it('a leader killed mid-write: every acknowledged event is read back exactly once', async () => {
    const topic = unique('rlmm-kill');
    const log = await KafkaMetadataEventLog.start({
      bootstrap: kafka.bootstrap,
      topic,
      numPartitions: 1,
      producer: { deliveryTimeoutMs: 60_000 },
    });
    const m = new RemoteLogMetadataManager(log, { consumeWaitMs: 60_000 });
    const tp = tip('kill', 0, randomUuid());
    await m.onPartitionLeadershipChanges([tp]);
    await m.waitUntilReady([tp]);
    const leader = (await kafka.admin.describeTopic(topic)).partitions[0]!.leader;
    const acked: string[] = [];
    const write = async (i: number) => {
      const id = segId(tp);
      try {
        await m.addRemoteLogSegmentMetadata(segment(id, i, i, [[0, i]]));
        acked.push(id.id);
      } catch {
        // not acknowledged: it may or may not be in the log, and is not counted
      }
    };
    let i = 0;
    for (; i < 100; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => write(i + k)));
    await kafka.stopNode(leader, { signal: 'SIGKILL' });
    for (; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => write(i + k)));
    await kafka.startNode(leader);
    for (; i < 250; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => write(i + k)));
    expect(acked.length).toBeGreaterThan(200);

    // Our manager holds each acknowledged segment once ...
    const listed = m.listRemoteLogSegments(tp).map((s) => s.remoteLogSegmentId.id);
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of acked) expect(listed).toContain(id);
    // ... and Kafka's consumer finds each exactly once in the topic.
    const end = (await kafka.admin.listOffsets(topic, 'latest'))[0]!.offset;
    const records = await kafka.admin.consume(topic, {
      partition: 0,
      maxRecords: Number(end),
      timeoutMs: 60_000,
    });
    const inTopic = records.map(
      (r) => (deserializeMetadataEvent(r.value) as RemoteLogSegmentMetadata).remoteLogSegmentId.id,
    );
    expect(new Set(inTopic).size).toBe(inTopic.length);
    for (const id of acked) expect(inTopic).toContain(id);
    await m.close();
    await log.close();
  });
});
