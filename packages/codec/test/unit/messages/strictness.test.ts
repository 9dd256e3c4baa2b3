// Encode-side strictness: a non-default value in a field the version lacks, null where the
// version forbids it, and versions the message does not have all fail with a typed error that
// names the message, version and field path. Ignorable fields are dropped silently.
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createFetchRequest,
  createFindCoordinatorRequest,
  createMetadataRequest,
  createMetadataRequestTopic,
  createMetadataResponse,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  decodeMetadataRequest,
  encodeFetchRequest,
  encodeFindCoordinatorRequest,
  encodeMetadataRequest,
  encodeMetadataResponse,
  Reader,
  Writer,
} from '../../../src/index.js';

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error('expected a CodecError');
}

describe('FindCoordinator: key is v0-3, coordinatorKeys v4+', () => {
  it('setting coordinatorKeys at v3 fails, naming the field and version', () => {
    const req = createFindCoordinatorRequest({ coordinatorKeys: ['g1'] });
    const e = codecError(() => encodeFindCoordinatorRequest(new Writer(), req, 3));
    expect(e.reason).toBe('FIELD_NOT_IN_VERSION');
    expect(e.code).toBe('ERR_KAFKA_CODEC_FIELD_NOT_IN_VERSION');
    expect(e.path).toBe('FindCoordinatorRequest v3 .coordinatorKeys');
    expect(e.retriable).toBe(false);
  });

  it('setting key at v4 fails', () => {
    const req = createFindCoordinatorRequest({ key: 'g1' });
    const e = codecError(() => encodeFindCoordinatorRequest(new Writer(), req, 4));
    expect(e.reason).toBe('FIELD_NOT_IN_VERSION');
    expect(e.path).toBe('FindCoordinatorRequest v4 .key');
  });

  it('each in its own version range encodes', () => {
    const w = new Writer();
    encodeFindCoordinatorRequest(w, createFindCoordinatorRequest({ key: 'g1' }), 3);
    encodeFindCoordinatorRequest(w, createFindCoordinatorRequest({ coordinatorKeys: ['g1'] }), 4);
    expect(w.pos).toBeGreaterThan(0);
  });
});

describe('MetadataRequest.allowAutoTopicCreation', () => {
  it('defaults to true, as the schema says', () => {
    expect(createMetadataRequest().allowAutoTopicCreation).toBe(true);
  });

  it('false at v3 (field is v4+, not ignorable) fails', () => {
    const e = codecError(() =>
      encodeMetadataRequest(
        new Writer(),
        createMetadataRequest({ allowAutoTopicCreation: false }),
        3,
      ),
    );
    expect(e.message).toMatch(/^MetadataRequest v3 \.allowAutoTopicCreation: /);
  });

  it('topicId is ignorable: dropped silently before v10', () => {
    const req = createMetadataRequest({
      topics: [createMetadataRequestTopic({ name: 'a', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' })],
    });
    const w = new Writer();
    encodeMetadataRequest(w, req, 9);
    const back = decodeMetadataRequest(new Reader(Buffer.from(w.finish())), 9);
    expect(back.topics?.[0]?.topicId).toBe('AAAAAAAAAAAAAAAAAAAAAA');
  });
});

describe('null and version checks', () => {
  it('null topics at v0 (not nullable there) is NULL_NOT_ALLOWED', () => {
    const e = codecError(() =>
      encodeMetadataRequest(new Writer(), createMetadataRequest({ topics: null }), 0),
    );
    expect(e.reason).toBe('NULL_NOT_ALLOWED');
    expect(e.path).toBe('MetadataRequest v0 .topics');
  });

  it('an unknown version is UNSUPPORTED_VERSION both ways', () => {
    expect(
      codecError(() => encodeMetadataRequest(new Writer(), createMetadataRequest(), 99)).reason,
    ).toBe('VERSION_UNSUPPORTED');
    expect(codecError(() => decodeMetadataRequest(new Reader(Buffer.alloc(8)), -1)).reason).toBe(
      'VERSION_UNSUPPORTED',
    );
  });

  it('an out-of-range int32 deep in a message names its path', () => {
    const res = createMetadataResponse({
      topics: [
        createMetadataResponseTopic({
          name: 't',
          partitions: [
            createMetadataResponsePartition(),
            createMetadataResponsePartition({ leaderEpoch: 2 ** 31 }),
          ],
        }),
      ],
    });
    const e = codecError(() => encodeMetadataResponse(new Writer(), res, 12));
    expect(e.reason).toBe('VALUE_INVALID');
    expect(e.path).toBe('MetadataResponse v12 .topics[0].partitions[1].leaderEpoch');
  });

  it('a bad uuid text is VALUE_INVALID', () => {
    const req = createMetadataRequest({
      topics: [createMetadataRequestTopic({ name: 'a', topicId: 'not-a-uuid' })],
    });
    expect(codecError(() => encodeMetadataRequest(new Writer(), req, 12)).path).toBe(
      'MetadataRequest v12 .topics[0].topicId',
    );
  });

  it('unknown tagged fields at a non-flexible version fail', () => {
    const req = createMetadataRequest({
      _unknownTaggedFields: [{ tag: 5, data: Buffer.from([1]) }],
    });
    expect(codecError(() => encodeMetadataRequest(new Writer(), req, 8)).reason).toBe(
      'FIELD_NOT_IN_VERSION',
    );
  });

  it('a tagged field is written only when it differs from its default', () => {
    // FetchRequest v12+: ClusterId is tagged (tag 0), default null.
    const plain = new Writer();
    encodeFetchRequest(plain, createFetchRequest(), 12);
    const tagged = new Writer();
    encodeFetchRequest(tagged, createFetchRequest({ clusterId: 'c' }), 12);
    // tag 0, size 2, compact string "c" (02 63): 4 more bytes than the default.
    expect(tagged.pos - plain.pos).toBe(4);
  });
});

describe('error messages', () => {
  it('UNSUPPORTED_VERSION names the message, the version and the valid range once', () => {
    const e = codecError(() => encodeMetadataRequest(new Writer(), createMetadataRequest(), 99));
    expect(e.message).toBe('MetadataRequest v99: not a version of this message (valid 0-13)');
  });
});
