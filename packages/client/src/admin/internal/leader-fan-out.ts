import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import { type ClusterSendOptions, classify, type MetadataSnapshot } from '@kafkats/meta';
import { type AdminCall, asItemError } from './admin-call.js';

/** A topic-partition, the key of every leader-routed admin API. */
export interface PartitionKey {
  readonly topic: string;
  readonly partition: number;
}

/** What one broker answered for one partition. */
export type PartitionOutcome<R> = { readonly value: R } | { readonly error: ProtocolError };

/** A partition's final result: a value, or the error it ended with. */
export interface FanOutResult<R> {
  readonly value?: R;
  readonly error?: KafkaError;
}

/** How one leader-routed API is sent. */
export interface LeaderFanOutSpec<K extends PartitionKey, R> {
  /**
   * Sends `keys` to broker `nodeId` as one request, a single attempt (`options` carries
   * `maxAttempts: 1` and the call's time left), and resolves with an outcome per partition
   * the broker answered, keyed by {@link partitionKey}.
   */
  send(
    nodeId: number,
    keys: readonly K[],
    options: ClusterSendOptions,
  ): Promise<ReadonlyMap<string, PartitionOutcome<R>>>;
  /**
   * Send every partition to this broker instead of its leader (DescribeProducers' `brokerId`);
   * an answer that asks for a new leader is then final, there being no other broker to ask.
   */
  readonly fixedNode?: number;
}

/** The map key of a partition. */
export function partitionKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

// Topic-level Metadata errors that mean "ask again" (a topic being created or a broker going
// away), as Kafka's PartitionLeaderStrategy retries them; every other one is the partition's answer.
const LOOKUP_AGAIN: ReadonlySet<number> = new Set([
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.BROKER_NOT_AVAILABLE,
]);

type Located =
  | { readonly node: number }
  | { readonly again: KafkaError }
  | { readonly fail: KafkaError };

/**
 * Where a partition goes, by `snapshot`. `fresh` says the topic was fetched during this call:
 * only then is a missing topic or partition an answer rather than a reason to look it up.
 */
function locate(snapshot: MetadataSnapshot, key: PartitionKey, fresh: boolean): Located {
  const where = `${key.topic}-${key.partition}`;
  const topic = snapshot.topic(key.topic);
  const unknown = () => ProtocolError.fromCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, where);
  if (topic === undefined) return fresh ? { fail: unknown() } : { again: unknown() };
  if (topic.errorCode !== 0) {
    const error = ProtocolError.fromCode(topic.errorCode, `Metadata for ${where}`);
    return fresh && !LOOKUP_AGAIN.has(topic.errorCode) ? { fail: error } : { again: error };
  }
  const partition = snapshot.partition(key.topic, key.partition);
  if (partition === undefined) return fresh ? { fail: unknown() } : { again: unknown() };
  if (partition.leader === undefined) {
    const code = partition.errorCode || ErrorCode.LEADER_NOT_AVAILABLE;
    return { again: ProtocolError.fromCode(code, `Metadata for ${where}`) };
  }
  return { node: partition.leader };
}

/**
 * Sends a leader-routed admin API the way Kafka's admin driver does (PartitionLeaderStrategy
 * with a fulfillment stage per broker): partitions are grouped by their leader, one request per
 * leader, all in parallel; then only the partitions that need it go round again:
 *
 * - an answer that needs a metadata refresh (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE,
 *   FENCED_LEADER_EPOCH, ...) or a lost connection: the partition's topic is refetched and
 *   the partition regrouped under its new leader;
 * - another retriable answer (REQUEST_TIMED_OUT, OFFSET_NOT_AVAILABLE): sent again as it is;
 * - anything else is that partition's result; the others are not sent again.
 *
 * Rounds are spaced by the cluster's retry backoff and end at the call's deadline; a partition
 * still unanswered then ends with `OperationTimeoutError` (cause: its last error). Leaders
 * come from the cluster's snapshot when it knows them; unknown or leaderless topics are
 * refreshed first. Results are keyed by {@link partitionKey}, one per distinct partition.
 *
 * @throws AbortedError when the call's signal fires
 */
