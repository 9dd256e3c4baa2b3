import { KafkaError } from '@kafkats/codec';

/** The stable codes a {@link PartitionReaderError} carries. */
export type PartitionReaderErrorCode =
  /** A second iteration was started while one is running. Not retriable. */
  'ERR_KAFKA_READER_BUSY';

/**
 * A partition reader was used in a way it does not allow. What stops reading itself comes from
 * the fetch engine: `FetchPartitionError`, `OffsetOutOfRangeError`, `FetchStateError`.
 */
export class PartitionReaderError extends KafkaError {
  readonly topic: string;
  readonly partition: number;

  constructor(code: PartitionReaderErrorCode, topic: string, partition: number, detail: string) {
    super(code, `${topic}-${partition}: ${detail}`, { retriable: false });
    this.topic = topic;
    this.partition = partition;
  }
}
