import {
  createMetadataRequest,
  createMetadataRequestTopic,
  KafkaError,
  type MetadataRequest,
  type MetadataResponse,
} from '@kafkats/codec';
import { type BrokerInfo, MetadataSnapshot, type TopicInfo, ZERO_UUID } from './snapshot.js';

/**
 * The one way this codebase builds a Metadata request.
 *
 * The schema default for `allowAutoTopicCreation` is `true`, so a request built from defaults
 * turns a typo into a created topic on any cluster with `auto.create.topics.enable=true`.
 * There is no case for `true` here: every request sets `false`, and a unit test keeps it so.
 *
 * `topics === null` asks for every topic: a null list from v1 on, an empty list at v0 (where
 * null does not exist and empty meant "all"). Getting that backwards asks a modern broker for
 * no topics and yields a snapshot that quietly has none.
 *
 * @param topics topic names, or null for all topics
 * @param version the Metadata version the connection negotiated
 * @throws KafkaError `ERR_KAFKA_METADATA_UNSAFE_VERSION` for named topics below v4: the field
 *   that turns auto-creation off does not exist there, so the broker could create the topics.
 */
export function buildMetadataRequest(
  topics: readonly string[] | null,
  version: number,
): MetadataRequest {
  if (topics !== null && topics.length > 0 && version < 4) {
    throw new KafkaError(
      'ERR_KAFKA_METADATA_UNSAFE_VERSION',
      `Metadata v${version} cannot turn off topic auto-creation (needs v4+); refusing to name topics`,
    );
  }
  const list =
    topics === null
      ? version >= 1
        ? null
        : []
      : topics.map((name) => createMetadataRequestTopic({ topicId: ZERO_UUID, name }));
  return createMetadataRequest({
    topics: list,
    // Only v4+ has the field; below that the codec would reject a non-default value, and the
    // named-topic case was refused above.
    allowAutoTopicCreation: version < 4,
  });
}

/**
 * Turns a Metadata response of any version into a snapshot. Leader -1 becomes an absent
 * leader, controller -1 an absent controller; fields a version lacks arrive as their schema
 * defaults (leaderEpoch -1, rack null, zero topic id) and are kept as such.
 *
 * @param fetchedAtMs when the response arrived (epoch ms)
 */
export function snapshotFromMetadata(
  response: MetadataResponse,
  fetchedAtMs: number,
): MetadataSnapshot {
  const brokers: BrokerInfo[] = response.brokers.map((b) => ({
    nodeId: b.nodeId,
    host: b.host,
    port: b.port,
    rack: b.rack ?? null,
  }));
  const topics: TopicInfo[] = [];
  for (const t of response.topics) {
    // v12+ may answer by id only; a topic we cannot name cannot be looked up by name.
    if (t.name === null) continue;
    topics.push({
      name: t.name,
      topicId: t.topicId,
      isInternal: t.isInternal,
      errorCode: t.errorCode,
      partitions: t.partitions.map((p) => ({
        partition: p.partitionIndex,
        ...(p.leaderId >= 0 ? { leader: p.leaderId } : {}),
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
        offlineReplicas: p.offlineReplicas,
        errorCode: p.errorCode,
      })),
    });
  }
  return new MetadataSnapshot({
    brokers,
    topics,
    ...(response.controllerId >= 0 ? { controllerId: response.controllerId } : {}),
    clusterId: response.clusterId,
    fetchedAtMs,
  });
}
