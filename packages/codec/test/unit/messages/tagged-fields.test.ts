// Tagged fields: sizes above 127 bytes (multi-byte size varint, back-patched), unknown tags
// kept raw and merged back in ascending order with known ones, and a tagged field whose
// declared size does not match its content is rejected, and a tag the struct has only at other
// versions is refused, as Kafka's readers refuse it ("Tag 1 is not valid for version 12").
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createApiVersionsResponse,
  createApiVersionsResponseSupportedFeatureKey,
  createFetchRequest,
  createMetadataRequest,
  createProduceResponse,
  createProduceResponsePartitionProduceResponse,
  createProduceResponseTopicProduceResponse,
  decodeApiVersionsResponse,
  decodeFetchRequest,
  decodeMetadataRequest,
  decodeProduceResponse,
  encodeApiVersionsResponse,
  encodeFetchRequest,
  encodeMetadataRequest,
  encodeProduceResponse,
  Reader,
  Writer,
} from '../../../src/index.js';

describe('tagged fields', () => {
  it('a tagged array over 127 bytes round-trips (size varint of 2+ bytes)', () => {
    const supportedFeatures = [];
    for (let i = 0; i < 40; i++) {
      supportedFeatures.push(
        createApiVersionsResponseSupportedFeatureKey({
          name: `feature-${i}`,
          minVersion: 1,
          maxVersion: 2,
        }),
      );
    }
    const res = createApiVersionsResponse({ supportedFeatures, finalizedFeaturesEpoch: 7n });
    const w = new Writer(16);
    encodeApiVersionsResponse(w, res, 3);
    const bytes = Buffer.from(w.finish());
    expect(decodeApiVersionsResponse(new Reader(bytes), 3)).toEqual(res);
  });

  it('unknown tags merge with known ones in ascending tag order', () => {
    // ApiVersionsResponse v3 knows tags 0-3; tag 9 is unknown and must follow FinalizedFeaturesEpoch (1).
    const res = createApiVersionsResponse({
      finalizedFeaturesEpoch: 7n,
      _unknownTaggedFields: [{ tag: 9, data: Buffer.from([0xab]) }],
    });
    const w = new Writer();
    encodeApiVersionsResponse(w, res, 3);
    const hex = w.finish().toString('hex');
    // ... tagged count 2, tag 1 size 8 value 7, tag 9 size 1 value ab
    expect(hex.endsWith('02' + '0108' + '0000000000000007' + '0901ab')).toBe(true);
    expect(decodeApiVersionsResponse(new Reader(Buffer.from(hex, 'hex')), 3)).toEqual(res);
  });

  it('unknown tags given out of order are written sorted', () => {
    const req = createMetadataRequest({
      _unknownTaggedFields: [
        { tag: 5, data: Buffer.from([5]) },
        { tag: 2, data: Buffer.from([2]) },
      ],
    });
    const w = new Writer();
    encodeMetadataRequest(w, req, 12);
    expect(
      w
        .finish()
        .toString('hex')
        .endsWith('02' + '020102' + '050105'),
    ).toBe(true);
  });

  it('a known tagged field whose size does not match its value is rejected', () => {
    const res = createApiVersionsResponse({ finalizedFeaturesEpoch: 7n });
    const w = new Writer();
    encodeApiVersionsResponse(w, res, 3);
    const bytes = Buffer.from(w.finish());
    // Grow the declared size of tag 1 from 8 to 9 and add a byte so the frame stays whole.
    const at = bytes.indexOf(Buffer.from('0108', 'hex'), bytes.length - 11);
    bytes[at + 1] = 9;
    const bad = Buffer.concat([bytes, Buffer.from([0])]);
    expect(() => decodeApiVersionsResponse(new Reader(bad), 3)).toThrow(CodecError);
    expect(() => decodeApiVersionsResponse(new Reader(bad), 3)).toThrow(
      /finalizedFeaturesEpoch: tagged field size mismatch/,
    );
  });

  it('unknown tags on a decoded message survive a re-encode byte for byte', () => {
    const w = new Writer();
    encodeMetadataRequest(
      w,
      createMetadataRequest({ _unknownTaggedFields: [{ tag: 3, data: Buffer.alloc(200, 1) }] }),
      12,
    );
    const bytes = Buffer.from(w.finish());
    const back = decodeMetadataRequest(new Reader(bytes), 12);
    expect(back._unknownTaggedFields?.[0]?.data.length).toBe(200);
    const w2 = new Writer();
    encodeMetadataRequest(w2, back, 12);
    expect(w2.finish().equals(bytes)).toBe(true);
  });
  it('a top-level tag of a later version is refused, naming the field and the version', () => {
    // FetchRequest: ReplicaState is tag 1 from v15; at v12 the tag is not valid.
    const w = new Writer();
    encodeFetchRequest(w, createFetchRequest({ replicaId: -1 }), 12);
    const bytes = Buffer.from(w.finish());
    expect(bytes.at(-1)).toBe(0);
    const moved = Buffer.concat([bytes.subarray(0, -1), Buffer.from([1, 1, 1, 0])]);
    const error = (() => {
      try {
        decodeFetchRequest(new Reader(moved), 12);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CodecError);
    expect(error).toMatchObject({
      reason: 'FIELD_NOT_IN_VERSION',
      path: 'FetchRequest v12 .replicaState',
    });
    expect((error as Error).message).toMatch(
      /tag 1 is not valid at this version \(the field is tagged in versions 15\+\)/,
    );
    // The same bytes at v15 carry a (one-byte, all-default) ReplicaState: read, not refused.
    const w15 = new Writer();
    encodeFetchRequest(w15, createFetchRequest({ replicaId: -1 }), 15);
    expect(
      decodeFetchRequest(new Reader(Buffer.from(w15.finish())), 15).replicaState,
    ).toBeDefined();
  });

  it('a nested tag of a later version is refused inside its struct', () => {
    // ProduceResponse partitions: CurrentLeader is tag 0 from v10; v9 is flexible without it.
    const res = createProduceResponse({
      responses: [
        createProduceResponseTopicProduceResponse({
          name: 't',
          partitionResponses: [createProduceResponsePartitionProduceResponse({ index: 0 })],
        }),
      ],
    });
    const w = new Writer();
    encodeProduceResponse(w, res, 9);
    const bytes = Buffer.from(w.finish());
    // Layout tail: ... partition's tag count (0), topic's tag count (0), throttle (4 bytes), tag count (0).
    const partitionTags = bytes.length - 7;
    expect(bytes.subarray(partitionTags).toString('hex')).toBe('0000000000' + '0000');
    const moved = Buffer.concat([
      bytes.subarray(0, partitionTags),
      Buffer.from([1, 0, 1, 0]),
      bytes.subarray(partitionTags + 1),
    ]);
    expect(() => decodeProduceResponse(new Reader(moved), 9)).toThrow(
      /ProduceResponse v9 \.responses\[0\]\.partitionResponses\[0\]\.currentLeader: tag 0 is not valid/,
    );
  });

  it('a tag no version has is still kept as unknown', () => {
    const w = new Writer();
    encodeFetchRequest(w, createFetchRequest({ replicaId: -1 }), 12);
    const bytes = Buffer.from(w.finish());
    const extra = Buffer.concat([bytes.subarray(0, -1), Buffer.from([1, 90, 1, 7])]);
    expect(decodeFetchRequest(new Reader(extra), 12)._unknownTaggedFields).toEqual([
      { tag: 90, data: Buffer.from([7]) },
    ]);
  });
});
