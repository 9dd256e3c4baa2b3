/** Byte layout of the v2 record batch header (DefaultRecordBatch in Kafka's sources). */

/** Bytes before the first record: the whole v2 batch header. */
export const RECORD_BATCH_OVERHEAD = 61;
/** baseOffset (8) + batchLength (4): the log entry prefix shared by every magic. */
export const LOG_OVERHEAD = 12;
/** Offset of the batch length (int32, counted from the partition leader epoch on). */
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
/** Offset of the magic byte, the same for v0, v1 and v2. */
export const MAGIC_OFFSET = 16;
/** Offset of the CRC-32C; it covers attributes (offset 21) to the end of the batch. */
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
/** The producer id (int64), epoch (int16) and base sequence (int32) a producer stamps. */
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;

export const ATTR_COMPRESSION_MASK = 0x07; // bits 0-2
export const ATTR_LOG_APPEND_TIME = 0x08; // bit 3 (0-based): timestamp type
export const ATTR_TRANSACTIONAL = 0x10; // bit 4: transactional
export const ATTR_CONTROL = 0x20; // bit 5: control batch
export const ATTR_DELETE_HORIZON = 0x40; // bit 6: base timestamp is the delete horizon (KIP-534)
