import { describe, expect, it } from 'vitest';
import {
  deserializeMetadataEvent,
  remotePartitionDeleteMetadata,
  serializeMetadataEvent,
} from '../../src/index.js';
import { segId, segment, tip, update } from '../support/fixtures.js';

// Golden values computed with Kafka's own RemoteLogMetadataSerde (topic "foo" partition 0,
// topic id Bp9TDduJRGa9Q5rlvCJOxg, segment id fifteen zero bytes then 01).
const SEGMENT_ID = Buffer.from('00000000000000000000000000000001', 'hex').toString('base64url');
const SEGMENT_HEX =
  '01000004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000000000000000000000000006400000001ffffffffffffffff000000000000007b03000000000000000000000000000000000100000000000000140000000400000000';
const SEGMENT_CUSTOM_HEX =
  '01000004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000000000000000000000000006400000001ffffffffffffffff000000000000007b0300000000000000000000000000000000010000000000000014000000040005000102030000';
const UPDATE_HEX =
  '01010004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000200000000000001c8000100';
const DELETE_HEX =
  '01020004666f6f069f530ddb894466bd439ae5bc224ec600000000000000000000000000000003150000';
const SNAPSHOT_HEX =
  '010300000000000000000000000000000000010000000000000000000000000000006400000001ffffffffffffffff000000000000007b03000000000000000000000000000000000100000000000000140000000400000100';

const id = segId(tip(), SEGMENT_ID);

describe('serializeMetadataEvent / deserializeMetadataEvent', () => {
  it('writes a segment as Kafka does: frame 1, type 0, version 0, flexible body', () => {
    const s = segment(id, 0, 100, [
      [1, 20],
      [0, 0],
    ]);
    expect(serializeMetadataEvent(s).toString('hex')).toBe(SEGMENT_HEX);
    expect(deserializeMetadataEvent(Buffer.from(SEGMENT_HEX, 'hex'))).toEqual(s);
  });

  it('writes present custom metadata as bytes and absent as null', () => {
    const s = segment(
      id,
      0,
      100,
      [
        [0, 0],
        [1, 20],
      ],
      { customMetadata: Buffer.from([0, 1, 2, 3]) },
    );
    expect(serializeMetadataEvent(s).toString('hex')).toBe(SEGMENT_CUSTOM_HEX);
    expect(deserializeMetadataEvent(Buffer.from(SEGMENT_CUSTOM_HEX, 'hex'))).toEqual(s);
    const empty = segment(id, 0, 100, [[0, 0]], { customMetadata: Buffer.alloc(0) });
    expect(
      (deserializeMetadataEvent(serializeMetadataEvent(empty)) as typeof empty).customMetadata,
    ).toEqual(Buffer.alloc(0));
  });

  it('writes an update and a partition delete as Kafka does', () => {
    const u = update(id, 'COPY_SEGMENT_FINISHED', 2);
    expect(serializeMetadataEvent(u).toString('hex')).toBe(UPDATE_HEX);
    expect(deserializeMetadataEvent(Buffer.from(UPDATE_HEX, 'hex'))).toEqual(u);
    const d = remotePartitionDeleteMetadata({
      topicIdPartition: tip(),
      state: 'DELETE_PARTITION_MARKED',
      eventTimestampMs: 789n,
      brokerId: 0,
    });
    expect(serializeMetadataEvent(d).toString('hex')).toBe(DELETE_HEX);
    expect(deserializeMetadataEvent(Buffer.from(DELETE_HEX, 'hex'))).toEqual(d);
  });

  it('reads a type-0 record in any state, as Kafka applies the state as an update', () => {
    const s = segment(id, 0, 100, [[0, 0]]);
    const finished = { ...s, state: 'COPY_SEGMENT_FINISHED' as const };
    expect(deserializeMetadataEvent(serializeMetadataEvent(finished)).state).toBe(
      'COPY_SEGMENT_FINISHED',
    );
  });

  it('refuses what Kafka refuses: frame 0, trailing bytes, version 1, unknown state, snapshots', () => {
    const bad = (hex: string) => () => deserializeMetadataEvent(Buffer.from(hex, 'hex'));
    const code = { code: 'ERR_KAFKA_RLMM_RECORD_INVALID' };
    expect(bad(`00${DELETE_HEX.slice(2)}`)).toThrow(expect.objectContaining(code));
    expect(bad(`${DELETE_HEX}00`)).toThrow(expect.objectContaining(code));
    expect(bad(`0102${'01'}${DELETE_HEX.slice(6)}`)).toThrow(expect.objectContaining(code));
    expect(bad(`${DELETE_HEX.slice(0, -4)}0700`)).toThrow(/RemotePartitionDeleteState id 7/);
    expect(bad(`${UPDATE_HEX.slice(0, -4)}0900`)).toThrow(/RemoteLogSegmentState id 9/);
    expect(bad(SNAPSHOT_HEX)).toThrow(/snapshot record/);
    expect(() => deserializeMetadataEvent(null)).toThrow(expect.objectContaining(code));
  });

  it('refuses segments Kafka cannot construct', () => {
    expect(() => segment(id, -1, 100, [[0, 0]])).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_RLMM_EVENT_INVALID' }),
    );
    expect(() => segment(id, 10, 9, [[0, 0]])).toThrow(/below startOffset/);
    expect(() => segment(id, 0, 9, [])).toThrow(/segmentLeaderEpochs/);
  });
});
