import { runRlmmOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  InMemoryMetadataEventLog,
  type RemoteLogMetadataEvent,
  RemoteLogMetadataManager,
  type RemoteLogSegmentState,
  remotePartitionDeleteMetadata,
} from '../../src/index.js';
import { randomUuid, segId, segment, tip, update } from '../support/fixtures.js';
import { type JavaEvent, segmentJava } from '../support/java-events.js';

const STATES: RemoteLogSegmentState[] = [
  'COPY_SEGMENT_FINISHED',
  'DELETE_SEGMENT_STARTED',
  'DELETE_SEGMENT_FINISHED',
  'COPY_SEGMENT_FINISHED',
];

/**
 * Random event histories of one partition: segments over a few epochs with overlapping
 * offsets, updates in random (often invalid) order, re-adds and partition deletes.
 */
function history(seed: number, tp: ReturnType<typeof tip>): RemoteLogMetadataEvent[] {
  const ids = Array.from({ length: 6 }, () => segId(tp));
  const steps = fc.sample(
    fc.array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            k: fc.constant('add' as const),
            s: fc.nat(5),
            start: fc.nat(300),
            len: fc.nat(120),
            e0: fc.nat(4),
            split: fc.nat(60),
            txn: fc.boolean(),
          }),
        },
        {
          weight: 6,
          arbitrary: fc.record({ k: fc.constant('update' as const), s: fc.nat(5), st: fc.nat(3) }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            k: fc.constant('delete' as const),
            st: fc.constantFrom(
              'DELETE_PARTITION_MARKED',
              'DELETE_PARTITION_STARTED',
              'DELETE_PARTITION_FINISHED' as const,
            ),
          }),
        },
      ),
      { minLength: 5, maxLength: 40 },
    ),
    { numRuns: 1, seed },
  )[0]!;
  return steps.map((x) => {
    if (x.k === 'add') {
      const epochs: [number, number][] = [[x.e0, x.start]];
      if (x.split > 0 && x.split < x.len) epochs.push([x.e0 + 1, x.start + x.split]);
      return segment(ids[x.s]!, x.start, x.start + x.len, epochs, {
        txnIndexEmpty: x.txn,
        size: 100 + x.s,
      });
    }
    if (x.k === 'update') return update(ids[x.s]!, STATES[x.st]!);
    return remotePartitionDeleteMetadata({
      topicIdPartition: tp,
      state: x.st,
      eventTimestampMs: 1n,
      brokerId: 0,
    });
  });
}

const byStart = (a: JavaEvent, b: JavaEvent) =>
  Number(BigInt(a.startOffset as string) - BigInt(b.startOffset as string)) ||
  String(a.segmentId).localeCompare(String(b.segmentId));

describe("the manager's state against Kafka's RemotePartitionMetadataStore (pinned jars)", () => {
  it('answers every lookup, listing and highest offset as Kafka does for 60 random histories', async () => {
    const { toJava } = await import('../support/java-events.js');
    const cases: { events: RemoteLogMetadataEvent[]; tp: ReturnType<typeof tip> }[] = [];
    for (let seed = 1; seed <= 60; seed++) {
      const tp = tip('t', seed, randomUuid());
      cases.push({ tp, events: history(seed, tp) });
    }
    const queries = (tp: ReturnType<typeof tip>) => {
      const q: Record<string, unknown>[] = [{ q: 'list', ...tp }];
      for (let epoch = 0; epoch <= 6; epoch++) {
        q.push({ q: 'highest', ...tp, epoch }, { q: 'list', ...tp, epoch });
        for (let offset = 0; offset <= 440; offset += 11) {
          q.push(
            { q: 'lookup', ...tp, epoch, offset: String(offset) },
            { q: 'nextTxn', ...tp, epoch, offset: String(offset) },
          );
        }
      }
      return q;
    };
    const answers = (await runRlmmOracle(
      cases.map((c) => ({
        op: 'store',
        register: [c.tp],
        events: c.events.map(toJava),
        queries: queries(c.tp),
      })),
    )) as { answers: Record<string, unknown>[]; eventErrors: unknown[] }[];

    let found = 0;
    let notFound = 0;
    for (let i = 0; i < cases.length; i++) {
      const { tp, events } = cases[i]!;
      const log = new InMemoryMetadataEventLog(randomUuid(), 1);
      const m = new RemoteLogMetadataManager(log);
      await m.onPartitionLeadershipChanges([tp]);
      await m.waitUntilReady([tp]);
      for (const e of events) await m.publish(e);
      const ours = queries(tp).map((q): Record<string, unknown> => {
        try {
          const epoch = q.epoch as number;
          switch (q.q) {
            case 'list':
              return {
                segments: (epoch === undefined
                  ? m.listRemoteLogSegments(tp)
                  : m.listRemoteLogSegments(tp, epoch)
                ).map(segmentJava),
              };
            case 'highest': {
              const h = m.highestOffsetForEpoch(tp, epoch);
              return { offset: h === undefined ? null : String(h) };
            }
            case 'lookup':
              return {
                segment: segmentJava(
                  m.remoteLogSegmentMetadata(tp, epoch, BigInt(q.offset as string)),
                ),
              };
            default:
              return {
                segment: segmentJava(
                  m.nextSegmentWithTxnIndex(tp, epoch, BigInt(q.offset as string)),
                ),
              };
          }
        } catch (error) {
          return { error: (error as { code: string }).code };
        }
      });
      const kafka = answers[i]!.answers.map((a) => {
        if (a.error !== undefined)
          return {
            error: (a.error as { class: string }).class.endsWith('RemoteResourceNotFoundException')
              ? 'ERR_KAFKA_RLMM_RESOURCE_NOT_FOUND'
              : (a.error as { class: string }).class,
          };
        // Kafka's listing of all segments is unordered and ties in an epoch listing come out of a hash set.
        if (Array.isArray(a.segments))
          return { segments: [...(a.segments as JavaEvent[])].sort(byStart) };
        return a;
      });
      found += kafka.filter((a) => (a as { segment?: unknown }).segment != null).length;
      notFound += kafka.filter((a) => (a as { error?: unknown }).error !== undefined).length;
      const sortedOurs = ours.map((a) =>
        Array.isArray(a.segments)
          ? { segments: [...(a.segments as JavaEvent[])].sort(byStart) }
          : a,
      );
      expect(sortedOurs, `history ${i + 1}`).toEqual(kafka);
      await m.close();
    }
    // The histories reach the interesting states: segments found, partitions deleted.
    expect(found).toBeGreaterThan(100);
    expect(notFound).toBeGreaterThan(0);
  });
});
