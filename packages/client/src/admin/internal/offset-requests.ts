import {
  createDeleteRecordsRequest,
  createDescribeProducersRequest,
  createListOffsetsRequest,
  DeleteRecordsApi,
  DescribeProducersApi,
  ListOffsetsApi,
  type ListOffsetsRequest,
  ProtocolError,
} from '@kafkats/codec';
import { UnsupportedVersionError } from '@kafkats/wire';
import type { TopicPartition } from '../../topic-partition.js';
import type {
  DeletedRecords,
  DeleteRecordsRequestItem,
  DeleteRecordsResult,
  DescribeProducersOptions,
  DescribeProducersResult,
  ListedOffset,
  ListOffsetsOptions,
  ListOffsetsRequestItem,
  ListOffsetsResult,
  OffsetSpec,
  PartitionProducers,
  ProducerState,
} from '../offsets.js';
import { type AdminCall, throwIfNothingAnswered } from './admin-call.js';
import {
  type FanOutResult,
  fanOutToLeaders,
  type LeaderFanOutSpec,
  type PartitionKey,
  type PartitionOutcome,
  partitionKey,
} from './leader-fan-out.js';

// ListOffsetsRequest's special timestamps and the first version that knows each one.
const SPECIAL: Readonly<Record<Exclude<OffsetSpec, object>, { ts: bigint; since: number }>> = {
  latest: { ts: -1n, since: 0 },
  earliest: { ts: -2n, since: 0 },
  maxTimestamp: { ts: -3n, since: 7 }, // KIP-734
  earliestLocal: { ts: -4n, since: 8 }, // KIP-405
  latestTiered: { ts: -5n, since: 9 }, // KIP-1005
};

/** The ListOffsets `timestamp` field for a spec. */
export function specTimestamp(spec: OffsetSpec): bigint {
  return typeof spec === 'object' ? spec.timestamp : SPECIAL[spec].ts;
}

/** Groups keys by topic, in first-seen order. */
export function byTopic<K extends PartitionKey>(keys: readonly K[]): Map<string, K[]> {
  const topics = new Map<string, K[]>();
  for (const key of keys) {
    const list = topics.get(key.topic);
    if (list === undefined) topics.set(key.topic, [key]);
    else list.push(key);
  }
  return topics;
}

/**
 * The ListOffsets request for one leader at `version`, as a consumer asks (replica id -1).
 *
 * @throws UnsupportedVersionError when a spec needs a newer version than the broker offers
 *   (maxTimestamp below v7, ...), before anything is sent
 */
export function buildListOffsetsRequest(
  keys: readonly ListOffsetsRequestItem[],
  version: number,
  readCommitted: boolean,
  timeoutMs: number,
): ListOffsetsRequest {
  for (const key of keys) {
    if (typeof key.spec === 'object') continue;
    const since = SPECIAL[key.spec].since;
    if (version < since)
      throw new UnsupportedVersionError(
        `ListOffsets v${version} cannot ask for ${key.spec} of ${key.topic}-${key.partition} (needs v${since}+)`,
      );
  }
  return createListOffsetsRequest({
    replicaId: -1,
    ...(version >= 2 ? { isolationLevel: readCommitted ? 1 : 0 } : {}),
    topics: [...byTopic(keys)].map(([name, list]) => ({
      name,
      partitions: list.map((k) => ({
        partitionIndex: k.partition,
        currentLeaderEpoch: -1,
        timestamp: specTimestamp(k.spec),
      })),
    })),
    timeoutMs,
  });
}

/** Per-partition outcomes of a response shaped `topics[].partitions[]`. */
function outcomes<P extends { partitionIndex: number; errorCode: number }, R>(
  topics: readonly { name: string; partitions: readonly P[] }[],
  context: string,
  value: (p: P) => R,
): Map<string, PartitionOutcome<R>> {
  const out = new Map<string, PartitionOutcome<R>>();
  for (const t of topics) {
    for (const p of t.partitions) {
      const where = `${context}, ${t.name}-${p.partitionIndex}`;
      out.set(
        partitionKey(t.name, p.partitionIndex),
        p.errorCode === 0
          ? { value: value(p) }
          : { error: ProtocolError.fromCode(p.errorCode, where) },
      );
    }
  }
  return out;
}

/**
 * {@link fanOutToLeaders} for items that may name a partition more than once: identical items
 * (same `identity`) are sent once, and different asks of one partition (its earliest and its
 * latest offset) go in separate rounds run side by side, since one request carries a
 * partition once. Results are keyed by `identity`.
 */
async function fanOutDistinct<K extends PartitionKey, R>(
  call: AdminCall,
  items: readonly K[],
  identity: (item: K) => string,
  spec: LeaderFanOutSpec<K, R>,
): Promise<Map<string, FanOutResult<R>>> {
  const layers: K[][] = [];
  const seen = new Set<string>();
  const depth = new Map<string, number>();
  for (const item of items) {
    const id = identity(item);
    if (seen.has(id)) continue;
    seen.add(id);
    const key = partitionKey(item.topic, item.partition);
    const d = depth.get(key) ?? 0;
    depth.set(key, d + 1);
    (layers[d] ??= []).push(item);
  }
  const answered = await Promise.all(layers.map((layer) => fanOutToLeaders(call, layer, spec)));
  const out = new Map<string, FanOutResult<R>>();
  layers.forEach((layer, i) => {
    for (const item of layer) {
      const r = answered[i]!.get(partitionKey(item.topic, item.partition));
      if (r !== undefined) out.set(identity(item), r);
    }
  });
  return out;
}

