import type { KafkaRecord, RecordColumns } from '@kafkats/codec';
import type { PartitionBatch } from '../partition-batch.js';

/** What a fetched batch is made of: every field of a `PartitionBatch` but its records. */
export type FetchedBatchFields = Omit<PartitionBatch, 'records'> & {
  /** Records in `columns`, all together. */
  readonly count: number;
};

/**
 * A batch as the fetch engine hands it out: its records are kept as the codec's columns, and
 * the record objects are made on the first read of `records`, so a reader of `columns` (and
 * code that only counts its `count`) makes none.
 */
export class FetchedBatch implements PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly columns: readonly RecordColumns[];
  readonly nextOffset: bigint;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly lastLeaderEpoch: number;
  readonly sizeInBytes: number;
  /** @internal records in `columns`: what `records.length` will be */
  readonly count: number;
  #records: readonly KafkaRecord[] | null = null;

  constructor(fields: FetchedBatchFields) {
    this.topic = fields.topic;
    this.partition = fields.partition;
    this.fetchOffset = fields.fetchOffset;
    this.columns = fields.columns;
    this.nextOffset = fields.nextOffset;
    this.highWatermark = fields.highWatermark;
    this.lastStableOffset = fields.lastStableOffset;
    this.logStartOffset = fields.logStartOffset;
    this.leaderId = fields.leaderId;
    this.leaderEpoch = fields.leaderEpoch;
    this.lastLeaderEpoch = fields.lastLeaderEpoch;
    this.sizeInBytes = fields.sizeInBytes;
    this.count = fields.count;
  }

  get records(): readonly KafkaRecord[] {
    if (this.#records !== null) return this.#records;
    const out = new Array<KafkaRecord>(this.count);
    let n = 0;
    for (const c of this.columns) for (let i = 0; i < c.length; i++) out[n++] = c.record(i);
    this.#records = out;
    return out;
  }
}
