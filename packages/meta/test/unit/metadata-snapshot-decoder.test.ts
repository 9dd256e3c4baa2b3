import {
  CodecError,
  createMetadataResponse,
  createMetadataResponseBroker,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  decodeMetadataResponse,
  encodeMetadataResponse,
  MetadataApi,
  type MetadataResponse,
  Reader,
  Writer,
  ZERO_UUID,
} from '@kafkats/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeMetadataSnapshot,
  keepNewerLeaderEpochs,
  type MetadataSnapshot,
  MetadataSnapshotApi,
  snapshotFromMetadata,
} from '../../src/index.js';

const VERSIONS = Array.from(
  { length: MetadataApi.maxVersion - MetadataApi.minVersion + 1 },
  (_, i) => MetadataApi.minVersion + i,
);

/** A Metadata response valid at `version`: fields the version lacks stay at their defaults. */
function responseArb(version: number): fc.Arbitrary<MetadataResponse> {
  const nodes = fc.array(fc.integer({ min: -1, max: 20 }), { maxLength: 5 });
  const partition = fc.record({
    errorCode: fc.constantFrom(0, 0, 0, 5, 9),
    partitionIndex: fc.integer({ min: 0, max: 12 }),
    leaderId: fc.integer({ min: -1, max: 6 }),
    leaderEpoch: version >= 7 ? fc.integer({ min: -1, max: 1 << 30 }) : fc.constant(-1),
    replicaNodes: nodes,
    isrNodes: nodes,
    offlineReplicas: version >= 5 ? nodes : fc.constant<number[]>([]),
  });
  const topic = fc.record({
    errorCode: fc.constantFrom(0, 0, 3),
    // A small alphabet so that equal names (and equal-name order) happen.
    name:
      version >= 12
        ? fc.option(fc.stringMatching(/^[a-c\u00e9]{0,3}$/), { freq: 8 })
        : fc.stringMatching(/^[a-c\u00e9]{0,3}$/),
    topicId: version >= 10 ? fc.uint8Array({ minLength: 16, maxLength: 16 }) : fc.constant(null),
    isInternal: version >= 1 ? fc.boolean() : fc.constant(false),
    partitions: fc.oneof(
      fc.array(partition, { maxLength: 6 }),
      // The usual shape: dense 0..n-1 in order.
      fc
        .array(partition, { maxLength: 6 })
        .map((ps) => ps.map((p, i) => ({ ...p, partitionIndex: i }))),
    ),
  });
  return fc
    .record({
      throttleTimeMs: version >= 3 ? fc.nat() : fc.constant(0),
      brokers: fc.array(
        fc.record({
          nodeId: fc.integer({ min: 0, max: 6 }),
          host: fc.string({ maxLength: 8 }),
          port: fc.integer({ min: 0, max: 65535 }),
          rack: version >= 1 ? fc.option(fc.string({ maxLength: 4 })) : fc.constant(null),
        }),
        { maxLength: 4 },
      ),
      clusterId: version >= 2 ? fc.option(fc.string({ maxLength: 6 })) : fc.constant(null),
      controllerId: version >= 1 ? fc.integer({ min: -1, max: 6 }) : fc.constant(-1),
      topics: fc.array(topic, { maxLength: 6 }),
      errorCode: version >= 13 ? fc.constantFrom(0, 0, 41) : fc.constant(0),
    })
    .map((r) =>
      createMetadataResponse({
        ...r,
        brokers: r.brokers.map((b) => createMetadataResponseBroker(b)),
        topics: r.topics.map((t) =>
          createMetadataResponseTopic({
            errorCode: t.errorCode,
            name: t.name,
            topicId: t.topicId === null ? ZERO_UUID : Buffer.from(t.topicId).toString('base64url'),
            isInternal: t.isInternal,
            partitions: t.partitions.map((p) => createMetadataResponsePartition(p)),
          }),
        ),
      }),
    );
}

function encode(response: MetadataResponse, version: number): Buffer {
  const w = new Writer(256);
  encodeMetadataResponse(w, response, version);
  return Buffer.from(w.finish());
}

