// A scripted group coordinator behind the few Cluster methods a ClassicMembership uses
// (coordinator, openConnection, sendOn, sendToCoordinator, refreshTopics, snapshot), for the
// error paths a real broker will not produce on demand.

import {
  createHeartbeatResponse,
  createJoinGroupResponse,
  createLeaveGroupResponse,
  createSyncGroupResponse,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type LeaveGroupRequest,
  type SyncGroupRequest,
} from '@kafkats/codec';
import type { Cluster, MetaConnection } from '@kafkats/meta';
import { ConnectionError } from '@kafkats/wire';
import { encodeAssignment } from '../../../src/consumer/internal/consumer-protocol.js';
import type {
  MembershipConfig,
  MembershipListener,
} from '../../../src/consumer/internal/contracts.js';
import { ClassicMembership } from '../../../src/consumer/internal/membership-classic.js';
import type { TopicPartition } from '../../../src/topic-partition.js';

type ApiName = 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'LeaveGroup';

/** One request the fake coordinator received. */
export interface Received {
  readonly api: ApiName;
  readonly request: JoinGroupRequest | SyncGroupRequest | HeartbeatRequest | LeaveGroupRequest;
  readonly version: number;
}

/**
 * The coordinator of a group whose only other members are scripted: this member leads (and its
 * SyncGroup assignment for itself is what it gets back), or follows and gets the next scripted
 * assignment.
 */
export class FakeGroupCluster {
  /** Everything that happened, in order: requests and listener calls. */
  readonly log: string[] = [];
  readonly received: Received[] = [];
  /** Error codes to answer, per API, before answering normally. */
  readonly errors: Record<ApiName, { code: number; memberId?: string }[]> = {
    JoinGroup: [],
    SyncGroup: [],
    Heartbeat: [],
    LeaveGroup: [],
  };
  /** Partition counts the metadata snapshot knows. */
  readonly partitions = new Map<string, number>();
  /** Follower mode: the assignment of each successive SyncGroup. */
  followerAssignments: TopicPartition[][] | null = null;
  /** APIs whose requests get no answer (until the membership aborts them). */
  readonly unanswered = new Set<ApiName>();
  /** APIs whose next request only is held, until {@link release} answers it. */
  readonly holdOnce = new Set<ApiName>();
  readonly #held = new Map<ApiName, () => void>();
  /** Coordinator connections opened, the latest last. */
  readonly connections: FakeConnection[] = [];
  coordinatorLookups = 0;
  invalidations = 0;
  generation = 0;
  #memberSeq = 0;

  constructor(partitions: Record<string, number>) {
    for (const [t, n] of Object.entries(partitions)) this.partitions.set(t, n);
  }

  /** Answers the request `holdOnce` held (with the next scripted error, if any). */
  release(api: ApiName): void {
    const answer = this.#held.get(api);
    if (answer === undefined) throw new Error(`no ${api} is held`);
    this.#held.delete(api);
    answer();
  }

  isHeld(api: ApiName): boolean {
    return this.#held.has(api);
  }

  count(api: ApiName): number {
    return this.received.filter((r) => r.api === api).length;
  }

  requests<T>(api: ApiName): T[] {
    return this.received.filter((r) => r.api === api).map((r) => r.request as T);
  }

