import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';

/** The stable codes a {@link PartitionReaderError} carries. */
export type PartitionReaderErrorCode =
  /** Fetch v13+ needs the topic id and metadata gave the zero uuid. Not retriable. */
  | 'ERR_KAFKA_TOPIC_ID_MISSING'
  /**
   * The topic was deleted and re-created under the same name while the reader ran: its
   * offsets mean nothing in the new topic. Not retriable.
   */
  | 'ERR_KAFKA_TOPIC_ID_CHANGED'
  /**
   * A Fetch answer held bytes but not one whole record batch, so the position cannot move
   * (Kafka's consumer fails the same way). Not retriable.
   */
  | 'ERR_KAFKA_FETCH_NO_PROGRESS'
  /** A second iteration was started while one is running. Not retriable. */
  | 'ERR_KAFKA_READER_BUSY';

/** A partition reader cannot go on, for a reason that is not a broker error code. */
export class PartitionReaderError extends KafkaError {
  readonly topic: string;
  readonly partition: number;

  constructor(code: PartitionReaderErrorCode, topic: string, partition: number, detail: string) {
    super(code, `${topic}-${partition}: ${detail}`, { retriable: false });
    this.topic = topic;
    this.partition = partition;
  }
}

/**
 * The broker answered OFFSET_OUT_OF_RANGE for the reader's position and the reader's
 * `offsetOutOfRange` policy is `'error'`. A `ProtocolError` (code
 * `ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE`, not retriable) that also says where the log was:
 * the caller picks a new position and starts a new reader there.
 */
export class OffsetOutOfRangeError extends ProtocolError {
  readonly topic: string;
  readonly partition: number;
  /** The offset the reader asked for. */
  readonly fetchOffset: bigint;
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
    super(ErrorCode.OFFSET_OUT_OF_RANGE, `Fetch ${topic}-${partition} at ${fetchOffset}${known}`);
    this.topic = topic;
    this.partition = partition;
    this.fetchOffset = fetchOffset;
    this.logStartOffset = range.logStartOffset;
    this.logEndOffset = range.logEndOffset;
  }
}

/**
 * A broker error (or a corrupt batch) that stops one partition, as the consumer's fetcher
 * rejects its poll with it: a `ProtocolError` (`errorCode`, `ERR_KAFKA_BROKER_<NAME>`) that names the
 * partition and the offset it was read at. A corrupt or unreadable record batch is
 * CORRUPT_MESSAGE, with the codec's `RecordBatchError` as `cause`.
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
