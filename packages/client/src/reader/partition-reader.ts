import { DEFAULT_MAX_UNCOMPRESSED_BYTES, KafkaError } from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import type { Logger } from '@kafkats/wire';
import { clusterLogger, type ReaderMetricsSnapshot } from '../client-diagnostics.js';
import { PartitionReaderError } from '../fetch/fetch-errors.js';
import { FetchLoop, type StartPosition } from '../fetch/fetch-loop.js';
import type { IsolationLevelName, PartitionBatch } from '../fetch/partition-batch.js';

/** How a {@link PartitionReader} reads. Only `topic`, `partition` and `startOffset` are required. */
export interface PartitionReaderOptions {
  readonly topic: string;
  readonly partition: number;
  /**
   * Where to start: an offset (>= 0), or `'earliest'` / `'latest'`, resolved with ListOffsets
   * to the leader when the first fetch is made (`'latest'` is the last stable offset under
   * read_committed, the high-water mark otherwise).
   */
  readonly startOffset: bigint | 'earliest' | 'latest';
  /**
   * `'read_uncommitted'` (default, Kafka's `isolation.level`) returns every data record up to
   * the high-water mark; `'read_committed'` only records of committed transactions, up to the
   * last stable offset. Control records are never returned.
   */
  readonly isolationLevel?: IsolationLevelName;
  /**
   * What to do when the broker answers OFFSET_OUT_OF_RANGE (the position was deleted by
   * retention or DeleteRecords, or is past the end): `'error'` (default) ends the iteration with
   * {@link OffsetOutOfRangeError}; `'earliest'` / `'latest'` jump there (ListOffsets) and go on,
   * the jump visible as a batch whose `fetchOffset` differs from the previous `nextOffset`.
   * Kafka's consumer defaults `auto.offset.reset` to `latest`, but that default serves a group
   * member with no committed offset; a reader that holds an explicit position would silently
   * skip records, so here the caller decides.
   */
  readonly offsetOutOfRange?: 'earliest' | 'latest' | 'error';
  /** How long the broker may hold a Fetch waiting for `minBytes`, ms. Default 500 (`fetch.max.wait.ms`). */
  readonly maxWaitMs?: number;
  /** Bytes the broker waits for before answering early. Default 1 (`fetch.min.bytes`). */
  readonly minBytes?: number;
  /** Most bytes one Fetch answer carries. Default 52428800, 50 MiB (`fetch.max.bytes`). */
  readonly maxBytes?: number;
  /**
   * Most bytes of this partition one answer carries. Default 1048576, 1 MiB
   * (`max.partition.fetch.bytes`). A single record batch larger than this is still returned
   * whole, so that the reader can make progress (KIP-74).
   */
  readonly partitionMaxBytes?: number;
  /**
   * Time allowed for an answer beyond `maxWaitMs`, ms. Default the cluster's `requestTimeoutMs`
   * (30000). A Fetch that exceeds it closes the connection and is retried.
   */
  readonly requestTimeoutMs?: number;
  /** First delay after a failed fetch, ms; doubles per failure. Default 100 (`retry.backoff.ms`). */
  readonly retryBackoffMs?: number;
  /** Cap on that delay, ms. Default 1000 (`retry.backoff.max.ms`). */
  readonly retryBackoffMaxMs?: number;
  /** Verify each record batch's CRC-32C. Default true (`check.crcs`). */
  readonly checkCrcs?: boolean;
  /** Most bytes one compressed batch may inflate to. Default 64 MiB (the codec's limit). */
  readonly maxUncompressedBytes?: number;
  /**
   * Fetch the next answer while the caller works on the current batch. Default true. At most
   * one answer is ever buffered ahead; false fetches only when the caller asks for the next.
   */
  readonly prefetch?: boolean;
  /** Ends the iteration (quietly, `done`) when aborted, even in the middle of a long poll. */
  readonly signal?: AbortSignal;
  /** Random source in [0, 1) for the backoff jitter. Default Math.random. */
  readonly random?: () => number;
  /**
   * Where fetch retries (debug) and offset resets (info) are logged; default the cluster's
   * `logger` (silent unless the cluster was given one).
   */
  readonly logger?: Logger;
}

function invalid(what: string): KafkaError {
  return new KafkaError('ERR_KAFKA_READER_OPTION_INVALID', `PartitionReader: ${what}`);
}

