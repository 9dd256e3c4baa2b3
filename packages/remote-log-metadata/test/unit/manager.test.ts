import { describe, expect, it } from 'vitest';
import {
  InMemoryMetadataEventLog,
  type MetadataEventLog,
  metadataPartition,
  type RemoteLogMetadataError,
  RemoteLogMetadataManager,
  remotePartitionDeleteMetadata,
  serializeMetadataEvent,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip, update } from '../support/fixtures.js';
import { runKafkaLifecycleScenario } from '../support/lifecycle.js';

const LOG_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

async function ready(m: RemoteLogMetadataManager, ...tps: ReturnType<typeof tip>[]) {
  await m.onPartitionLeadershipChanges(tps);
  await m.waitUntilReady(tps, { timeoutMs: 5000 });
}

describe('RemoteLogMetadataManager over an in-memory log', () => {
  it("passes Kafka's RemoteLogSegmentLifecycleTest lifecycle scenario", async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 5);
    const m = new RemoteLogMetadataManager(log);
    const tp = tip('foo', 0, randomUuid());
    await ready(m, tp);
    await runKafkaLifecycleScenario(m, tp);
    await m.close();
  });

  it('lists STARTED and DELETE_STARTED, finds only FINISHED, forgets DELETE_FINISHED', async () => {
    const m = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3));
    const tp = tip('foo', 0, randomUuid());
    await ready(m, tp);
    const a = segId(tp);
    await m.addRemoteLogSegmentMetadata(segment(a, 0, 100, [[0, 0]]));
    expect(m.remoteLogSegmentMetadata(tp, 0, 50n)).toBeUndefined();
    expect(m.listRemoteLogSegments(tp, 0)).toHaveLength(1);
    await m.updateRemoteLogSegmentMetadata(update(a, 'COPY_SEGMENT_FINISHED'));
    expect(m.remoteLogSegmentMetadata(tp, 0, 50n)?.state).toBe('COPY_SEGMENT_FINISHED');
    await m.updateRemoteLogSegmentMetadata(update(a, 'DELETE_SEGMENT_STARTED'));
    expect(m.remoteLogSegmentMetadata(tp, 0, 50n)).toBeUndefined();
    expect(m.listRemoteLogSegments(tp).map((s) => s.state)).toEqual(['DELETE_SEGMENT_STARTED']);
    await m.updateRemoteLogSegmentMetadata(update(a, 'DELETE_SEGMENT_FINISHED'));
    expect(m.listRemoteLogSegments(tp)).toEqual([]);
    expect(m.listRemoteLogSegments(tp, 0)).toEqual([]);
    await m.close();
  });

  it('orders an epoch listing by start offset (RemoteLogSegmentLifecycleTest list ordering)', async () => {
    const m = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3));
    const tp = tip('foo', 0, randomUuid());
    await ready(m, tp);
    const ids = [segId(tp), segId(tp), segId(tp)];
    const segs = [
      segment(ids[0]!, 0, 100, [[0, 0]]),
      segment(ids[1]!, 101, 200, [[0, 101]]),
      segment(ids[2]!, 201, 400, [
        [0, 201],
        [1, 301],
      ]),
    ];
    // Added in reverse, the last one left in progress.
    await m.addRemoteLogSegmentMetadata(segs[2]!);
    await m.addRemoteLogSegmentMetadata(segs[1]!);
    await m.addRemoteLogSegmentMetadata(segs[0]!);
    await m.updateRemoteLogSegmentMetadata(update(ids[0]!, 'COPY_SEGMENT_FINISHED'));
    await m.updateRemoteLogSegmentMetadata(update(ids[2]!, 'COPY_SEGMENT_FINISHED'));
    expect(m.listRemoteLogSegments(tp, 0).map((s) => s.startOffset)).toEqual([0n, 101n, 201n]);
    expect(m.listRemoteLogSegments(tp, 1).map((s) => s.startOffset)).toEqual([201n]);
    await m.close();
  });

  it('refuses an add that is not STARTED and an update that is, before writing', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3);
    const m = new RemoteLogMetadataManager(log);
    const tp = tip('foo', 0, randomUuid());
    await ready(m, tp);
    const a = segId(tp);
    await expect(
      m.addRemoteLogSegmentMetadata({
        ...segment(a, 0, 1, [[0, 0]]),
        state: 'COPY_SEGMENT_FINISHED',
      }),
    ).rejects.toMatchObject({ code: 'ERR_KAFKA_RLMM_EVENT_INVALID' });
    await expect(
      m.updateRemoteLogSegmentMetadata(update(a, 'COPY_SEGMENT_STARTED')),
    ).rejects.toMatchObject({ code: 'ERR_KAFKA_RLMM_EVENT_INVALID' });
    expect([...(await log.highWaterMarks()).values()].every((o) => o === 0n)).toBe(true);
    await m.close();
  });

  it('drops invalid transitions and keeps the state, reporting them', async () => {
    const dropped: string[] = [];
    const m = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3), {
      onDroppedEvent: (r) => dropped.push(r),
    });
    const tp = tip('foo', 0, randomUuid());
    await ready(m, tp);
    const a = segId(tp);
    await m.addRemoteLogSegmentMetadata(segment(a, 0, 100, [[0, 0]]));
    await m.updateRemoteLogSegmentMetadata(update(a, 'DELETE_SEGMENT_FINISHED'));
    expect(m.listRemoteLogSegments(tp).map((s) => s.state)).toEqual(['COPY_SEGMENT_STARTED']);
    await m.updateRemoteLogSegmentMetadata(update(segId(tp), 'COPY_SEGMENT_FINISHED'));
    expect(dropped).toHaveLength(2);
    await m.close();
  });

  it('answers NOT_FOUND for an unregistered partition and after DELETE_PARTITION_FINISHED', async () => {
    const m = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3));
    const tp = tip('foo', 0, randomUuid());
    expect(() => m.listRemoteLogSegments(tp)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND' }),
    );
    await ready(m, tp);
    const a = segId(tp);
    await m.addRemoteLogSegmentMetadata(segment(a, 0, 100, [[0, 0]]));
    await m.updateRemoteLogSegmentMetadata(update(a, 'COPY_SEGMENT_FINISHED'));
    for (const state of ['DELETE_PARTITION_MARKED', 'DELETE_PARTITION_STARTED'] as const) {
      await m.putRemotePartitionDeleteMetadata(
        remotePartitionDeleteMetadata({
          topicIdPartition: tp,
          state,
          eventTimestampMs: 1n,
          brokerId: 0,
        }),
      );
      expect(m.remoteLogSegmentMetadata(tp, 0, 50n)?.remoteLogSegmentId.id).toBe(a.id);
      expect(m.remotePartitionDeleteMetadata(tp)?.state).toBe(state);
    }
    await m.putRemotePartitionDeleteMetadata(
      remotePartitionDeleteMetadata({
        topicIdPartition: tp,
        state: 'DELETE_PARTITION_FINISHED',
        eventTimestampMs: 1n,
        brokerId: 0,
      }),
    );
    expect(() => m.remoteLogSegmentMetadata(tp, 0, 50n)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND' }),
    );
    await m.close();
  });

  it('fails a write whose metadata partition it does not read, with the record written; registering later replays it', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 5);
    const m = new RemoteLogMetadataManager(log);
    const tp = tip('foo', 0, randomUuid());
    const a = segId(tp);
    await expect(m.addRemoteLogSegmentMetadata(segment(a, 0, 100, [[0, 0]]))).rejects.toThrow(
      expect.objectContaining({
        code: 'ERR_KAFKA_RLMM_PARTITION_NOT_ASSIGNED',
        message: expect.stringContaining('Currently assigned partitions: []'),
      }),
    );
    await ready(m, tp);
    expect(m.listRemoteLogSegments(tp).map((s) => s.remoteLogSegmentId.id)).toEqual([a.id]);
    await m.close();
  });

  it('is not ready until its metadata partition is read up to the end captured at registration', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 1, { batchRecords: 1 });
    const tp = tip('foo', 0, randomUuid());
    for (let i = 0; i < 50; i++)
      log.append(0, serializeMetadataEvent(segment(segId(tp), i, i, [[0, i]])));
    const m = new RemoteLogMetadataManager(log);
    await m.onPartitionLeadershipChanges([tp]);
    expect(() => m.listRemoteLogSegments(tp)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_PARTITION_NOT_READY', retriable: true }),
    );
    await m.waitUntilReady([tp], { timeoutMs: 5000 });
    expect(m.listRemoteLogSegments(tp)).toHaveLength(50);
    // An empty metadata partition is ready at once.
    const empty = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 1));
    await empty.onPartitionLeadershipChanges([tp]);
    expect(empty.isReady(tp)).toBe(true);
    await m.close();
    await empty.close();
  });

  it('reports a bad record with its offset, skips it and reads on', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 1);
    const tp = tip('foo', 0, randomUuid());
    const a = segId(tp);
    log.append(0, Buffer.from('00', 'hex'));
    log.append(0, null);
    log.append(
      0,
      serializeMetadataEvent({ ...segment(a, 0, 1, [[0, 0]]), state: 'COPY_SEGMENT_FINISHED' }),
    );
    log.append(0, serializeMetadataEvent(segment(a, 0, 1, [[0, 0]])));
    const bad: [string, bigint][] = [];
    const m = new RemoteLogMetadataManager(log, {
      onBadRecord: (e: RemoteLogMetadataError, w) => bad.push([e.code, w.offset]),
    });
    await ready(m, tp);
    expect(bad).toEqual([
      ['ERR_KAFKA_RLMM_RECORD_INVALID', 0n],
      ['ERR_KAFKA_RLMM_RECORD_INVALID', 1n],
      ['ERR_KAFKA_RLMM_RECORD_INVALID', 2n],
    ]);
    expect(m.listRemoteLogSegments(tp)).toHaveLength(1);
    await m.close();
  });

  it('resumes from a msgpack snapshot and reads only what is new', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3);
    const tp = tip('foo', 0, randomUuid());
    const first = new RemoteLogMetadataManager(log);
    await ready(first, tp);
    await runKafkaLifecycleScenarioQuietly(first, tp);
    const snapshot = first.snapshot();
    const positions = first.positions();
    await first.close();
    const mp = first.metadataPartitionOf(tp);
    const written = (await log.highWaterMarks()).get(mp)!;
    expect(positions.get(mp)).toBe(written);

    const added = segId(tp);
    log.append(mp, serializeMetadataEvent(segment(added, 401, 500, [[4, 401]])));
    let visited = 0;
    const counting: MetadataEventLog = {
      topicId: log.topicId,
      numPartitions: log.numPartitions,
      write: (p, v) => log.write(p, v),
      assign: (p, o) => log.assign(p, o),
      unassign: (p) => log.unassign(p),
      assigned: () => log.assigned(),
      read: (signal) => countingRead(log.read(signal), () => visited++),
      highWaterMarks: (ps) => log.highWaterMarks(ps),
      visitRange: (p, f, t, v) => log.visitRange(p, f, t, v),
      close: () => log.close(),
    };
    const second = new RemoteLogMetadataManager(counting, { snapshot });
    await ready(second, tp);
    expect(visited).toBe(1);
    expect(second.highestOffsetForEpoch(tp, 4)).toBe(400n);
    expect(second.listRemoteLogSegments(tp, 4).map((s) => s.startOffset)).toEqual([250n, 401n]);
    expect(second.snapshot()).not.toEqual(snapshot);
    await second.close();
  });

  it('refuses a snapshot of another metadata topic', async () => {
    const m = new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3));
    const snapshot = m.snapshot();
    await m.close();
    expect(
      () =>
        new RemoteLogMetadataManager(new InMemoryMetadataEventLog(randomUuid(), 3), { snapshot }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_RLMM_SNAPSHOT_INVALID' }));
    expect(
      () =>
        new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 4), { snapshot }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_RLMM_SNAPSHOT_INVALID' }));
    expect(
      () =>
        new RemoteLogMetadataManager(new InMemoryMetadataEventLog(LOG_TOPIC_ID, 3), {
          snapshot: Uint8Array.of(1, 2),
        }),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_RLMM_SNAPSHOT_INVALID' }));
  });
});

