import {
  ConsumerGroupDescribeApi,
  type ConsumerGroupDescribeResponse,
  type ConsumerGroupDescribeResponseAssignment,
  type ConsumerProtocolAssignment,
  createConsumerGroupDescribeRequest,
  createDeleteGroupsRequest,
  createDescribeGroupsRequest,
  createListGroupsRequest,
  createOffsetFetchRequest,
  DeleteGroupsApi,
  DescribeGroupsApi,
  decodeConsumerProtocolAssignment,
  ErrorCode,
  type KafkaError,
  LeaveGroupApi,
  ListGroupsApi,
  OffsetCommitApi,
  OffsetDeleteApi,
  OffsetFetchApi,
  type OffsetFetchResponse,
  ProtocolError,
  Reader,
  ZERO_UUID,
} from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';
import type { TopicPartition } from '../../topic-partition.js';
import type {
  AlterConsumerGroupOffsetsResult,
  CommittedOffset,
  DeleteConsumerGroupOffsetsResult,
  DeleteGroupsResult,
  DescribeGroupsOptions,
  DescribeGroupsResult,
  GroupDescription,
  GroupListing,
  GroupMember,
  GroupOffsetToSet,
  ListConsumerGroupOffsetsOptions,
  ListConsumerGroupOffsetsResult,
  ListGroupsOptions,
  ListGroupsResult,
  MemberToRemove,
  RemoveMembersOptions,
  RemoveMembersResult,
} from '../groups.js';
import {
  type AdminCall,
  asItemError,
  brokerError,
  errorOrUndefined,
  throwIfNothingAnswered,
} from './admin-call.js';
import { sendToGroup } from './send-to-group.js';

/** ListGroups to every broker (each answers for the groups it coordinates), merged. */
export async function listGroups(
  call: AdminCall,
  options: ListGroupsOptions,
): Promise<ListGroupsResult> {
  let snapshot = call.cluster.snapshot();
  if (snapshot.brokers.length === 0) snapshot = await call.cluster.refresh();
  const groups = new Map<string, GroupListing>();
  const errors: { brokerId: number; error: KafkaError }[] = [];
  const states = options.states ?? [];
  const types = options.types ?? [];
  await Promise.all(
    snapshot.brokers.map(async ({ nodeId }) => {
      try {
        let version = 0;
        const r = await call.cluster.sendToNode(
          nodeId,
          ListGroupsApi,
          (v) => {
            version = v;
            if ((states.length > 0 && v < 4) || (types.length > 0 && v < 5))
              throw new UnsupportedVersionError(
                `ListGroups v${v} to broker ${nodeId} cannot filter by ${v < 4 ? 'state' : 'type'}`,
              );
            return createListGroupsRequest({
              ...(v >= 4 ? { statesFilter: [...states] } : {}),
              ...(v >= 5 ? { typesFilter: [...types] } : {}),
            });
          },
          call.sendOptions(),
        );
        for (const g of r.groups) {
          groups.set(g.groupId, {
            groupId: g.groupId,
            protocolType: g.protocolType,
            ...(version >= 4 ? { state: g.groupState } : {}),
            ...(version >= 5 ? { type: g.groupType } : {}),
          });
        }
      } catch (thrown) {
        errors.push({ brokerId: nodeId, error: asItemError(thrown) });
      }
    }),
  );
  if (errors.length === snapshot.brokers.length) throwIfNothingAnswered(errors.map((e) => e.error));
  return {
    groups: [...groups.values()].sort((a, b) =>
      a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0,
    ),
    errors: errors.sort((a, b) => a.brokerId - b.brokerId),
  };
}

/**
 * A consumer group member's assignment (ConsumerProtocolAssignment: an int16 version, then the
 * struct), or undefined when the bytes are not one. Versions above the newest known are read
 * as that one, as Kafka's ConsumerProtocol does (later versions only append fields).
 */
function decodeAssignment(bytes: Buffer): TopicPartition[] | undefined {
  if (bytes.length === 0) return [];
  try {
    const r = new Reader(bytes);
    const version = r.readInt16();
    const a: ConsumerProtocolAssignment = decodeConsumerProtocolAssignment(r, Math.min(version, 3));
    return a.assignedPartitions.flatMap((t) =>
      t.partitions.map((partition) => ({ topic: t.topic, partition })),
    );
  } catch {
    return undefined;
  }
}

