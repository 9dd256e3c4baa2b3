import {
  type ApiDescriptor,
  CodecError,
  createMetadataRequest,
  createMetadataRequestTopic,
  KafkaError,
  MetadataApi,
  type MetadataRequest,
  type MetadataResponse,
  Reader,
  type ResponseErrorEntry,
  ZERO_UUID,
} from '@kafkats/codec';
import { type MetadataHead, type MetadataTable, readMetadataTable } from './metadata-table.js';
import {
  type BrokerInfo,
  MetadataSnapshot,
  snapshotFromTable,
  type TopicInfo,
} from './snapshot.js';

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

/**
 * Turns Metadata response body bytes (any version 0-13, without the response header) into a
 * snapshot without going through `MetadataResponse` objects: the partitions stay in typed
 * arrays and become `TopicInfo` / `PartitionInfo` objects only when read. The result is the
 * snapshot {@link snapshotFromMetadata} makes of the same response.
 *
 * The snapshot reads `body` where it is (no copy): do not modify it afterwards.
 *
 * @param fetchedAtMs when the response arrived (epoch ms)
 * @throws CodecError as `decodeMetadataResponse` does (TRUNCATED, LENGTH_INVALID,
 *   NULL_NOT_ALLOWED, VERSION_UNSUPPORTED), and TRAILING_BYTES when bytes are left over
 */
export function decodeMetadataSnapshot(
  body: Buffer,
  version: number,
  fetchedAtMs: number,
): MetadataSnapshot {
  const r = new Reader(body);
  const { head, table } = readMetadataTable(r, version);
  if (r.pos !== r.end) {
    throw new CodecError(
      'TRAILING_BYTES',
      `MetadataResponse v${version}`,
      `${r.end - r.pos} bytes after the response`,
    );
  }
  return snapshotOf(head, table, fetchedAtMs);
}

function snapshotOf(head: MetadataHead, table: MetadataTable, fetchedAtMs: number) {
  return snapshotFromTable(
    {
      brokers: head.brokers,
      ...(head.controllerId >= 0 ? { controllerId: head.controllerId } : {}),
      clusterId: head.clusterId,
      fetchedAtMs,
    },
    table,
  );
}

/** What {@link MetadataSnapshotApi} decodes a Metadata response into. */
export interface MetadataSnapshotAnswer {
  readonly throttleTimeMs: number;
  /** The v13+ top-level error code; 0 below v13. */
  readonly errorCode: number;
  readonly snapshot: MetadataSnapshot;
}

/**
 * The Metadata API descriptor the cluster's refreshes send with: `MetadataApi` for the
 * request, but the response is read straight into a snapshot (stamped with the time it was
 * decoded) instead of `MetadataResponse` objects. `responseErrors` reports the top-level,
 * topic and partition error codes as `MetadataApi` does. Not for encoding responses.
 */
export const MetadataSnapshotApi: ApiDescriptor<MetadataRequest, MetadataSnapshotAnswer> =
  Object.freeze({
    ...MetadataApi,
    createResponse: (): MetadataSnapshotAnswer => ({
      throttleTimeMs: 0,
      errorCode: 0,
      snapshot: MetadataSnapshot.empty(),
    }),
    encodeResponse: () => {
      throw new KafkaError(
        'ERR_KAFKA_UNSUPPORTED_OPERATION',
        'MetadataSnapshotApi decodes responses only; encode with MetadataApi',
      );
    },
    decodeResponse: (r: Reader, version: number): MetadataSnapshotAnswer => {
      const { head, table } = readMetadataTable(r, version);
      return {
        throttleTimeMs: head.throttleTimeMs,
        errorCode: head.errorCode,
        snapshot: snapshotOf(head, table, Date.now()),
      };
    },
    responseErrors: (answer: MetadataSnapshotAnswer): ResponseErrorEntry[] => {
      const out: ResponseErrorEntry[] = [];
      if (answer.errorCode !== 0) out.push({ path: '', errorCode: answer.errorCode });
      for (const t of answer.snapshot.topics) {
        if (t.errorCode !== 0) {
          out.push({
            path: `topics[${t.name}]`,
            errorCode: t.errorCode,
            topic: t.name,
            ...(t.topicId === ZERO_UUID ? {} : { topicId: t.topicId }),
          });
        }
        for (const p of t.partitions) {
          if (p.errorCode === 0) continue;
          out.push({
            path: `topics[${t.name}].partitions[${p.partition}]`,
            errorCode: p.errorCode,
            topic: t.name,
            ...(t.topicId === ZERO_UUID ? {} : { topicId: t.topicId }),
            partition: p.partition,
          });
        }
      }
      return out;
    },
  });

/**
 * The snapshot in a Metadata answer: taken as is from {@link MetadataSnapshotApi}, made with
 * {@link snapshotFromMetadata} from a `MetadataResponse` (a connection that decodes with the
 * generic decoder, such as a test double).
 */
export function snapshotFromAnswer(
  answer: MetadataSnapshotAnswer | MetadataResponse,
  fetchedAtMs: number,
): MetadataSnapshot {
  return 'snapshot' in answer ? answer.snapshot : snapshotFromMetadata(answer, fetchedAtMs);
}
