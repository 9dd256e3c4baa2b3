// meta against the real generated codec: the requests it builds encode at every version the
// strict encoder allows, the responses it reads decode at every version, and the routing
// table covers exactly the codec's API keys.
import {
  API_DESCRIPTORS,
  createFindCoordinatorResponse,
  createMetadataRequest,
  createMetadataResponse,
  FindCoordinatorApi,
  MetadataApi,
  Reader,
  Writer,
} from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  buildFindCoordinatorRequest,
  buildMetadataRequest,
  ROUTING_TABLE,
  readFindCoordinatorResponse,
  snapshotFromMetadata,
} from '../../src/index.js';

function roundTrip<T>(
  api: { encodeRequest(w: Writer, m: T, v: number): void; decodeRequest(r: Reader, v: number): T },
  m: T,
  v: number,
): T {
  const w = new Writer();
  api.encodeRequest(w, m, v);
  return api.decodeRequest(new Reader(Buffer.from(w.finish())), v);
}

describe('the codec default the builder guards against', () => {
  it('is still the dangerous one: createMetadataRequest() allows auto topic creation', () => {
    // If this starts failing the trap was fixed upstream; until then the guard is load-bearing.
    expect(createMetadataRequest().allowAutoTopicCreation).toBe(true);
  });
});

describe('buildMetadataRequest against the strict encoder', () => {
  it('encodes at every version and says false on the wire from v4', () => {
    for (let v = MetadataApi.minVersion; v <= MetadataApi.maxVersion; v++) {
      const all = roundTrip(MetadataApi, buildMetadataRequest(null, v), v);
      expect(all.topics).toEqual(v === 0 ? [] : null);
      if (v >= 4) {
        const named = roundTrip(MetadataApi, buildMetadataRequest(['orders'], v), v);
        expect(named.allowAutoTopicCreation).toBe(false);
        expect(named.topics?.map((t) => t.name)).toEqual(['orders']);
        expect(all.allowAutoTopicCreation).toBe(false);
      }
    }
  });
});

describe('FindCoordinator against the strict encoder', () => {
  it('encodes the request at every version, key where the version has it', () => {
    for (let v = FindCoordinatorApi.minVersion; v <= FindCoordinatorApi.maxVersion; v++) {
      const decoded = roundTrip(
        FindCoordinatorApi,
        buildFindCoordinatorRequest('group', 'g', v),
        v,
      );
      if (v >= 4) expect(decoded.coordinatorKeys).toEqual(['g']);
      else expect(decoded.key).toBe('g');
      if (v >= 1)
        roundTrip(FindCoordinatorApi, buildFindCoordinatorRequest('transaction', 't', v), v);
    }
  });

  it('reads a decoded answer of every version', () => {
    for (let v = FindCoordinatorApi.minVersion; v <= FindCoordinatorApi.maxVersion; v++) {
      const response =
        v >= 4
          ? createFindCoordinatorResponse({
              coordinators: [
                { key: 'g', nodeId: 3, host: 'h', port: 1, errorCode: 0, errorMessage: null },
              ],
            })
          : createFindCoordinatorResponse({ nodeId: 3, host: 'h', port: 1 });
      const w = new Writer();
      FindCoordinatorApi.encodeResponse(w, response, v);
      const decoded = FindCoordinatorApi.decodeResponse(new Reader(Buffer.from(w.finish())), v);
      expect(readFindCoordinatorResponse(decoded, 'g', v)).toEqual({
        ok: true,
        nodeId: 3,
        host: 'h',
        port: 1,
      });
    }
  });
});

describe('snapshotFromMetadata', () => {
  it('reads a decoded response of every version; fields a version lacks become their defaults', () => {
    const response = createMetadataResponse({
      brokers: [{ nodeId: 1, host: 'b1', port: 9092, rack: 'r1' }],
      clusterId: 'cid',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              leaderEpoch: 5,
              replicaNodes: [1],
              isrNodes: [1],
              offlineReplicas: [],
            },
          ],
          topicAuthorizedOperations: -2147483648,
        },
      ],
    });
    for (let v = MetadataApi.minVersion; v <= MetadataApi.maxVersion; v++) {
      const w = new Writer();
      MetadataApi.encodeResponse(w, response, v);
      const s = snapshotFromMetadata(
        MetadataApi.decodeResponse(new Reader(Buffer.from(w.finish())), v),
        0,
      );
      expect(s.leaderFor('t', 0)).toBe(1);
      expect(s.partition('t', 0)?.leaderEpoch).toBe(v >= 7 ? 5 : -1);
      expect(s.broker(1)?.rack).toBe(v >= 1 ? 'r1' : null);
      expect(s.controllerId).toBe(v >= 1 ? 1 : undefined);
      expect(s.clusterId).toBe(v >= 2 ? 'cid' : null);
      expect(s.topic('t')?.topicId).toBe(
        v >= 10 ? 'AAAAAAAAAAAAAAAAAAAAAQ' : 'AAAAAAAAAAAAAAAAAAAAAA',
      );
    }
  });
});

describe('the routing table against the codec', () => {
  it('has one entry per API descriptor, same key, same name', () => {
    const codec = API_DESCRIPTORS.map((d) => [d.apiKey, d.name]).sort(
      (a, b) => Number(a[0]) - Number(b[0]),
    );
    expect(ROUTING_TABLE.map((r) => [r.apiKey, r.name])).toEqual(codec);
    expect(ROUTING_TABLE.length).toBe(API_DESCRIPTORS.length);
  });
});