function count(value: number | undefined, fallback: number, name: string, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > 0x7fffffff) {
    throw invalid(`${name} must be an integer in [${min}, 2147483647], got ${value}`);
  }
  return value;
}

/**
 * Reads one partition with a manual Fetch loop, on a connection of its own to the partition's
 * leader: Kafka answers one connection in order, so a Fetch waiting `maxWaitMs` on a shared
 * connection would hold up every other request to that broker.
 *
 * `for await (const batch of reader)` yields a {@link PartitionBatch} for each answer that
 * moved the position; track `batch.nextOffset` to resume later. Fetch v13+ by topic id, with
 * the leader epoch (KIP-320) so that a stale leader is refused; leader moves, lost connections
 * and lagging brokers are retried inside with a backoff (Kafka's consumer does the same), so
 * the iteration only throws what retrying cannot fix:
 *
 * - `ProtocolError` for a broker error that is not retriable, e.g.
 *   `ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED`
 * - {@link OffsetOutOfRangeError} (`ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE`) under the `'error'` policy
 * - {@link PartitionReaderError}: `ERR_KAFKA_TOPIC_ID_MISSING`, `ERR_KAFKA_TOPIC_ID_CHANGED`,
 *   `ERR_KAFKA_FETCH_NO_PROGRESS`, `ERR_KAFKA_READER_BUSY`
 * - the codec's `RecordBatchError` for a corrupt batch (`ERR_KAFKA_CODEC_CORRUPT` on a bad CRC)
 *
 * Memory: at most one answer is buffered ahead of the caller (with `prefetch`), one answer being
 * at most about `min(maxBytes, partitionMaxBytes)`, or one record batch when a single batch is
 * larger. The iteration never ends on its own: it ends when `signal` aborts or {@link close}
 * is called, or when the caller breaks out. Breaking out drops a prefetched answer and closes
 * the connection; a later iteration resumes at {@link position}. One iteration at a time.
 */
export class PartitionReader implements AsyncIterable<PartitionBatch> {
  readonly topic: string;
  readonly partition: number;
  readonly #loop: FetchLoop;
  readonly #prefetch: boolean;
  readonly #signal: AbortSignal | undefined;
  readonly #closer = new AbortController();
  /** The position the caller has reached: the last yielded batch's nextOffset. */
  #delivered: StartPosition;
  #running = false;