export async function fanOutToLeaders<K extends PartitionKey, R>(
  call: AdminCall,
  keys: readonly K[],
  spec: LeaderFanOutSpec<K, R>,
): Promise<Map<string, FanOutResult<R>>> {
  const results = new Map<string, FanOutResult<R>>();
  const lastError = new Map<string, KafkaError>();
  const distinct = new Map<string, K>();
  for (const key of keys) distinct.set(partitionKey(key.topic, key.partition), key);
  let pending = [...distinct.values()];
  let stale = new Set<string>();
  const fixed = spec.fixedNode;

  for (let round = 1; pending.length > 0; round++) {
    if (round > 1 && !(await call.backoff(round))) {
      for (const key of pending) {
        const id = partitionKey(key.topic, key.partition);
        results.set(id, { error: call.timedOut(lastError.get(id)) });
      }
      break;
    }
    call.throwIfAborted();
    const next: K[] = [];
    const byNode = new Map<number, K[]>();
    const retry = (key: K, error: KafkaError, refresh: boolean) => {
      next.push(key);
      lastError.set(partitionKey(key.topic, key.partition), error);
      if (refresh) stale.add(key.topic);
    };
    // A failed partition: round again (regrouped after a refresh when it asks for one), or done.
    const settle = (key: K, error: KafkaError) => {
      if (error instanceof ProtocolError) {
        if (error.needsMetadataRefresh && fixed === undefined) retry(key, error, true);
        else if (error.retriable && !error.needsMetadataRefresh) retry(key, error, false);
        else results.set(partitionKey(key.topic, key.partition), { error });
      } else if (classify(error, 'leader').retry) {
        retry(key, error, fixed === undefined);
      } else {
        results.set(partitionKey(key.topic, key.partition), { error });
      }
    };
    const assign = (node: number, key: K) => {
      const group = byNode.get(node);
      if (group === undefined) byNode.set(node, [key]);
      else group.push(key);
    };

    if (fixed !== undefined) {
      for (const key of pending) assign(fixed, key);
    } else {
      const cached = call.cluster.snapshot();
      for (const key of pending) if (!('node' in locate(cached, key, false))) stale.add(key.topic);
      const fresh = new Set<string>();
      let lookupError: KafkaError | undefined;
      if (stale.size > 0) {
        const topics = [...stale];
        try {
          await call.cluster.refreshTopics(topics);
          for (const t of topics) fresh.add(t);
        } catch (error) {
          lookupError = asItemError(error);
        }
      }
      const snapshot = call.cluster.snapshot();
      const looked = stale;
      stale = new Set();
      for (const key of pending) {
        const id = partitionKey(key.topic, key.partition);
        if (lookupError !== undefined && looked.has(key.topic)) {
          if (classify(lookupError, 'leader').retry) retry(key, lookupError, true);
          else results.set(id, { error: lookupError });
          continue;
        }
        const where = locate(snapshot, key, fresh.has(key.topic));
        if ('node' in where) assign(where.node, key);
        else if ('fail' in where) results.set(id, { error: where.fail });
        else retry(key, where.again, true);
      }
    }

    await Promise.all(
      [...byNode].map(async ([node, group]) => {
        let answers: ReadonlyMap<string, PartitionOutcome<R>>;
        try {
          answers = await spec.send(node, group, call.sendOptions({ maxAttempts: 1 }));
        } catch (thrown) {
          const error = asItemError(thrown);
          for (const key of group) settle(key, error);
          return;
        }
        for (const key of group) {
          const answer = answers.get(partitionKey(key.topic, key.partition));
          if (answer === undefined) {
            results.set(partitionKey(key.topic, key.partition), {
              error: new KafkaError(
                'ERR_KAFKA_ADMIN_RESPONSE_INCOMPLETE',
                `${call.what}: broker ${node} answered without ${key.topic}-${key.partition}`,
              ),
            });
          } else if ('value' in answer) {
            results.set(partitionKey(key.topic, key.partition), { value: answer.value });
          } else {
            settle(key, answer.error);
          }
        }
      }),
    );
    pending = next;
  }
  return results;
}
