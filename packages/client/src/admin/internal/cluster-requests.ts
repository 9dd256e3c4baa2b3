import {
  createDescribeClusterRequest,
  createDescribeLogDirsRequest,
  createElectLeadersRequest,
  DescribeClusterApi,
  DescribeLogDirsApi,
  ElectLeadersApi,
  MetadataApi,
} from '@kafkats/codec';
import { buildMetadataRequest } from '@kafkats/meta';
import type { TopicPartition } from '../../topic-partition.js';
import type {
  BrokerLogDirs,
  ClusterDescription,
  DescribeClusterOptions,
  DescribeLogDirsOptions,
  DescribeLogDirsResult,
  ElectedPartition,
  ElectLeadersOptions,
  ElectLeadersResult,
} from '../cluster.js';
import {
  type AdminCall,
  asItemError,
  errorOrUndefined,
  throwIfNothingAnswered,
} from './admin-call.js';

/**
 * DescribeCluster from any broker; Metadata (no topics) where the broker lacks it, as Kafka's
 * admin falls back.
 */
export async function describeCluster(
  call: AdminCall,
  options: DescribeClusterOptions,
): Promise<ClusterDescription> {
  if ((await call.cluster.negotiatedFor(DescribeClusterApi.apiKey)) === undefined) {
    const r = await call.cluster.sendAny(
      MetadataApi,
      (v) => buildMetadataRequest([], v),
      call.sendOptions(),
    );
    return {
      clusterId: r.clusterId ?? '',
      ...(r.controllerId < 0 ? {} : { controllerId: r.controllerId }),
      brokers: r.brokers
        .map((b) => ({
          nodeId: b.nodeId,
          host: b.host,
          port: b.port,
          rack: b.rack,
          isFenced: false,
        }))
        .sort((a, b) => a.nodeId - b.nodeId),
    };
  }
  const r = await call.cluster.sendAny(
    DescribeClusterApi,
    (v) =>
      createDescribeClusterRequest(
        v >= 2 ? { includeFencedBrokers: options.includeFencedBrokers ?? false } : {},
      ),
    call.sendOptions(),
  );
  return {
    clusterId: r.clusterId,
    ...(r.controllerId < 0 ? {} : { controllerId: r.controllerId }),
    brokers: r.brokers
      .map((b) => ({
        nodeId: b.brokerId,
        host: b.host,
        port: b.port,
        rack: b.rack,
        isFenced: b.isFenced,
      }))
      .sort((a, b) => a.nodeId - b.nodeId),
  };
}

/** Groups partitions by topic for the `{topic, partitions[]}` shape several requests share. */
function topicPartitions(
  list: readonly TopicPartition[],
): { topic: string; partitions: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const { topic, partition } of list) {
    const ps = topics.get(topic);
    if (ps === undefined) topics.set(topic, [partition]);
    else if (!ps.includes(partition)) ps.push(partition);
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

/**
 * ElectLeaders to the controller. A top-level error (CLUSTER_AUTHORIZATION_FAILED) fails the
 * call; per-partition answers are the result. `partitions` null asks for every partition,
 * and the result then lists those the controller acted or reported on.
 */
export async function electLeaders(
  call: AdminCall,
  partitions: readonly TopicPartition[] | null,
  options: ElectLeadersOptions,
): Promise<ElectLeadersResult> {
  const unclean = options.type === 'UNCLEAN';
  let version = 0;
  const response = await call.cluster.sendToController(
    ElectLeadersApi,
    (v) => {
      version = v;
      return createElectLeadersRequest({
        // v0 knows only preferred elections; the codec refuses an unclean one there.
        electionType: unclean ? 1 : 0,
        topicPartitions: partitions === null ? null : topicPartitions(partitions),
        timeoutMs: call.serverTimeoutMs(),
      });
    },
    call.sendOptions(),
  );
  const out: ElectedPartition[] = [];
  for (const t of response.replicaElectionResults) {
    for (const p of t.partitionResult) {
      const error = errorOrUndefined(
        p.errorCode,
        `ElectLeaders v${version}, ${t.topic}-${p.partitionId}`,
        p.errorMessage,
      );
      out.push({ topic: t.topic, partition: p.partitionId, ...(error ? { error } : {}) });
    }
  }
  return { partitions: out };
}

/** DescribeLogDirs to each broker (all the snapshot knows by default), in parallel. */
export async function describeLogDirs(
  call: AdminCall,
  options: DescribeLogDirsOptions,
): Promise<DescribeLogDirsResult> {
  let ids = options.brokerIds;
  if (ids === undefined) {
    let snapshot = call.cluster.snapshot();
    if (snapshot.brokers.length === 0) snapshot = await call.cluster.refresh();
    ids = snapshot.brokers.map((b) => b.nodeId);
  }
  const topics = options.partitions === undefined ? null : topicPartitions(options.partitions);
  const brokers = await Promise.all(
    ids.map(async (brokerId): Promise<BrokerLogDirs> => {
      try {
        let version = 0;
        const r = await call.cluster.sendToNode(
          brokerId,
          DescribeLogDirsApi,
          (v) => {
            version = v;
            return createDescribeLogDirsRequest({ topics });
          },
          call.sendOptions({ checkTopLevelError: false }),
        );
        const context = `DescribeLogDirs v${version} to broker ${brokerId}`;
        const error = errorOrUndefined(r.errorCode, context);
        if (error !== undefined) return { brokerId, logDirs: [], error };
        return {
          brokerId,
          logDirs: r.results.map((d) => {
            const derror = errorOrUndefined(d.errorCode, `${context}, log dir ${d.logDir}`);
            return {
              path: d.logDir,
              ...(derror ? { error: derror } : {}),
              ...(d.totalBytes < 0n ? {} : { totalBytes: d.totalBytes }),
              ...(d.usableBytes < 0n ? {} : { usableBytes: d.usableBytes }),
              isCordoned: d.isCordoned,
              replicas: d.topics.flatMap((t) =>
                t.partitions.map((p) => ({
                  topic: t.name,
                  partition: p.partitionIndex,
                  size: p.partitionSize,
                  offsetLag: p.offsetLag,
                  isFuture: p.isFutureKey,
                })),
              ),
            };
          }),
        };
      } catch (thrown) {
        return { brokerId, logDirs: [], error: asItemError(thrown) };
      }
    }),
  );
  throwIfNothingAnswered(brokers.map((b) => b.error));
  return { brokers };
}
