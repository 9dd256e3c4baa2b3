import {
  createListOffsetsRequest,
  createListOffsetsRequestPartition,
  createListOffsetsRequestTopic,
  KafkaError,
  ListOffsetsApi,
  ProtocolError,
} from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import type { IsolationLevelName } from '../partition-batch.js';

/** ListOffsets' special timestamps: -2 the log start, -1 the end (HWM, or LSO under read_committed). */
const TIMESTAMP = { earliest: -2n, latest: -1n } as const;

/**
 * Where 'earliest' or 'latest' is right now, asked of the partition's leader on the shared
 * connection (a quick request; the cluster retries stale-leader answers itself).
 *
 * @throws ProtocolError the partition's error; the cluster's send errors
 */
export async function listOffset(
  cluster: Cluster,
  topic: string,
  partition: number,
  spec: 'earliest' | 'latest',
  isolationLevel: IsolationLevelName,
  options: { readonly signal?: AbortSignal; readonly timeoutMs: number },
): Promise<bigint> {
  const response = await cluster.sendToLeader(
    topic,
    partition,
    ListOffsetsApi,
    createListOffsetsRequest({
      // -1 is a consumer: a broker id here would be read as a follower and answered with the
      // log end offset, past the high-water mark.
      replicaId: -1,
      isolationLevel: isolationLevel === 'read_committed' ? 1 : 0,
      timeoutMs: options.timeoutMs,
      topics: [
        createListOffsetsRequestTopic({
          name: topic,
          partitions: [
            createListOffsetsRequestPartition({
              partitionIndex: partition,
              timestamp: TIMESTAMP[spec],
            }),
          ],
        }),
      ],
    }),
    {
      retryInnerMetadataErrors: true,
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
  const answer = response.topics
    .find((t) => t.name === topic)
    ?.partitions.find((p) => p.partitionIndex === partition);
  const context = `ListOffsets(${spec}) ${topic}-${partition}`;
  if (answer === undefined) {
    throw new KafkaError('ERR_KAFKA_RESPONSE_INCOMPLETE', `${context}: the answer left it out`, {
      retriable: true,
    });
  }
  if (answer.errorCode !== 0) throw ProtocolError.fromCode(answer.errorCode, context);
  return answer.offset;
}
