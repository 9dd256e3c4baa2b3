// The generated response-error walks on real APIs: each response is encoded and decoded at a
// real version first, so the walk sees what a broker's bytes decode to (fields a version lacks
// hold their defaults). Paths and codes are checked against the reflection walk as well.
import { describe, expect, it } from 'vitest';
import {
  type ApiDescriptor,
  ApiVersionsApi,
  CreateTopicsApi,
  createApiVersionsResponse,
  createCreateTopicsResponse,
  createCreateTopicsResponseCreatableTopicResult,
  createDescribeConfigsResponse,
  createDescribeConfigsResponseResult,
  createFetchResponse,
  createFetchResponseFetchableTopicResponse,
  createFetchResponsePartitionData,
  createFindCoordinatorResponse,
  createFindCoordinatorResponseCoordinator,
  createInitProducerIdResponse,
  createMetadataResponse,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  createOffsetCommitResponse,
  createOffsetCommitResponsePartition,
  createOffsetCommitResponseTopic,
  createProduceResponse,
  createProduceResponsePartitionProduceResponse,
  createProduceResponseTopicProduceResponse,
  DescribeConfigsApi,
  ErrorCode,
  FetchApi,
  FindCoordinatorApi,
  InitProducerIdApi,
  MetadataApi,
  OffsetCommitApi,
  ProduceApi,
  Reader,
  type ResponseErrorEntry,
  Writer,
} from '../../../src/index.js';
import { reflectResponseErrors } from '../../support/reflect-response-errors.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** `res` as a broker would send it at `version`, decoded back. */
function wire<Res>(api: ApiDescriptor<unknown, Res>, res: Res, version: number): Res {
  const w = new Writer(256);
  api.encodeResponse(w, res, version);
  return api.decodeResponse(new Reader(Buffer.from(w.finish())), version);
}

/** The walk's entries, after checking its paths and codes against the reflection walk. */
function errorsOf<Res>(api: ApiDescriptor<unknown, Res>, res: Res): ResponseErrorEntry[] {
  const found = api.responseErrors(res);
  expect(found.map((e) => [e.path, e.errorCode])).toEqual(
    reflectResponseErrors(res).map((e) => [e.path, e.errorCode]),
  );
  return found;
}

