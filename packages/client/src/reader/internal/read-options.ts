import { DEFAULT_MAX_UNCOMPRESSED_BYTES, KafkaError } from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import { clusterLogger } from '../../client-diagnostics.js';
import type { FetcherConfig } from '../../fetch/fetcher.js';
import type { PartitionReaderOptions } from '../partition-reader.js';

/** The options both readers share, as the fetch engine takes them. */
export type ReadOptions = Pick<
  PartitionReaderOptions,
  | 'isolationLevel'
  | 'offsetOutOfRange'
  | 'maxWaitMs'
  | 'minBytes'
  | 'maxBytes'
  | 'partitionMaxBytes'
  | 'maxBatchRecords'
  | 'requestTimeoutMs'
  | 'retryBackoffMs'
  | 'retryBackoffMaxMs'
  | 'checkCrcs'
  | 'maxUncompressedBytes'
  | 'rackId'
  | 'metadataMaxAgeMs'
  | 'random'
  | 'logger'
>;

/** `ERR_KAFKA_READER_OPTION_INVALID`, naming the reader and the option. */
export function invalidOption(reader: string, what: string): KafkaError {
  return new KafkaError('ERR_KAFKA_READER_OPTION_INVALID', `${reader}: ${what}`);
}

export function isSpec(value: unknown): value is 'earliest' | 'latest' {
  return value === 'earliest' || value === 'latest';
}

/**
 * The engine's config for a reader's options, defaults applied (Kafka's consumer defaults where
 * it has the setting).
 *
 * @throws KafkaError `ERR_KAFKA_READER_OPTION_INVALID` for a number out of range or an unknown
 *   isolation level or reset policy
 */
export function engineConfig(
  cluster: Cluster,
  options: ReadOptions,
  reader: string,
): Omit<FetcherConfig, 'maxBufferedBytes'> {
  const count = (value: number | undefined, fallback: number, name: string, min = 0) => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min || value > 0x7fffffff)
      throw invalidOption(
        reader,
        `${name} must be an integer in [${min}, 2147483647], got ${value}`,
      );
    return value;
  };
  const offsetOutOfRange = options.offsetOutOfRange ?? 'error';
  if (offsetOutOfRange !== 'error' && !isSpec(offsetOutOfRange))
    throw invalidOption(reader, `offsetOutOfRange must be 'earliest', 'latest' or 'error'`);
  const isolationLevel = options.isolationLevel ?? 'read_uncommitted';
  if (isolationLevel !== 'read_uncommitted' && isolationLevel !== 'read_committed')
    throw invalidOption(reader, `isolationLevel must be 'read_uncommitted' or 'read_committed'`);
  const logger = options.logger ?? clusterLogger(cluster);
  return {
    cluster,
    isolationLevel,
    autoOffsetReset: offsetOutOfRange === 'error' ? 'none' : offsetOutOfRange,
    maxWaitMs: count(options.maxWaitMs, 500, 'maxWaitMs'),
    minBytes: count(options.minBytes, 1, 'minBytes'),
    maxBytes: count(options.maxBytes, 52_428_800, 'maxBytes', 1),
    partitionMaxBytes: count(options.partitionMaxBytes, 1_048_576, 'partitionMaxBytes', 1),
    maxBatchRecords: count(options.maxBatchRecords, 500, 'maxBatchRecords', 1),
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
    rackId: options.rackId ?? null,
    readReplicaMaxAgeMs: count(options.metadataMaxAgeMs, 300_000, 'metadataMaxAgeMs', 1),
    random: options.random ?? Math.random,
    ...(logger === undefined ? {} : { logger }),
  };
}
