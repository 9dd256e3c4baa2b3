import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';

/**
 * A broker error (or a corrupt batch) that stops reading one partition, as every reader meets
 * it (the group consumer, a partition reader, a multi-partition reader): a `ProtocolError`
 * (`errorCode`, `errorName`, `ERR_KAFKA_BROKER_<NAME>`) that names the partition and the offset
 * it was read at. A record batch that fails its CRC or cannot be decoded is CORRUPT_MESSAGE,
 * with the codec's `RecordBatchError` as `cause`. Errors the fetch engine retries (a moved
 * leader, a lost connection) never surface as this.
 */
export class FetchPartitionError extends ProtocolError {
  readonly topic: string;
  readonly partition: number;
  /** The offset read at; -1 when the error came before the first Fetch (from metadata). */
  readonly fetchOffset: bigint;

  constructor(
    errorCode: number,
    topic: string,
    partition: number,
    fetchOffset: bigint,
    context: string,
    options: { cause?: unknown } = {},
  ) {
    super(errorCode, `${topic}-${partition} at ${fetchOffset}: ${context}`, options);
    this.topic = topic;
    this.partition = partition;
    this.fetchOffset = fetchOffset;
  }
}

/**
 * The broker answered OFFSET_OUT_OF_RANGE for a partition's position and no reset policy applies
 * (a reader's `offsetOutOfRange: 'error'`, the consumer's `autoOffsetReset: 'none'`). A
 * {@link FetchPartitionError} (code `ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE`, not retriable) that
 * also says where the log was, so the caller can pick a new position.
 */
export class OffsetOutOfRangeError extends FetchPartitionError {
  /** The log start offset from ListOffsets(earliest) right after the error; undefined when that failed. */
  readonly logStartOffset: bigint | undefined;
  /** The end from ListOffsets(latest) right after the error; undefined when that failed. */
  readonly logEndOffset: bigint | undefined;

  constructor(
    topic: string,
    partition: number,
    fetchOffset: bigint,
    range: { logStartOffset?: bigint | undefined; logEndOffset?: bigint | undefined } = {},
  ) {
    const known =
      range.logStartOffset !== undefined && range.logEndOffset !== undefined
        ? ` (the log holds [${range.logStartOffset}, ${range.logEndOffset}))`
        : '';
    super(ErrorCode.OFFSET_OUT_OF_RANGE, topic, partition, fetchOffset, `Fetch${known}`);
    this.logStartOffset = range.logStartOffset;
    this.logEndOffset = range.logEndOffset;
  }
}

/**
 * The log was truncated under a partition's position (KIP-320): after a leader change, the new
 * leader's log diverges from what was read (an unclean election, a replica that lost data), and
 * no reset policy applies (a reader's `offsetOutOfRange: 'error'`, the consumer's
 * `autoOffsetReset: 'none'`). As Kafka's `LogTruncationException`, an
 * {@link OffsetOutOfRangeError} (code `ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE`) that also names
 * the first offset known to diverge. Seek there (or elsewhere) to go on.
 */
export class LogTruncationError extends OffsetOutOfRangeError {
  /**
   * The end of the position's leader epoch in the new leader's log, where the logs part
   * (OffsetsForLeaderEpoch); undefined when the leader no longer knows that epoch at all.
   */
  readonly divergentOffset: bigint | undefined;
  /** The leader epoch the divergent offset belongs to; undefined with it. */
  readonly divergentLeaderEpoch: number | undefined;

  constructor(
    topic: string,
    partition: number,
    fetchOffset: bigint,
    positionEpoch: number,
    divergent?: { readonly offset: bigint; readonly leaderEpoch: number },
  ) {
    super(topic, partition, fetchOffset);
    this.message = `${topic}-${partition} at ${fetchOffset} (leader epoch ${positionEpoch}): the log was truncated ${
      divergent === undefined
        ? 'and the leader no longer knows that epoch'
        : `from offset ${divergent.offset} (the end of epoch ${divergent.leaderEpoch} in the leader's log)`
    }`;
    this.divergentOffset = divergent?.offset;
    this.divergentLeaderEpoch = divergent?.leaderEpoch;
  }
}

/** The stable codes a {@link FetchStateError} carries. */
export type FetchStateErrorCode =
  /** Fetch v13+ needs the topic id and metadata gave the zero uuid. */
  | 'ERR_KAFKA_TOPIC_ID_MISSING'
  /**
   * The topic was deleted and re-created under the same name while it was read: its offsets
   * mean nothing in the new topic.
   */
  | 'ERR_KAFKA_TOPIC_ID_CHANGED'
  /**
   * A Fetch answer held bytes but not one whole record batch, so the position cannot move
   * (Kafka's consumer fails the same way).
   */
  | 'ERR_KAFKA_FETCH_NO_PROGRESS';

/** Reading a partition cannot go on, for a reason that is not a broker error code. Not retriable. */
export class FetchStateError extends KafkaError {
  readonly topic: string;
  readonly partition: number;

  constructor(code: FetchStateErrorCode, topic: string, partition: number, detail: string) {
    super(code, `${topic}-${partition}: ${detail}`, { retriable: false });
    this.topic = topic;
    this.partition = partition;
  }
}
