// kafkajs's admin client over kafkats's Admin. Every request is kafkats's: this class validates
// input with kafkajs's messages, translates shapes (internal/admin-translate.ts) and turns
// kafkats's per-item errors into the rejections kafkajs gives for them.
import {
  type ClusterConfig,
  type KafkaError,
  Admin as KatsAdmin,
  type ListedOffset,
  OperationTimeoutError,
  ProtocolError,
  type TopicPartition,
} from '@kafkats/client';
import type {
  AclEntry,
  AclFilter,
  Admin,
  AdminConfig,
  AdminEvents,
  AlterConfigResponse,
  DeleteAclResponse,
  DeleteGroupsResult,
  DescribeAclResponse,
  DescribeConfigResponse,
  FetchOffsetsPartition,
  GroupDescriptions,
  IResourceConfig,
  ITopicConfig,
  ITopicMetadata,
  ITopicPartitionConfig,
  ListPartitionReassignmentsResponse,
  PartitionReassignment,
  ResourceConfigQuery,
  SeekEntry,
} from '../admin.js';
import { type ClientContext, katsRetry } from '../config.js';
import {
  KafkaJSAggregateError,
  KafkaJSAlterPartitionReassignmentsError,
  KafkaJSBrokerNotFound,
  KafkaJSCreateTopicError,
  KafkaJSDeleteGroupsError,
  KafkaJSDeleteTopicRecordsError,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSTimeout,
  toKafkaJSError,
} from '../errors.js';
import {
  ADMIN_EVENTS,
  type InstrumentationEmitter as Emitter,
  InstrumentationEmitter,
  type InstrumentationEvent,
  type RemoveInstrumentationEventListener,
} from '../instrumentation.js';
import type { Logger } from '../logger.js';
import * as t from './admin-translate.js';
import * as v from './admin-validate.js';

type GroupDescription = GroupDescriptions['groups'][number];
type TopicPartitions = { topic: string; partitions: number[] };
type Offsets = { partition: number; offset: string | number | bigint }[];

/** A kafkajs error for any failure (a non-kafkats error becomes a non-retriable one). */
function kjsError(e: unknown): KafkaJSError {
  const mapped = toKafkaJSError(e);
  if (mapped instanceof KafkaJSError) return mapped;
  return new KafkaJSNonRetriableError(mapped instanceof Error ? mapped : String(mapped), {
    cause: mapped,
  });
}

/** Sets `cause` on an error class whose constructor takes none: the kafkats error it stands for. */
function withCause<E extends Error>(error: E, cause: unknown): E {
  Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true });
  return error;
}

/** Rejects with the first item error, as kafkajs's response parsers do. */
function throwFirst(items: readonly { readonly error?: KafkaError | undefined }[]): void {
  const failed = items.find((i) => i.error !== undefined);
  if (failed !== undefined) throw failed.error;
}

const timeoutOption = (timeout: number | undefined) =>
  timeout === undefined ? {} : { timeoutMs: timeout };

/** `kafka.admin()`: see {@link Admin} for each call. */
export class KafkaJSAdmin implements Admin {
  readonly events: AdminEvents = ADMIN_EVENTS;
  readonly #context: ClientContext;
  readonly #config: AdminConfig;
  readonly #logger: Logger;
  readonly #emitter: Emitter;
  #admin: KatsAdmin | undefined;
  #opening: Promise<KatsAdmin> | undefined;

