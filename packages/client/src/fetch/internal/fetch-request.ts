import {
  createFetchRequest,
  createFetchRequestPartition,
  createFetchRequestTopic,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartitionData,
} from '@kafkats/codec';
import { ZERO_UUID } from '@kafkats/meta';
import { PartitionReaderError } from '../fetch-errors.js';
import type { IsolationLevelName } from '../partition-batch.js';

/** Fetch v13 (KIP-516) names topics by id, not by name, in requests and responses. */
export const FETCH_TOPIC_ID_VERSION = 13;

/** What one single-partition Fetch asks for. */
export interface FetchTarget {
  readonly topic: string;
  /** Kafka's uuid text; the zero uuid when metadata did not give one. */
  readonly topicId: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  /** The leader epoch we believe in (KIP-320), -1 when unknown. */
  readonly currentLeaderEpoch: number;
  readonly isolationLevel: IsolationLevelName;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly partitionMaxBytes: number;
}

/**
 * A sessionless Fetch for one partition at `version` (sessionId 0, epoch -1: a full fetch
 * every time, as a consumer without a FetchSessionHandler sends; one partition gains nothing
 * from incremental sessions).
 *
 * @throws PartitionReaderError `ERR_KAFKA_TOPIC_ID_MISSING` at v13+ when the topic id is the
 *   zero uuid: the broker would answer UNKNOWN_TOPIC_ID forever, a silent stall
 */
export function buildFetchRequest(target: FetchTarget, version: number): FetchRequest {
  const byId = version >= FETCH_TOPIC_ID_VERSION;
  if (byId && target.topicId === ZERO_UUID) {
    throw new PartitionReaderError(
      'ERR_KAFKA_TOPIC_ID_MISSING',
      target.topic,
      target.partition,
      `Fetch v${version} needs the topic id, and metadata gave none`,
    );
  }
  return createFetchRequest({
    maxWaitMs: target.maxWaitMs,
    minBytes: target.minBytes,
    maxBytes: target.maxBytes,
    isolationLevel: target.isolationLevel === 'read_committed' ? 1 : 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      createFetchRequestTopic({
        ...(byId ? { topicId: target.topicId } : { topic: target.topic }),
        partitions: [
          createFetchRequestPartition({
            partition: target.partition,
            currentLeaderEpoch: target.currentLeaderEpoch,
            fetchOffset: target.fetchOffset,
            partitionMaxBytes: target.partitionMaxBytes,
          }),
        ],
      }),
    ],
  });
}

/**
 * Our partition's data in a Fetch response, matched by topic id from v13 and by name below;
 * undefined when the broker left it out.
 */
export function findFetchPartition(
  response: FetchResponse,
  target: Pick<FetchTarget, 'topic' | 'topicId' | 'partition'>,
  version: number,
): FetchResponsePartitionData | undefined {
  const byId = version >= FETCH_TOPIC_ID_VERSION;
  for (const t of response.responses) {
    if (byId ? t.topicId !== target.topicId : t.topic !== target.topic) continue;
    for (const p of t.partitions) if (p.partitionIndex === target.partition) return p;
  }
  return undefined;
}