  #answer(api: ApiName, request: Received['request'], version: number): unknown {
    this.received.push({ api, request, version });
    const scripted = this.errors[api].shift();
    const memberLabel = 'memberId' in request ? request.memberId : '';
    this.log.push(`${api}(${memberLabel})${scripted === undefined ? '' : ` -> ${scripted.code}`}`);
    switch (api) {
      case 'JoinGroup': {
        const join = request as JoinGroupRequest;
        if (scripted !== undefined)
          return createJoinGroupResponse({
            errorCode: scripted.code,
            memberId: scripted.memberId ?? '',
          });
        const memberId = join.memberId === '' ? `member-${++this.#memberSeq}` : join.memberId;
        const protocol = join.protocols[0]!;
        const leader = this.followerAssignments === null ? memberId : 'someone-else';
        return createJoinGroupResponse({
          generationId: ++this.generation,
          protocolType: 'consumer',
          protocolName: protocol.name,
          leader,
          memberId,
          members:
            leader === memberId
              ? [{ memberId, groupInstanceId: join.groupInstanceId, metadata: protocol.metadata }]
              : [],
        });
      }
      case 'SyncGroup': {
        const sync = request as SyncGroupRequest;
        if (scripted !== undefined) return createSyncGroupResponse({ errorCode: scripted.code });
        const mine =
          this.followerAssignments === null
            ? sync.assignments.find((a) => a.memberId === sync.memberId)!.assignment
            : encodeAssignment(this.followerAssignments.shift() ?? []);
        return createSyncGroupResponse({
          protocolType: 'consumer',
          protocolName: sync.protocolName,
          assignment: mine,
        });
      }
      case 'Heartbeat':
        return createHeartbeatResponse({ errorCode: scripted?.code ?? 0 });
      case 'LeaveGroup':
        return createLeaveGroupResponse({ errorCode: scripted?.code ?? 0 });
    }
  }

  /** The cluster the membership sees. */
  asCluster(): Cluster {
    const respond = (
      api: { name: string },
      request: unknown,
      version: number,
      signal?: AbortSignal,
      connection?: FakeConnection,
    ) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(new Error('aborted'));
          return;
        }
        if (connection?.closed) {
          reject(connection.closedError());
          return;
        }
        const name = api.name as ApiName;
        const answer = () => resolve(this.#answer(name, request as Received['request'], version));
        // As the wire's BrokerConnection: close() fails what is in flight with CONNECTION_CLOSED.
        const untrack = connection?.track(reject) ?? (() => {});
        if (this.unanswered.has(name)) {
          this.log.push(`${api.name} held`);
          signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          return;
        }
        if (this.holdOnce.delete(name)) {
          this.log.push(`${api.name} held`);
          this.#held.set(name, () => {
            untrack();
            if (connection?.closed) return;
            answer();
          });
          return;
        }
        // Answer on a later turn, as a broker would.
        setTimeout(() => {
          untrack();
          if (connection?.closed) return;
          answer();
        }, 1);
      });
    const fake = {
      requestTimeoutMs: 30_000,
      coordinator: async () => {
        this.coordinatorLookups++;
        return 1;
      },
      invalidateCoordinator: () => {
        this.invalidations++;
      },
      openConnection: async () => {
        const connection = new FakeConnection();
        this.connections.push(connection);
        return connection as MetaConnection;
      },
      sendOn: (
        c: MetaConnection,
        api: { name: string },
        request: unknown,
        options: { signal?: AbortSignal } = {},
      ) => respond(api, request, 5, options.signal, c as unknown as FakeConnection),
      sendToCoordinator: (_kind: string, _key: string, api: { name: string }, request: unknown) => {
        const built =
          typeof request === 'function' ? (request as (v: number) => unknown)(5) : request;
        return respond(api, built, 5);
      },
      refreshTopics: async () => fake.snapshot(),
      snapshot: () => ({
        brokers: [{ nodeId: 1, host: 'localhost', port: 9092, rack: null }],
        topic: (name: string) => {
          const n = this.partitions.get(name);
          return n === undefined
            ? undefined
            : {
                name,
                errorCode: 0,
                partitions: Array.from({ length: n }, (_, partition) => ({ partition })),
              };
        },
      }),
    };
    return fake as unknown as Cluster;
  }
}

/** A coordinator connection: closing it fails the requests in flight on it, as the wire does. */
class FakeConnection {
  closed = false;
  readonly pending = 0;
  readonly lastActivityMs = Date.now();
  readonly #inFlight = new Set<(error: Error) => void>();

  send(): Promise<never> {
    return Promise.reject(new Error('not used'));
  }
  negotiatedVersion(): number {
    return 5;
  }
  onClose(): () => void {
    return () => {};
  }
  closedError(): ConnectionError {
    return new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', 'broker 1', 'connection closed');
  }
  /** Registers a request in flight; returns what to call once it is answered. */
  track(reject: (error: Error) => void): () => void {
    this.#inFlight.add(reject);
    return () => this.#inFlight.delete(reject);
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = this.closedError();
    for (const reject of this.#inFlight) reject(error);
    this.#inFlight.clear();
  }
}

/** A listener that writes its calls into the fake's log. */
export class LoggingListener implements MembershipListener {
  readonly fatal: Error[] = [];
  readonly log: string[];
  constructor(log: string[]) {
    this.log = log;
  }
  async onAssigned(partitions: readonly TopicPartition[]): Promise<void> {
    this.log.push(`assigned[${names(partitions)}]`);
  }
  async onRevoked(partitions: readonly TopicPartition[]): Promise<void> {
    this.log.push(`revoked[${names(partitions)}]`);
  }
  async onLost(partitions: readonly TopicPartition[]): Promise<void> {
    this.log.push(`lost[${names(partitions)}]`);
  }
  onFatal(error: Error): void {
    this.fatal.push(error);
    this.log.push(`fatal ${(error as { code?: string }).code}`);
  }
}

function names(partitions: readonly TopicPartition[]): string {
  return partitions.map((p) => `${p.topic}-${p.partition}`).join(',');
}

export function fakeMember(
  fake: FakeGroupCluster,
  overrides: Partial<MembershipConfig> = {},
): { membership: ClassicMembership; listener: LoggingListener } {
  const listener = new LoggingListener(fake.log);
  const membership = new ClassicMembership({
    cluster: fake.asCluster(),
    groupId: 'g',
    groupInstanceId: null,
    rackId: null,
    topics: ['t'],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    heartbeatIntervalMs: 20,
    serverAssignor: null,
    assignors: ['range'],
    retryBackoffMs: 5,
    retryBackoffMaxMs: 20,
    listener,
    random: () => 0.5,
    ...overrides,
  });
  return { membership, listener };
}

/** Waits (polling every 5 ms, up to 5 s) until `done()` holds; returns whether it did. */
export async function until(done: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}