async function runKafkaLifecycleScenarioQuietly(
  m: RemoteLogMetadataManager,
  tp: ReturnType<typeof tip>,
) {
  const { runKafkaLifecycleScenario: run } = await import('../support/lifecycle.js');
  await run(m, tp);
}

async function* countingRead<T extends { records: readonly unknown[] }>(
  inner: AsyncIterable<T>,
  count: () => void,
): AsyncGenerator<T> {
  for await (const batch of inner) {
    for (const _ of batch.records) count();
    yield batch;
  }
}

describe('RemoteLogMetadataManager: reading the whole log', () => {
  it('readToEnd reads every metadata partition to its end, and userPartitions lists what it met', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 5);
    // Another broker's events, written before this manager exists.
    const a = tip('a', 0, randomUuid());
    // On a metadata partition of its own, so each partition's end offset is known here.
    let b = tip('b', 3, randomUuid());
    while (metadataPartition(b, 5) === metadataPartition(a, 5)) b = tip('b', 3, randomUuid());
    const sa = segId(a);
    await log.write(metadataPartition(a, 5), serializeMetadataEvent(segment(sa, 0, 9, [[0, 0]])));
    await log.write(
      metadataPartition(a, 5),
      serializeMetadataEvent(update(sa, 'COPY_SEGMENT_FINISHED')),
    );
    await log.write(
      metadataPartition(b, 5),
      serializeMetadataEvent(
        remotePartitionDeleteMetadata({
          topicIdPartition: b,
          state: 'DELETE_PARTITION_FINISHED',
          eventTimestampMs: 1n,
          brokerId: 1,
        }),
      ),
    );
    const m = new RemoteLogMetadataManager(log);
    expect(m.userPartitions()).toEqual([]);
    const reached = await m.readToEnd({ timeoutMs: 5000 });
    expect([...reached.keys()]).toEqual([0, 1, 2, 3, 4]);
    expect(reached.get(metadataPartition(a, 5))).toBe(2n);
    expect(reached.get(metadataPartition(b, 5))).toBe(1n);
    expect(m.userPartitions()).toEqual([
      {
        topicIdPartition: a,
        metadataPartition: metadataPartition(a, 5),
        registered: false,
        ready: false,
        deleted: false,
      },
      {
        topicIdPartition: b,
        metadataPartition: metadataPartition(b, 5),
        registered: false,
        ready: false,
        deleted: true,
      },
    ]);
    // Read only for the call: released afterwards, the positions kept (empty ones as 0).
    expect(log.assigned()).toEqual([]);
    expect(m.positions()).toEqual(reached);
    // A partition registered now is served from that state at once.
    await ready(m, a);
    expect(m.listRemoteLogSegments(a).map((s) => s.state)).toEqual(['COPY_SEGMENT_FINISHED']);
    expect(m.userPartitions()[0]).toMatchObject({ registered: true, ready: true });
    await m.close();
  });

  it('positions() lists a metadata partition being read that never had a record, as 0', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 5);
    const m = new RemoteLogMetadataManager(log);
    const tp = tip('quiet', 0, randomUuid());
    await ready(m, tp);
    expect(m.positions()).toEqual(new Map([[m.metadataPartitionOf(tp), 0n]]));
    await m.close();
  });

  it('readToEnd refuses a partition outside the topic and times out, typed, when the end is not reached', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 2);
    const m = new RemoteLogMetadataManager(log);
    await expect(m.readToEnd({ metadataPartitions: [2] })).rejects.toMatchObject({
      code: 'ERR_KAFKA_RLMM_CONFIG_INVALID',
    });
    await m.close();
    // A log whose end is ahead of anything it hands out: its reads yield nothing until closed.
    const stalled: MetadataEventLog = {
      topicId: log.topicId,
      numPartitions: log.numPartitions,
      write: (p, v) => log.write(p, v),
      assign: () => {},
      unassign: async () => {},
      assigned: () => [],
      read: async function* (signal) {
        if (signal?.aborted !== true)
          await new Promise((resolve) => signal?.addEventListener('abort', resolve));
      },
      highWaterMarks: async () => new Map([[0, 5n]]),
      visitRange: (p, f, t, v) => log.visitRange(p, f, t, v),
      close: () => log.close(),
    };
    const m2 = new RemoteLogMetadataManager(stalled);
    await expect(m2.readToEnd({ metadataPartitions: [0], timeoutMs: 50 })).rejects.toMatchObject({
      code: 'ERR_KAFKA_RLMM_CONSUME_TIMEOUT',
      message: expect.stringContaining('metadata partitions not read to their end after 50 ms: 0'),
    });
    await m2.close();
  });
});

