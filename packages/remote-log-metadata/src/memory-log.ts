import { RemoteLogMetadataError } from './errors.js';
import type {
  MetadataEventLog,
  MetadataLogBatch,
  MetadataLogRecord,
  MetadataLogWriteResult,
} from './event-log.js';
import { metadataLogRecord } from './serde.js';

/**
 * A {@link MetadataEventLog} in memory, for tests and benchmarks of the manager: the same
 * contract as the Kafka-backed log (positions owned by the reader, batches per partition in
 * order), with every write acknowledged at once.
 */
export class InMemoryMetadataEventLog implements MetadataEventLog {
  readonly topicId: string;
  readonly numPartitions: number;
  readonly #partitions: MetadataLogRecord[][];
  readonly #positions = new Map<number, bigint>();
  /** Reads waiting for a record, an abort or close (each read of the log has its own). */
  readonly #wakes = new Set<() => void>();
  #closed = false;
  /** Most records in one batch. */
  readonly #batchRecords: number;

  /**
   * @param topicId the topic id a snapshot is tied to (base64url)
   * @param numPartitions metadata partitions, >= 1
   * @param options `batchRecords`: most records per batch, default 500
   */
  constructor(
    topicId: string,
    numPartitions: number,
    options: { readonly batchRecords?: number } = {},
  ) {
    if (!Number.isInteger(numPartitions) || numPartitions < 1) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_CONFIG_INVALID',
        `numPartitions must be >= 1, got ${numPartitions}`,
      );
    }
    this.topicId = topicId;
    this.numPartitions = numPartitions;
    this.#partitions = Array.from({ length: numPartitions }, () => []);
    this.#batchRecords = options.batchRecords ?? 500;
  }

  #partition(p: number): MetadataLogRecord[] {
    const records = this.#partitions[p];
    if (records === undefined) {
      throw new RemoteLogMetadataError(
        'ERR_KAFKA_RLMM_CONFIG_INVALID',
        `metadata partition ${p} does not exist`,
      );
    }
    return records;
  }

  async write(partition: number, value: Buffer): Promise<MetadataLogWriteResult> {
    return this.append(partition, value);
  }

  /** Appends synchronously (also values that are not events: tests write bad records with it). */
  append(partition: number, value: Buffer | null): MetadataLogWriteResult {
    if (this.#closed)
      throw new RemoteLogMetadataError('ERR_KAFKA_RLMM_STATE', 'the metadata log is closed');
    const records = this.#partition(partition);
    const offset = BigInt(records.length);
    records.push(metadataLogRecord(offset, value, BigInt(Date.now())));
    this.#notify();
    return { partition, offset };
  }

  assign(partition: number, fromOffset: bigint): void {
    this.#partition(partition);
    this.#positions.set(partition, fromOffset);
    this.#notify();
  }

  async unassign(partition: number): Promise<void> {
    this.#positions.delete(partition);
  }

  assigned(): number[] {
    return [...this.#positions.keys()].sort((a, b) => a - b);
  }

  #notify(): void {
    const wakes = [...this.#wakes];
    this.#wakes.clear();
    for (const wake of wakes) wake();
  }

  async *read(signal?: AbortSignal): AsyncGenerator<MetadataLogBatch, void, undefined> {
    const onAbort = () => this.#notify();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (this.#closed || signal?.aborted) return;
        let produced = false;
        for (const [partition, position] of [...this.#positions]) {
          const records = this.#partition(partition);
          if (position >= BigInt(records.length)) continue;
          const from = Number(position);
          const slice = records.slice(from, from + this.#batchRecords);
          const nextOffset = position + BigInt(slice.length);
          this.#positions.set(partition, nextOffset);
          produced = true;
          yield { partition, records: slice, nextOffset };
          if (this.#closed || signal?.aborted) return;
        }
        if (!produced) await new Promise<void>((resolve) => this.#wakes.add(resolve));
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async highWaterMarks(partitions?: readonly number[]): Promise<Map<number, bigint>> {
    const out = new Map<number, bigint>();
    const which = partitions ?? this.#partitions.map((_, i) => i);
    for (const p of which) out.set(p, BigInt(this.#partition(p).length));
    return out;
  }

  async visitRange(
    partition: number,
    from: bigint,
    to: bigint,
    visitor: (record: MetadataLogRecord) => void | Promise<void>,
  ): Promise<void> {
    const records = this.#partition(partition);
    const end = to < BigInt(records.length) ? to : BigInt(records.length);
    for (let o = from; o < end; o++) await visitor(records[Number(o)]!);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#notify();
  }
}
