import { ErrorCode } from '@kafkats/codec';
import { ConnectionError } from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import {
  GroupMembershipError,
  GroupProtocolUnsupportedError,
} from '../../../src/consumer/consumer-errors.js';
import type {
  MembershipConfig,
  MembershipListener,
} from '../../../src/consumer/internal/contracts.js';
import { ConsumerProtocolMembership } from '../../../src/consumer/internal/membership-consumer.js';
import type { TopicPartition } from '../../../src/topic-partition.js';
import { assignment, ScriptedCoordinator } from './consumer-fake-coordinator.js';

const ORDERS = { name: 'orders', topicId: 'T1T1T1T1T1T1T1T1T1T1Tw', partitions: 4 };
const LATER = { name: 'later', topicId: 'T2T2T2T2T2T2T2T2T2T2Tw', partitions: 2 };

type Event =
  | { kind: 'assigned' | 'revoked' | 'lost'; partitions: string[] }
  | { kind: 'fatal'; error: Error };

const names = (ps: readonly TopicPartition[]) => ps.map((p) => `${p.topic}-${p.partition}`).sort();

/** A listener that records its calls; `gate` holds a callback open until the test releases it. */
function recordingListener() {
  const events: Event[] = [];
  let gate: Promise<void> | undefined;
  const listener: MembershipListener = {
    onAssigned: async (ps) => {
      events.push({ kind: 'assigned', partitions: names(ps) });
      await gate;
    },
    onRevoked: async (ps) => {
      events.push({ kind: 'revoked', partitions: names(ps) });
      await gate;
    },
    onLost: async (ps) => {
      events.push({ kind: 'lost', partitions: names(ps) });
      await gate;
    },
    onFatal: (error) => {
      events.push({ kind: 'fatal', error });
    },
  };
  const hold = () => {
    let release!: () => void;
    gate = new Promise((r) => {
      release = r;
    });
    return () => {
      gate = undefined;
      release();
    };
  };
  return { events, listener, hold };
}

function config(
  coordinator: ScriptedCoordinator,
  listener: MembershipListener,
  extra: Partial<MembershipConfig> = {},
): MembershipConfig {
  return {
    cluster: coordinator.cluster,
    groupId: 'g',
    groupInstanceId: null,
    rackId: 'rack-a',
    topics: ['orders'],
    sessionTimeoutMs: 45_000,
    rebalanceTimeoutMs: 300_000,
    heartbeatIntervalMs: 3000,
    serverAssignor: 'uniform',
    assignors: ['cooperative-sticky', 'range'],
    retryBackoffMs: 1,
    retryBackoffMaxMs: 5,
    listener,
    random: () => 0.5,
    ...extra,
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
};

/** Joins and takes the given partitions of `orders`; returns after the acknowledgement was sent. */
async function joined(
  coordinator: ScriptedCoordinator,
  partitions: number[],
  extra: Partial<MembershipConfig> = {},
) {
  const rec = recordingListener();
  const membership = new ConsumerProtocolMembership(config(coordinator, rec.listener, extra));
  const started = membership.start();
  const join = await coordinator.nextHeartbeat();
  join.respond({
    memberId: null,
    memberEpoch: 1,
    heartbeatIntervalMs: 1,
    assignment: assignment({ [ORDERS.topicId]: partitions }),
  });
  await started;
  const ack = await coordinator.nextHeartbeat();
  return { membership, rec, ack };
}

describe('KIP-848 membership: joining', () => {
  it('joins with epoch 0, a client-made member id (KIP-1082) and every field; afterwards sends only what changed', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const rec = recordingListener();
    const membership = new ConsumerProtocolMembership(config(coordinator, rec.listener));
    const started = membership.start();
    const join = await coordinator.nextHeartbeat();
    expect(join.request).toMatchObject({
      groupId: 'g',
      memberEpoch: 0,
      instanceId: null,
      rackId: 'rack-a',
      rebalanceTimeoutMs: 300_000,
      subscribedTopicNames: ['orders'],
      serverAssignor: 'uniform',
      topicPartitions: [],
    });
    expect(join.request.memberId).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    join.respond({
      memberId: join.request.memberId,
      memberEpoch: 3,
      heartbeatIntervalMs: 1,
      assignment: assignment({ [ORDERS.topicId]: [2, 0] }),
    });
    await started;
    expect(rec.events).toEqual([{ kind: 'assigned', partitions: ['orders-0', 'orders-2'] }]);
    expect(membership.identity).toEqual({
      memberId: join.request.memberId,
      generationId: 3,
      groupInstanceId: null,
    });
    expect(names(membership.assignment)).toEqual(['orders-0', 'orders-2']);

    // The acknowledgement: the owned partitions, the unchanged fields left out.
    const ack = await coordinator.nextHeartbeat();
    expect(ack.request).toMatchObject({
      memberId: join.request.memberId,
      memberEpoch: 3,
      rackId: null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: [{ topicId: ORDERS.topicId, partitions: [0, 2] }],
    });
    ack.respond({ memberEpoch: 3, heartbeatIntervalMs: 1, assignment: null });
    const plain = await coordinator.nextHeartbeat();
    expect(plain.request.topicPartitions).toBeNull();

    // A new subscription goes with the next heartbeat, alone.
    membership.subscribe(['orders', 'later']);
    plain.respond({ memberEpoch: 3, heartbeatIntervalMs: 1, assignment: null });
    const changed = await coordinator.nextHeartbeat();
    expect(changed.request).toMatchObject({
      subscribedTopicNames: ['orders', 'later'],
      rebalanceTimeoutMs: -1,
      topicPartitions: null,
    });
    membership.abandon();
  });

  it('takes the member id from the broker on ConsumerGroupHeartbeat v0', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    coordinator.heartbeatVersion = 0;
    const rec = recordingListener();
    const membership = new ConsumerProtocolMembership(config(coordinator, rec.listener));
    const started = membership.start();
    const join = await coordinator.nextHeartbeat();
    expect(join.request.memberId).toBe('');
    join.respond({
      memberId: 'from-broker',
      memberEpoch: 1,
      heartbeatIntervalMs: 1,
      assignment: assignment({}),
    });
    await started;
    const next = await coordinator.nextHeartbeat();
    expect(next.request.memberId).toBe('from-broker');
    membership.abandon();
  });

  it("fails with GroupProtocolUnsupportedError naming groupProtocol: 'classic' when the brokers lack ConsumerGroupHeartbeat", async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    coordinator.heartbeatVersion = undefined;
    const membership = new ConsumerProtocolMembership(
      config(coordinator, recordingListener().listener),
    );
    const error = await membership.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GroupProtocolUnsupportedError);
    expect((error as Error).message).toContain("groupProtocol: 'classic'");
  });
});

