import { expect } from 'vitest';
import type { RemoteLogMetadataManager, TopicIdPartition } from '../../src/index.js';
import { segId, segment, update } from './fixtures.js';

/**
 * Kafka's RemoteLogSegmentLifecycleTest "full lifecycle", through any manager whose partition
 * `tp` is registered and ready: the same events, and every lookup, listing and highest offset
 * checked against what Kafka's test expects.
 */
export async function runKafkaLifecycleScenario(
  m: RemoteLogMetadataManager,
  tp: TopicIdPartition,
): Promise<void> {
  const s0 = segId(tp);
  const seg0 = segment(s0, 0, 100, [
    [0, 0],
    [1, 20],
    [2, 80],
  ]);
  await m.addRemoteLogSegmentMetadata(seg0);
  // While COPY_SEGMENT_STARTED: not found by lookup, no highest offset.
  expect(m.remoteLogSegmentMetadata(tp, 1, 40n)).toBeUndefined();
  for (const e of [0, 1, 2]) expect(m.highestOffsetForEpoch(tp, e)).toBeUndefined();
  expect(m.listRemoteLogSegments(tp).map((s) => s.remoteLogSegmentId.id)).toEqual([s0.id]);
  expect(m.listRemoteLogSegments(tp, 1).map((s) => s.state)).toEqual(['COPY_SEGMENT_STARTED']);
  await m.updateRemoteLogSegmentMetadata(update(s0, 'COPY_SEGMENT_FINISHED'));

  const ids = [segId(tp), segId(tp), segId(tp)] as const;
  const more = [
    segment(ids[0], 101, 200, [[2, 101]]),
    segment(ids[1], 201, 300, [
      [2, 201],
      [3, 240],
    ]),
    segment(ids[2], 250, 400, [
      [3, 250],
      [4, 370],
    ]),
  ];
  for (let i = 0; i < more.length; i++) {
    await m.addRemoteLogSegmentMetadata(more[i]!);
    await m.updateRemoteLogSegmentMetadata(update(ids[i]!, 'COPY_SEGMENT_FINISHED'));
  }
  const found = (epoch: number, offset: number) =>
    m.remoteLogSegmentMetadata(tp, epoch, BigInt(offset))?.remoteLogSegmentId.id;
  expect(found(1, 40)).toBe(s0.id);
  expect(found(2, 110)).toBe(ids[0].id);
  expect(found(3, 240)).toBe(ids[1].id);
  expect(found(3, 250)).toBe(ids[2].id);
  expect(found(4, 375)).toBe(ids[2].id);
  expect(found(1, 110)).toBeUndefined();
  expect(found(4, 401)).toBeUndefined();
  expect(found(5, 301)).toBeUndefined();
  // A lookup returns the segment as updated: the update's broker id replaces the add's.
  expect(m.remoteLogSegmentMetadata(tp, 1, 40n)).toMatchObject({
    state: 'COPY_SEGMENT_FINISHED',
    brokerId: 2,
    eventTimestampMs: 456n,
  });

  await m.updateRemoteLogSegmentMetadata(update(s0, 'DELETE_SEGMENT_STARTED'));
  expect(found(0, 10)).toBeUndefined();
  expect(m.listRemoteLogSegments(tp, 0).map((s) => [s.remoteLogSegmentId.id, s.state])).toEqual([
    [s0.id, 'DELETE_SEGMENT_STARTED'],
  ]);
  await m.updateRemoteLogSegmentMetadata(update(s0, 'DELETE_SEGMENT_FINISHED'));
  expect(found(0, 10)).toBeUndefined();
  expect(m.listRemoteLogSegments(tp, 0)).toEqual([]);
  expect(m.listRemoteLogSegments(tp).map((s) => s.remoteLogSegmentId.id)).toEqual(
    ids.map((i) => i.id),
  );
  // Deletions never lower the highest offset of an epoch.
  const highest = [0, 1, 2, 3, 4, 5].map((e) => m.highestOffsetForEpoch(tp, e));
  expect(highest).toEqual([19n, 79n, 239n, 369n, 400n, undefined]);
  expect(m.remoteLogSize(tp, 2)).toBe(2048n);
}
