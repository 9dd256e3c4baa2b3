import {
  CreatePartitionsApi,
  CreateTopicsApi,
  type CreateTopicsResponseCreatableTopicResult,
  createCreatePartitionsRequest,
  createCreatePartitionsRequestAssignment,
  createCreatePartitionsRequestTopic,
  createCreateTopicsRequest,
  createCreateTopicsRequestCreatableReplicaAssignment,
  createCreateTopicsRequestCreatableTopic,
  createCreateTopicsRequestCreatableTopicConfig,
  createDeleteTopicsRequest,
  createDeleteTopicsRequestDeleteTopicState,
  DeleteTopicsApi,
  ErrorCode,
  type KafkaError,
  MetadataApi,
  type MetadataResponse,
  ProtocolError,
  ZERO_UUID,
} from '@kafkats/codec';
import { buildMetadataRequest } from '@kafkats/meta';
import type {
  CreatedTopic,
  CreatePartitionsOptions,
  CreatePartitionsResult,
  CreateTopicsOptions,
  CreateTopicsResult,
  DeleteTopicsResult,
  DescribeTopicsResult,
  ListTopicsOptions,
  ListTopicsResult,
  NewPartitions,
  NewTopic,
  TopicDescription,
  TopicListing,
  TopicToWaitFor,
} from '../topics.js';
import { type AdminCall, asItemError, errorOrUndefined } from './admin-call.js';
import { configSourceName } from './config-codes.js';
import { resendFailed } from './resend-failed.js';

