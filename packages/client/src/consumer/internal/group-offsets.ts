import {
  createOffsetCommitRequest,
  createOffsetFetchRequest,
  ErrorCode,
  KafkaError,
  OffsetCommitApi,
  OffsetFetchApi,
  ProtocolError,
  ZERO_UUID,
} from '@kafkats/codec';
import { type Cluster, retryDelayMs, sleep } from '@kafkats/meta';
import { UnsupportedVersionError } from '@kafkats/wire';
import type { TopicPartition } from '../../topic-partition.js';
import { CommitFailedError } from '../consumer-errors.js';
import type { MemberIdentity } from './contracts.js';

// OffsetCommit and OffsetFetch v10 name topics by id only; v9 by name is enough here, and keeps
// the answer readable without a metadata lookup (the admin caps OffsetFetch the same way).
const BY_NAME_MAX = 9;

/** An offset to commit: the next one the group should read (last processed + 1). */
export interface OffsetToCommit extends TopicPartition {
  readonly offset: bigint;
  /** The leader epoch of the last consumed record; -1 or absent when unknown. */
  readonly leaderEpoch?: number;
  readonly metadata?: string | null;
}

/** A committed offset as OffsetFetch gave it; `offset` -1n when the group has none. */
export interface CommittedPosition extends TopicPartition {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string | null;
}

/** How group offset calls retry: the consumer's backoff and its `defaultApiTimeoutMs`. */
export interface OffsetCallConfig {
  readonly cluster: Cluster;
  readonly groupId: string;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly timeoutMs: number;
  readonly random: () => number;
  /** Ends the call (the request in flight, the backoff); it then rejects with AbortedError. */
  readonly signal?: AbortSignal;
}

// Answers after which the commit is retried: the coordinator moved or loads, a partition's
// leader is unknown for a moment, or (KIP-848) the member's epoch just moved on and the next
// heartbeat brings the new one.
const RETRY = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.STALE_MEMBER_EPOCH,
  ErrorCode.UNSTABLE_OFFSET_COMMIT,
]);

const MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE]);

async function versionFor(cluster: Cluster, apiKey: number, name: string): Promise<number> {
  const negotiated = await cluster.negotiatedFor(apiKey);
  if (negotiated === undefined)
    throw new UnsupportedVersionError(`the brokers do not support ${name}`);
  return Math.min(negotiated, BY_NAME_MAX);
}

function byTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const topics = new Map<string, T[]>();
  for (const item of items) {
    const list = topics.get(item.topic);
    if (list === undefined) topics.set(item.topic, [item]);
    else list.push(item);
  }
  return topics;
}

async function backoff(config: OffsetCallConfig, round: number, started: number): Promise<boolean> {
  if (Date.now() - started >= config.timeoutMs) return false;
  const ms = retryDelayMs(
    { backoffMs: config.retryBackoffMs, maxBackoffMs: config.retryBackoffMaxMs, jitter: 0.2 },
    round + 1,
    config.random,
  );
  await sleep(ms, config.signal);
  return true;
}

/**
 * OffsetCommit of `offsets` for the member `identity()` names (read afresh on every round, so a
 * retry after STALE_MEMBER_EPOCH carries the epoch the last heartbeat brought). Retries the
 * answers in `RETRY` within `timeoutMs`.
 *
 * @throws CommitFailedError for ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID,
 *   FENCED_INSTANCE_ID, any other partition error that is not retriable, and a retriable one
 *   that outlasted `timeoutMs` (`cause` is the broker's error)
 */