describe('KIP-848 membership: reconciliation', () => {
  it('revokes first (awaited, heartbeats going on meanwhile), then assigns, then acknowledges what it owns', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, rec, ack } = await joined(coordinator, [0, 1]);
    const release = rec.hold();
    ack.respond({
      memberEpoch: 1,
      heartbeatIntervalMs: 1,
      assignment: assignment({ [ORDERS.topicId]: [1, 2] }),
    });
    await until(() => rec.events.length === 2);
    expect(rec.events[1]).toEqual({ kind: 'revoked', partitions: ['orders-0'] });
    // While the application's onRevoked runs, the member keeps heartbeating without an ack.
    const during = await coordinator.nextHeartbeat();
    expect(during.request.topicPartitions).toBeNull();
    expect(names(membership.assignment)).toEqual(['orders-0', 'orders-1']);
    release();
    await until(() => rec.events.length === 3);
    expect(rec.events[2]).toEqual({ kind: 'assigned', partitions: ['orders-2'] });
    during.respond({ memberEpoch: 1, heartbeatIntervalMs: 1, assignment: null });
    const acknowledged = await coordinator.nextHeartbeat();
    expect(acknowledged.request.topicPartitions).toEqual([
      { topicId: ORDERS.topicId, partitions: [1, 2] },
    ]);
    expect(names(membership.assignment)).toEqual(['orders-1', 'orders-2']);
    membership.abandon();
  });

  it('leaves a topic id metadata does not know yet pending, refreshes, and assigns it once known', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, rec, ack } = await joined(coordinator, [0], {
      topics: ['orders', 'later'],
    });
    ack.respond({
      memberEpoch: 2,
      heartbeatIntervalMs: 1,
      assignment: assignment({ [ORDERS.topicId]: [0], [LATER.topicId]: [1] }),
    });
    await until(() => coordinator.refreshed.length > 0);
    expect(coordinator.refreshed[0]).toEqual(['orders', 'later']);
    expect(rec.events).toHaveLength(1);
    coordinator.topics = [ORDERS, LATER];
    // Keep answering heartbeats until the pending topic is assigned.
    for (let i = 0; rec.events.length < 2 && i < 50; i++) {
      const hb = await coordinator.nextHeartbeat();
      hb.respond({ memberEpoch: 2, heartbeatIntervalMs: 1, assignment: null });
    }
    expect(rec.events[1]).toEqual({ kind: 'assigned', partitions: ['later-1'] });
    membership.abandon();
  });
});

