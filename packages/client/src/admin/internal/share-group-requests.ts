import {
  AlterShareGroupOffsetsApi,
  type ApiDescriptor,
  DeleteShareGroupOffsetsApi,
  DescribeShareGroupOffsetsApi,
  ErrorCode,
  ProtocolError,
  ShareGroupDescribeApi,
  type ShareGroupDescribeResponseDescribedGroup,
  ZERO_UUID,
} from '@kafkats/codec';
import { ShareGroupsUnsupportedError } from '../../share/share-errors.js';
import type { TopicPartition } from '../../topic-partition.js';
import type { DeleteGroupsResult } from '../groups.js';
import type {
  AlterShareGroupOffsetsResult,
  DeleteShareGroupOffsetsResult,
  DescribeShareGroupOffsetsOptions,
  DescribeShareGroupOffsetsResult,
  DescribeShareGroupsOptions,
  DescribeShareGroupsResult,
  ListShareGroupsOptions,
  ListShareGroupsResult,
  ShareGroupDescription,
  ShareGroupMember,
  ShareGroupOffsetToSet,
  ShareGroupPartitionOffset,
} from '../share-groups.js';
import {
  type AdminCall,
  asItemError,
  brokerError,
  errorOrUndefined,
  throwIfNothingAnswered,
} from './admin-call.js';
import { deleteGroups, listGroups } from './group-requests.js';
import { sendToGroup } from './send-to-group.js';
import { listTopics } from './topic-requests.js';

/**
 * Throws before anything is sent when the brokers do not offer `api`: share groups (KIP-932)
 * came with Kafka 4.1; 3.9 and 4.0 have the APIs only as unstable versions they do not
 * advertise. The message names the API and the `share.version` level the broker stated.
 *
 * @throws ShareGroupsUnsupportedError (an `UnsupportedVersionError`, `ERR_KAFKA_VERSION_UNSUPPORTED`)
 */
export async function requireShareGroupApi(call: AdminCall, api: ApiDescriptor): Promise<void> {
  if ((await call.cluster.negotiatedFor(api.apiKey)) !== undefined) return;
  const level = await call.cluster.finalizedFeature('share.version');
  throw new ShareGroupsUnsupportedError(
    `${api.name} (API key ${api.apiKey}, v${api.minVersion}+)`,
    `${call.what} (${level === undefined ? 'share.version is not finalized on this cluster' : `share.version=${level} here`})`,
  );
}

const byPartition = (a: TopicPartition, b: TopicPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;

/**
 * Names for the topic ids an answer left unnamed (a coordinator that has not seen the topic in
 * its metadata image answers '' with the id): one Metadata request for every topic, only when
 * some answered topic lacks a name. An id no broker knows keeps its id as its name.
 */
async function namesFor(
  call: AdminCall,
  answered: readonly { topicName: string; topicId: string }[],
): Promise<(t: { topicName: string; topicId: string }) => string> {
  const missing = answered.some((t) => t.topicName === '' && t.topicId !== ZERO_UUID);
  if (!missing) return (t) => t.topicName;
  const byId = new Map<string, string>();
  for (const t of (await listTopics(call, { listInternal: true })).topics)
    byId.set(t.topicId, t.name);
  return (t) => t.topicName || byId.get(t.topicId) || t.topicId;
}

/** ListGroups to every broker with the type filter `share`, as Kafka's `ListGroupsOptions.forShareGroups()`. */
export async function listShareGroups(
  call: AdminCall,
  options: ListShareGroupsOptions,
): Promise<ListShareGroupsResult> {
  await requireShareGroupApi(call, ShareGroupDescribeApi);
  const listed = await listGroups(call, {
    types: ['share'],
    ...(options.states === undefined ? {} : { states: options.states }),
  });
  return {
    groups: listed.groups.map((g) => ({ groupId: g.groupId, state: g.state ?? '' })),
    errors: listed.errors,
  };
}

/** Kafka's AUTHORIZED_OPERATIONS_OMITTED: the answer carries no operations. */
const OPERATIONS_OMITTED = -2147483648;

/**
 * ShareGroupDescribe, each group to its coordinator in parallel (Kafka's
 * DescribeShareGroupsHandler batches per coordinator; the answer per group is the same).
 * NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS are asked again;
 * any other group error is that group's.
 */
export async function describeShareGroups(
  call: AdminCall,
  groupIds: readonly string[],
  options: DescribeShareGroupsOptions,
): Promise<DescribeShareGroupsResult> {
  await requireShareGroupApi(call, ShareGroupDescribeApi);
  const described = new Map<string, ShareGroupDescription>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        described.set(groupId, await describeOne(call, groupId, options));
      } catch (thrown) {
        described.set(groupId, failed(groupId, asItemError(thrown)));
      }
    }),
  );
  const groups = groupIds.map((id) => described.get(id)!);
  throwIfNothingAnswered(groups.map((g) => g.error));
  return { groups };
}

