// The share consumer (KIP-932) against a scripted broker: share-session epochs as Kafka's
// SharePartitionManager checks them, acknowledgements never on a request that opens a session,
// gaps, a lost session, refused and hostile answers, explicit mode, and close.
import {
  createFindCoordinatorResponse,
  createShareAcknowledgeResponse,
  createShareAcknowledgeResponsePartitionData,
  createShareAcknowledgeResponseTopicResponse,
  createShareFetchResponse,
  createShareFetchResponseAcquiredRecords,
  createShareFetchResponsePartitionData,
  createShareFetchResponseShareFetchableTopicResponse,
  createShareGroupHeartbeatResponse,
  createShareGroupHeartbeatResponseAssignment,
  createShareGroupHeartbeatResponseTopicPartitions,
  ErrorCode,
  type ShareAcknowledgeRequest,
  type ShareFetchRequest,
  type ShareFetchResponse,
  type ShareGroupHeartbeatRequest,
} from '@kafkats/codec';
import type { Cluster } from '@kafkats/meta';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ShareAcknowledgeError,
  ShareConsumer,
  type ShareConsumerOptions,
  ShareGroupsUnsupportedError,
  UnsupportedVersionError,
} from '../../../src/index.js';
import { connectFake, FakeKafka } from '../fetch/fake-kafka.js';

const opened: Cluster[] = [];
const consumers: ShareConsumer[] = [];
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

/**
 * One share partition (partition 0 of the fake's topic, led by broker 1) and its group, as a
 * broker keeps them: the next offset to acquire, the session epoch it expects, and every
 * request it got.
 */
class ShareBroker {
  readonly kafka = new FakeKafka(1, 1);
  readonly heartbeats: ShareGroupHeartbeatRequest[] = [];
  readonly fetches: ShareFetchRequest[] = [];
  readonly acknowledges: ShareAcknowledgeRequest[] = [];
  /** Next offset to hand out. */
  next = 0n;
  heartbeatIntervalMs = 60_000;
  /** The epoch the session expects next; undefined: no session. */
  expected: number | undefined;
  /** Error codes for the next heartbeat answers, one per answer. */
  readonly heartbeatErrors: number[] = [];
  /** Error codes for the next ShareAcknowledge answers' partitions, one per answer. */
  readonly ackErrors: number[] = [];
  /** Answers the next ShareFetch instead of the default, once. */
  once: ((request: ShareFetchRequest) => ShareFetchResponse) | undefined;

  constructor() {
    const k = this.kafka;
    k.versions.set(10, 4);
    k.versions.set(76, 1);
    k.versions.set(78, 2);
    k.versions.set(79, 2);
    k.intercept = async (node, apiKey, request) => {
      if (apiKey === 10) {
        const keys = (request as { coordinatorKeys: string[] }).coordinatorKeys;
        return createFindCoordinatorResponse({
          coordinators: keys.map((key) => ({
            key,
            nodeId: 1,
            host: '127.0.0.1',
            port: 9001,
            errorCode: 0,
            errorMessage: null,
          })),
        });
      }
      if (apiKey === 76) return this.#heartbeat(request as ShareGroupHeartbeatRequest);
      if (apiKey === 78) return this.#fetch(request as ShareFetchRequest);
      if (apiKey === 79) return this.#acknowledge(request as ShareAcknowledgeRequest);
      void node;
      return undefined;
    };
  }