export async function commitOffsets(
  config: OffsetCallConfig,
  offsets: readonly OffsetToCommit[],
  identity: () => MemberIdentity,
): Promise<void> {
  if (offsets.length === 0) return;
  const version = await versionFor(config.cluster, OffsetCommitApi.apiKey, 'OffsetCommit');
  const topics = byTopic(offsets);
  const started = Date.now();
  for (let round = 1; ; round++) {
    const member = identity();
    let failure: ProtocolError | undefined;
    try {
      const response = await config.cluster.sendToCoordinator(
        'group',
        config.groupId,
        OffsetCommitApi,
        createOffsetCommitRequest({
          groupId: config.groupId,
          generationIdOrMemberEpoch: member.generationId,
          memberId: member.memberId,
          groupInstanceId: member.groupInstanceId,
          topics: [...topics].map(([name, partitions]) => ({
            name,
            topicId: ZERO_UUID,
            partitions: partitions.map((p) => ({
              partitionIndex: p.partition,
              committedOffset: p.offset,
              committedLeaderEpoch: p.leaderEpoch ?? -1,
              committedMetadata: p.metadata ?? '',
            })),
          })),
        }),
        { version, operationTimeoutMs: Math.max(1, config.timeoutMs - (Date.now() - started)) },
      );
      for (const t of response.topics)
        for (const p of t.partitions)
          if (p.errorCode !== 0 && failure === undefined)
            failure = ProtocolError.fromCode(
              p.errorCode,
              `OffsetCommit v${version} for group ${JSON.stringify(config.groupId)}, ${t.name}-${p.partitionIndex}`,
            );
    } catch (error) {
      if (!(error instanceof KafkaError) || !error.retriable) throw commitFailed(config, error);
      if (!(await backoff(config, round, started))) throw commitFailed(config, error);
      continue;
    }
    if (failure === undefined) return;
    if (!RETRY.has(failure.errorCode)) throw commitFailed(config, failure);
    if (MOVED.has(failure.errorCode)) config.cluster.invalidateCoordinator('group', config.groupId);
    if (!(await backoff(config, round, started))) throw commitFailed(config, failure);
  }
}

function commitFailed(config: OffsetCallConfig, cause: unknown): CommitFailedError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new CommitFailedError(
    `commit for group ${JSON.stringify(config.groupId)} failed: ${detail}`,
    cause,
  );
}

/**
 * The group's committed offsets for `partitions` (OffsetFetch, `requireStable` as KIP-447
 * asks: a partition with a pending transactional commit answers UNSTABLE_OFFSET_COMMIT and is
 * asked again until the transaction ends). Partitions without a committed offset come back
 * with offset -1n.
 *
 * @throws the group-level or partition-level broker error that is not retriable
 *   (GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED, ...), or the last retriable one
 *   after `timeoutMs`
 */
export async function fetchCommitted(
  config: OffsetCallConfig,
  partitions: readonly TopicPartition[],
): Promise<CommittedPosition[]> {
  if (partitions.length === 0) return [];
  const version = await versionFor(config.cluster, OffsetFetchApi.apiKey, 'OffsetFetch');
  const topics = [...byTopic(partitions)].map(([name, ps]) => ({
    name,
    partitionIndexes: ps.map((p) => p.partition),
  }));
  const context = `OffsetFetch v${version} for group ${JSON.stringify(config.groupId)}`;
  const started = Date.now();
  for (let round = 1; ; round++) {
    const response = await config.cluster.sendToCoordinator(
      'group',
      config.groupId,
      OffsetFetchApi,
      version >= 8
        ? createOffsetFetchRequest({
            groups: [
              {
                groupId: config.groupId,
                memberId: null,
                memberEpoch: -1,
                topics: topics.map((t) => ({ ...t, topicId: ZERO_UUID })),
              },
            ],
            requireStable: true,
          })
        : createOffsetFetchRequest({
            groupId: config.groupId,
            topics,
            requireStable: version >= 7,
          }),
      {
        version,
        operationTimeoutMs: Math.max(1, config.timeoutMs - (Date.now() - started)),
        ...(config.signal === undefined ? {} : { signal: config.signal }),
      },
    );
    const group = version >= 8 ? response.groups[0] : undefined;
    const groupCode = group === undefined ? response.errorCode : group.errorCode;
    const answered = group === undefined ? response.topics : group.topics;
    let failure: ProtocolError | undefined =
      groupCode === 0 ? undefined : ProtocolError.fromCode(groupCode, context);
    const result: CommittedPosition[] = [];
    for (const t of answered)
      for (const p of t.partitions) {
        if (p.errorCode !== 0) {
          failure ??= ProtocolError.fromCode(
            p.errorCode,
            `${context}, ${t.name}-${p.partitionIndex}`,
          );
          continue;
        }
        result.push({
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.metadata,
        });
      }
    if (failure === undefined) return result;
    if (!RETRY.has(failure.errorCode) && !failure.retriable) throw failure;
    if (MOVED.has(failure.errorCode)) config.cluster.invalidateCoordinator('group', config.groupId);
    if (!(await backoff(config, round, started))) throw failure;
  }
}
