import type { Cluster } from '@kafkats/meta';
import type { Logger } from '@kafkats/wire';
import type { ReaderMetricsSnapshot } from '../client-diagnostics.js';
import { FetchEngine } from '../fetch/fetch-engine.js';
import type { FetcherConfig, FetchPartitionStats } from '../fetch/fetcher.js';
import type { IsolationLevelName, PartitionBatch } from '../fetch/partition-batch.js';
import { deserializeBatch, deserializersInvalid } from '../internal/deserialize.js';
import { requireCluster } from '../internal/require-cluster.js';
import type { Deserializers } from '../serialization.js';
import { engineConfig, invalidOption, isSpec } from './internal/read-options.js';
import { PartitionReaderError } from './reader-errors.js';

/** How a {@link PartitionReader} reads. Only `topic`, `partition` and `startOffset` are required. */
export interface PartitionReaderOptions<K = Buffer, V = Buffer> {
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
   * The most records one batch holds. Default 500 (as Kafka's `max.poll.records` bounds a
   * poll). An answer with more is handed out as several batches, in order, so that the records
   * of one can be collected once it is processed instead of living as long as the whole answer
   * (1 MiB of compressed 100 B records is about 24,000 of them). What is fetched is the same.
   */
  readonly maxBatchRecords?: number;
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
   * The rack the reader runs in (Kafka's `client.rack`, KIP-392), sent in every Fetch. A leader
   * whose `replica.selector.class` is `RackAwareReplicaSelector` then names a replica in that
   * rack, and the partition is read from it; any error there goes back to the leader. Default
   * none (always the leader).
   */
  readonly rackId?: string;
  /**
   * How long a replica the leader named is read from before the leader is asked again, ms
   * (Kafka's consumer uses `metadata.max.age.ms`). Default 300000.
   */
  readonly metadataMaxAgeMs?: number;
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
   * `key.deserializer` and `value.deserializer`: turn each record's key and value bytes into
   * `K` and `V` before the batch is yielded (async ones are awaited). Default none (bytes). A
   * failed one makes reading that field of that record throw a `DeserializationError`.
   */
  readonly deserializers?: Deserializers<K, V>;
  /**
   * Where fetch retries (debug) and offset resets (info) are logged; default the cluster's
   * `logger` (silent unless the cluster was given one).
   */
  readonly logger?: Logger;
}

/** A start not resolved yet, or an offset. */
type StartPosition = bigint | 'earliest' | 'latest';

const NO_STATS: FetchPartitionStats = Object.freeze({
  highWatermark: -1n,
  lastStableOffset: -1n,
  logStartOffset: -1n,
  leaderId: undefined,
  leaderEpoch: -1,
  readReplicaId: undefined,
  fetches: 0,
  records: 0,
  bytes: 0,
  retries: 0,
  lastError: undefined,
});

/**
 * Reads one partition: the fetch engine over that one partition, on a connection of its own to
 * the partition's leader (Kafka answers one connection in order, so a Fetch waiting `maxWaitMs`
 * on a shared connection would hold up every other request to that broker).
 *
 * `for await (const batch of reader)` yields a {@link PartitionBatch} for each answer that
 * moved the position; track `batch.nextOffset` to resume later. Fetch v13+ by topic id, with
 * the leader epoch (KIP-320) so that a stale leader is refused; leader moves, lost connections
 * and lagging brokers are retried inside with a backoff (Kafka's consumer does the same), so
 * the iteration only throws what retrying cannot fix:
 *
 * - `FetchPartitionError`, a `ProtocolError` for a broker error that is not retriable, e.g.
 *   `ERR_KAFKA_BROKER_TOPIC_AUTHORIZATION_FAILED`, or CORRUPT_MESSAGE for a batch that fails
 *   its CRC (`cause`: the codec's `RecordBatchError`)
 * - {@link OffsetOutOfRangeError} (`ERR_KAFKA_BROKER_OFFSET_OUT_OF_RANGE`) under the `'error'` policy
 * - `FetchStateError`: `ERR_KAFKA_TOPIC_ID_MISSING`, `ERR_KAFKA_TOPIC_ID_CHANGED`,
 *   `ERR_KAFKA_FETCH_NO_PROGRESS`
 * - {@link PartitionReaderError} `ERR_KAFKA_READER_BUSY` for a second concurrent iteration
 *
 * Memory: at most one answer is buffered ahead of the caller (with `prefetch`), one answer being
 * at most about `min(maxBytes, partitionMaxBytes)`, or one record batch when a single batch is
 * larger. The iteration never ends on its own: it ends when `signal` aborts or {@link close}
 * is called, or when the caller breaks out. Breaking out drops a prefetched answer and closes
 * the connection; a later iteration resumes at {@link position}. One iteration at a time.
 */
export class PartitionReader<K = Buffer, V = Buffer>
  implements AsyncIterable<PartitionBatch<K, V>>
{
  readonly topic: string;
  readonly partition: number;
  readonly #deserializers: Deserializers<K, V> | undefined;
  readonly #config: FetcherConfig;
  readonly #signal: AbortSignal | undefined;
  readonly #closer = new AbortController();
  /** The position the caller has reached: the last yielded batch's nextOffset, or the start. */
  #delivered: StartPosition;
  /** The engine of the running (or the last) iteration. */
  #engine: FetchEngine | undefined;
  /** Counters of the engines of earlier iterations, so that metrics count since creation. */
  #earlier = { fetches: 0, records: 0, bytes: 0, retries: 0 };
  #running = false;

  /**
   * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` for a negative offset or a bad number
   */
  constructor(cluster: Cluster, options: PartitionReaderOptions<K, V>) {
    requireCluster('PartitionReader', cluster);
    const { topic, partition, startOffset } = options;
    const invalid = (what: string) => invalidOption('PartitionReader', what);
    if (typeof topic !== 'string' || topic === '') throw invalid('topic must be a name');
    if (!Number.isInteger(partition) || partition < 0) {
      throw invalid(`partition must be an integer >= 0, got ${partition}`);
    }
    if (typeof startOffset === 'bigint' ? startOffset < 0n : !isSpec(startOffset)) {
      throw invalid(`startOffset must be an offset >= 0, 'earliest' or 'latest'`);
    }
    const deserializers = deserializersInvalid(options.deserializers);
    if (deserializers !== undefined) throw invalid(deserializers);
    this.#deserializers = options.deserializers;
    this.topic = topic;
    this.partition = partition;
    this.#signal = options.signal;
    this.#delivered = startOffset;
    const config = engineConfig(cluster, options, 'PartitionReader');
    // One partition, and it is not fetched again while its answer waits to be polled: the
    // byte bound never holds back an answer the reader would have asked for.
    this.#config = {
      ...config,
      maxBufferedBytes: config.maxBytes,
      prefetch: options.prefetch ?? true,
    };
  }

