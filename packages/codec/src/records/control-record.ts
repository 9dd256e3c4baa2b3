/**
 * Control records (KIP-98): the records of a control batch (attributes bit 5). The key is
 * int16 version + int16 type; transaction markers carry int16 version + int32 coordinator
 * epoch in the value (EndTransactionMarker). Other types (leader change, KRaft snapshot and
 * voter records) are exposed with their raw value.
 */
import type { KafkaRecord } from './record.js';
import { RecordBatchError } from './record-batch-error.js';

/** Control record types (ControlRecordType in Kafka's sources). */
export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
  LEADER_CHANGE: 2,
  SNAPSHOT_HEADER: 3,
  SNAPSHOT_FOOTER: 4,
  KRAFT_VERSION: 5,
  KRAFT_VOTERS: 6,
} as const;

/** Name of a control record type; `UNKNOWN` for a type this release does not know. */
export type ControlRecordTypeName = keyof typeof ControlRecordType | 'UNKNOWN';

/** A decoded control record. */
export interface ControlRecord {
  readonly type: number;
  readonly typeName: ControlRecordTypeName;
  /** Version of the key (0 so far). */
  readonly version: number;
  /** For COMMIT and ABORT: the transaction coordinator's epoch; else null. */
  readonly coordinatorEpoch: number | null;
  /** The value as a view (null when the record has none). */
  readonly value: Buffer | null;
}

const NAMES = Object.keys(ControlRecordType) as (keyof typeof ControlRecordType)[];

/**
 * Reads a control record's key (and the marker value for COMMIT/ABORT).
 *
 * @param record a record of a batch whose `isControl` is true
 * @throws RecordBatchError `LENGTH_INVALID` when the key or marker value is too short
 */
export function decodeControlRecord(record: KafkaRecord): ControlRecord {
  const key = record.key;
  if (key === null || key.length < 4) {
    throw new RecordBatchError(
      'LENGTH_INVALID',
      record.offset,
      'control record key shorter than 4 bytes',
    );
  }
  const version = key.readInt16BE(0);
  const type = key.readInt16BE(2);
  const typeName = NAMES[type] ?? 'UNKNOWN';
  const value = record.value;
  let coordinatorEpoch: number | null = null;
  if (type === ControlRecordType.ABORT || type === ControlRecordType.COMMIT) {
    if (value === null || value.length < 6) {
      throw new RecordBatchError(
        'LENGTH_INVALID',
        record.offset,
        'transaction marker value shorter than 6 bytes',
      );
    }
    coordinatorEpoch = value.readInt32BE(2);
  }
  return { type, typeName, version, coordinatorEpoch, value };
}

/**
 * Key and value of a transaction marker record, ready for a control batch
 * (`encodeRecordBatch({ control: true, transactional: true, records: [marker] })`).
 *
 * @param type `COMMIT` or `ABORT`
 * @param coordinatorEpoch the transaction coordinator's epoch (int32)
 */
export function endTransactionMarker(
  type: 'COMMIT' | 'ABORT',
  coordinatorEpoch: number,
): { key: Buffer; value: Buffer } {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0); // key version 0
  key.writeInt16BE(ControlRecordType[type], 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0); // EndTransactionMarker version 0
  value.writeInt32BE(coordinatorEpoch, 2);
  return { key, value };
}
