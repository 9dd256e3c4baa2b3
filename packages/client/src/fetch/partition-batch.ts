import type { KafkaRecord, RecordColumns } from '@kafkats/codec';
import { FetchedBatch } from './internal/fetched-batch.js';

/**
 * A record as a reader hands it out: without deserializers the codec's `KafkaRecord` itself
 * (key and value as bytes); with them, the same fields with `key` and `value` of the
 * deserializers' types (reading one whose deserializer failed throws a `DeserializationError`).
 */
export type ConsumerRecord<K = Buffer, V = Buffer> = Omit<KafkaRecord, 'key' | 'value'> & {
  /** The key, or null (no key: a deserializer never sees null). */
  readonly key: K | null;
  /** The value, or null (a tombstone). */
  readonly value: V | null;
};

/**
 * What one Fetch answer moved a partition reader forward by, or one part of it: an answer of
 * more records than the readers' `maxBatchRecords` (the consumer's `maxPollRecords`) comes as
 * several batches, in order, each starting where the one before ends. Yielded only when the
 * position moved: a long poll that expires with nothing new yields nothing.
 *
 * Keys, values and header values of `records` are views into the response's bytes (or into a
 * compressed batch's decompressed copy). They are never reused, so they stay valid as long as
 * you hold them, but any one of them keeps the whole response in memory: copy
 * (`Buffer.from(view)`) what you keep beyond processing.
 */
export interface PartitionBatch<K = Buffer, V = Buffer> {
  readonly topic: string;
  readonly partition: number;
  /**
   * The offset this answer was fetched at (for a later part of an answer, where the part before
   * it ended). Equal to the previous batch's `nextOffset`, except after an OFFSET_OUT_OF_RANGE
   * reset moved the reader (the gap is visible here).
   */
  readonly fetchOffset: bigint;
  /**
   * Data records, offsets ascending, all at or after `fetchOffset`. Never control records
   * (transaction markers); under read_committed, never records of aborted transactions. May be
   * empty when the answer held only such records. Each has `offset` (bigint), `timestamp`
   * (bigint ms), `key`, `value`, `headers`.
   */
  readonly records: readonly ConsumerRecord<K, V>[];
  /**
   * The same records as the codec's {@link RecordColumns}, in order: one per record batch
   * (more only should a batch's offsets not ascend), together exactly `records`. Fields are read
   * by index (`offsetDelta(i)`, `timestampMs(i)`, `key(i)`, `value(i)`, `headers(i)`...) with no
   * record object and no `bigint` made per record, for code that turns records into objects of
   * its own. Keys and values here are the fetched bytes, before any deserializer. A batch from
   * a fetch makes its `records` on first access: read only `columns`, and none is made.
   */
  readonly columns: readonly RecordColumns[];
  /**
   * Where reading continues: resume a reader here to read on after this batch. Past the last
   * record and also past any skipped control batch, aborted batch or compacted gap.
   */
  readonly nextOffset: bigint;
  /** The partition's high-water mark in this answer (offsets below it are replicated). */
  readonly highWatermark: bigint;
  /** The last stable offset (end of decided transactions) in this answer; -1 when not sent. */
  readonly lastStableOffset: bigint;
  /** The log start offset in this answer; -1 when not sent. */
  readonly logStartOffset: bigint;
  /**
   * The broker that answered: the leader, or the replica it named to fetch from instead
   * (KIP-392 `preferredReadReplica`).
   */
  readonly leaderId: number;
  /** The leader epoch the reader fetched with; -1 when unknown. */
  readonly leaderEpoch: number;
  /**
   * The leader epoch the last record batch read was written in (its `partitionLeaderEpoch`);
   * -1 when unknown. What a commit of `nextOffset` carries, as Kafka's consumer commits the
   * epoch of the last record it consumed, so that the position can be checked against a new
   * leader's log (KIP-320).
   */
  readonly lastLeaderEpoch: number;
  /**
   * The bytes of record batches this came from, as fetched (compressed, control and aborted
   * batches included): what the readers' and the consumer's byte counters add up. An answer
   * handed out in parts divides its bytes among them by records.
   */
  readonly sizeInBytes: number;
}

/**
 * Which records a reader sees (Kafka's `isolation.level`; int8 0 and 1 on the wire, KIP-98):
 * `'read_uncommitted'` every data record up to the high-water mark, `'read_committed'` only
 * committed transactional records, up to the last stable offset.
 */
export type IsolationLevelName = 'read_uncommitted' | 'read_committed';

/**
 * How many records a batch holds, without making a fetched batch's record objects (for the
 * engine's readers' counters; not part of the package's API).
 */
export function recordCount(batch: PartitionBatch<unknown, unknown>): number {
  return batch instanceof FetchedBatch ? batch.count : batch.records.length;
}