describe('KIP-848 membership: fencing and errors', () => {
  it('FENCED_MEMBER_EPOCH loses every partition and rejoins with epoch 0, the same member id and every field', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, rec, ack } = await joined(coordinator, [0, 3]);
    const memberId = ack.request.memberId;
    ack.respond({ errorCode: ErrorCode.FENCED_MEMBER_EPOCH, memberEpoch: -1 });
    const rejoin = await coordinator.nextHeartbeat();
    expect(rec.events[1]).toEqual({ kind: 'lost', partitions: ['orders-0', 'orders-3'] });
    expect(rejoin.request).toMatchObject({
      memberId,
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 300_000,
      topicPartitions: [],
    });
    expect(membership.assignment).toEqual([]);
    expect(membership.identity.generationId).toBe(-1);
    membership.abandon();
  });

  it('UNKNOWN_MEMBER_ID is handled like fencing', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, rec, ack } = await joined(coordinator, [1]);
    ack.respond({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberEpoch: -1 });
    const rejoin = await coordinator.nextHeartbeat();
    expect(rejoin.request.memberEpoch).toBe(0);
    expect(rec.events[1]).toEqual({ kind: 'lost', partitions: ['orders-1'] });
    membership.abandon();
  });

  it('a coordinator that moved is looked up again and the heartbeat retried; a lost connection too', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, ack } = await joined(coordinator, [1]);
    ack.respond({ errorCode: ErrorCode.NOT_COORDINATOR, memberEpoch: -1 });
    const again = await coordinator.nextHeartbeat();
    expect(coordinator.invalidated).toEqual(['g']);
    // After a failure the whole state goes again (the new coordinator may not have it).
    expect(again.request).toMatchObject({ memberEpoch: 1, subscribedTopicNames: ['orders'] });
    again.fail(new ConnectionError('ERR_KAFKA_CONNECTION_LOST', 'broker 1 (h:1)', 'socket closed'));
    const third = await coordinator.nextHeartbeat();
    expect(coordinator.invalidated).toEqual(['g', 'g']);
    third.respond({ errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, memberEpoch: -1 });
    const fourth = await coordinator.nextHeartbeat();
    expect(fourth.request.memberEpoch).toBe(1);
    expect(membership.assignment).toHaveLength(1);
    membership.abandon();
  });

  for (const code of [
    ErrorCode.UNRELEASED_INSTANCE_ID,
    ErrorCode.GROUP_MAX_SIZE_REACHED,
    ErrorCode.GROUP_AUTHORIZATION_FAILED,
    ErrorCode.UNSUPPORTED_ASSIGNOR,
    ErrorCode.INVALID_REQUEST,
  ]) {
    it(`error ${code} on joining is fatal: start rejects and onFatal gets a GroupMembershipError`, async () => {
      const coordinator = new ScriptedCoordinator([ORDERS]);
      const rec = recordingListener();
      const membership = new ConsumerProtocolMembership(config(coordinator, rec.listener));
      const started = membership.start();
      (await coordinator.nextHeartbeat()).respond({ errorCode: code, memberEpoch: -1 });
      const error = await started.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GroupMembershipError);
      expect((error as GroupMembershipError).brokerErrorCode).toBe(code);
      expect(rec.events).toEqual([{ kind: 'fatal', error }]);
    });
  }
});

describe('KIP-848 membership: leaving', () => {
  it('a dynamic member revokes everything (awaited) and then leaves with epoch -1', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, rec, ack } = await joined(coordinator, [0, 1]);
    ack.respond({ memberEpoch: 1, heartbeatIntervalMs: 60_000, assignment: null });
    const left = membership.leave();
    const leaveHb = await coordinator.nextHeartbeat();
    expect(rec.events[1]).toEqual({ kind: 'revoked', partitions: ['orders-0', 'orders-1'] });
    expect(leaveHb.request).toMatchObject({ memberId: ack.request.memberId, memberEpoch: -1 });
    leaveHb.respond({ memberEpoch: -1 });
    await left;
    expect(membership.assignment).toEqual([]);
    expect(membership.identity.generationId).toBe(-1);
    await membership.leave(); // idempotent: nothing more is sent
  });

  it('a static member (groupInstanceId) leaves with epoch -2 and sends its instance id', async () => {
    const coordinator = new ScriptedCoordinator([ORDERS]);
    const { membership, ack } = await joined(coordinator, [0], { groupInstanceId: 'pod-1' });
    expect(ack.request.instanceId).toBe('pod-1');
    ack.respond({ memberEpoch: 1, heartbeatIntervalMs: 60_000, assignment: null });
    const left = membership.leave();
    const leaveHb = await coordinator.nextHeartbeat();
    expect(leaveHb.request).toMatchObject({ memberEpoch: -2, instanceId: 'pod-1' });
    leaveHb.respond({ memberEpoch: -2 });
    await left;
  });
});