  constructor(context: ClientContext, config: AdminConfig) {
    this.#context = context;
    this.#config = config ?? {};
    this.#logger = context.logger.namespace('Admin');
    this.#emitter = new InstrumentationEmitter(ADMIN_EVENTS, this.#logger, {
      request: ADMIN_EVENTS.REQUEST,
      timeout: ADMIN_EVENTS.REQUEST_TIMEOUT,
    });
  }

  async connect(): Promise<void> {
    await this.#open();
    this.#emitter.emit(ADMIN_EVENTS.CONNECT, null);
  }

  async disconnect(): Promise<void> {
    const opening = this.#opening;
    if (opening !== undefined) await opening.catch(() => undefined);
    const admin = this.#admin;
    this.#admin = undefined;
    if (admin !== undefined) {
      await admin.close();
      await admin.cluster.close();
    }
    this.#emitter.emit(ADMIN_EVENTS.DISCONNECT, null);
  }

  /** The kafkats admin, connecting first when needed (kafkajs's broker pool connects lazily too). */
  #open(): Promise<KatsAdmin> {
    if (this.#admin !== undefined) return Promise.resolve(this.#admin);
    this.#opening ??= (async () => {
      try {
        const retry = this.#config.retry;
        const extra: Partial<ClusterConfig> =
          retry === undefined
            ? {}
            : {
                retry: {
                  ...this.#context.clusterConfig(this.#logger).retry,
                  ...katsRetry({ ...this.#context.config.retry, ...retry }),
                },
              };
        const cluster = await this.#context.openCluster(this.#logger, extra, this.#emitter);
        this.#admin = new KatsAdmin(cluster);
        return this.#admin;
      } finally {
        this.#opening = undefined;
      }
    })();
    return this.#opening;
  }

  /** Runs `call` on the connected admin; whatever it throws reaches the caller as a kafkajs error. */
  async #run<T>(call: (admin: KatsAdmin) => Promise<T>): Promise<T> {
    try {
      return await call(await this.#open());
    } catch (e) {
      throw toKafkaJSError(e);
    }
  }

  async listTopics(): Promise<string[]> {
    return this.#run(async (admin) => {
      const { topics } = await admin.listTopics({ listInternal: true });
      return topics.map((topic) => topic.name);
    });
  }

  async createTopics(options: {
    validateOnly?: boolean;
    waitForLeaders?: boolean;
    timeout?: number;
    topics: ITopicConfig[];
  }): Promise<boolean> {
    const { topics, validateOnly = false, timeout, waitForLeaders = true } = options ?? {};
    v.validateCreateTopics(topics);
    return this.#run(async (admin) => {
      const result = await admin.createTopics(topics.map(t.toNewTopic), {
        validateOnly,
        ...timeoutOption(timeout),
      });
      const failed = result.topics.filter((r) => r.error !== undefined);
      const alreadyThere = failed.every((r) => r.error?.errorName === 'TOPIC_ALREADY_EXISTS');
      if (!alreadyThere) {
        throw new KafkaJSAggregateError(
          'Topic creation errors',
          failed.map((r) =>
            withCause(new KafkaJSCreateTopicError(r.error as ProtocolError, r.name), r.error),
          ),
        );
      }
      const created = result.topics.filter((r) => r.error === undefined).map((r) => r.name);
      if (waitForLeaders && !validateOnly && created.length > 0) {
        try {
          await admin.waitForTopics(created, timeoutOption(timeout));
        } catch (e) {
          if (!(e instanceof OperationTimeoutError)) throw e;
          throw new KafkaJSTimeout('Timed out while waiting for topic leaders', { cause: e });
        }
      }
      // kafkajs: false when a topic already existed, even if others were created.
      return failed.length === 0;
    });
  }

  async deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void> {
    const { topics, timeout } = options ?? {};
    v.validateDeleteTopics(topics);
    await this.#run(async (admin) => {
      throwFirst((await admin.deleteTopics(topics, timeoutOption(timeout))).topics);
    });
  }

  async createPartitions(options: {
    validateOnly?: boolean;
    timeout?: number;
    topicPartitions: ITopicPartitionConfig[];
  }): Promise<boolean> {
    const { topicPartitions, validateOnly = false, timeout } = options ?? {};
    v.validateCreatePartitions(topicPartitions);
    return this.#run(async (admin) => {
      const result = await admin.createPartitions(
        topicPartitions.map((p) => ({
          topic: p.topic,
          totalCount: p.count,
          ...(p.assignments === undefined ? {} : { assignments: p.assignments }),
        })),
        { validateOnly, ...timeoutOption(timeout) },
      );
      throwFirst(result.topics);
      return true;
    });
  }

  async fetchTopicMetadata(options?: { topics: string[] }): Promise<{ topics: ITopicMetadata[] }> {
    const topics = options?.topics ?? [];
    v.validateMetadataTopics(topics);
    return this.#run(async (admin) => {
      const names =
        topics.length > 0
          ? topics
          : (await admin.listTopics({ listInternal: true })).topics.map((x) => x.name);
      const described = await admin.describeTopics(names);
      throwFirst(described.topics);
      return {
        topics: described.topics.map((d) => ({
          name: d.name,
          partitions: d.partitions.map(t.toPartitionMetadata),
        })),
      };
    });
  }

  async describeCluster(): Promise<{
    brokers: Array<{ nodeId: number; host: string; port: number }>;
    controller: number | null;
    clusterId: string;
  }> {
    return this.#run(async (admin) => {
      const c = await admin.describeCluster();
      return {
        brokers: c.brokers.map(({ nodeId, host, port }) => ({ nodeId, host, port })),
        controller: c.controllerId === undefined || c.controllerId < 0 ? null : c.controllerId,
        clusterId: c.clusterId,
      };
    });
  }

  /** A topic's partition ids, sorted; rejects with the topic's error (UNKNOWN_TOPIC_OR_PARTITION). */
  async #partitionsOf(admin: KatsAdmin, topic: string): Promise<number[]> {
    const { topics } = await admin.describeTopics([topic]);
    throwFirst(topics);
    return (topics[0]?.partitions ?? []).map((p) => p.partition).sort((a, b) => a - b);
  }

  /** Each partition's offset for `spec`, in the order asked; rejects with the first error. */
  async #offsets(
    admin: KatsAdmin,
    topic: string,
    partitions: readonly number[],
    spec: 'earliest' | 'latest' | { timestamp: bigint },
  ): Promise<Map<number, bigint>> {
    const { partitions: answered } = await admin.listOffsets(
      partitions.map((partition) => ({ topic, partition, spec })),
    );
    throwFirst(answered);
    return new Map(answered.map((p: ListedOffset) => [p.partition, p.offset ?? -1n]));
  }

  async fetchTopicOffsets(
    topic: string,
  ): Promise<Array<SeekEntry & { high: string; low: string }>> {
    v.validateTopic(topic);
    return this.#run(async (admin) => {
      const partitions = await this.#partitionsOf(admin, topic);
      const [low, high] = await Promise.all([
        this.#offsets(admin, topic, partitions, 'earliest'),
        this.#offsets(admin, topic, partitions, 'latest'),
      ]);
      return partitions.map((partition) => {
        const h = String(high.get(partition) ?? -1n);
        return { partition, offset: h, high: h, low: String(low.get(partition) ?? -1n) };
      });
    });
  }

  async fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<SeekEntry[]> {
    v.validateTopic(topic);
    return this.#run(async (admin) => {
      const partitions = await this.#partitionsOf(admin, topic);
      const [high, found] = await Promise.all([
        this.#offsets(admin, topic, partitions, 'latest'),
        timestamp === undefined || timestamp === null
          ? undefined
          : this.#offsets(admin, topic, partitions, { timestamp: BigInt(timestamp) }),
      ]);
      // No record at or after the timestamp (-1): the high watermark, as kafkajs answers.
      return partitions.map((partition) => {
        const at = found?.get(partition) ?? -1n;
        return { partition, offset: String(at >= 0n ? at : (high.get(partition) ?? -1n)) };
      });
    });
  }

  async fetchOffsets(options: {
    groupId: string;
    topics?: string[];
    resolveOffsets?: boolean;
  }): Promise<Array<{ topic: string; partitions: FetchOffsetsPartition[] }>> {
    const { groupId, resolveOffsets = false } = options ?? {};
    v.validateGroupId(groupId);
    const topics: unknown = options.topics ?? [];
    if (!Array.isArray(topics)) {
      throw new KafkaJSNonRetriableError('Expected topics array to be set');
    }
    return this.#run(async (admin) => {
      let asked: TopicPartition[] | undefined;
      if (topics.length > 0) {
        asked = [];
        for (const topic of topics as string[]) {
          for (const partition of await this.#partitionsOf(admin, topic)) {
            asked.push({ topic, partition });
          }
        }
      }
      const { partitions } = await admin.listConsumerGroupOffsets(
        groupId,
        asked === undefined ? {} : { partitions: asked },
      );
      throwFirst(partitions);
      const byTopic = new Map<string, { partition: number; offset: bigint; metadata: string }[]>();
      for (const topic of topics as string[]) byTopic.set(topic, []);
      for (const p of partitions) {
        let list = byTopic.get(p.topic);
        if (list === undefined) byTopic.set(p.topic, (list = []));
        list.push({ partition: p.partition, offset: p.offset, metadata: p.metadata ?? '' });
      }
      const out: { topic: string; partitions: FetchOffsetsPartition[] }[] = [];
      for (const [topic, list] of byTopic) {
        list.sort((a, b) => a.partition - b.partition);
        if (resolveOffsets && list.some((p) => p.offset === -1n || p.offset === -2n)) {
          // A -1 (latest) or -2 (earliest) commit, as kafkajs's resetOffsets leaves: resolved
          // to the watermark now and committed, as kafkajs does.
          const resolved = await this.#resolveSpecial(admin, topic, list);
          await this.#commit(admin, groupId, topic, resolved);
          for (const p of list) p.offset = resolved.get(p.partition) ?? p.offset;
        }
        out.push({
          topic,
          partitions: list.map((p) => ({
            partition: p.partition,
            offset: String(p.offset),
            metadata: p.metadata === '' ? null : p.metadata,
          })),
        });
      }
      return out;
    });
  }

  /** The offsets with -2 replaced by the low watermark and other negatives by the high one. */
  async #resolveSpecial(
    admin: KatsAdmin,
    topic: string,
    entries: readonly { partition: number; offset: bigint }[],
  ): Promise<Map<number, bigint>> {
    const out = new Map<number, bigint>();
    const early = entries.filter((e) => e.offset === -2n).map((e) => e.partition);
    const late = entries.filter((e) => e.offset < 0n && e.offset !== -2n).map((e) => e.partition);
    const [low, high] = await Promise.all([
      early.length > 0 ? this.#offsets(admin, topic, early, 'earliest') : new Map(),
      late.length > 0 ? this.#offsets(admin, topic, late, 'latest') : new Map(),
    ]);
    for (const e of entries)
      out.set(e.partition, low.get(e.partition) ?? high.get(e.partition) ?? e.offset);
    return out;
  }

  /** Commits offsets for a group with no member, refusing a running one with kafkajs's message. */
  async #commit(
    admin: KatsAdmin,
    groupId: string,
    topic: string,
    offsets: ReadonlyMap<number, bigint>,
  ): Promise<void> {
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups[0];
    if (group?.error !== undefined && !isGroupMissing(group.error)) throw group.error;
    const state = group?.error === undefined ? (group?.state ?? 'Dead') : 'Dead';
    if (state !== 'Empty' && state !== 'Dead') {
      throw new KafkaJSNonRetriableError(
        `The consumer group must have no running instances, current state: ${state}`,
      );
    }
    const result = await admin.alterConsumerGroupOffsets(
      groupId,
      [...offsets].map(([partition, offset]) => ({ topic, partition, offset })),
    );
    throwFirst(result.partitions);
  }

  async #setOffsets(
    admin: KatsAdmin,
    groupId: string,
    topic: string,
    partitions: Offsets,
  ): Promise<void> {
    const entries = partitions.map((p) => ({
      partition: p.partition,
      offset: t.toOffset(p.offset),
    }));
    // kafkajs commits -1 and -2 as they are, for its consumer to resolve when it starts; other
    // consumers (kafkats's, Java's) take a negative commit for none. They are resolved here, to
    // the watermarks of now, as Kafka's `kafka-consumer-groups.sh --reset-offsets` does.
    const resolved = entries.some((e) => e.offset < 0n)
      ? await this.#resolveSpecial(admin, topic, entries)
      : new Map(entries.map((e) => [e.partition, e.offset]));
    await this.#commit(admin, groupId, topic, resolved);
  }

  async setOffsets(options: {
    groupId: string;
    topic: string;
    partitions: Array<{ partition: number; offset: string | number }>;
  }): Promise<void> {
    const { groupId, topic, partitions } = options ?? {};
    v.validateGroupAndTopic(groupId, topic);
    v.validateSeekEntries(partitions);
    await this.#run((admin) => this.#setOffsets(admin, groupId, topic, partitions));
  }

  async resetOffsets(options: {
    groupId: string;
    topic: string;
    earliest?: boolean;
  }): Promise<void> {
    const { groupId, topic, earliest = false } = options ?? {};
    v.validateGroupAndTopic(groupId, topic);
    await this.#run(async (admin) => {
      const partitions = await this.#partitionsOf(admin, topic);
      const offset = earliest ? -2n : -1n;
      await this.#setOffsets(
        admin,
        groupId,
        topic,
        partitions.map((partition) => ({ partition, offset })),
      );
    });
  }

  async describeConfigs(options: {
    resources: ResourceConfigQuery[];
    includeSynonyms?: boolean;
  }): Promise<DescribeConfigResponse> {
    const { resources, includeSynonyms = false } = options ?? {};
    v.validateDescribeConfigs(resources);
    const asked = resources.map((r) => ({
      type: configType(r),
      name: r.name,
      ...(r.configNames !== undefined && r.configNames !== null && r.configNames.length > 0
        ? { keys: r.configNames }
        : {}),
    }));
    return this.#run(async (admin) => {
      const result = await admin.describeConfigs(asked, { includeSynonyms });
      throwFirst(result.resources);
      return {
        resources: result.resources.map((r) => ({
          errorCode: 0,
          errorMessage: null as unknown as string,
          resourceType: t.configResourceTypeId(r.type),
          resourceName: r.name,
          configEntries: r.configs.map(t.toConfigEntries),
        })),
        throttleTime: 0,
      };
    });
  }

  async alterConfigs(options: {
    validateOnly?: boolean;
    resources: IResourceConfig[];
  }): Promise<AlterConfigResponse> {
    const { resources, validateOnly = false } = options ?? {};
    v.validateAlterConfigs(resources);
    // kafkajs sends the legacy AlterConfigs, which replaces every dynamic config of a resource
    // (the ones not listed revert to their defaults). kafkats sends IncrementalAlterConfigs: each
    // listed config is SET and the others are left as they are.
    const changes = resources.map((r) => ({
      type: configType(r),
      name: r.name,
      ops: r.configEntries.map((e) => ({ name: e.name, op: 'SET' as const, value: e.value })),
    }));
    return this.#run(async (admin) => {
      const result = await admin.incrementalAlterConfigs(changes, { validateOnly });
      throwFirst(result.resources);
      return {
        resources: result.resources.map((r) => ({
          errorCode: 0,
          errorMessage: null,
          resourceType: t.configResourceTypeId(r.type),
          resourceName: r.name,
        })),
        throttleTime: 0,
      };
    });
  }

  async listGroups(): Promise<{ groups: { groupId: string; protocolType: string }[] }> {
    return this.#run(async (admin) => {
      const result = await admin.listGroups();
      // kafkajs asks broker after broker and rejects with the first one's failure.
      const failed = result.errors[0];
      if (failed !== undefined) throw failed.error;
      return {
        groups: result.groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType })),
      };
    });
  }

  async describeGroups(groupIds: string[]): Promise<GroupDescriptions> {
    v.validateGroupIds(groupIds);
    return this.#run(async (admin) => {
      const { groups } = await admin.describeGroups(groupIds);
      return {
        groups: groups.map((g): GroupDescription => {
          if (g.error !== undefined) {
            // A group Kafka 4's coordinator does not know answers GROUP_ID_NOT_FOUND where older
            // brokers (and so kafkajs's tests) answered it Dead with no members.
            if (!isGroupMissing(g.error)) throw g.error;
            return emptyGroup(g.groupId);
          }
          return {
            errorCode: 0,
            groupId: g.groupId,
            members: g.members.map((m) => ({
              memberId: m.memberId,
              clientId: m.clientId,
              clientHost: m.clientHost,
              memberMetadata: m.metadata,
              memberAssignment: m.assignment,
            })),
            protocol: g.protocol,
            protocolType: g.protocolType,
            state: g.state as GroupDescription['state'],
          };
        }),
      };
    });
  }

  async deleteGroups(groupIds: string[]): Promise<DeleteGroupsResult[]> {
    v.validateGroupIds(groupIds);
    if (groupIds.length === 0) return [];
    return this.#run(async (admin) => {
      const { groups } = await admin.deleteGroups(groupIds);
      const failed = groups.filter((g) => g.error !== undefined);
      if (failed.length > 0) {
        throw new KafkaJSDeleteGroupsError(
          'Error in DeleteGroups',
          failed.map((g) => ({
            groupId: g.groupId,
            errorCode: t.errorCodeOf(g.error),
            error: kjsError(g.error),
          })),
        );
      }
      return groups.map((g) => ({ groupId: g.groupId, errorCode: 0 }));
    });
  }

  async describeAcls(filter: AclFilter): Promise<DescribeAclResponse> {
    v.validateDescribeAcls(filter);
    return this.#run(async (admin) => {
      const { bindings } = await admin.describeAcls(t.toAclFilter(filter));
      return {
        throttleTime: 0,
        errorCode: 0,
        errorMessage: null,
        resources: t.groupAclsByResource(bindings),
      };
    });
  }

  async createAcls(options: { acl: AclEntry[] }): Promise<boolean> {
    const acl = options?.acl;
    v.validateCreateAcls(acl);
    return this.#run(async (admin) => {
      throwFirst((await admin.createAcls(acl.map(t.toAclBinding))).results);
      return true;
    });
  }

  async deleteAcls(options: { filters: AclFilter[] }): Promise<DeleteAclResponse> {
    const filters = options?.filters;
    v.validateDeleteAcls(filters);
    return this.#run(async (admin) => {
      const { results } = await admin.deleteAcls(filters.map(t.toAclFilter));
      throwFirst(results);
      for (const r of results) throwFirst(r.deleted);
      return {
        throttleTime: 0,
        filterResponses: results.map((r) => ({
          errorCode: 0,
          errorMessage: null,
          matchingAcls: r.deleted.map((d) => t.toMatchingAcl(d.binding)),
        })),
      };
    });
  }

  async deleteTopicRecords(options: {
    topic: string;
    partitions: Array<{ partition: number; offset: string | number }>;
  }): Promise<void> {
    const { topic, partitions } = options ?? {};
    v.validateDeleteTopicRecords(topic, partitions);
    await this.#run(async (admin) => {
      const { topics } = await admin.describeTopics([topic]);
      throwFirst(topics);
      const led = new Set(
        (topics[0]?.partitions ?? []).filter((p) => p.leader !== undefined).map((p) => p.partition),
      );
      const leaderless = partitions.filter((p) => !led.has(p.partition));
      if (leaderless.length > 0) {
        throw new KafkaJSDeleteTopicRecordsError({
          partitions: leaderless.map((p) => ({
            partition: p.partition,
            offset: String(p.offset),
            error: new KafkaJSBrokerNotFound('Could not find the leader for the partition', {
              retriable: false,
            }),
          })),
        });
      }
      const low = await this.#offsets(
        admin,
        topic,
        partitions.map((p) => p.partition),
        'earliest',
      );
      for (const p of partitions) {
        const offset = t.toOffset(p.offset);
        if (offset !== -1n && offset < (low.get(p.partition) ?? 0n)) {
          this.#logger.warn(
            'The requested offset is before the earliest offset maintained on the partition - no records will be deleted from this partition',
            { topic, partition: p.partition, offset: String(p.offset) },
          );
        }
      }
      const result = await admin.deleteRecords(
        partitions.map((p) => ({
          topic,
          partition: p.partition,
          beforeOffset: t.toOffset(p.offset),
        })),
      );
      const failed = result.partitions.filter((p) => p.error !== undefined);
      if (failed.length > 0) {
        const asked = new Map(partitions.map((p) => [p.partition, String(p.offset)]));
        throw new KafkaJSDeleteTopicRecordsError({
          partitions: failed.map((p) => ({
            partition: p.partition,
            offset: asked.get(p.partition) ?? '',
            error: kjsError(p.error),
          })),
        });
      }
    });
  }

  async alterPartitionReassignments(request: {
    topics: PartitionReassignment[];
    timeout?: number;
  }): Promise<void> {
    const { topics, timeout } = request ?? {};
    v.validateAlterReassignments(topics);
    const items = topics.flatMap((x) =>
      x.partitionAssignment.map((a) => ({
        topic: x.topic,
        partition: a.partition,
        replicas: a.replicas,
      })),
    );
    await this.#run(async (admin) => {
      let result: Awaited<ReturnType<KatsAdmin['alterPartitionReassignments']>>;
      try {
        result = await admin.alterPartitionReassignments(items, timeoutOption(timeout));
      } catch (e) {
        if (e instanceof ProtocolError) {
          throw withCause(new KafkaJSAlterPartitionReassignmentsError(e), e);
        }
        throw e;
      }
      const failed = result.partitions.filter((p) => p.error !== undefined);
      if (failed.length > 0) {
        throw new KafkaJSAggregateError(
          'Errors altering partition reassignments',
          failed.map((p) =>
            withCause(
              new KafkaJSAlterPartitionReassignmentsError(
                p.error as KafkaError,
                p.topic,
                p.partition,
              ),
              p.error,
            ),
          ),
        );
      }
    });
  }

  async listPartitionReassignments(
    request: { topics?: TopicPartitions[]; timeout?: number } = {},
  ): Promise<ListPartitionReassignmentsResponse> {
    const { topics, timeout } = request ?? {};
    v.validateListReassignments(topics);
    const asked =
      topics === undefined || topics === null
        ? undefined
        : topics.flatMap((x) => x.partitions.map((partition) => ({ topic: x.topic, partition })));
    return this.#run(async (admin) => {
      const { reassignments } = await admin.listPartitionReassignments(
        asked,
        timeoutOption(timeout),
      );
      const byTopic = new Map<string, ListPartitionReassignmentsResponse['topics'][number]>();
      for (const r of reassignments) {
        let entry = byTopic.get(r.topic);
        if (entry === undefined) {
          entry = { topic: r.topic, name: r.topic, partitions: [] };
          byTopic.set(r.topic, entry);
        }
        entry.partitions.push({
          partition: r.partition,
          partitionIndex: r.partition,
          replicas: [...r.replicas],
          addingReplicas: [...r.addingReplicas],
          removingReplicas: [...r.removingReplicas],
        });
      }
      return { topics: [...byTopic.values()] };
    });
  }

  logger(): Logger {
    return this.#logger;
  }

  on(
    eventName: AdminEvents[keyof AdminEvents],
    // biome-ignore lint/suspicious/noExplicitAny: kafkajs's listener takes any event payload
    listener: (event: InstrumentationEvent<any>) => void,
  ): RemoveInstrumentationEventListener<typeof eventName> {
    return this.#emitter.on(eventName, listener);
  }
}

function isGroupMissing(e: KafkaError): boolean {
  return e instanceof ProtocolError && e.errorName === 'GROUP_ID_NOT_FOUND';
}

function emptyGroup(groupId: string): GroupDescription {
  return { errorCode: 0, groupId, members: [], protocol: '', protocolType: '', state: 'Dead' };
}

/** Kafka's name of a resource's type; UNKNOWN (0) passes kafkajs's check but names no type. */
function configType(r: { type: number; name: string }) {
  const type = t.configResourceTypeName(r.type);
  if (type === undefined) {
    throw new KafkaJSNonRetriableError(`Invalid resource type ${r.type}: ${JSON.stringify(r)}`);
  }
  return type;
}