/** The results in input order; throws when no item got any answer (see `throwIfNothingAnswered`). */
function inOrder<K extends TopicPartition, R, O>(
  items: readonly K[],
  results: ReadonlyMap<string, FanOutResult<R>>,
  identity: (item: K) => string,
  make: (item: K, r: FanOutResult<R>) => O,
): O[] {
  const found = items.map((item) => results.get(identity(item)) ?? {});
  throwIfNothingAnswered(found.map((r) => r.error));
  return items.map((item, i) => make(item, found[i]!));
}

const tp = (k: TopicPartition) => ({ topic: k.topic, partition: k.partition });

/** ListOffsets, one request per leader; see {@link fanOutToLeaders} for the retries. */
export async function listOffsets(
  call: AdminCall,
  items: readonly ListOffsetsRequestItem[],
  options: ListOffsetsOptions,
): Promise<ListOffsetsResult> {
  const readCommitted = options.isolationLevel === 'read_committed';
  type Found = { offset: bigint; timestamp: bigint; leaderEpoch: number };
  const identity = (k: ListOffsetsRequestItem) =>
    `${partitionKey(k.topic, k.partition)}@${specTimestamp(k.spec)}`;
  const results = await fanOutDistinct<ListOffsetsRequestItem, Found>(call, items, identity, {
    async send(node, keys, sendOptions) {
      let version = 0;
      const response = await call.cluster.sendToNode(
        node,
        ListOffsetsApi,
        (v) => {
          version = v;
          return buildListOffsetsRequest(keys, v, readCommitted, call.serverTimeoutMs());
        },
        sendOptions,
      );
      return outcomes(response.topics, `ListOffsets v${version} to broker ${node}`, (p) => ({
        offset: p.offset,
        timestamp: p.timestamp,
        leaderEpoch: p.leaderEpoch,
      }));
    },
  });
  const partitions = inOrder(items, results, identity, (key, r): ListedOffset => {
    if (r.value === undefined) return { ...tp(key), ...(r.error ? { error: r.error } : {}) };
    return {
      ...tp(key),
      offset: r.value.offset,
      timestamp: r.value.timestamp,
      ...(r.value.leaderEpoch < 0 ? {} : { leaderEpoch: r.value.leaderEpoch }),
    };
  });
  return { partitions };
}

/** DeleteRecords, one request per leader; see {@link fanOutToLeaders} for the retries. */
export async function deleteRecords(
  call: AdminCall,
  items: readonly DeleteRecordsRequestItem[],
): Promise<DeleteRecordsResult> {
  const identity = (k: DeleteRecordsRequestItem) =>
    `${partitionKey(k.topic, k.partition)}@${k.beforeOffset}`;
  const results = await fanOutDistinct<DeleteRecordsRequestItem, bigint>(call, items, identity, {
    async send(node, keys, sendOptions) {
      let version = 0;
      const response = await call.cluster.sendToNode(
        node,
        DeleteRecordsApi,
        (v) => {
          version = v;
          return createDeleteRecordsRequest({
            topics: [...byTopic(keys)].map(([name, list]) => ({
              name,
              partitions: list.map((k) => ({
                partitionIndex: k.partition,
                offset: k.beforeOffset,
              })),
            })),
            timeoutMs: call.serverTimeoutMs(),
          });
        },
        sendOptions,
      );
      return outcomes(
        response.topics,
        `DeleteRecords v${version} to broker ${node}`,
        (p) => p.lowWatermark,
      );
    },
  });
  const partitions = inOrder(
    items,
    results,
    identity,
    (key, r): DeletedRecords =>
      r.value === undefined
        ? { ...tp(key), ...(r.error ? { error: r.error } : {}) }
        : { ...tp(key), lowWatermark: r.value },
  );
  return { partitions };
}

/** DescribeProducers, one request per leader (or to `brokerId`); see {@link fanOutToLeaders}. */
export async function describeProducers(
  call: AdminCall,
  items: readonly TopicPartition[],
  options: DescribeProducersOptions,
): Promise<DescribeProducersResult> {
  const identity = (k: TopicPartition) => partitionKey(k.topic, k.partition);
  const results = await fanOutDistinct<TopicPartition, ProducerState[]>(call, items, identity, {
    ...(options.brokerId === undefined ? {} : { fixedNode: options.brokerId }),
    async send(node, keys, sendOptions) {
      const response = await call.cluster.sendToNode(
        node,
        DescribeProducersApi,
        createDescribeProducersRequest({
          topics: [...byTopic(keys)].map(([name, list]) => ({
            name,
            partitionIndexes: list.map((k) => k.partition),
          })),
        }),
        sendOptions,
      );
      return outcomes(response.topics, `DescribeProducers to broker ${node}`, (p) =>
        p.activeProducers.map(
          (s): ProducerState => ({
            producerId: s.producerId,
            producerEpoch: s.producerEpoch,
            lastSequence: s.lastSequence,
            lastTimestamp: s.lastTimestamp,
            coordinatorEpoch: s.coordinatorEpoch,
            ...(s.currentTxnStartOffset < 0n
              ? {}
              : { currentTxnStartOffset: s.currentTxnStartOffset }),
          }),
        ),
      );
    },
  });
  const partitions = inOrder(
    items,
    results,
    identity,
    (key, r): PartitionProducers => ({
      ...tp(key),
      activeProducers: r.value ?? [],
      ...(r.error ? { error: r.error } : {}),
    }),
  );
  return { partitions };
}
