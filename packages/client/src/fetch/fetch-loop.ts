import {
  ErrorCode,
  FetchApi,
  type FetchResponseNodeEndpoint,
  type FetchResponsePartitionData,
  KafkaError,
  ProtocolError,
} from '@kafkats/codec';
import {
  type Cluster,
  classify,
  type MetaConnection,
  retryDelayMs,
  ZERO_UUID,
} from '@kafkats/meta';
import { errorFields, type Logger, silentLogger } from '@kafkats/wire';
import { type FetchTraceContext, fetchChannel } from '../client-diagnostics.js';
import { delay, unlessAborted } from '../internal/abortable.js';
import { OffsetOutOfRangeError, PartitionReaderError } from './fetch-errors.js';
import {
  buildFetchRequest,
  type FetchTarget,
  findFetchPartition,
} from './internal/fetch-request.js';
import { readFetchedRecords } from './internal/fetched-records.js';
import { listOffset } from './internal/list-offset.js';
import type { IsolationLevelName, PartitionBatch } from './partition-batch.js';

/** Where to read from: an offset, or a spot resolved with ListOffsets when needed. */
export type StartPosition = bigint | 'earliest' | 'latest';

/** Every knob of the loop, defaults already applied. */
export interface FetchLoopConfig {
  readonly topic: string;
  readonly partition: number;
  readonly isolationLevel: IsolationLevelName;
  readonly offsetOutOfRange: 'earliest' | 'latest' | 'error';
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly partitionMaxBytes: number;
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly verifyCrc: boolean;
  readonly maxUncompressedBytes: number;
  readonly random: () => number;
  /** Where retries (debug) and offset resets (info) are logged; default silent. */
  readonly logger?: Logger;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The state machine behind a partition reader: one partition, one dedicated connection to its
 * leader, Fetch after Fetch. Each `next()` fetches until an answer moves the position and
 * returns that batch; everything retriable (a moved leader, a lost connection, a broker that
 * is behind) is handled inside with a backoff, and only a fatal error escapes.
 *
 * Leader moves, as Kafka's consumer follows them: NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
 * UNKNOWN_TOPIC_ID, a lost connection and the like mark the leader stale (UNKNOWN_LEADER_EPOCH,
 * a leader behind our epoch, is only backed off);
 * the next attempt refreshes the topic's metadata and reopens the connection if the leader
 * changed. A Fetch v16+ answer that names a newer leader (KIP-951 `currentLeader`) is followed at
 * once, without a refresh. Leader epochs never go backwards: a refresh from a broker that lags
 * does not undo a newer epoch we already know.
 */
export class FetchLoop {
  readonly #cluster: Cluster;
  readonly #config: FetchLoopConfig;
  readonly #log: Logger;
  #position: StartPosition;
  #leader: number | undefined;
  #leaderEpoch = -1;
  #topicId: string | undefined;
  #connection: MetaConnection | undefined;
  #connectionLeader: number | undefined;
  /** Refresh the topic's metadata before the next attempt. */
  #refresh = false;
  /** Consecutive failed attempts, for the backoff; reset by an answer without error. */
  #failures = 0;
  #throttledUntil = 0;
  highWatermark = -1n;
  lastStableOffset = -1n;
  logStartOffset = -1n;
  /** The last error retried (diagnostics); cleared by an answer without error. */
  lastError: Error | undefined;
  /** Called when 'earliest' or 'latest' has been resolved to an offset. */
  onResolved: ((offset: bigint) => void) | undefined;
  /** Counters behind `PartitionReader.metrics()`. */
  readonly counters = { fetches: 0, records: 0, bytes: 0, retries: 0 };

  constructor(cluster: Cluster, config: FetchLoopConfig, start: StartPosition) {
    this.#cluster = cluster;
    this.#config = config;
    this.#log = config.logger ?? silentLogger;
    this.#position = start;
  }

  /** The next offset to fetch, or the unresolved start. */
  get position(): StartPosition {
    return this.#position;
  }

  get leaderId(): number | undefined {
    return this.#leader;
  }

  get leaderEpoch(): number {
    return this.#leaderEpoch;
  }

  /** Moves the fetch position (a reader rewinding to what its caller has seen). */
  seek(position: StartPosition): void {
    this.#position = position;
  }