/** Kafka's AUTHORIZED_OPERATIONS_OMITTED: the answer carries no operations. */
const OPERATIONS_OMITTED = -2147483648;

const operations = (bits: number) =>
  bits === OPERATIONS_OMITTED ? {} : { authorizedOperations: bits };

/**
 * Describes each group, in parallel, as Kafka's DescribeConsumerGroupsHandler does:
 * ConsumerGroupDescribe first (a KIP-848 group); a coordinator that answers it
 * GROUP_ID_NOT_FOUND (not a consumer group) or UNSUPPORTED_VERSION, or does not offer it, is
 * asked DescribeGroups.
 */
export async function describeGroups(
  call: AdminCall,
  groupIds: readonly string[],
  options: DescribeGroupsOptions,
): Promise<DescribeGroupsResult> {
  const described = new Map<string, GroupDescription>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      const empty = { groupId, state: '', protocolType: '', protocol: '', members: [] };
      try {
        const consumerGroup = await describeConsumerGroup(call, groupId, options);
        described.set(
          groupId,
          consumerGroup ?? (await describeClassicGroup(call, groupId, options, empty)),
        );
      } catch (thrown) {
        described.set(groupId, { ...empty, error: asItemError(thrown) });
      }
    }),
  );
  const groups = groupIds.map((id) => described.get(id)!);
  throwIfNothingAnswered(groups.map((g) => g.error));
  return { groups };
}

const partitionsOf = (a: ConsumerGroupDescribeResponseAssignment): TopicPartition[] =>
  a.topicPartitions.flatMap((t) =>
    t.partitions.map((partition) => ({ topic: t.topicName, partition })),
  );

/**
 * ConsumerGroupDescribe (KIP-848) for one group; undefined when the group is not a consumer
 * group (GROUP_ID_NOT_FOUND) or its coordinator does not offer the API or KIP-848.
 */
async function describeConsumerGroup(
  call: AdminCall,
  groupId: string,
  options: DescribeGroupsOptions,
): Promise<GroupDescription | undefined> {
  let version = 0;
  let response: ConsumerGroupDescribeResponse;
  try {
    response = await sendToGroup(
      call,
      groupId,
      ConsumerGroupDescribeApi,
      (v) => {
        version = v;
        return createConsumerGroupDescribeRequest({
          groupIds: [groupId],
          includeAuthorizedOperations: options.includeAuthorizedOperations ?? false,
        });
      },
      (r) => r.groups.find((g) => g.groupId === groupId)?.errorCode ?? 0,
    );
  } catch (thrown) {
    if (thrown instanceof UnsupportedVersionError) return undefined;
    throw thrown;
  }
  const g = response.groups.find((x) => x.groupId === groupId);
  // Not a consumer group; or a broker that offers the API with KIP-848 off (Kafka 3.x
  // answers UNSUPPORTED_VERSION then): DescribeGroups, as Java's handler falls back.
  if (
    g === undefined ||
    g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND ||
    g.errorCode === ErrorCode.UNSUPPORTED_VERSION
  )
    return undefined;
  const context = `ConsumerGroupDescribe v${version}, group ${groupId}`;
  const error = errorOrUndefined(g.errorCode, context, g.errorMessage);
  if (error !== undefined)
    return { groupId, state: '', protocolType: '', protocol: '', members: [], error };
  return {
    groupId,
    type: 'consumer',
    state: g.groupState,
    protocolType: 'consumer',
    protocol: g.assignorName,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    members: g.members.map(
      (m): GroupMember => ({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: Buffer.alloc(0),
        assignment: Buffer.alloc(0),
        assignedPartitions: partitionsOf(m.assignment),
        memberEpoch: m.memberEpoch,
        rackId: m.rackId,
        subscribedTopicNames: [...m.subscribedTopicNames],
        // Brokers answer '' for a member without a regex.
        subscribedTopicRegex: m.subscribedTopicRegex || null,
        targetAssignment: partitionsOf(m.targetAssignment),
        // KIP-1099: 0 classic, 1 consumer, -1 unknown (v0 has no field).
        ...(m.memberType === 0
          ? { memberType: 'classic' as const }
          : m.memberType === 1
            ? { memberType: 'consumer' as const }
            : {}),
      }),
    ),
    ...operations(g.authorizedOperations),
  };
}

