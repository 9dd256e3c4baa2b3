import { Cluster } from '@kafkats/meta';
import type {
  MembershipConfig,
  MembershipListener,
} from '../../src/consumer/internal/contracts.js';
import { ClassicMembership } from '../../src/consumer/internal/membership-classic.js';
import type { TopicPartition } from '../../src/topic-partition.js';

/** One listener call, as a recording listener saw it. */
export interface ListenerEvent {
  readonly kind: 'assigned' | 'revoked' | 'lost';
  readonly partitions: readonly string[];
}

/** A listener that records every call and keeps what the member owns by its callbacks. */
export class RecordingListener implements MembershipListener {
  readonly events: ListenerEvent[] = [];
  readonly owned = new Set<string>();
  fatal: Error | undefined;

  async onAssigned(partitions: readonly TopicPartition[]): Promise<void> {
    this.#record('assigned', partitions);
    for (const p of partitions) this.owned.add(label(p));
  }
  async onRevoked(partitions: readonly TopicPartition[]): Promise<void> {
    this.#record('revoked', partitions);
    for (const p of partitions) this.owned.delete(label(p));
  }
  async onLost(partitions: readonly TopicPartition[]): Promise<void> {
    this.#record('lost', partitions);
    for (const p of partitions) this.owned.delete(label(p));
  }
  onFatal(error: Error): void {
    this.fatal = error;
  }
  #record(kind: ListenerEvent['kind'], partitions: readonly TopicPartition[]): void {
    this.events.push({ kind, partitions: partitions.map(label).sort() });
  }
}

/** `topic-partition`, Kafka's `TopicPartition.toString`. */
export function label(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

export interface TestMember {
  readonly membership: ClassicMembership;
  readonly listener: RecordingListener;
}

/** A classic membership with test-friendly timings (heartbeats every 500 ms). */
export function classicMember(
  cluster: Cluster,
  groupId: string,
  topics: readonly string[],
  overrides: Partial<MembershipConfig> = {},
): TestMember {
  const listener = new RecordingListener();
  const membership = new ClassicMembership({
    cluster,
    groupId,
    groupInstanceId: null,
    rackId: null,
    topics,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    heartbeatIntervalMs: 500,
    serverAssignor: null,
    assignors: ['range'],
    retryBackoffMs: 100,
    retryBackoffMaxMs: 1000,
    listener,
    random: Math.random,
    ...overrides,
  });
  return { membership, listener };
}

/** Owned partitions as labels, from the membership itself. */
export function ownedLabels(member: TestMember): string[] {
  return member.membership.assignment.map(label).sort();
}

/** True when the members' assignments are disjoint and together exactly `expected`. */
export function splitsExactly(
  members: readonly TestMember[],
  expected: readonly string[],
): boolean {
  const all = members.flatMap(ownedLabels);
  return (
    all.length === expected.length &&
    new Set(all).size === all.length &&
    expected.every((e) => all.includes(e))
  );
}

export async function connect(bootstrap: string): Promise<Cluster> {
  return Cluster.connect(bootstrap);
}