describe('responseErrors on real APIs', () => {
  it('Produce: partition errors carry the topic and partition (and the message)', () => {
    const res = createProduceResponse({
      responses: [
        createProduceResponseTopicProduceResponse({
          name: 'orders',
          partitionResponses: [
            createProduceResponsePartitionProduceResponse({ index: 0 }),
            createProduceResponsePartitionProduceResponse({
              index: 3,
              errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER,
              errorMessage: 'not the leader',
            }),
          ],
        }),
      ],
    });
    const found = errorsOf(ProduceApi, wire(ProduceApi, res, 11));
    expect(found).toEqual([
      {
        path: 'responses[0].partitionResponses[1]',
        errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER,
        errorMessage: 'not the leader',
        topic: 'orders',
        partition: 3,
      },
    ]);
    // The reflection walk guessed the same topic and partition from `name` and `index`.
    expect(reflectResponseErrors(wire(ProduceApi, res, 11))).toEqual([
      { path: 'responses[0].partitionResponses[1]', errorCode: 6, topic: 'orders', partition: 3 },
    ]);
  });

  describe('Fetch', () => {
    const res = createFetchResponse({
      responses: [
        createFetchResponseFetchableTopicResponse({
          topic: 'events',
          topicId: TOPIC_ID,
          partitions: [
            createFetchResponsePartitionData({
              partitionIndex: 2,
              errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
            }),
          ],
        }),
      ],
    });

    it('v12 names the topic (the id is not on the wire yet)', () => {
      expect(errorsOf(FetchApi, wire(FetchApi, res, 12))).toEqual([
        { path: 'responses[0].partitions[0]', errorCode: 1, topic: 'events', partition: 2 },
      ]);
    });

    it('v13+ identifies the topic by id only', () => {
      for (const v of [13, FetchApi.maxVersion]) {
        expect(errorsOf(FetchApi, wire(FetchApi, res, v))).toEqual([
          { path: 'responses[0].partitions[0]', errorCode: 1, topicId: TOPIC_ID, partition: 2 },
        ]);
      }
      // Where the reflection walk reported the empty name a v13 response decodes to.
      expect(reflectResponseErrors(wire(FetchApi, res, 13))[0]?.topic).toBe('');
    });

    it('a top-level error comes first', () => {
      const top = { ...res, errorCode: ErrorCode.UNSUPPORTED_VERSION };
      expect(errorsOf(FetchApi, wire(FetchApi, top, 12)).map((e) => e.path)).toEqual([
        '',
        'responses[0].partitions[0]',
      ]);
    });
  });

  it('Metadata: topic errors and partition errors, each naming its topic', () => {
    const res = createMetadataResponse({
      topics: [
        createMetadataResponseTopic({
          name: 'missing',
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        }),
        createMetadataResponseTopic({
          name: 'present',
          topicId: TOPIC_ID,
          partitions: [
            createMetadataResponsePartition({ partitionIndex: 0 }),
            createMetadataResponsePartition({
              partitionIndex: 1,
              errorCode: ErrorCode.LEADER_NOT_AVAILABLE,
              leaderId: -1,
            }),
          ],
        }),
      ],
    });
    expect(errorsOf(MetadataApi, wire(MetadataApi, res, 12))).toEqual([
      { path: 'topics[0]', errorCode: 3, topic: 'missing' },
      {
        path: 'topics[1].partitions[1]',
        errorCode: 5,
        topic: 'present',
        topicId: TOPIC_ID,
        partition: 1,
      },
    ]);
    // v9 has no topic ids: the decoded id is the zero uuid, which names nothing.
    expect(errorsOf(MetadataApi, wire(MetadataApi, res, 9))[1]).toEqual({
      path: 'topics[1].partitions[1]',
      errorCode: 5,
      topic: 'present',
      partition: 1,
    });
    // A topic asked for by id whose name the broker does not know (v12+: nullable name).
    const byId = createMetadataResponse({
      topics: [
        createMetadataResponseTopic({
          name: null,
          topicId: TOPIC_ID,
          errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
        }),
      ],
    });
    expect(errorsOf(MetadataApi, wire(MetadataApi, byId, 12))).toEqual([
      { path: 'topics[0]', errorCode: 100, topicId: TOPIC_ID },
    ]);
  });

  it('DescribeConfigs: per-resource errors name the resource', () => {
    const res = createDescribeConfigsResponse({
      results: [
        createDescribeConfigsResponseResult({ resourceType: 2, resourceName: 'ok' }),
        createDescribeConfigsResponseResult({
          resourceType: 2,
          resourceName: 'secret',
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          errorMessage: null,
        }),
        createDescribeConfigsResponseResult({
          resourceType: 4,
          resourceName: '7',
          errorCode: ErrorCode.INVALID_CONFIG,
          errorMessage: 'bad broker id',
        }),
      ],
    });
    expect(errorsOf(DescribeConfigsApi, wire(DescribeConfigsApi, res, 4))).toEqual([
      { path: 'results[1]', errorCode: 29, resource: 'secret' },
      { path: 'results[2]', errorCode: 40, errorMessage: 'bad broker id', resource: '7' },
    ]);
  });

  it('FindCoordinator v4: per-key coordinators, keyed by their key', () => {
    const res = createFindCoordinatorResponse({
      coordinators: [
        createFindCoordinatorResponseCoordinator({ key: 'g1', nodeId: 2, host: 'b2', port: 9092 }),
        createFindCoordinatorResponseCoordinator({
          key: 'g2',
          nodeId: -1,
          errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
          errorMessage: 'loading',
        }),
      ],
    });
    // The coordinator's NodeId is its answer (-1 here), not the broker the error is about.
    expect(errorsOf(FindCoordinatorApi, wire(FindCoordinatorApi, res, 4))).toEqual([
      { path: 'coordinators[1]', errorCode: 15, errorMessage: 'loading', resource: 'g2' },
    ]);
    // v0-v3 answer for one key, at the top level.
    const single = createFindCoordinatorResponse({
      errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
      errorMessage: null,
    });
    expect(errorsOf(FindCoordinatorApi, wire(FindCoordinatorApi, single, 3))).toEqual([
      { path: '', errorCode: 30 },
    ]);
  });

  it('CreateTopics: topic errors with their error message', () => {
    const res = createCreateTopicsResponse({
      topics: [
        createCreateTopicsResponseCreatableTopicResult({ name: 'new', topicId: TOPIC_ID }),
        createCreateTopicsResponseCreatableTopicResult({
          name: 'old',
          errorCode: ErrorCode.TOPIC_ALREADY_EXISTS,
          errorMessage: "Topic 'old' already exists.",
        }),
      ],
    });
    expect(errorsOf(CreateTopicsApi, wire(CreateTopicsApi, res, 7))).toEqual([
      {
        path: 'topics[1]',
        errorCode: 36,
        errorMessage: "Topic 'old' already exists.",
        topic: 'old',
      },
    ]);
  });

  it('OffsetCommit: partition errors by topic name (v9) or topic id (v10)', () => {
    const res = createOffsetCommitResponse({
      topics: [
        createOffsetCommitResponseTopic({
          name: 'orders',
          topicId: TOPIC_ID,
          partitions: [
            createOffsetCommitResponsePartition({
              partitionIndex: 5,
              errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE,
            }),
          ],
        }),
      ],
    });
    expect(errorsOf(OffsetCommitApi, wire(OffsetCommitApi, res, 9))).toEqual([
      { path: 'topics[0].partitions[0]', errorCode: 12, topic: 'orders', partition: 5 },
    ]);
    expect(errorsOf(OffsetCommitApi, wire(OffsetCommitApi, res, 10))).toEqual([
      { path: 'topics[0].partitions[0]', errorCode: 12, topicId: TOPIC_ID, partition: 5 },
    ]);
  });

  it('top-level-only responses: ApiVersions and InitProducerId', () => {
    const versions = createApiVersionsResponse({ errorCode: ErrorCode.UNSUPPORTED_VERSION });
    expect(errorsOf(ApiVersionsApi, wire(ApiVersionsApi, versions, 3))).toEqual([
      { path: '', errorCode: 35 },
    ]);
    const init = createInitProducerIdResponse({
      errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    });
    expect(errorsOf(InitProducerIdApi, wire(InitProducerIdApi, init, 5))).toEqual([
      { path: '', errorCode: 53 },
    ]);
  });

  it('an all-OK response gets a fresh empty array each call', () => {
    const ok = wire(ProduceApi, createProduceResponse(), 11);
    const a = ProduceApi.responseErrors(ok);
    expect(a).toEqual([]);
    expect(Object.isFrozen(a)).toBe(false);
    expect(ProduceApi.responseErrors(ok)).not.toBe(a);
  });
});