/** The error for an item the broker's answer left out. */
function notAnswered(what: string, name: string): ProtocolError {
  return ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${what}: no answer for ${name}`);
}

function creatable(topic: NewTopic) {
  return createCreateTopicsRequestCreatableTopic({
    name: topic.name,
    numPartitions: topic.numPartitions ?? -1,
    replicationFactor: topic.replicationFactor ?? -1,
    assignments: (topic.replicaAssignment ?? []).map((brokerIds, partitionIndex) =>
      createCreateTopicsRequestCreatableReplicaAssignment({
        partitionIndex,
        brokerIds: [...brokerIds],
      }),
    ),
    configs: Object.entries(topic.configs ?? {}).map(([name, value]) =>
      createCreateTopicsRequestCreatableTopicConfig({ name, value }),
    ),
  });
}

function created(
  name: string,
  r: CreateTopicsResponseCreatableTopicResult | undefined,
  context: string,
): CreatedTopic {
  if (r === undefined) return { name, error: notAnswered(context, name) };
  const error = errorOrUndefined(r.errorCode, `${context}, topic ${name}`, r.errorMessage);
  const configsError = errorOrUndefined(r.topicConfigErrorCode, `${context}, configs of ${name}`);
  return {
    name,
    ...(r.topicId === ZERO_UUID || error !== undefined ? {} : { topicId: r.topicId }),
    ...(error === undefined ? {} : { error }),
    ...(r.numPartitions < 0 ? {} : { numPartitions: r.numPartitions }),
    ...(r.replicationFactor < 0 ? {} : { replicationFactor: r.replicationFactor }),
    ...(r.configs === null || configsError !== undefined
      ? {}
      : {
          configs: r.configs.map((c) => ({
            name: c.name,
            value: c.value,
            readOnly: c.readOnly,
            isSensitive: c.isSensitive,
            source: configSourceName(c.configSource),
          })),
        }),
    ...(configsError === undefined ? {} : { configsError }),
  };
}

/** CreateTopics to the controller; NOT_CONTROLLER and throttled topics sent again alone. */
export async function createTopics(
  call: AdminCall,
  topics: readonly NewTopic[],
  options: CreateTopicsOptions,
): Promise<CreateTopicsResult> {
  const validateOnly = options.validateOnly ?? false;
  const results = await resendFailed(call, topics, async (batch) => {
    let version = 0;
    const response = await call.cluster.sendToController(
      CreateTopicsApi,
      (v) => {
        version = v;
        return createCreateTopicsRequest({
          topics: batch.map(creatable),
          timeoutMs: call.serverTimeoutMs(),
          validateOnly,
        });
      },
      call.sendOptions(),
    );
    const byName = new Map(response.topics.map((t) => [t.name, t]));
    return batch.map((t) => created(t.name, byName.get(t.name), `CreateTopics v${version}`));
  });
  if (options.waitForLeaders === true && !validateOnly) {
    const names = results.filter((r) => r.error === undefined).map((r) => r.name);
    if (names.length > 0) await waitForTopics(call, names);
  }
  return { topics: results };
}

/** DeleteTopics by name to the controller; NOT_CONTROLLER and throttled topics sent again alone. */
export async function deleteTopics(
  call: AdminCall,
  names: readonly string[],
): Promise<DeleteTopicsResult> {
  const topics = await resendFailed(call, names, async (batch) => {
    let version = 0;
    const response = await call.cluster.sendToController(
      DeleteTopicsApi,
      (v) => {
        version = v;
        const timeoutMs = call.serverTimeoutMs();
        return v >= 6
          ? createDeleteTopicsRequest({
              topics: batch.map((name) => createDeleteTopicsRequestDeleteTopicState({ name })),
              timeoutMs,
            })
          : createDeleteTopicsRequest({ topicNames: [...batch], timeoutMs });
      },
      call.sendOptions(),
    );
    const byName = new Map(response.responses.map((r) => [r.name, r]));
    return batch.map((name) => {
      const r = byName.get(name);
      const context = `DeleteTopics v${version}`;
      if (r === undefined) return { name, error: notAnswered(context, name) };
      const error = errorOrUndefined(r.errorCode, `${context}, topic ${name}`, r.errorMessage);
      return error === undefined ? { name } : { name, error };
    });
  });
  return { topics };
}

/** Metadata for every topic from any broker. */
export async function listTopics(
  call: AdminCall,
  options: ListTopicsOptions,
): Promise<ListTopicsResult> {
  const response = await call.cluster.sendAny(
    MetadataApi,
    (v) => buildMetadataRequest(null, v),
    call.sendOptions(),
  );
  const out: TopicListing[] = [];
  for (const t of response.topics) {
    if (t.errorCode !== 0 || t.name === null) continue;
    if (t.isInternal && options.listInternal !== true) continue;
    out.push({ name: t.name, topicId: t.topicId, isInternal: t.isInternal });
  }
  return { topics: out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}

function describeOne(
  name: string,
  t: MetadataResponse['topics'][number] | undefined,
  context: string,
): TopicDescription {
  if (t === undefined) {
    return {
      name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      error: notAnswered(context, name),
    };
  }
  const error = errorOrUndefined(t.errorCode, `${context}, topic ${name}`);
  if (error !== undefined)
    return { name, topicId: t.topicId, isInternal: t.isInternal, partitions: [], error };
  const partitions = t.partitions
    .map((p) => {
      const perror = errorOrUndefined(p.errorCode, `${context}, ${name}-${p.partitionIndex}`);
      return {
        partition: p.partitionIndex,
        ...(p.leaderId < 0 ? {} : { leader: p.leaderId }),
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
        offlineReplicas: p.offlineReplicas,
        ...(perror === undefined ? {} : { error: perror }),
      };
    })
    .sort((a, b) => a.partition - b.partition);
  return { name, topicId: t.topicId, isInternal: t.isInternal, partitions };
}

/** Metadata for the named topics from any broker (the broker that answers may lag a new topic). */
export async function describeTopics(
  call: AdminCall,
  names: readonly string[],
): Promise<DescribeTopicsResult> {
  if (names.length === 0) return { topics: [] };
  let version = 0;
  const response = await call.cluster.sendAny(
    MetadataApi,
    (v) => {
      version = v;
      return buildMetadataRequest([...new Set(names)], v);
    },
    call.sendOptions(),
  );
  const byName = new Map(response.topics.map((t) => [t.name, t]));
  return {
    topics: names.map((name) => describeOne(name, byName.get(name), `Metadata v${version}`)),
  };
}

/** CreatePartitions to the controller; NOT_CONTROLLER and throttled topics sent again alone. */
export async function createPartitions(
  call: AdminCall,
  increases: readonly NewPartitions[],
  options: CreatePartitionsOptions,
): Promise<CreatePartitionsResult> {
  const topics = await resendFailed(call, increases, async (batch) => {
    let version = 0;
    const response = await call.cluster.sendToController(
      CreatePartitionsApi,
      (v) => {
        version = v;
        return createCreatePartitionsRequest({
          topics: batch.map((t) =>
            createCreatePartitionsRequestTopic({
              name: t.topic,
              count: t.totalCount,
              assignments:
                t.assignments === undefined
                  ? null
                  : t.assignments.map((brokerIds) =>
                      createCreatePartitionsRequestAssignment({ brokerIds: [...brokerIds] }),
                    ),
            }),
          ),
          timeoutMs: call.serverTimeoutMs(),
          validateOnly: options.validateOnly ?? false,
        });
      },
      call.sendOptions(),
    );
    const byName = new Map(response.results.map((r) => [r.name, r]));
    return batch.map((t) => {
      const r = byName.get(t.topic);
      const context = `CreatePartitions v${version}`;
      if (r === undefined) return { topic: t.topic, error: notAnswered(context, t.topic) };
      const error = errorOrUndefined(r.errorCode, `${context}, topic ${t.topic}`, r.errorMessage);
      return error === undefined ? { topic: t.topic } : { topic: t.topic, error };
    });
  });
  return { topics };
}

/** What one broker's Metadata answer still lacks, or undefined when it shows every topic ready. */
function notReady(
  response: MetadataResponse,
  wanted: readonly { name: string; partitions: number }[],
  node: number,
): KafkaError | undefined {
  for (const w of wanted) {
    const t = response.topics.find((x) => x.name === w.name);
    const where = `broker ${node}, topic ${w.name}`;
    if (t === undefined || t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      return ProtocolError.fromCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, where);
    if (t.errorCode !== 0) return ProtocolError.fromCode(t.errorCode, where);
    if (t.partitions.length === 0 || t.partitions.length < w.partitions)
      return ProtocolError.fromCode(
        ErrorCode.LEADER_NOT_AVAILABLE,
        `${where}: ${t.partitions.length} partitions`,
      );
    const leaderless = t.partitions.find((p) => p.leaderId < 0);
    if (leaderless !== undefined)
      return ProtocolError.fromCode(
        ErrorCode.LEADER_NOT_AVAILABLE,
        `${where}, partition ${leaderless.partitionIndex}`,
      );
  }
  return undefined;
}

/**
 * Asks every broker for the topics' metadata, round after round (spaced by the retry
 * backoff), until each one shows every topic with its partitions (at least `partitions`) all
 * led; then merges the topics into the cluster's snapshot. A non-retriable answer
 * (TOPIC_AUTHORIZATION_FAILED, an authentication failure) ends the wait at once.
 *
 * @throws OperationTimeoutError at the call's deadline (cause: what a broker still lacked);
 *   the non-retriable error itself
 */
export async function waitForTopics(
  call: AdminCall,
  topics: readonly TopicToWaitFor[],
): Promise<void> {
  const wanted = topics.map((t) => (typeof t === 'string' ? { name: t, partitions: 0 } : t));
  const names = [...new Set(wanted.map((w) => w.name))];
  if (names.length === 0) return;
  let problem: KafkaError | undefined;
  for (let round = 1; ; round++) {
    if (round > 1 && !(await call.backoff(round))) throw call.timedOut(problem);
    let snapshot = call.cluster.snapshot();
    if (snapshot.brokers.length === 0) snapshot = await call.cluster.refresh();
    const problems = await Promise.all(
      snapshot.brokers.map(async ({ nodeId }) => {
        try {
          const response = await call.cluster.sendToNode(
            nodeId,
            MetadataApi,
            (v) => buildMetadataRequest(names, v),
            call.sendOptions({ maxAttempts: 1 }),
          );
          return notReady(response, wanted, nodeId);
        } catch (error) {
          return asItemError(error);
        }
      }),
    );
    problem = problems.find((p) => p !== undefined);
    if (problem === undefined) break;
    if (!problem.retriable) throw problem;
  }
  await call.cluster.refreshTopics(names).catch(() => {});
}
