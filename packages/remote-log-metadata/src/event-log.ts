/** A record of the metadata topic as a log hands it to its reader. */
export interface MetadataLogRecord {
  readonly offset: bigint;
  /** The record's value: a serialised event (Kafka writes a null key and never a null value). */
  readonly value: Buffer | null;
  /** The record's timestamp, ms. */
  readonly timestamp: bigint;
  /**
   * The record type id the value's frame names (`RemoteLogMetadataRecordType`: 0 segment,
   * 1 segment update, 2 partition delete, 3 snapshot), and that record's version; both null
   * when the value is null or its frame cannot be read. Read from the frame only: the body
   * is not decoded.
   */
  readonly recordType: number | null;
  readonly recordVersion: number | null;
}

/** What one read moved a metadata partition forward by. */
export interface MetadataLogBatch {
  readonly partition: number;
  /** Offsets ascending; may be empty when only the position moved (a gap, control records). */
  readonly records: readonly MetadataLogRecord[];
  /** Where reading this partition continues (past the last record and any gap). */
  readonly nextOffset: bigint;
}

/** Where a write landed once acknowledged. */
export interface MetadataLogWriteResult {
  readonly partition: number;
  readonly offset: bigint;
}

/**
 * The event log under a {@link RemoteLogMetadataManager}: a partitioned, append-only log of
 * serialised metadata events, read from explicit positions the caller owns (no consumer group,
 * no committed offsets). {@link KafkaMetadataEventLog} keeps it in `__remote_log_metadata`;
 * {@link InMemoryMetadataEventLog} keeps it in memory for tests and benchmarks.
 */
export interface MetadataEventLog {
  /** The metadata topic's id (base64url); a snapshot is only valid for the same topic. */
  readonly topicId: string;
  /** The metadata topic's real partition count. */
  readonly numPartitions: number;
  /**
   * Appends a value to a metadata partition (null key) and resolves once acknowledged.
   * @throws RemoteLogMetadataError `ERR_KAFKA_RLMM_STATE` when the log is read-only or closed
   */
  write(partition: number, value: Buffer): Promise<MetadataLogWriteResult>;
  /**
   * Starts reading `partition` at `fromOffset` (replaces the position if it is read already);
   * its batches come out of {@link read}.
   */
  assign(partition: number, fromOffset: bigint): void;
  /** Stops reading `partition`; batches of it still queued are dropped. */
  unassign(partition: number): Promise<void>;
  /** The partitions being read. */
  assigned(): number[];
  /**
   * The batches of every assigned partition, each partition's in order, as they arrive. One
   * iteration at a time; it ends when `signal` aborts or the log closes, and throws what the
   * log cannot retry.
   */
  read(signal?: AbortSignal): AsyncIterable<MetadataLogBatch>;
  /** The end offset of each given partition (default: all), from one round of requests. */
  highWaterMarks(partitions?: readonly number[]): Promise<Map<number, bigint>>;
  /**
   * Calls `visitor` for every record of `partition` with `from <= offset < to`, in order,
   * a page at a time. Resolves when `to` (or the partition's end, if earlier) is reached.
   */
  visitRange(
    partition: number,
    from: bigint,
    to: bigint,
    visitor: (record: MetadataLogRecord) => void | Promise<void>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<void>;
  /** Stops reading and writing. Idempotent. */
  close(): Promise<void>;
}