/** The classic DescribeGroups for one group. */
async function describeClassicGroup(
  call: AdminCall,
  groupId: string,
  options: DescribeGroupsOptions,
  empty: GroupDescription,
): Promise<GroupDescription> {
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    DescribeGroupsApi,
    (v) => {
      version = v;
      return createDescribeGroupsRequest({
        groups: [groupId],
        ...(v >= 3
          ? { includeAuthorizedOperations: options.includeAuthorizedOperations ?? false }
          : {}),
      });
    },
    (r) => r.groups.find((g) => g.groupId === groupId)?.errorCode ?? 0,
  );
  const g = response.groups.find((x) => x.groupId === groupId);
  const context = `DescribeGroups v${version}, group ${groupId}`;
  if (g === undefined) return { ...empty, error: brokerError(-1, `${context}: no answer`) };
  const error = errorOrUndefined(g.errorCode, context, g.errorMessage);
  if (error !== undefined) return { ...empty, error };
  const consumer = g.protocolType === 'consumer';
  return {
    groupId,
    type: 'classic',
    state: g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    members: g.members.map((m): GroupMember => {
      const assignment = Buffer.from(m.memberAssignment);
      const assigned = consumer ? decodeAssignment(assignment) : undefined;
      return {
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: Buffer.from(m.memberMetadata),
        assignment,
        ...(assigned === undefined ? {} : { assignedPartitions: assigned }),
      };
    }),
    ...operations(g.authorizedOperations),
  };
}

// OffsetFetch v10 names topics by id only; up to v9 the answer carries names, which is what
// this API returns, so the version is capped there rather than resolving ids through metadata.
const OFFSET_FETCH_BY_NAME_MAX = 9;

function topicsOf(partitions: readonly TopicPartition[] | undefined) {
  if (partitions === undefined) return null;
  const topics = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = topics.get(topic);
    if (list === undefined) topics.set(topic, [partition]);
    else if (!list.includes(partition)) list.push(partition);
  }
  return [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}

/**
 * OffsetFetch for one group from its coordinator. A group-level error
 * (GROUP_AUTHORIZATION_FAILED, GROUP_ID_NOT_FOUND) is the whole call's, thrown.
 */
export async function listConsumerGroupOffsets(
  call: AdminCall,
  groupId: string,
  options: ListConsumerGroupOffsetsOptions,
): Promise<ListConsumerGroupOffsetsResult> {
  const negotiated = await call.cluster.negotiatedFor(OffsetFetchApi.apiKey);
  if (negotiated === undefined)
    throw new UnsupportedVersionError('the brokers do not support OffsetFetch');
  const version = Math.min(negotiated, OFFSET_FETCH_BY_NAME_MAX);
  const topics = topicsOf(options.partitions);
  if (topics === null && version < 2)
    throw new UnsupportedVersionError(
      `OffsetFetch v${version} cannot list all of a group's offsets`,
    );
  const requireStable = options.requireStable ?? false;
  const response: OffsetFetchResponse = await sendToGroup(
    call,
    groupId,
    OffsetFetchApi,
    () =>
      version >= 8
        ? createOffsetFetchRequest({
            groups: [
              {
                groupId,
                memberId: null,
                memberEpoch: -1,
                topics: topics === null ? null : topics.map((t) => ({ ...t, topicId: ZERO_UUID })),
              },
            ],
            requireStable,
          })
        : createOffsetFetchRequest({
            groupId,
            topics,
            ...(version >= 7 ? { requireStable } : {}),
          }),
    (r) => (version >= 8 ? (r.groups[0]?.errorCode ?? 0) : r.errorCode),
    { version },
  );
  const context = `OffsetFetch v${version}, group ${groupId}`;
  const group = version >= 8 ? response.groups.find((g) => g.groupId === groupId) : undefined;
  if (version >= 8) {
    if (group === undefined) throw brokerError(-1, `${context}: no answer`);
    if (group.errorCode !== 0) throw brokerError(group.errorCode, context);
  }
  const answered = group === undefined ? response.topics : group.topics;
  const partitions: CommittedOffset[] = answered.flatMap((t) =>
    t.partitions.map((p) => {
      const error = errorOrUndefined(p.errorCode, `${context}, ${t.name}-${p.partitionIndex}`);
      return {
        topic: t.name,
        partition: p.partitionIndex,
        offset: p.committedOffset,
        ...(p.committedLeaderEpoch < 0 ? {} : { leaderEpoch: p.committedLeaderEpoch }),
        metadata: p.metadata,
        ...(error === undefined ? {} : { error }),
      };
    }),
  );
  partitions.sort((a, b) =>
    a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition,
  );
  return { groupId, partitions };
}

