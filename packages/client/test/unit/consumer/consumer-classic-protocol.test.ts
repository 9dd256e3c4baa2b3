// The consumer protocol blobs inside JoinGroup and SyncGroup, as Kafka's ConsumerProtocol writes
// and reads them: an int16 version, then the struct at that version; a newer version is read
// as the newest known (later versions only append fields).
import { Writer } from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConsumerProtocolError,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from '../../../src/consumer/internal/consumer-protocol.js';

const topicArb = fc.stringMatching(/^[a-zA-Z0-9._-]{1,20}$/);
const partitionsArb = fc.uniqueArray(
  fc.record({ topic: topicArb, partition: fc.nat({ max: 1000 }) }),
  {
    selector: (tp) => `${tp.topic}-${tp.partition}`,
    maxLength: 30,
  },
);

describe('consumer protocol', () => {
  it('subscription: what goes in comes out (topics sorted, owned partitions grouped by topic)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(topicArb, { maxLength: 10 }),
        partitionsArb,
        fc.integer({ min: -1, max: 1 << 30 }),
        fc.option(topicArb),
        fc.option(fc.uint8Array({ maxLength: 16 })),
        (topics, owned, generationId, rackId, userData) => {
          const bytes = encodeSubscription({
            topics,
            ownedPartitions: owned,
            generationId,
            rackId,
            userData: userData === null ? null : Buffer.from(userData),
          });
          expect(bytes.readInt16BE(0)).toBe(3);
          const s = decodeSubscription('m', 'i', bytes);
          expect(s.topics).toEqual([...topics].sort());
          expect(s.generationId).toBe(generationId);
          expect(s.rackId).toBe(rackId);
          expect(s.userData === null ? null : [...s.userData]).toEqual(
            userData === null ? null : [...userData],
          );
          const key = (tp: { topic: string; partition: number }) => `${tp.topic}-${tp.partition}`;
          expect(s.ownedPartitions.map(key).sort()).toEqual(owned.map(key).sort());
          expect(s.memberId).toBe('m');
          expect(s.groupInstanceId).toBe('i');
        },
      ),
    );
  });

  it('assignment: round trip, partitions kept in order within their topic', () => {
    fc.assert(
      fc.property(partitionsArb, (partitions) => {
        const back = decodeAssignment(encodeAssignment(partitions));
        const byTopic = (list: typeof partitions) =>
          [...new Set(list.map((tp) => tp.topic))].map((t) => list.filter((tp) => tp.topic === t));
        expect(back).toEqual(byTopic(partitions).flat());
      }),
    );
  });

  it('reads older versions with defaults, newer ones as v3, and an empty rack as none', () => {
    const v0 = encodeSubscription(
      {
        topics: ['a'],
        ownedPartitions: [{ topic: 'a', partition: 1 }],
        generationId: 4,
        rackId: 'r',
        userData: null,
      },
      0,
    );
    const s0 = decodeSubscription('m', null, v0);
    expect(s0.ownedPartitions).toEqual([]);
    expect(s0.generationId).toBe(-1);
    expect(s0.rackId).toBeNull();
    // Version 7 from some future member: the v3 fields, then bytes we do not know.
    const v3 = encodeSubscription({
      topics: ['a'],
      ownedPartitions: [],
      generationId: 2,
      rackId: '',
      userData: null,
    });
    const future = Buffer.concat([v3, Buffer.from([1, 2, 3])]);
    future.writeInt16BE(7, 0);
    const s7 = decodeSubscription('m', null, future);
    expect(s7.generationId).toBe(2);
    expect(s7.rackId).toBeNull();
  });

  it('refuses a negative version, a missing version and truncated bytes with ConsumerProtocolError', () => {
    const w = new Writer();
    w.writeInt16(-1);
    expect(() => decodeSubscription('m', null, Buffer.from(w.finish()))).toThrow(
      ConsumerProtocolError,
    );
    expect(() => decodeAssignment(Buffer.alloc(1))).toThrow(ConsumerProtocolError);
    const whole = encodeAssignment([{ topic: 'orders', partition: 3 }]);
    for (let cut = 2; cut < whole.length; cut++)
      expect(() => decodeAssignment(whole.subarray(0, cut)), `cut at ${cut}`).toThrow(
        /member|assignment/,
      );
  });
});