  #heartbeat(request: ShareGroupHeartbeatRequest) {
    this.heartbeats.push(request);
    const refused = request.memberEpoch === 0 ? undefined : this.heartbeatErrors.shift();
    if (refused !== undefined) return createShareGroupHeartbeatResponse({ errorCode: refused });
    return createShareGroupHeartbeatResponse({
      memberId: request.memberId,
      memberEpoch: request.memberEpoch === -1 ? -1 : 1,
      heartbeatIntervalMs: this.heartbeatIntervalMs,
      assignment:
        request.memberEpoch === 0
          ? createShareGroupHeartbeatResponseAssignment({
              topicPartitions: [
                createShareGroupHeartbeatResponseTopicPartitions({
                  topicId: this.kafka.topicId,
                  partitions: [0],
                }),
              ],
            })
          : null,
    });
  }

  /** The session check of Kafka's SharePartitionManager.newContext. */
  #session(epoch: number, acks: boolean): number {
    if (epoch === 0) {
      if (acks) return ErrorCode.INVALID_REQUEST;
      this.expected = 1;
      return ErrorCode.NONE;
    }
    if (this.expected === undefined) return ErrorCode.SHARE_SESSION_NOT_FOUND;
    if (epoch === -1) {
      this.expected = undefined;
      return ErrorCode.NONE;
    }
    if (epoch !== this.expected) return ErrorCode.INVALID_SHARE_SESSION_EPOCH;
    this.expected++;
    return ErrorCode.NONE;
  }

  async #fetch(request: ShareFetchRequest) {
    this.fetches.push(request);
    const acks = request.topics.some((t) =>
      t.partitions.some((p) => p.acknowledgementBatches.length > 0),
    );
    const custom = this.once;
    this.once = undefined;
    if (custom !== undefined) return custom(request);
    const code = this.#session(request.shareSessionEpoch, acks);
    if (code !== ErrorCode.NONE) return createShareFetchResponse({ errorCode: code });
    const state = this.kafka.partition(0);
    if (state.logEndOffset <= this.next) {
      // Nothing to acquire: a short long poll, then an empty answer.
      await new Promise((r) => setTimeout(r, Math.min(request.maxWaitMs, 20)));
      return createShareFetchResponse({ acquisitionLockTimeoutMs: 30_000 });
    }
    const first = this.next;
    const last = state.logEndOffset - 1n;
    this.next = state.logEndOffset;
    return this.answer(first, last);
  }

  /** An answer acquiring `first`-`last` (delivery count 1), with every batch of the log. */
  answer(first: bigint, last: bigint, deliveryCount = 1): ShareFetchResponse {
    const state = this.kafka.partition(0);
    return createShareFetchResponse({
      acquisitionLockTimeoutMs: 30_000,
      responses: [
        createShareFetchResponseShareFetchableTopicResponse({
          topicId: this.kafka.topicId,
          partitions: [
            createShareFetchResponsePartitionData({
              partitionIndex: 0,
              records: Buffer.concat(state.batches.map((b) => b.bytes)),
              acquiredRecords: [
                createShareFetchResponseAcquiredRecords({
                  firstOffset: first,
                  lastOffset: last,
                  deliveryCount,
                }),
              ],
            }),
          ],
        }),
      ],
    });
  }

  #acknowledge(request: ShareAcknowledgeRequest) {
    this.acknowledges.push(request);
    const code = this.#session(request.shareSessionEpoch, false);
    if (code !== ErrorCode.NONE) return createShareAcknowledgeResponse({ errorCode: code });
    return createShareAcknowledgeResponse({
      responses: request.topics.map((t) =>
        createShareAcknowledgeResponseTopicResponse({
          topicId: t.topicId,
          partitions: t.partitions.map((p) =>
            createShareAcknowledgeResponsePartitionData({
              partitionIndex: p.partitionIndex,
              errorCode: this.ackErrors.shift() ?? 0,
            }),
          ),
        }),
      ),
    });
  }

  /** The acknowledgement batches of a request, as [first, last, types]. */
  static batches(request: ShareFetchRequest | ShareAcknowledgeRequest) {
    return request.topics.flatMap((t) =>
      t.partitions.flatMap((p) =>
        p.acknowledgementBatches.map((b) => [b.firstOffset, b.lastOffset, b.acknowledgeTypes]),
      ),
    );
  }
}

async function member(
  broker: ShareBroker,
  options: Partial<ShareConsumerOptions> = {},
): Promise<ShareConsumer> {
  const cluster = await connectFake(broker.kafka, opened);
  const consumer = new ShareConsumer(cluster, {
    groupId: 'jobs',
    topics: [broker.kafka.topicName],
    retryBackoffMs: 1,
    retryBackoffMaxMs: 2,
    ...options,
  });
  consumers.push(consumer);
  await consumer.start();
  return consumer;
}

/** Polls until records come (the first assignment may take a heartbeat). */
async function next(consumer: ShareConsumer) {
  for (let i = 0; i < 20; i++) {
    const records = await consumer.poll(200);
    if (records.length > 0) return records;
  }
  throw new Error('no records');
}