describe('InMemoryMetadataEventLog', () => {
  it('wakes every read waiting on it: two managers over one log both close', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 1);
    const a = new RemoteLogMetadataManager(log);
    const b = new RemoteLogMetadataManager(log);
    const tp = tip('shared', 0, randomUuid());
    await ready(a, tp);
    await ready(b, tp);
    // Both reads wait for a record now; closing one must not leave the other's wake-up lost.
    await a.close();
    await b.close();
    expect(a.failure).toBeUndefined();
    expect(b.failure).toBeUndefined();
  });
});

describe('metadata log records', () => {
  it('say their record type and version from the frame; a value that is not a frame says null', async () => {
    const log = new InMemoryMetadataEventLog(LOG_TOPIC_ID, 1);
    const tp = tip('t', 0, randomUuid());
    const s = segId(tp);
    log.append(0, serializeMetadataEvent(segment(s, 0, 9, [[0, 0]])));
    log.append(0, serializeMetadataEvent(update(s, 'COPY_SEGMENT_FINISHED')));
    log.append(
      0,
      serializeMetadataEvent(
        remotePartitionDeleteMetadata({
          topicIdPartition: tp,
          state: 'DELETE_PARTITION_STARTED',
          eventTimestampMs: 1n,
          brokerId: 1,
        }),
      ),
    );
    log.append(0, Buffer.from([7]));
    log.append(0, null);
    const seen: [number | null, number | null][] = [];
    await log.visitRange(0, 0n, 5n, (r) => {
      seen.push([r.recordType, r.recordVersion]);
    });
    expect(seen).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [null, null],
      [null, null],
    ]);
    await log.close();
  });
});
