import {
  createMetadataResponse,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  ZERO_UUID,
} from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  buildMetadataRequest,
  keepNewerLeaderEpochs,
  MetadataSnapshot,
  snapshotFromMetadata,
} from '../../src/index.js';
import { FakeCluster, spreadTopic } from './fake-cluster.js';

function snapshotOf(fake: FakeCluster, at = 1000, nodeId = 1): MetadataSnapshot {
  const response = fake.metadataResponse(fake.broker(nodeId), { topics: null });
  return snapshotFromMetadata(response, at);
}

describe('MetadataSnapshot', () => {
  it('decodes brokers with racks, controller, cluster id, topic ids and partitions', () => {
    const fake = new FakeCluster(3);
    fake.topics.set('orders', spreadTopic(3, 6, 4));
    const s = snapshotOf(fake);
    expect(s.brokers.map((b) => [b.nodeId, b.rack])).toEqual([
      [1, 'rack-1'],
      [2, 'rack-2'],
      [3, 'rack-3'],
    ]);
    expect(s.controllerId).toBe(1);
    expect(s.clusterId).toBe('fake-cluster');
    expect(s.topic('orders')?.topicId).toBe('TOPICIDAAAAAAAAAAAAAAA');
    expect(s.leaderFor('orders', 4)).toBe(2);
    expect(s.partition('orders', 4)).toMatchObject({
      leaderEpoch: 4,
      replicas: [2, 1, 3],
      isr: [2, 1, 3],
    });
    expect(s.leaderFor('orders', 6)).toBeUndefined();
    expect(s.leaderFor('missing', 0)).toBeUndefined();
    expect(s.partitionCount('orders')).toBe(6);
    expect(s.topicErrorCode('orders')).toBe(0);
    expect(s.partitionCount('missing')).toBe(-1);
    expect(s.topicErrorCode('missing')).toBe(-1);
  });

  it('turns the protocol -1 leader and controller into absent values, never -1', () => {
    const response = createMetadataResponse({
      brokers: [],
      clusterId: null,
      controllerId: -1,
      topics: [
        createMetadataResponseTopic({
          errorCode: 0,
          name: 't',
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [
            createMetadataResponsePartition({
              errorCode: 5,
              partitionIndex: 0,
              leaderId: -1,
              leaderEpoch: -1,
              replicaNodes: [1],
              isrNodes: [],
              offlineReplicas: [1],
            }),
          ],
        }),
      ],
    });
    const s = snapshotFromMetadata(response, 0);
    const p = s.partition('t', 0);
    expect(p).toBeDefined();
    expect('leader' in (p as object)).toBe(false);
    expect(p?.errorCode).toBe(5);
    expect(p?.offlineReplicas).toEqual([1]);
    expect(s.controllerId).toBeUndefined();
  });

  it('says a partition built with leader -1 (by a test or a tool) has no leader', () => {
    const s = new MetadataSnapshot({
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }],
      topics: [
        {
          name: 't',
          topicId: ZERO_UUID,
          isInternal: false,
          errorCode: 0,
          partitions: [0, 1].map((partition) => ({
            partition,
            leader: partition === 0 ? -1 : 1,
            leaderEpoch: 0,
            replicas: [1],
            isr: [1],
            offlineReplicas: [],
            errorCode: 0,
          })),
        },
      ],
      clusterId: null,
      fetchedAtMs: 0,
    });
    expect(s.leaderFor('t', 0)).toBeUndefined();
    expect(s.leaderFor('t', 1)).toBe(1);
  });

  it('is deeply frozen', () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', spreadTopic(1, 2));
    const s = snapshotOf(fake);
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.brokers)).toBe(true);
    expect(Object.isFrozen(s.brokers[0])).toBe(true);
    expect(Object.isFrozen(s.topics)).toBe(true);
    expect(Object.isFrozen(s.topic('t'))).toBe(true);
    expect(Object.isFrozen(s.topic('t')?.partitions)).toBe(true);
    expect(Object.isFrozen(s.partition('t', 0))).toBe(true);
    expect(Object.isFrozen(s.partition('t', 0)?.replicas)).toBe(true);
    expect(() => {
      (s.partition('t', 0)!.replicas as number[]).push(9);
    }).toThrow(TypeError);
  });

  it('reports its age from the fetch time, and the empty snapshot is infinitely old', () => {
    const s = new MetadataSnapshot({
      brokers: [],
      topics: [],
      clusterId: null,
      fetchedAtMs: 10_000,
    });
    expect(s.age(14_000)).toBe(4000);
    expect(MetadataSnapshot.empty().age()).toBe(Number.POSITIVE_INFINITY);
  });

  it('merges fresh topics in, keeps the others, and keeps the older fetch time', () => {
    const fake = new FakeCluster(3);
    fake.topics.set('a', spreadTopic(3, 3));
    fake.topics.set('b', spreadTopic(3, 3));
    const old = snapshotOf(fake, 1000);
    fake.topics.set('a', {
      topicId: 'TOPICIDAAAAAAAAAAAAAAA',
      partitions: [{ leader: 3, leaderEpoch: 1, replicas: [3] }],
    });
    const fresh = snapshotFromMetadata(
      fake.metadataResponse(fake.broker(1), { topics: [{ name: 'a' }] }),
      5000,
    );
    const merged = old.withTopicsMerged(fresh);
    expect(merged.topic('a')?.partitions.length).toBe(1);
    expect(merged.leaderFor('a', 0)).toBe(3);
    expect(merged.topic('b')?.partitions.length).toBe(3);
    expect(merged.fetchedAtMs).toBe(1000);
    expect(old.leaderFor('a', 0)).toBe(1);
  });

  it('never lets a lagging answer move a leader epoch backwards', () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 2, 7));
    const current = snapshotOf(fake);
    // A lagging broker still thinks partition 0 is led by 2 at epoch 6.
    fake.lagging.set(
      3,
      new Map([
        [
          't',
          {
            ...spreadTopic(3, 2, 7),
            partitions: [
              { leader: 2, leaderEpoch: 6, replicas: [1, 2, 3] },
              { leader: 3, leaderEpoch: 8, replicas: [2, 3] },
            ],
          },
        ],
      ]),
    );
    const lagging = snapshotOf(fake, 2000, 3);
    const installed = keepNewerLeaderEpochs(lagging, current);
    expect(installed.partition('t', 0)).toMatchObject({ leader: 1, leaderEpoch: 7 });
    // Newer epochs win, equal ones are taken as they come.
    expect(installed.partition('t', 1)).toMatchObject({ leader: 3, leaderEpoch: 8 });
    expect(current.withTopicsMerged(lagging).partition('t', 0)).toMatchObject({
      leader: 1,
      leaderEpoch: 7,
    });
  });

  it('lets a re-created topic (new topic id) start again at a lower epoch', () => {
    const fake = new FakeCluster(1);
    fake.topics.set('t', {
      topicId: 'OLDIDAAAAAAAAAAAAAAAAA',
      partitions: [{ leader: 1, leaderEpoch: 9, replicas: [1] }],
    });
    const before = snapshotOf(fake);
    fake.topics.set('t', {
      topicId: 'NEWIDAAAAAAAAAAAAAAAAA',
      partitions: [{ leader: 1, leaderEpoch: 0, replicas: [1] }],
    });
    const after = keepNewerLeaderEpochs(snapshotOf(fake), before);
    expect(after.partition('t', 0)?.leaderEpoch).toBe(0);
  });

  it('forgets the leaders of a broker that went away', () => {
    const fake = new FakeCluster(3);
    fake.topics.set('t', spreadTopic(3, 6));
    const s = snapshotOf(fake).withoutLeader(2);
    expect([0, 1, 2, 3, 4, 5].map((p) => s.leaderFor('t', p))).toEqual([
      1,
      undefined,
      3,
      1,
      undefined,
      3,
    ]);
    expect(s.partitionsLedBy(2)).toEqual([]);
  });
});

describe('buildMetadataRequest', () => {
  // A one-word regression with a destructive blast radius (seed 000): every request, every
  // version that has the field, says false.
  it('never allows auto topic creation from v4 on', () => {
    for (let v = 4; v <= 13; v++) {
      expect(buildMetadataRequest(['orders'], v).allowAutoTopicCreation).toBe(false);
      expect(buildMetadataRequest(null, v).allowAutoTopicCreation).toBe(false);
    }
  });

  it('refuses to name topics below v4, where creation cannot be turned off', () => {
    expect(() => buildMetadataRequest(['orders'], 3)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_METADATA_UNSAFE_VERSION' }),
    );
    expect(buildMetadataRequest(null, 3).topics).toBeNull();
  });

  it('asks for all topics with null from v1 and with an empty list at v0', () => {
    expect(buildMetadataRequest(null, 0).topics).toEqual([]);
    for (let v = 1; v <= 13; v++) expect(buildMetadataRequest(null, v).topics).toBeNull();
  });

  it('names the topics it is given, in order', () => {
    expect(buildMetadataRequest(['orders', 'events'], 12).topics?.map((t) => t.name)).toEqual([
      'orders',
      'events',
    ]);
  });
});