const failed = (groupId: string, error: ShareGroupDescription['error']): ShareGroupDescription => ({
  groupId,
  ...(error === undefined ? {} : { error }),
  state: '',
  groupEpoch: -1,
  assignmentEpoch: -1,
  assignor: '',
  members: [],
});

async function describeOne(
  call: AdminCall,
  groupId: string,
  options: DescribeShareGroupsOptions,
): Promise<ShareGroupDescription> {
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    ShareGroupDescribeApi,
    (v) => {
      version = v;
      return ShareGroupDescribeApi.createRequest({
        groupIds: [groupId],
        includeAuthorizedOperations: options.includeAuthorizedOperations ?? false,
      });
    },
    (r) => r.groups.find((g) => g.groupId === groupId)?.errorCode ?? 0,
  );
  const context = `ShareGroupDescribe v${version}, group ${JSON.stringify(groupId)}`;
  const g = response.groups.find((x) => x.groupId === groupId);
  if (g === undefined) return failed(groupId, brokerError(-1, `${context}: no answer`));
  const error = errorOrUndefined(g.errorCode, context, g.errorMessage);
  if (error !== undefined) return failed(groupId, error);
  const name = await namesFor(
    call,
    g.members.flatMap((m) => m.assignment.topicPartitions),
  );
  const coordinatorId = await call.cluster.coordinator('group', groupId);
  const broker = call.cluster.snapshot().broker(coordinatorId);
  return {
    groupId,
    state: g.groupState,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignor: g.assignorName,
    members: membersOf(g, name),
    ...(broker === undefined
      ? {}
      : { coordinator: { nodeId: broker.nodeId, host: broker.host, port: broker.port } }),
    ...(g.authorizedOperations === OPERATIONS_OMITTED
      ? {}
      : { authorizedOperations: g.authorizedOperations }),
  };
}

function membersOf(
  g: ShareGroupDescribeResponseDescribedGroup,
  name: (t: { topicName: string; topicId: string }) => string,
): ShareGroupMember[] {
  return g.members
    .map(
      (m): ShareGroupMember => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        subscribedTopicNames: [...m.subscribedTopicNames],
        assignment: m.assignment.topicPartitions
          .flatMap((t) => t.partitions.map((partition) => ({ topic: name(t), partition })))
          .sort(byPartition),
      }),
    )
    .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
}

/**
 * DescribeShareGroupOffsets for one group from its coordinator (Kafka's
 * ListShareGroupOffsetsHandler): every partition the group has state for, or `partitions`. A
 * group-level error (GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND) is the call's, thrown.
 */
export async function describeShareGroupOffsets(
  call: AdminCall,
  groupId: string,
  options: DescribeShareGroupOffsetsOptions,
): Promise<DescribeShareGroupOffsetsResult> {
  await requireShareGroupApi(call, DescribeShareGroupOffsetsApi);
  let topics: { topicName: string; partitions: number[] }[] | null = null;
  if (options.partitions !== undefined) {
    const byTopic = new Map<string, number[]>();
    for (const { topic, partition } of options.partitions) {
      const list = byTopic.get(topic) ?? [];
      if (!list.includes(partition)) list.push(partition);
      byTopic.set(topic, list);
    }
    topics = [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions }));
  }
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    DescribeShareGroupOffsetsApi,
    (v) => {
      version = v;
      return DescribeShareGroupOffsetsApi.createRequest({ groups: [{ groupId, topics }] });
    },
    (r) => r.groups.find((g) => g.groupId === groupId)?.errorCode ?? 0,
  );
  const context = `DescribeShareGroupOffsets v${version}, group ${JSON.stringify(groupId)}`;
  const group = response.groups.find((g) => g.groupId === groupId);
  if (group === undefined) throw brokerError(-1, `${context}: no answer`);
  if (group.errorCode !== 0) throw brokerError(group.errorCode, context, group.errorMessage);
  const name = await namesFor(call, group.topics);
  const partitions = group.topics.flatMap((t) =>
    t.partitions.map((p): ShareGroupPartitionOffset => {
      const topic = name(t);
      const error = errorOrUndefined(
        p.errorCode,
        `${context}, ${topic}-${p.partitionIndex}`,
        p.errorMessage,
      );
      // A negative start offset: the group has no state for the partition yet (Kafka's
      // handler reports null then).
      const known = error === undefined && p.startOffset >= 0n;
      return {
        topic,
        partition: p.partitionIndex,
        startOffset: known ? p.startOffset : null,
        ...(known && p.leaderEpoch >= 0 ? { leaderEpoch: p.leaderEpoch } : {}),
        // v1+ (KIP-1226): -1 when the broker could not compute it.
        ...(known && version >= 1 && p.lag >= 0n ? { lag: p.lag } : {}),
        ...(error === undefined ? {} : { error }),
      };
    }),
  );
  return { groupId, partitions: partitions.sort(byPartition) };
}