  /**
   * Fetches until the position moves and returns that batch; undefined once `signal` aborts.
   *
   * @throws ProtocolError a non-retriable broker error (TOPIC_AUTHORIZATION_FAILED, ...);
   *   OffsetOutOfRangeError under the 'error' policy; PartitionReaderError; RecordBatchError
   *   for a corrupt batch; UnsupportedVersionError
   */
  async next(signal: AbortSignal): Promise<PartitionBatch | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      const wait = Math.max(this.#backoffMs(), this.#throttledUntil - Date.now());
      if (wait > 0) {
        await delay(wait, signal);
        if (signal.aborted) return undefined;
      }
      try {
        const batch = await this.#attempt(signal);
        if (batch !== undefined) return batch;
      } catch (error) {
        if (signal.aborted) return undefined;
        this.#onFailure(asError(error));
      }
    }
  }

  /** Closes the dedicated connection (the next `next()` opens a new one). */
  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    this.#connectionLeader = undefined;
    await connection?.close().catch(() => {});
  }

  #backoffMs(): number {
    if (this.#failures === 0) return 0;
    const policy = {
      backoffMs: this.#config.retryBackoffMs,
      maxBackoffMs: this.#config.retryBackoffMaxMs,
      jitter: 0.2,
    };
    return retryDelayMs(policy, this.#failures + 1, this.#config.random);
  }

  /** Decides whether a failed attempt is retried, and what must be looked up again first. */
  #onFailure(error: Error): void {
    this.lastError = error;
    // Kafka's consumer logs UNKNOWN_SERVER_ERROR on a fetch and fetches again.
    const unknownServer =
      error instanceof ProtocolError && error.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR;
    const verdict = classify(error, 'leader');
    if (!verdict.retry && !unknownServer) throw error;
    this.#failures++;
    this.counters.retries++;
    this.#log.debug(
      {
        topic: this.#config.topic,
        partition: this.#config.partition,
        failures: this.#failures,
        ...errorFields(error),
      },
      'retrying a fetch',
    );
    // The error table decides: UNKNOWN_LEADER_EPOCH (the broker has not caught up with the epoch
    // we hold, often one a KIP-951 hint gave) is not in Kafka's InvalidMetadataException family,
    // so it is only backed off, as Kafka's consumer does.
    if (verdict.refreshMetadata) this.#refresh = true;
  }

  async #attempt(signal: AbortSignal): Promise<PartitionBatch | undefined> {
    const { topic, partition } = this.#config;
    const connection = await this.#ensureConnection(signal);
    if (typeof this.#position !== 'bigint') {
      this.#position = await listOffset(
        this.#cluster,
        topic,
        partition,
        this.#position,
        this.#config.isolationLevel,
        { signal, timeoutMs: this.#config.requestTimeoutMs },
      );
      this.onResolved?.(this.#position);
    }
    const leaderId = this.#leader as number;
    const target: FetchTarget = {
      topic,
      topicId: this.#topicId ?? ZERO_UUID,
      partition,
      fetchOffset: this.#position,
      currentLeaderEpoch: this.#leaderEpoch,
      isolationLevel: this.#config.isolationLevel,
      maxWaitMs: this.#config.maxWaitMs,
      minBytes: this.#config.minBytes,
      maxBytes: this.#config.maxBytes,
      partitionMaxBytes: this.#config.partitionMaxBytes,
    };
    if (!fetchChannel.hasSubscribers)
      return this.#fetch(connection, target, leaderId, signal, null);
    const context: FetchTraceContext = {
      topic,
      partition,
      nodeId: leaderId,
      fetchOffset: target.fetchOffset,
      isolationLevel: target.isolationLevel,
      version: -1,
      errorCode: -1,
      records: 0,
      bytes: 0,
      nextOffset: target.fetchOffset,
      highWatermark: -1n,
      lag: -1n,
      outcome: 'pending',
      durationMs: 0,
    };
    const started = performance.now();
    return fetchChannel.tracePromise(
      () =>
        this.#fetch(connection, target, leaderId, signal, context).then(
          (batch) => {
            context.outcome = 'ok';
            context.durationMs = performance.now() - started;
            return batch;
          },
          (error: unknown) => {
            context.outcome = 'error';
            context.durationMs = performance.now() - started;
            throw error;
          },
        ),
      context,
    );
  }

  /** One Fetch and its answer for the partition (traced when `trace` is given). */
  async #fetch(
    connection: MetaConnection,
    target: FetchTarget,
    leaderId: number,
    signal: AbortSignal,
    trace: FetchTraceContext | null,
  ): Promise<PartitionBatch | undefined> {
    const { topic, partition } = this.#config;
    let version = -1;
    const response = await this.#cluster.sendOn(
      connection,
      FetchApi,
      (v) => {
        version = v;
        return buildFetchRequest(target, v);
      },
      // The broker may hold the answer for maxWaitMs before the request timeout starts to matter.
      { timeoutMs: this.#config.maxWaitMs + this.#config.requestTimeoutMs, signal },
    );
    // KIP-219: a throttled answer comes at once; the client waits before the next request.
    if (response.throttleTimeMs > 0) this.#throttledUntil = Date.now() + response.throttleTimeMs;
    if (trace !== null) trace.version = version;
    this.counters.fetches++;
    const data = findFetchPartition(response, target, version);
    const where = `Fetch v${version} ${topic}-${partition} at ${target.fetchOffset} from broker ${leaderId}`;
    if (data === undefined) {
      throw new KafkaError('ERR_KAFKA_RESPONSE_INCOMPLETE', `${where}: the answer left it out`, {
        retriable: true,
      });
    }
    if (trace !== null) {
      trace.errorCode = data.errorCode;
      trace.bytes = data.records?.length ?? 0;
      if (data.errorCode === 0) {
        trace.highWatermark = data.highWatermark;
        const lag = data.highWatermark - target.fetchOffset;
        trace.lag = lag > 0n ? lag : 0n;
      }
    }
    if (data.errorCode !== 0)
      return this.#onPartitionError(
        data,
        response.nodeEndpoints,
        target.fetchOffset,
        where,
        signal,
      );
    this.#failures = 0;
    this.lastError = undefined;
    this.highWatermark = data.highWatermark;
    this.lastStableOffset = data.lastStableOffset;
    this.logStartOffset = data.logStartOffset;
    const read = readFetchedRecords(data.records, {
      fetchOffset: target.fetchOffset,
      isolationLevel: this.#config.isolationLevel,
      abortedTransactions: data.abortedTransactions,
      verifyCrc: this.#config.verifyCrc,
      maxUncompressedBytes: this.#config.maxUncompressedBytes,
    });
    if (read.nextOffset === target.fetchOffset) {
      if (read.partialBytes > 0) {
        throw new PartitionReaderError(
          'ERR_KAFKA_FETCH_NO_PROGRESS',
          topic,
          partition,
          `${where}: ${read.partialBytes} bytes came back without one whole record batch`,
        );
      }
      return undefined;
    }
    this.#position = read.nextOffset;
    this.counters.records += read.records.length;
    this.counters.bytes += data.records?.length ?? 0;
    if (trace !== null) {
      trace.records = read.records.length;
      trace.nextOffset = read.nextOffset;
      const lag = data.highWatermark - read.nextOffset;
      trace.lag = lag > 0n ? lag : 0n;
    }
    return {
      topic,
      partition,
      fetchOffset: target.fetchOffset,
      records: read.records,
      nextOffset: read.nextOffset,
      highWatermark: data.highWatermark,
      lastStableOffset: data.lastStableOffset,
      logStartOffset: data.logStartOffset,
      leaderId,
      leaderEpoch: target.currentLeaderEpoch,
    };
  }

  /** A partition-level error: reset, follow a named leader, or hand it to `#onFailure`. */
  async #onPartitionError(
    data: FetchResponsePartitionData,
    endpoints: readonly FetchResponseNodeEndpoint[],
    fetchOffset: bigint,
    where: string,
    signal: AbortSignal,
  ): Promise<undefined> {
    const { offsetOutOfRange } = this.#config;
    if (data.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
      if (offsetOutOfRange === 'error') throw await this.#outOfRange(fetchOffset, signal);
      this.#log.info(
        {
          topic: this.#config.topic,
          partition: this.#config.partition,
          fetchOffset: String(fetchOffset),
          reset: offsetOutOfRange,
        },
        'fetch offset out of range: resetting',
      );
      this.#failures = 0;
      this.#position = offsetOutOfRange;
      return undefined;
    }
    const error = ProtocolError.fromCode(data.errorCode, where);
    const hint = data.currentLeader;
    if (error.retriable && hint.leaderId >= 0 && hint.leaderEpoch > this.#leaderEpoch) {
      // KIP-951: the broker named the new leader; go there now instead of refreshing first.
      // The cluster learns it too (and the leader's address, so the dedicated connection to it
      // needs no Metadata request either).
      this.lastError = error;
      this.#leader = hint.leaderId;
      this.#leaderEpoch = hint.leaderEpoch;
      this.#cluster.applyLeaderHints(
        [
          {
            topic: this.#config.topic,
            partition: this.#config.partition,
            leaderId: hint.leaderId,
            leaderEpoch: hint.leaderEpoch,
          },
        ],
        endpoints.map((e) => ({ nodeId: e.nodeId, host: e.host, port: e.port, rack: e.rack })),
      );
      return undefined;
    }
    throw error;
  }

  async #outOfRange(fetchOffset: bigint, signal: AbortSignal): Promise<OffsetOutOfRangeError> {
    const { topic, partition, isolationLevel, requestTimeoutMs } = this.#config;
    const ask = (spec: 'earliest' | 'latest') =>
      listOffset(this.#cluster, topic, partition, spec, isolationLevel, {
        signal,
        timeoutMs: requestTimeoutMs,
      }).catch(() => undefined);
    const [logStartOffset, logEndOffset] = await Promise.all([ask('earliest'), ask('latest')]);
    return new OffsetOutOfRangeError(topic, partition, fetchOffset, {
      logStartOffset,
      logEndOffset,
    });
  }

  /** The dedicated connection to the current leader, re-resolving the leader first when stale. */
  async #ensureConnection(signal: AbortSignal): Promise<MetaConnection> {
    if (this.#refresh || this.#leader === undefined || this.#topicId === undefined) {
      await this.#resolveLeader(signal);
    }
    const current = this.#connection;
    if (current !== undefined && !current.closed && this.#connectionLeader === this.#leader) {
      return current;
    }
    await this.close();
    const leader = this.#leader as number;
    const opened = await unlessAborted(
      this.#cluster.openConnection(leader),
      signal,
      `connect to broker ${leader}`,
      (late) => void late.close().catch(() => {}),
    );
    this.#connection = opened;
    this.#connectionLeader = leader;
    return opened;
  }

  /** Reads the partition's leader and epoch (and the topic id) from metadata. */
  async #resolveLeader(signal: AbortSignal): Promise<void> {
    const { topic, partition } = this.#config;
    const refresh = () =>
      unlessAborted(this.#cluster.refreshTopics([topic]), signal, `Metadata for ${topic}`);
    let snapshot = this.#refresh ? await refresh() : this.#cluster.snapshot();
    let info = snapshot.topic(topic);
    let known = snapshot.partition(topic, partition);
    if (
      !this.#refresh &&
      (known?.leader === undefined || info === undefined || info.topicId === ZERO_UUID)
    ) {
      snapshot = await refresh();
      info = snapshot.topic(topic);
      known = snapshot.partition(topic, partition);
    }
    const context = `leader of ${topic}-${partition}`;
    if (info !== undefined && info.errorCode !== 0)
      throw ProtocolError.fromCode(info.errorCode, context);
    if (info === undefined || known === undefined) {
      throw ProtocolError.fromCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, context);
    }
    if (known.leader === undefined) {
      throw ProtocolError.fromCode(known.errorCode || ErrorCode.LEADER_NOT_AVAILABLE, context);
    }
    const pinned = this.#topicId;
    if (
      pinned !== undefined &&
      pinned !== ZERO_UUID &&
      info.topicId !== ZERO_UUID &&
      info.topicId !== pinned
    ) {
      throw new PartitionReaderError(
        'ERR_KAFKA_TOPIC_ID_CHANGED',
        topic,
        partition,
        `the topic id went from ${pinned} to ${info.topicId}: the topic was re-created`,
      );
    }
    if (pinned === undefined || pinned === ZERO_UUID) this.#topicId = info.topicId;
    // Epochs never go backwards: metadata from a lagging broker does not undo a newer leader.
    if (known.leaderEpoch < 0 || known.leaderEpoch >= this.#leaderEpoch) {
      this.#leader = known.leader;
      this.#leaderEpoch = known.leaderEpoch;
    }
    this.#refresh = false;
  }
}