  /**
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` for a negative offset or a bad number
   */
  constructor(cluster: Cluster, options: PartitionReaderOptions) {
    const { topic, partition, startOffset } = options;
    if (typeof topic !== 'string' || topic === '') throw invalid('topic must be a name');
    if (!Number.isInteger(partition) || partition < 0) {
      throw invalid(`partition must be an integer >= 0, got ${partition}`);
    }
    if (typeof startOffset === 'bigint' ? startOffset < 0n : !isSpec(startOffset)) {
      throw invalid(`startOffset must be an offset >= 0, 'earliest' or 'latest'`);
    }
    const offsetOutOfRange = options.offsetOutOfRange ?? 'error';
    if (offsetOutOfRange !== 'error' && !isSpec(offsetOutOfRange)) {
      throw invalid(`offsetOutOfRange must be 'earliest', 'latest' or 'error'`);
    }
    const isolationLevel = options.isolationLevel ?? 'read_uncommitted';
    if (isolationLevel !== 'read_uncommitted' && isolationLevel !== 'read_committed') {
      throw invalid(`isolationLevel must be 'read_uncommitted' or 'read_committed'`);
    }
    this.topic = topic;
    this.partition = partition;
    this.#prefetch = options.prefetch ?? true;
    this.#signal = options.signal;
    this.#delivered = startOffset;
    this.#loop = new FetchLoop(
      cluster,
      {
        topic,
        partition,
        isolationLevel,
        offsetOutOfRange,
        maxWaitMs: count(options.maxWaitMs, 500, 'maxWaitMs'),
        minBytes: count(options.minBytes, 1, 'minBytes'),
        maxBytes: count(options.maxBytes, 52_428_800, 'maxBytes', 1),
        partitionMaxBytes: count(options.partitionMaxBytes, 1_048_576, 'partitionMaxBytes', 1),
        requestTimeoutMs: count(
          options.requestTimeoutMs,
          cluster.requestTimeoutMs,
          'requestTimeoutMs',
          1,
        ),
        retryBackoffMs: count(options.retryBackoffMs, 100, 'retryBackoffMs'),
        retryBackoffMaxMs: count(options.retryBackoffMaxMs, 1000, 'retryBackoffMaxMs'),
        verifyCrc: options.checkCrcs ?? true,
        maxUncompressedBytes: count(
          options.maxUncompressedBytes,
          DEFAULT_MAX_UNCOMPRESSED_BYTES,
          'maxUncompressedBytes',
          1,
        ),
        random: options.random ?? Math.random,
        ...optionalLogger(options.logger ?? clusterLogger(cluster)),
      },
      startOffset,
    );
    this.#loop.onResolved = (offset) => {
      if (typeof this.#delivered !== 'bigint') this.#delivered = offset;
    };
  }

  /**
   * The next offset the caller will be given: the last yielded batch's `nextOffset`, or the
   * start. Undefined while `'earliest'`/`'latest'` is not resolved yet.
   */
  get position(): bigint | undefined {
    return typeof this.#delivered === 'bigint' ? this.#delivered : undefined;
  }

  /** High-water mark from the latest answer; -1 before the first. */
  get highWatermark(): bigint {
    return this.#loop.highWatermark;
  }

  /** Last stable offset from the latest answer; -1 before the first. */
  get lastStableOffset(): bigint {
    return this.#loop.lastStableOffset;
  }

  /** Log start offset from the latest answer; -1 before the first. */
  get logStartOffset(): bigint {
    return this.#loop.logStartOffset;
  }

  /** The broker the reader fetches from; undefined before the first lookup. */
  get leaderId(): number | undefined {
    return this.#loop.leaderId;
  }

  /** The leader epoch sent with each Fetch (KIP-320); -1 when unknown. */
  get leaderEpoch(): number {
    return this.#loop.leaderEpoch;
  }

  /**
   * Fetches, records, bytes and retries since the reader was made, with its lag: the latest
   * high-water mark minus the position the caller has reached (never below 0).
   */
  metrics(): ReaderMetricsSnapshot {
    const position = this.position ?? -1n;
    const highWatermark = this.#loop.highWatermark;
    const lag =
      position < 0n || highWatermark < 0n
        ? -1n
        : highWatermark > position
          ? highWatermark - position
          : 0n;
    return {
      topic: this.topic,
      partition: this.partition,
      ...this.#loop.counters,
      position,
      highWatermark,
      lag,
    };
  }

  /** The last error the reader retried (diagnostics); undefined after a clean answer. */
  get lastError(): Error | undefined {
    return this.#loop.lastError;
  }

  [Symbol.asyncIterator](): AsyncIterator<PartitionBatch> {
    return this.#iterate();
  }

  /**
   * Ends a running iteration (it finishes `done`) and closes the connection. A reader once
   * closed yields nothing more. Idempotent.
   */
  async close(): Promise<void> {
    this.#closer.abort();
    if (!this.#running) await this.#loop.close();
  }

  async *#iterate(): AsyncGenerator<PartitionBatch, void, undefined> {
    if (this.#running) {
      throw new PartitionReaderError(
        'ERR_KAFKA_READER_BUSY',
        this.topic,
        this.partition,
        'another iteration of this reader is running',
      );
    }
    this.#running = true;
    const controller = new AbortController();
    const stop = () => controller.abort();
    const sources = [this.#closer.signal, this.#signal].filter((s) => s !== undefined);
    for (const s of sources) {
      if (s.aborted) controller.abort();
      else s.addEventListener('abort', stop, { once: true });
    }
    const loop = this.#loop;
    loop.seek(this.#delivered);
    let pending: Promise<PartitionBatch | undefined> | undefined;
    try {
      pending = loop.next(controller.signal);
      for (;;) {
        const batch = await pending;
        pending = undefined;
        if (batch === undefined) return;
        this.#delivered = batch.nextOffset;
        if (this.#prefetch) {
          pending = loop.next(controller.signal);
          // Its failure is reported when the caller asks for the next batch, not as unhandled.
          pending.catch(() => {});
        }
        yield batch;
        pending ??= loop.next(controller.signal);
      }
    } finally {
      controller.abort();
      for (const s of sources) s.removeEventListener('abort', stop);
      await pending?.catch(() => {});
      await loop.close();
      this.#running = false;
    }
  }
}

function optionalLogger(logger: Logger | undefined): { logger?: Logger } {
  return logger === undefined ? {} : { logger };
}

function isSpec(value: unknown): value is 'earliest' | 'latest' {
  return value === 'earliest' || value === 'latest';
}