/**
 * AlterShareGroupOffsets to the group's coordinator (Kafka's AlterShareGroupOffsetsHandler):
 * sets share-partition start offsets; the coordinator refuses a group with members
 * (NON_EMPTY_GROUP). A top-level error becomes every partition's, as Java's handler reports it.
 */
export async function alterShareGroupOffsets(
  call: AdminCall,
  groupId: string,
  offsets: readonly ShareGroupOffsetToSet[],
): Promise<AlterShareGroupOffsetsResult> {
  await requireShareGroupApi(call, AlterShareGroupOffsetsApi);
  if (offsets.length === 0) return { groupId, partitions: [] };
  const context = (v: number) => `AlterShareGroupOffsets v${v}, group ${JSON.stringify(groupId)}`;
  const byTopic = new Map<string, { partitionIndex: number; startOffset: bigint }[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push({ partitionIndex: o.partition, startOffset: o.offset });
    byTopic.set(o.topic, list);
  }
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    AlterShareGroupOffsetsApi,
    (v) => {
      version = v;
      return AlterShareGroupOffsetsApi.createRequest({
        groupId,
        topics: [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions })),
      });
    },
    retryRebalance,
    // The top-level code is read here (the coordinator's moves by sendToGroup), not thrown.
    { checkTopLevelError: false },
  );
  const refusal = errorOrUndefined(response.errorCode, context(version), response.errorMessage);
  const codes = new Map<string, { code: number; message: string | null }>();
  for (const t of response.responses)
    for (const p of t.partitions)
      codes.set(`${t.topicName}\u0000${p.partitionIndex}`, {
        code: p.errorCode,
        message: p.errorMessage,
      });
  return {
    groupId,
    partitions: offsets.map(({ topic, partition }) => {
      if (refusal !== undefined) return { topic, partition, error: refusal };
      const where = `${context(version)}, ${topic}-${partition}`;
      const answer = codes.get(`${topic}\u0000${partition}`);
      const error =
        answer === undefined
          ? ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${where}: no answer`)
          : errorOrUndefined(answer.code, where, answer.message);
      return error === undefined ? { topic, partition } : { topic, partition, error };
    }),
  };
}

/**
 * The group-level code for {@link sendToGroup}, with REBALANCE_IN_PROGRESS read as "still
 * loading": Kafka's Alter/DeleteShareGroupOffsetsHandler ask again after either.
 */
function retryRebalance(r: { errorCode: number }): number {
  return r.errorCode === ErrorCode.REBALANCE_IN_PROGRESS
    ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    : r.errorCode;
}

/**
 * DeleteShareGroupOffsets to the group's coordinator (Kafka's DeleteShareGroupOffsetsHandler):
 * removes the group's state for whole topics. A group-level refusal (GROUP_ID_NOT_FOUND,
 * NON_EMPTY_GROUP, GROUP_AUTHORIZATION_FAILED) is the call's, thrown.
 */
export async function deleteShareGroupOffsets(
  call: AdminCall,
  groupId: string,
  topics: readonly string[],
): Promise<DeleteShareGroupOffsetsResult> {
  await requireShareGroupApi(call, DeleteShareGroupOffsetsApi);
  const unique = [...new Set(topics)];
  if (unique.length === 0) return { groupId, topics: [] };
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    DeleteShareGroupOffsetsApi,
    (v) => {
      version = v;
      return DeleteShareGroupOffsetsApi.createRequest({
        groupId,
        topics: unique.map((topicName) => ({ topicName })),
      });
    },
    retryRebalance,
    { checkTopLevelError: false },
  );
  const context = `DeleteShareGroupOffsets v${version}, group ${JSON.stringify(groupId)}`;
  if (response.errorCode !== 0)
    throw brokerError(response.errorCode, context, response.errorMessage);
  const answered = new Map(response.responses.map((t) => [t.topicName, t]));
  return {
    groupId,
    topics: unique.map((topic) => {
      const t = answered.get(topic);
      const error =
        t === undefined
          ? ProtocolError.fromCode(
              ErrorCode.UNKNOWN_SERVER_ERROR,
              `${context}, ${topic}: no answer`,
            )
          : errorOrUndefined(t.errorCode, `${context}, ${topic}`, t.errorMessage);
      return error === undefined ? { topic } : { topic, error };
    }),
  };
}

/**
 * DeleteGroups for share groups (Kafka's `Admin.deleteShareGroups` sends the same request as
 * for consumer groups); the coordinator refuses a group with members (NON_EMPTY_GROUP).
 */
export async function deleteShareGroups(
  call: AdminCall,
  groupIds: readonly string[],
): Promise<DeleteGroupsResult> {
  await requireShareGroupApi(call, ShareGroupDescribeApi);
  return deleteGroups(call, groupIds);
}