  /**
   * The next offset the caller will be given: the last yielded batch's `nextOffset`, or the
   * start. Undefined while `'earliest'`/`'latest'` is not resolved yet.
   */
  get position(): bigint | undefined {
    if (typeof this.#delivered === 'bigint') return this.#delivered;
    return this.#engine?.position(this)?.offset;
  }

  #stats(): FetchPartitionStats {
    return this.#engine?.partitionStats(this) ?? NO_STATS;
  }

  /** High-water mark from the latest answer; -1 before the first. */
  get highWatermark(): bigint {
    return this.#stats().highWatermark;
  }

  /** Last stable offset from the latest answer; -1 before the first. */
  get lastStableOffset(): bigint {
    return this.#stats().lastStableOffset;
  }

  /** Log start offset from the latest answer; -1 before the first. */
  get logStartOffset(): bigint {
    return this.#stats().logStartOffset;
  }

  /** The partition's leader; undefined before the first lookup. */
  get leaderId(): number | undefined {
    return this.#stats().leaderId;
  }

  /**
   * The replica the leader named for this reader's `rackId` (KIP-392), while the reader fetches
   * from it; undefined while it fetches from the leader.
   */
  get readReplicaId(): number | undefined {
    return this.#stats().readReplicaId;
  }

  /** The leader epoch sent with each Fetch (KIP-320); -1 when unknown. */
  get leaderEpoch(): number {
    return this.#stats().leaderEpoch;
  }

  /**
   * Fetches, records, bytes and retries since the reader was made, with its lag: the latest
   * high-water mark minus the position the caller has reached (never below 0).
   */
  metrics(): ReaderMetricsSnapshot {
    const stats = this.#stats();
    const position = this.position ?? -1n;
    const highWatermark = stats.highWatermark;
    const lag =
      position < 0n || highWatermark < 0n
        ? -1n
        : highWatermark > position
          ? highWatermark - position
          : 0n;
    const e = this.#earlier;
    return {
      topic: this.topic,
      partition: this.partition,
      fetches: e.fetches + stats.fetches,
      records: e.records + stats.records,
      bytes: e.bytes + stats.bytes,
      retries: e.retries + stats.retries,
      position,
      highWatermark,
      lag,
    };
  }

  /** The last error the reader retried (diagnostics); undefined after a clean answer. */
  get lastError(): Error | undefined {
    return this.#stats().lastError;
  }

  [Symbol.asyncIterator](): AsyncIterator<PartitionBatch<K, V>> {
    return this.#iterate();
  }

  /**
   * Ends a running iteration (it finishes `done`) and closes the connection. A reader once
   * closed yields nothing more. Idempotent.
   */
  async close(): Promise<void> {
    this.#closer.abort();
    if (!this.#running) await this.#engine?.close();
  }

  async *#iterate(): AsyncGenerator<PartitionBatch<K, V>, void, undefined> {
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
    const previous = this.#engine;
    if (previous !== undefined) {
      const s = previous.partitionStats(this) ?? NO_STATS;
      this.#earlier = {
        fetches: this.#earlier.fetches + s.fetches,
        records: this.#earlier.records + s.records,
        bytes: this.#earlier.bytes + s.bytes,
        retries: this.#earlier.retries + s.retries,
      };
    }
    // Each iteration is an engine of its own, started where the caller is: a batch fetched
    // ahead and never yielded is fetched again.
    const engine = new FetchEngine(this.#config);
    this.#engine = engine;
    const start = this.#delivered;
    engine.assign([
      {
        topic: this.topic,
        partition: this.partition,
        start: typeof start === 'bigint' ? { offset: start } : start,
      },
    ]);
    try {
      for (;;) {
        if (controller.signal.aborted) return;
        const batches = await engine.poll(controller.signal, 1);
        if (batches.length === 0) return;
        // An answer may be several batches (maxBatchRecords). Each leaves the array as it is
        // yielded, so that its records can be collected once the caller is done with them.
        for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
          if (controller.signal.aborted) return;
          this.#delivered = batch.nextOffset;
          const out = deserializeBatch(batch, this.#deserializers);
          yield out instanceof Promise ? await out : out;
        }
      }
    } finally {
      controller.abort();
      for (const s of sources) s.removeEventListener('abort', stop);
      // A start resolved but nothing delivered: the next iteration starts at that offset.
      if (typeof this.#delivered !== 'bigint') {
        const resolved = engine.position(this);
        if (resolved !== undefined) this.#delivered = resolved.offset;
      }
      await engine.close();
      this.#running = false;
    }
  }
}
