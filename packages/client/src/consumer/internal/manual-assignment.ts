import type { TopicPartition } from '../../topic-partition.js';
import type { GroupMembership, MemberIdentity, MembershipListener } from './contracts.js';

const keyOf = (p: TopicPartition) => `${p.topic}\u0000${p.partition}`;

const NOT_A_MEMBER: MemberIdentity = Object.freeze({
  memberId: '',
  generationId: -1,
  groupInstanceId: null,
});

/**
 * Manual assignment (Java's `KafkaConsumer.assign`): the application names the partitions, no
 * group membership is involved. It stands where a membership would so that the consumer treats
 * both alike: a new assignment revokes what it drops (the consumer commits them with auto-commit)
 * and assigns what it adds. Commits go to the group, if any, as a member outside the group
 * (generation -1, empty member id), which the coordinator accepts while the group has no
 * members of its own.
 */
export class ManualAssignment implements GroupMembership {
  readonly protocol = 'none';
  readonly identity = NOT_A_MEMBER;
  readonly #listener: MembershipListener;
  #owned: TopicPartition[] = [];
  #wanted: TopicPartition[];
  #started = false;
  #left = false;
  // Changes apply one at a time, in call order.
  #chain: Promise<void> = Promise.resolve();

  constructor(listener: MembershipListener, partitions: readonly TopicPartition[]) {
    this.#listener = listener;
    this.#wanted = [...partitions];
  }

  get assignment(): readonly TopicPartition[] {
    return this.#owned;
  }

  start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      this.#apply();
    }
    return this.#chain;
  }

  /** Replaces the assignment; resolves once the consumer revoked and assigned. */
  assign(partitions: readonly TopicPartition[]): Promise<void> {
    this.#wanted = [...partitions];
    if (!this.#started) return Promise.resolve();
    return this.#apply();
  }

  subscribe(): void {
    // The consumer refuses subscriptions while partitions are assigned manually.
  }

  leave(): Promise<void> {
    if (!this.#left) {
      this.#left = true;
      this.#wanted = [];
      if (this.#started) this.#apply();
    }
    return this.#chain;
  }

  abandon(): void {
    this.#left = true;
  }

  #apply(): Promise<void> {
    const run = this.#chain.then(async () => {
      const wanted = new Map(this.#wanted.map((p) => [keyOf(p), p]));
      const owned = new Map(this.#owned.map((p) => [keyOf(p), p]));
      const revoked = [...owned].filter(([k]) => !wanted.has(k)).map(([, p]) => p);
      const added = [...wanted].filter(([k]) => !owned.has(k)).map(([, p]) => p);
      if (revoked.length > 0) {
        await this.#listener.onRevoked(revoked);
        this.#owned = this.#owned.filter((p) => wanted.has(keyOf(p)));
      }
      if (added.length > 0) {
        this.#owned = [...this.#owned, ...added];
        await this.#listener.onAssigned(added);
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }
}
