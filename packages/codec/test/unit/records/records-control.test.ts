/**
 * Control batches other than transaction markers (LEADER_CHANGE and the KRaft types): a KRaft leader
 * change record is recognised by name and its value is handed out for the generated
 * LeaderChangeMessage codec; unknown types stay readable; short keys and values are typed.
 */
import { describe, expect, it } from 'vitest';
import {
  ControlRecordType,
  createLeaderChangeMessage,
  createLeaderChangeMessageVoter,
  decodeControlRecord,
  decodeLeaderChangeMessage,
  decodeRecordBatches,
  encodeLeaderChangeMessage,
  encodeRecordBatchSync,
  type KafkaRecord,
  Reader,
  RecordBatchError,
  Writer,
} from '../../../src/index.js';

function controlKey(type: number, version = 0): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(version, 0);
  key.writeInt16BE(type, 2);
  return key;
}

/** The single record of a control batch carrying `key` and `value`, and its batch. */
function controlRecord(key: Buffer | null, value: Buffer | null) {
  const buf = encodeRecordBatchSync({
    baseOffset: 70n,
    control: true,
    records: [{ key, value, timestamp: 1_700_000_000_000 }],
  });
  const [batch] = [...decodeRecordBatches(buf)];
  return { batch: batch!, record: [...batch!.records()][0]! as KafkaRecord };
}

describe('control records other than COMMIT/ABORT', () => {
  it('a LEADER_CHANGE record is named and its value decodes as LeaderChangeMessage', () => {
    const w = new Writer();
    encodeLeaderChangeMessage(
      w,
      createLeaderChangeMessage({
        leaderId: 2,
        voters: [1, 2, 3].map((voterId) => createLeaderChangeMessageVoter({ voterId })),
        grantingVoters: [createLeaderChangeMessageVoter({ voterId: 3 })],
      }),
      0,
    );
    const payload = Buffer.from(w.finish());
    const { batch, record } = controlRecord(controlKey(ControlRecordType.LEADER_CHANGE), payload);
    expect(batch.isControl).toBe(true);
    expect(batch.isTransactional).toBe(false);
    const c = decodeControlRecord(record);
    expect(c.type).toBe(2);
    expect(c.typeName).toBe('LEADER_CHANGE');
    expect(c.version).toBe(0);
    expect(c.coordinatorEpoch).toBeNull();
    expect(c.value).toEqual(payload);
    const msg = decodeLeaderChangeMessage(new Reader(c.value!), 0);
    expect(msg.leaderId).toBe(2);
    expect(msg.voters.map((v) => v.voterId)).toEqual([1, 2, 3]);
    expect(msg.grantingVoters.map((v) => v.voterId)).toEqual([3]);
  });

  it('names the KRaft snapshot and voter types and keeps unknown types raw', () => {
    const names: [number, string][] = [
      [3, 'SNAPSHOT_HEADER'],
      [4, 'SNAPSHOT_FOOTER'],
      [5, 'KRAFT_VERSION'],
      [6, 'KRAFT_VOTERS'],
      [99, 'UNKNOWN'],
      [-1, 'UNKNOWN'],
    ];
    for (const [type, name] of names) {
      const value = Buffer.from([type & 0xff, 1, 2]);
      const c = decodeControlRecord(controlRecord(controlKey(type, 1), value).record);
      expect(c.type).toBe(type);
      expect(c.typeName).toBe(name);
      expect(c.version).toBe(1);
      expect(c.coordinatorEpoch).toBeNull();
      expect(c.value).toEqual(value);
    }
  });

  it('a short key or a short marker value is LENGTH_INVALID naming the record offset', () => {
    const cases: [Buffer | null, Buffer | null][] = [
      [null, Buffer.alloc(6)],
      [Buffer.from([0, 0, 0]), Buffer.alloc(6)],
      [controlKey(ControlRecordType.COMMIT), Buffer.alloc(5)],
      [controlKey(ControlRecordType.ABORT), null],
    ];
    for (const [key, value] of cases) {
      let caught: unknown;
      try {
        decodeControlRecord(controlRecord(key, value).record);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(RecordBatchError);
      expect((caught as RecordBatchError).code).toBe('ERR_KAFKA_CODEC_LENGTH_INVALID');
      expect((caught as RecordBatchError).baseOffset).toBe(70n);
      expect((caught as RecordBatchError).retriable).toBe(false);
    }
  });
});
