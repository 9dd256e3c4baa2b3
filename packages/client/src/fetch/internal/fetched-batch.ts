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

/**
 * The batches one partition's answer is handed out as: itself when it holds at most `max`
 * records, else pieces of `max` records (the last one fewer), in offset order. A piece ends
 * where its last record does (its `nextOffset` is that record's offset + 1) and carries the
 * leader epoch of that record's batch; the last piece ends where the answer does, past any
 * control or aborted batch after its records. The answer's bytes are divided among the pieces
 * by records, so that they add up to `sizeInBytes`. Columns are sliced, never copied.
 *
 * @param epochs the leader epoch of each of `fields.columns`' batches, by index
 */
export function fetchedBatches(
  fields: FetchedBatchFields,
  epochs: readonly number[],
  max: number,
): FetchedBatch[] {
  if (fields.count <= max) return [new FetchedBatch(fields)];
  const out: FetchedBatch[] = [];
  let piece: RecordColumns[] = [];
  let records = 0;
  let fetchOffset = fields.fetchOffset;
  let recordsBefore = 0;
  let bytesBefore = 0;
  const columns = fields.columns;
  for (let c = 0; c < columns.length; c++) {
    const column = columns[c]!;
    let i = 0;
    while (i < column.length) {
      const take = Math.min(max - records, column.length - i);
      piece.push(i === 0 && take === column.length ? column : column.slice(i, i + take));
      records += take;
      i += take;
      const last = c === columns.length - 1 && i === column.length;
      if (records < max && !last) continue;
      recordsBefore += records;
      const bytesThrough = last
        ? fields.sizeInBytes
        : Math.floor((fields.sizeInBytes * recordsBefore) / fields.count);
      const nextOffset = last ? fields.nextOffset : column.offset(i - 1) + 1n;
      out.push(
        new FetchedBatch({
          ...fields,
          fetchOffset,
          columns: piece,
          count: records,
          nextOffset,
          lastLeaderEpoch: last ? fields.lastLeaderEpoch : epochs[c]!,
          sizeInBytes: bytesThrough - bytesBefore,
        }),
      );
      fetchOffset = nextOffset;
      bytesBefore = bytesThrough;
      piece = [];
      records = 0;
    }
  }
  return out;
}
