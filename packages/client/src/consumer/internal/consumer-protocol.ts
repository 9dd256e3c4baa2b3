import {
  createConsumerProtocolAssignment,
  createConsumerProtocolSubscription,
  decodeConsumerProtocolAssignment,
  decodeConsumerProtocolSubscription,
  encodeConsumerProtocolAssignment,
  encodeConsumerProtocolSubscription,
  KafkaError,
  Reader,
  Writer,
} from '@kafkats/codec';
import type { TopicPartition } from '../../topic-partition.js';
import type { MemberSubscription } from './assignors/assignor.js';
import { compareStrings, compareTopicPartition } from './assignors/assignor.js';

/** JoinGroup's `protocolType` for consumer groups (Kafka's `ConsumerProtocol.PROTOCOL_TYPE`). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * The version Kafka's `ConsumerProtocol.serializeSubscription` and `serializeAssignment` write
 * for every assignor: the highest of ConsumerProtocolSubscription / ConsumerProtocolAssignment
 * (3: owned partitions, generation id and rack id all in the subscription).
 */
export const CONSUMER_PROTOCOL_VERSION = 3;

/**
 * A subscription or assignment blob that cannot be read: shorter than its version prefix, a
 * negative version, or bytes that end inside a field. Not retriable.
 */
export class ConsumerProtocolError extends KafkaError {
  constructor(what: string, cause: unknown) {
    super('ERR_KAFKA_CONSUMER_PROTOCOL_INVALID', `cannot read the consumer protocol ${what}`, {
      retriable: false,
      cause,
    });
  }
}

/** Groups partitions by topic, topics and partitions sorted as Kafka's serializer does. */
function byTopic(partitions: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const sorted = [...partitions].sort(compareTopicPartition);
  const out: { topic: string; partitions: number[] }[] = [];
  for (const tp of sorted) {
    const last = out.at(-1);
    if (last !== undefined && last.topic === tp.topic) last.partitions.push(tp.partition);
    else out.push({ topic: tp.topic, partitions: [tp.partition] });
  }
  return out;
}

/** What a member says in JoinGroup, for one assignor. */
export interface SubscriptionInput {
  readonly topics: readonly string[];
  readonly userData: Buffer | null;
  readonly ownedPartitions: readonly TopicPartition[];
  readonly generationId: number;
  readonly rackId: string | null;
}

/**
 * Version-prefixed ConsumerProtocolSubscription (an int16 version, then the struct at that
 * version), topics sorted, owned partitions grouped by topic: the bytes of Kafka's
 * `ConsumerProtocol.serializeSubscription`. Returns a fresh buffer.
 */
export function encodeSubscription(
  input: SubscriptionInput,
  version: number = CONSUMER_PROTOCOL_VERSION,
): Buffer {
  const w = new Writer(128);
  w.writeInt16(version);
  encodeConsumerProtocolSubscription(
    w,
    createConsumerProtocolSubscription({
      topics: [...input.topics].sort(compareStrings),
      userData: input.userData,
      ownedPartitions: byTopic(input.ownedPartitions),
      generationId: input.generationId,
      rackId: input.rackId,
    }),
    version,
  );
  return Buffer.from(w.finish());
}

function readVersion(r: Reader, what: string): number {
  const version = r.readInt16();
  if (version < 0) throw new Error(`${what} version ${version}`);
  // A newer member's version is read as the newest we know: later versions only append fields.
  return Math.min(version, CONSUMER_PROTOCOL_VERSION);
}

/**
 * Reads a member's subscription from JoinGroup. An empty rack id reads as null, as Kafka does.
 * @throws ConsumerProtocolError for bytes that are not a subscription
 */
export function decodeSubscription(
  memberId: string,
  groupInstanceId: string | null,
  bytes: Buffer,
): MemberSubscription {
  try {
    const r = new Reader(bytes);
    const version = readVersion(r, 'subscription');
    const m = decodeConsumerProtocolSubscription(r, version);
    const owned: TopicPartition[] = [];
    for (const t of m.ownedPartitions)
      for (const partition of t.partitions) owned.push({ topic: t.topic, partition });
    return {
      memberId,
      groupInstanceId,
      topics: m.topics,
      ownedPartitions: owned,
      generationId: m.generationId,
      rackId: m.rackId === null || m.rackId === '' ? null : m.rackId,
      userData: m.userData === null ? null : Buffer.from(m.userData),
    };
  } catch (error) {
    throw new ConsumerProtocolError(`subscription of member ${memberId}`, error);
  }
}

/**
 * Version-prefixed ConsumerProtocolAssignment; partitions grouped by topic in the order
 * their topics first appear, as Kafka's `serializeAssignment` does. Returns a fresh buffer.
 */
export function encodeAssignment(
  partitions: readonly TopicPartition[],
  version: number = CONSUMER_PROTOCOL_VERSION,
): Buffer {
  const topics = new Map<string, number[]>();
  for (const tp of partitions) {
    let list = topics.get(tp.topic);
    if (list === undefined) topics.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  const w = new Writer(64);
  w.writeInt16(version);
  encodeConsumerProtocolAssignment(
    w,
    createConsumerProtocolAssignment({
      assignedPartitions: [...topics].map(([topic, ps]) => ({ topic, partitions: ps })),
    }),
    version,
  );
  return Buffer.from(w.finish());
}

/**
 * Reads this member's assignment from SyncGroup.
 * @throws ConsumerProtocolError for bytes that are not an assignment (fewer than 2 bytes too:
 *   Kafka's `onJoinComplete` refuses those)
 */
export function decodeAssignment(bytes: Buffer): TopicPartition[] {
  try {
    const r = new Reader(bytes);
    const version = readVersion(r, 'assignment');
    const m = decodeConsumerProtocolAssignment(r, version);
    const out: TopicPartition[] = [];
    for (const t of m.assignedPartitions)
      for (const partition of t.partitions) out.push({ topic: t.topic, partition });
    return out;
  } catch (error) {
    throw new ConsumerProtocolError('assignment', error);
  }
}