/** Everything a reader of the snapshot can see, through every accessor. */
function view(s: MetadataSnapshot, probe: MetadataSnapshot) {
  const lookups = probe.topics.flatMap((t) =>
    [-1, 0, 1, 2, 5, 13].map((p) => [
      t.name,
      p,
      s.leaderFor(t.name, p),
      s.partition(t.name, p),
      s.topic(t.name),
      s.partitionCount(t.name),
      s.topicErrorCode(t.name),
    ]),
  );
  return {
    brokers: s.brokers,
    controllerId: s.controllerId,
    clusterId: s.clusterId,
    fetchedAtMs: s.fetchedAtMs,
    topics: s.topics,
    lookups,
    missing: [s.topic('zz'), s.leaderFor('zz', 0), s.partitionCount('zz'), s.topicErrorCode('zz')],
    ledBy: [0, 1, 2, 3, 4, 5, 6].map((n) => s.partitionsLedBy(n)),
  };
}

describe('decodeMetadataSnapshot (the refresh path) and the generic decoder', () => {
  for (const version of VERSIONS) {
    it(`agree on every accessor of random Metadata v${version} responses`, () => {
      fc.assert(
        fc.property(responseArb(version), (response) => {
          const bytes = encode(response, version);
          const generic = snapshotFromMetadata(
            decodeMetadataResponse(new Reader(bytes), version),
            7,
          );
          const fast = decodeMetadataSnapshot(bytes, version, 7);
          // Lookups first on the fresh fast snapshot (columns), then the objects.
          expect(view(fast, generic)).toEqual(view(generic, generic));
          expect(Object.isFrozen(fast.topics)).toBe(true);
          for (const t of fast.topics) {
            expect(Object.isFrozen(t)).toBe(true);
            for (const p of t.partitions) {
              expect(Object.isFrozen(p)).toBe(true);
              for (const list of [p.replicas, p.isr, p.offlineReplicas])
                expect(Object.isFrozen(list)).toBe(true);
            }
          }
        }),
        { numRuns: 60 },
      );
    });

    it(`keep the newer leader epochs alike at v${version}`, () => {
      fc.assert(
        fc.property(responseArb(version), responseArb(version), (a, b) => {
          const ba = encode(a, version);
          const bb = encode(b, version);
          const generic = keepNewerLeaderEpochs(
            snapshotFromMetadata(decodeMetadataResponse(new Reader(bb), version), 2),
            snapshotFromMetadata(decodeMetadataResponse(new Reader(ba), version), 1),
          );
          const fast = keepNewerLeaderEpochs(
            decodeMetadataSnapshot(bb, version, 2),
            decodeMetadataSnapshot(ba, version, 1),
          );
          expect(view(fast, generic)).toEqual(view(generic, generic));
        }),
        { numRuns: 40 },
      );
    });

    it(`merge targeted refreshes into a table-backed snapshot as into an eager one, at v${version}`, () => {
      fc.assert(
        fc.property(responseArb(version), responseArb(version), responseArb(version), (a, b, c) => {
          const bytes = [a, b, c].map((r) => encode(r, version));
          const generic = bytes.map((x, i) =>
            snapshotFromMetadata(decodeMetadataResponse(new Reader(x), version), i + 1),
          );
          const fast = bytes.map((x, i) => decodeMetadataSnapshot(x, version, i + 1));
          // Two refreshes in a row: the second lays its topics over the first's.
          const eager = generic[0]!.withTopicsMerged(generic[1]!).withTopicsMerged(generic[2]!);
          const lazy = fast[0]!.withTopicsMerged(fast[1]!).withTopicsMerged(fast[2]!);
          expect(view(lazy, eager)).toEqual(view(eager, eager));
          // Epochs of the merged snapshot are compared as the eager one's are.
          expect(view(keepNewerLeaderEpochs(fast[0]!, lazy), eager)).toEqual(
            view(keepNewerLeaderEpochs(generic[0]!, eager), eager),
          );
          expect(view(lazy.withoutController(), eager)).toEqual(
            view(eager.withoutController(), eager),
          );
        }),
        { numRuns: 40 },
      );
    });

    it(`refuse every truncation of a Metadata v${version} response as the generic decoder does`, () => {
      fc.assert(
        fc.property(responseArb(version), fc.nat(), (response, at) => {
          const bytes = encode(response, version);
          const cut = bytes.subarray(0, at % bytes.length);
          let genericReason: string | undefined;
          try {
            decodeMetadataResponse(new Reader(cut), version);
          } catch (e) {
            genericReason = (e as CodecError).reason;
          }
          let fastReason: string | undefined;
          try {
            decodeMetadataSnapshot(cut, version, 0);
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
            fastReason = (e as CodecError).reason;
          }
          expect(genericReason).toBeDefined();
          expect(fastReason).toBe(genericReason);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('agrees on lists long enough for multi-byte counts, at every version', () => {
    const many = Array.from({ length: 200 }, (_, i) => i);
    for (const version of VERSIONS) {
      const response = createMetadataResponse({
        topics: [
          createMetadataResponseTopic({
            name: 'wide',
            partitions: [
              createMetadataResponsePartition({
                partitionIndex: 0,
                leaderId: 3,
                replicaNodes: many,
                isrNodes: many.slice(0, 150),
                offlineReplicas: version >= 5 ? many.slice(0, 130) : [],
              }),
              createMetadataResponsePartition({ partitionIndex: 1, leaderId: 4 }),
            ],
          }),
        ],
      });
      const bytes = encode(response, version);
      const generic = snapshotFromMetadata(decodeMetadataResponse(new Reader(bytes), version), 0);
      const fast = decodeMetadataSnapshot(bytes, version, 0);
      expect(fast.leaderFor('wide', 1)).toBe(4);
      expect(view(fast, generic)).toEqual(view(generic, generic));
      expect(fast.partition('wide', 0)?.replicas).toHaveLength(200);
    }
  });

  it('gives partitions with the same node list one frozen array, and lists that only hash alike their own', () => {
    // Up to three ids below 1024 are keyed by the ids themselves; [0, 31] and [1, 0] would
    // hash alike under the table's hash (31 * previous + id). Longer lists, larger or negative
    // ids go by that hash: [1024, 31] and [1025, 0] hash alike, and each must still read its
    // own ids.
    const distinct = [
      [1, 2, 3],
      [0, 31],
      [1, 0],
      [1],
      [1023, 0, 1023],
      [1024, 31],
      [1025, 0],
      [5, 6, 7, 8],
      [-1, 2],
    ];
    const lists = [...distinct, ...distinct];
    const d = distinct.length;
    for (const version of [4, 9, 12]) {
      const response = createMetadataResponse({
        topics: [
          createMetadataResponseTopic({
            name: 'shared',
            partitions: lists.map((replicas, i) =>
              createMetadataResponsePartition({
                partitionIndex: i,
                leaderId: replicas[0]!,
                replicaNodes: replicas,
                isrNodes: [...replicas],
              }),
            ),
          }),
        ],
      });
      const fast = decodeMetadataSnapshot(encode(response, version), version, 0);
      const parts = fast.topic('shared')!.partitions;
      expect(parts.map((p) => p.replicas)).toEqual(lists);
      expect(parts.map((p) => p.isr)).toEqual(lists);
      for (let i = 0; i < d; i++) {
        expect(parts[i + d]!.replicas).toBe(parts[i]!.replicas);
        expect(parts[i]!.isr).toBe(parts[i]!.replicas);
        expect(Object.isFrozen(parts[i]!.replicas)).toBe(true);
      }
      expect(new Set(parts.map((p) => p.replicas)).size).toBe(d);
    }
  });

  it('hands out partition objects that cannot be changed', () => {
    for (const version of [4, 9, 12]) {
      const response = createMetadataResponse({
        topics: [
          createMetadataResponseTopic({
            name: 't',
            partitions: [
              createMetadataResponsePartition({
                partitionIndex: 0,
                leaderId: 1,
                replicaNodes: [1, 2],
                isrNodes: [1],
              }),
              createMetadataResponsePartition({ partitionIndex: 1, leaderId: -1 }),
            ],
          }),
        ],
      });
      const fast = decodeMetadataSnapshot(encode(response, version), version, 0);
      for (const p of fast.topic('t')!.partitions) {
        const writable = p as unknown as { leader?: number; replicas: number[]; extra?: number };
        // Test files are modules, so strict: a write to a frozen object throws.
        expect(() => {
          writable.leader = 9;
        }).toThrow(TypeError);
        expect(() => {
          writable.extra = 1;
        }).toThrow(TypeError);
        expect(() => {
          writable.replicas.push(3);
        }).toThrow(TypeError);
      }
      expect(fast.partition('t', 0)).toEqual({
        partition: 0,
        leader: 1,
        leaderEpoch: -1,
        replicas: [1, 2],
        isr: [1],
        offlineReplicas: [],
        errorCode: 0,
      });
      expect(fast.leaderFor('t', 0)).toBe(1);
      expect(fast.partition('t', 1)).not.toHaveProperty('leader');
    }
  });

  it('refuses trailing bytes and unknown versions', () => {
    const bytes = encode(createMetadataResponse(), 12);
    expect(() => decodeMetadataSnapshot(Buffer.concat([bytes, Buffer.from([0])]), 12, 0)).toThrow(
      expect.objectContaining({ reason: 'TRAILING_BYTES' }),
    );
    expect(() => decodeMetadataSnapshot(bytes, 14, 0)).toThrow(
      expect.objectContaining({ reason: 'VERSION_UNSUPPORTED' }),
    );
  });

  it('names the partition a damaged count is in', () => {
    const response = createMetadataResponse({
      topics: [
        createMetadataResponseTopic({
          name: 'orders',
          partitions: [createMetadataResponsePartition({ replicaNodes: [1, 2] })],
        }),
      ],
    });
    const bytes = encode(response, 1);
    // v1: throttle absent; brokers count 0 (4 B), controller (4 B), topics count (4 B), then
    // topic: error (2), name (2 + 6), isInternal (1), partitions count (4), partition: error
    // (2), index (4), leader (4), replicas count (4).
    const at = 4 + 4 + 4 + 2 + 8 + 1 + 4 + 2 + 4 + 4;
    bytes.writeInt32BE(1000, at);
    expect(() => decodeMetadataSnapshot(bytes, 1, 0)).toThrow(/topics\[0\]\.partitions\[0\]/);
  });
});

describe('MetadataSnapshotApi', () => {
  it('decodes a response body into the snapshot and reports its error codes', () => {
    const response = createMetadataResponse({
      errorCode: 0,
      controllerId: 2,
      brokers: [createMetadataResponseBroker({ nodeId: 2, host: 'b2', port: 9092 })],
      topics: [
        createMetadataResponseTopic({
          name: 'orders',
          errorCode: 0,
          partitions: [
            createMetadataResponsePartition({ partitionIndex: 0, leaderId: 2, leaderEpoch: 3 }),
            createMetadataResponsePartition({ partitionIndex: 1, leaderId: -1, errorCode: 5 }),
          ],
        }),
      ],
    });
    const r = new Reader(encode(response, 12));
    const before = Date.now();
    const answer = MetadataSnapshotApi.decodeResponse(r, 12);
    expect(r.pos).toBe(r.end);
    expect(answer.snapshot.fetchedAtMs).toBeGreaterThanOrEqual(before);
    expect(answer.snapshot.leaderFor('orders', 0)).toBe(2);
    expect(answer.snapshot.leaderFor('orders', 1)).toBeUndefined();
    expect(MetadataSnapshotApi.responseErrors(answer)).toEqual(
      MetadataApi.responseErrors(response).map((e) => ({
        ...e,
        path: 'topics[orders].partitions[1]',
      })),
    );
  });
});
