import { describe, expect, it } from 'vitest';
import {
  type ApplyTraceContext,
  applyChannel,
  InMemoryMetadataEventLog,
  RemoteLogMetadataManager,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip, update } from '../support/fixtures.js';

describe('the kafkats:remote-log-metadata:apply tracing channel', () => {
  it('traces every event the manager applies, with where it was read and whether it was dropped', async () => {
    const events: { name: string; context: ApplyTraceContext }[] = [];
    const on = (name: string) => (message: unknown) =>
      events.push({ name, context: message as ApplyTraceContext });
    const handlers = { start: on('start'), end: on('end'), error: on('error') };
    applyChannel.subscribe(handlers as unknown as Parameters<typeof applyChannel.subscribe>[0]);
    try {
      const m = new RemoteLogMetadataManager(
        new InMemoryMetadataEventLog('AAAAAAAAAAAAAAAAAAAAAQ', 3),
      );
      const tp = tip('foo', 0, randomUuid());
      await m.onPartitionLeadershipChanges([tp]);
      await m.waitUntilReady([tp], { timeoutMs: 5000 });
      const a = segId(tp);
      await m.addRemoteLogSegmentMetadata(segment(a, 0, 100, [[0, 0]]));
      // An invalid transition: Kafka's cache drops it, and the trace says why.
      await m.updateRemoteLogSegmentMetadata(update(a, 'DELETE_SEGMENT_FINISHED'));
      await m.updateRemoteLogSegmentMetadata(update(a, 'COPY_SEGMENT_FINISHED'));
      await m.close();
      const ended = events.filter((e) => e.name === 'end').map((e) => e.context);
      expect(ended.map((c) => [c.kind, c.state, c.applied])).toEqual([
        ['segment', 'COPY_SEGMENT_STARTED', true],
        ['segment-update', 'DELETE_SEGMENT_FINISHED', false],
        ['segment-update', 'COPY_SEGMENT_FINISHED', true],
      ]);
      expect(ended[1]?.dropped).toMatch(/./);
      expect(ended[2]?.dropped).toBeNull();
      expect(ended.map((c) => c.offset)).toEqual([0n, 1n, 2n]);
      for (const c of ended) {
        expect(c.metadataPartition).toBe(m.metadataPartitionOf(tp));
        expect(c.topicIdPartition).toEqual(tp);
        expect(events.some((e) => e.name === 'start' && e.context === c)).toBe(true);
      }
    } finally {
      applyChannel.unsubscribe(
        handlers as unknown as Parameters<typeof applyChannel.unsubscribe>[0],
      );
    }
  });
});