/**
 * DeleteGroups, each group to its coordinator in parallel (Kafka's DeleteConsumerGroupsHandler
 * batches per coordinator; one group per request here, the coordinator's answer the same).
 */
export async function deleteGroups(
  call: AdminCall,
  groupIds: readonly string[],
): Promise<DeleteGroupsResult> {
  const results = new Map<string, KafkaError | undefined>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        let version = 0;
        const response = await sendToGroup(
          call,
          groupId,
          DeleteGroupsApi,
          (v) => {
            version = v;
            return createDeleteGroupsRequest({ groupsNames: [groupId] });
          },
          (r) => r.results.find((g) => g.groupId === groupId)?.errorCode ?? 0,
        );
        const r = response.results.find((g) => g.groupId === groupId);
        const context = `DeleteGroups v${version}, group ${JSON.stringify(groupId)}`;
        results.set(
          groupId,
          r === undefined
            ? ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${context}: no answer`)
            : errorOrUndefined(r.errorCode, context, r.errorMessage),
        );
      } catch (thrown) {
        results.set(groupId, asItemError(thrown));
      }
    }),
  );
  const groups = groupIds.map((groupId) => {
    const error = results.get(groupId);
    return error === undefined ? { groupId } : { groupId, error };
  });
  throwIfNothingAnswered(groups.map((g) => g.error));
  return { groups };
}

/**
 * OffsetDelete (KIP-496) to the group's coordinator: removes the group's committed offsets of
 * `partitions`. A group-level refusal (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP from older brokers,
 * GROUP_AUTHORIZATION_FAILED) is the call's error.
 */
export async function deleteConsumerGroupOffsets(
  call: AdminCall,
  groupId: string,
  partitions: readonly TopicPartition[],
): Promise<DeleteConsumerGroupOffsetsResult> {
  if (partitions.length === 0) return { groupId, partitions: [] };
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) {
    const list = byTopic.get(p.topic) ?? [];
    if (!list.includes(p.partition)) list.push(p.partition);
    byTopic.set(p.topic, list);
  }
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    OffsetDeleteApi,
    (v) => {
      version = v;
      return OffsetDeleteApi.createRequest({
        groupId,
        topics: [...byTopic].map(([name, indexes]) => ({
          name,
          partitions: indexes.map((partitionIndex) => ({ partitionIndex })),
        })),
      });
    },
    (r) => r.errorCode,
  );
  const context = `OffsetDelete v${version}, group ${JSON.stringify(groupId)}`;
  if (response.errorCode !== 0) throw brokerError(response.errorCode, context);
  return { groupId, partitions: partitionResults(partitions, response.topics, context) };
}

/**
 * One entry per partition asked for, in request order, from an answer listing error codes by
 * topic name and partition: its `error` when refused, UNKNOWN_SERVER_ERROR when left out.
 */
function partitionResults(
  asked: readonly TopicPartition[],
  answered: readonly {
    name: string;
    partitions: readonly { partitionIndex: number; errorCode: number }[];
  }[],
  context: string,
): (TopicPartition & { readonly error?: ProtocolError })[] {
  const codes = new Map<string, number>();
  for (const t of answered) {
    for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode);
  }
  return asked.map(({ topic, partition }) => {
    const code = codes.get(`${topic}\u0000${partition}`);
    const where = `${context}, ${topic}-${partition}`;
    const error =
      code === undefined
        ? ProtocolError.fromCode(ErrorCode.UNKNOWN_SERVER_ERROR, `${where}: no answer`)
        : errorOrUndefined(code, where);
    return error === undefined ? { topic, partition } : { topic, partition, error };
  });
}

/** OffsetCommit names topics up to v9; v10 takes topic ids (KIP-848), which this call does not send. */
const OFFSET_COMMIT_BY_NAME = 9;

/**
 * OffsetCommit from outside the group (generation -1, no member id) to its coordinator, as
 * Kafka's admin alters a group's offsets: the coordinator accepts it only while the group has
 * no members (UNKNOWN_MEMBER_ID otherwise).
 */
export async function alterConsumerGroupOffsets(
  call: AdminCall,
  groupId: string,
  offsets: readonly GroupOffsetToSet[],
): Promise<AlterConsumerGroupOffsetsResult> {
  if (offsets.length === 0) return { groupId, partitions: [] };
  const negotiated = await call.cluster.negotiatedFor(OffsetCommitApi.apiKey);
  if (negotiated === undefined)
    throw new UnsupportedVersionError('the brokers do not support OffsetCommit');
  const version = Math.min(negotiated, OFFSET_COMMIT_BY_NAME);
  const byTopic = new Map<string, GroupOffsetToSet[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push(o);
    byTopic.set(o.topic, list);
  }
  const response = await sendToGroup(
    call,
    groupId,
    OffsetCommitApi,
    OffsetCommitApi.createRequest({
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [...byTopic].map(([name, list]) => ({
        name,
        topicId: ZERO_UUID,
        partitions: list.map((o) => ({
          partitionIndex: o.partition,
          committedOffset: o.offset,
          committedLeaderEpoch: o.leaderEpoch ?? -1,
          committedMetadata: o.metadata ?? '',
        })),
      })),
    }),
    // OffsetCommit has no group-level code: a moved coordinator answers per partition.
    (r) => r.topics[0]?.partitions[0]?.errorCode ?? 0,
    { version },
  );
  const context = `OffsetCommit v${version}, group ${JSON.stringify(groupId)}`;
  return { groupId, partitions: partitionResults(offsets, response.topics, context) };
}

/**
 * LeaveGroup v3+ from outside the group (KIP-345), to its coordinator: the given members, or
 * every member DescribeGroups shows now, as Kafka's `Admin.removeMembersFromConsumerGroup`.
 * A classic-protocol call: a KIP-848 group's coordinator refuses it per member.
 */
export async function removeMembersFromConsumerGroup(
  call: AdminCall,
  groupId: string,
  options: RemoveMembersOptions,
): Promise<RemoveMembersResult> {
  let members: readonly MemberToRemove[] | undefined = options.members;
  if (members === undefined) {
    const [described] = (await describeGroups(call, [groupId], {})).groups;
    if (described?.error !== undefined) throw described.error;
    members = (described?.members ?? []).map((m) =>
      m.groupInstanceId === null
        ? { memberId: m.memberId }
        : { groupInstanceId: m.groupInstanceId },
    );
  }
  if (members.length === 0) return { groupId, members: [] };
  const identities = members.map((m) =>
    'groupInstanceId' in m
      ? { memberId: '', groupInstanceId: m.groupInstanceId }
      : { memberId: m.memberId, groupInstanceId: null },
  );
  let version = 0;
  const response = await sendToGroup(
    call,
    groupId,
    LeaveGroupApi,
    (v) => {
      version = v;
      if (v < 3)
        throw new UnsupportedVersionError(
          `LeaveGroup v${v}: removing members from outside the group needs v3 (KIP-345)`,
        );
      return LeaveGroupApi.createRequest({
        groupId,
        members: identities.map((m) => ({
          ...m,
          reason: v >= 5 ? (options.reason ?? 'removed by a kafkats admin') : null,
        })),
      });
    },
    (r) => r.errorCode,
  );
  const context = `LeaveGroup v${version}, group ${JSON.stringify(groupId)}`;
  if (response.errorCode !== 0) throw brokerError(response.errorCode, context);
  return {
    groupId,
    members: response.members.map((m) => {
      const error = errorOrUndefined(
        m.errorCode,
        `${context}, member ${m.groupInstanceId ?? m.memberId}`,
      );
      const base = { memberId: m.memberId, groupInstanceId: m.groupInstanceId };
      return error === undefined ? base : { ...base, error };
    }),
  };
}