describe('ShareConsumer sessions and acknowledgements', () => {
  it('opens a session without acknowledgements, then carries them on the next epochs', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 3);
    const consumer = await member(broker);
    const first = await next(consumer);
    expect(first.map((r) => [r.offset, r.deliveryCount, r.value?.toString()])).toEqual([
      [0n, 1, 'v0'],
      [1n, 1, 'v1'],
      [2n, 1, 'v2'],
    ]);
    expect(broker.fetches[0]?.shareSessionEpoch).toBe(0);
    expect(ShareBroker.batches(broker.fetches[0]!)).toEqual([]);
    expect(broker.fetches[0]?.maxRecords).toBe(500);

    broker.kafka.appendValues(0, 2);
    const second = await next(consumer);
    expect(second.map((r) => r.offset)).toEqual([3n, 4n]);
    // The implicit accept of the first poll rode on the next ShareFetch, epoch 1.
    const carried = broker.fetches.find((f) => ShareBroker.batches(f).length > 0)!;
    expect(carried.shareSessionEpoch).toBeGreaterThanOrEqual(1);
    expect(ShareBroker.batches(carried)).toEqual([[0n, 2n, [1]]]);
    // Every ShareFetch after the first is incremental: the partition is not listed again
    // unless it carries acknowledgements.
    for (const f of broker.fetches.slice(1))
      if (ShareBroker.batches(f).length === 0) expect(f.topics).toEqual([]);
    expect(broker.fetches.map((f) => f.shareSessionEpoch)).toEqual(broker.fetches.map((_, i) => i));
  });

  it('sends release and reject as acknowledged, and offsets without a record as gaps', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 3);
    // A control batch (a transaction marker) at offset 3: acquired, never handed out.
    broker.kafka.append(
      0,
      [{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }],
      {
        producerId: 7n,
        transactional: true,
        control: true,
      },
    );
    broker.kafka.appendValues(0, 1);
    const consumer = await member(broker, { acknowledgementMode: 'explicit' });
    const records = await next(consumer);
    expect(records.map((r) => r.offset)).toEqual([0n, 1n, 2n, 4n]);
    consumer.acknowledge(records[0]!, 'release');
    consumer.acknowledge([records[1]!, records[2]!], 'accept');
    consumer.acknowledge(records[3]!, 'reject');
    const results = await consumer.commit();
    expect(results.map((r) => [r.partition, r.offsets, r.error])).toEqual([
      [0, [0n, 1n, 2n, 4n], null],
    ]);
    const sent = broker.acknowledges.at(-1)!;
    expect(ShareBroker.batches(sent)).toEqual([[0n, 4n, [2, 1, 1, 0, 3]]]);
  });

  it('commit sends again what a leader refused with a retriable error, not a partition that moved', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 2);
    const consumer = await member(broker, { acknowledgementMode: 'explicit' });
    const first = await next(consumer);
    consumer.acknowledge(first);
    broker.ackErrors.push(ErrorCode.KAFKA_STORAGE_ERROR);
    const retried = await consumer.commit();
    expect(retried.map((r) => [r.offsets, r.error])).toEqual([[[0n, 1n], null]]);
    expect(broker.acknowledges.map((a) => ShareBroker.batches(a))).toEqual([
      [[0n, 1n, [1]]],
      [[0n, 1n, [1]]],
    ]);

    broker.kafka.appendValues(0, 1);
    consumer.acknowledge(await next(consumer));
    broker.ackErrors.push(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const moved = await consumer.commit();
    expect(moved.map((r) => [r.offsets, r.error?.message])).toEqual([
      [[2n], expect.stringMatching(/NOT_LEADER_OR_FOLLOWER/)],
    ]);
    expect(broker.acknowledges).toHaveLength(3);
  });

  it('explicit mode: a poll with records of the last poll unacknowledged throws', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 2);
    const consumer = await member(broker, { acknowledgementMode: 'explicit' });
    const records = await next(consumer);
    consumer.acknowledge(records[0]!);
    await expect(consumer.poll(10)).rejects.toBeInstanceOf(ShareAcknowledgeError);
    expect(() => consumer.acknowledge(records[0]!)).toThrow(/acknowledged already/);
    consumer.acknowledge(records[1]!, 'release');
    expect(await consumer.poll(10)).toEqual([]);
    expect(() => consumer.acknowledge(records[1]!)).toThrow(/not delivered by the last poll/);
  });

  it('a lost session is opened again at epoch 0; what rode on the refused request is reported failed', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 2);
    const failed: string[] = [];
    const consumer = await member(broker, {
      onAcknowledgementCommit: (r) => {
        if (r.error !== null) failed.push(`${r.offsets.join(',')}: ${r.error.message}`);
      },
    });
    await next(consumer);
    // The broker forgot the session (restarted, or evicted it).
    broker.expected = undefined;
    broker.kafka.appendValues(0, 1);
    const again = await next(consumer);
    expect(again.map((r) => r.offset)).toEqual([2n]);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^0,1: .*SHARE_SESSION_NOT_FOUND/);
    const epochs = broker.fetches.map((f) => f.shareSessionEpoch);
    const reopened = epochs.lastIndexOf(0);
    expect(reopened).toBeGreaterThan(0);
    expect(ShareBroker.batches(broker.fetches[reopened]!)).toEqual([]);
  });

  it('acknowledgements waiting when a session is opened again ride on the request after it', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 2);
    const consumer = await member(broker);
    await next(consumer);
    // The session's connection drops: the broker forgets the session with it.
    for (const c of broker.kafka.connections) if (c.dedicated) c.lose();
    broker.expected = undefined;
    broker.kafka.appendValues(0, 1);
    const again = await next(consumer);
    expect(again.map((r) => r.offset)).toEqual([2n]);
    await consumer.poll(50);
    const epochs = broker.fetches.map((f) => f.shareSessionEpoch);
    const reopened = epochs.lastIndexOf(0);
    expect(reopened).toBeGreaterThan(0);
    // Not on the request that opened the new session (the broker refuses that), but on the
    // next one.
    expect(ShareBroker.batches(broker.fetches[reopened]!)).toEqual([]);
    expect(broker.fetches[reopened + 1]?.shareSessionEpoch).toBe(1);
    expect(ShareBroker.batches(broker.fetches[reopened + 1]!)).toEqual([[0n, 2n, [1]]]);
  });

  it('a commit after the session dropped with its connection reports it, and sends nothing', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 2);
    const consumer = await member(broker, { acknowledgementMode: 'explicit' });
    consumer.acknowledge(await next(consumer));
    for (const c of broker.kafka.connections) if (c.dedicated) c.lose();
    const results = await consumer.commit();
    expect(results.map((r) => [r.offsets, r.error?.message])).toEqual([
      [[0n, 1n], expect.stringMatching(/ended with its connection/)],
    ]);
    expect(broker.acknowledges).toEqual([]);
  });

  it('TOPIC_AUTHORIZATION_FAILED from the coordinator is thrown by a poll; the member goes on', async () => {
    const broker = new ShareBroker();
    broker.heartbeatIntervalMs = 5;
    broker.heartbeatErrors.push(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    const consumer = await member(broker);
    let thrown: unknown;
    for (let i = 0; i < 50 && thrown === undefined; i++)
      thrown = await consumer.poll(20).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(thrown).toMatchObject({ errorName: 'TOPIC_AUTHORIZATION_FAILED' });
    broker.kafka.appendValues(0, 1);
    expect((await next(consumer)).map((r) => r.offset)).toEqual([0n]);
  });

  it('close sends what was acknowledged with epoch -1, then leaves the group', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 3);
    const consumer = await member(broker, { acknowledgementMode: 'explicit' });
    const records = await next(consumer);
    consumer.acknowledge(records[0]!);
    await consumer.close();
    const closing = broker.acknowledges.at(-1)!;
    expect(closing.shareSessionEpoch).toBe(-1);
    // Only the acknowledged record: the others go back to the group with the session.
    expect(ShareBroker.batches(closing)).toEqual([[0n, 0n, [1]]]);
    expect(broker.heartbeats.at(-1)?.memberEpoch).toBe(-1);
    await expect(consumer.poll(10)).rejects.toMatchObject({ code: 'ERR_KAFKA_CONSUMER_CLOSED' });
  });

  it('an answer acquiring more than any log batch could is refused at poll, not expanded', async () => {
    const broker = new ShareBroker();
    broker.kafka.appendValues(0, 1);
    const consumer = await member(broker);
    broker.once = () => broker.answer(0n, 1n << 60n);
    await expect(next(consumer)).rejects.toMatchObject({
      code: 'ERR_KAFKA_SHARE_RESPONSE_INVALID',
    });
    // The consumer goes on.
    expect(await consumer.poll(10)).toBeDefined();
  });

  it('start() on brokers without share groups throws before any share request', async () => {
    const broker = new ShareBroker();
    broker.kafka.versions.delete(76);
    broker.kafka.versions.delete(78);
    broker.kafka.versions.delete(79);
    const cluster = await connectFake(broker.kafka, opened);
    const consumer = new ShareConsumer(cluster, { groupId: 'g', topics: ['events'] });
    const error = await consumer.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ShareGroupsUnsupportedError);
    expect(error).toBeInstanceOf(UnsupportedVersionError);
    expect(broker.kafka.sent.filter((s) => s.apiKey >= 76 && s.apiKey <= 79)).toEqual([]);
  });
});
