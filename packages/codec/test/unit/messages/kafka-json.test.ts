// Kafka's JSON form, by example: what toKafkaJson writes and what fromKafkaJson refuses.
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createFetchRequest,
  createListOffsetsRequest,
  createSaslAuthenticateRequest,
  FetchRequestDescription,
  fromKafkaJson,
  ListOffsetsRequestDescription,
  MetadataRequestDescription,
  SaslAuthenticateRequestDescription,
  toKafkaJson,
} from '../../../src/index.js';

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error('expected a CodecError');
}

describe('toKafkaJson', () => {
  it('writes int64 as a JSON number with every digit, and reads it back as a bigint', () => {
    const m = createListOffsetsRequest({
      replicaId: -1,
      topics: [
        {
          name: 'orders',
          partitions: [
            { partitionIndex: 3, currentLeaderEpoch: 7, timestamp: 9223372036854775807n },
          ],
        },
      ],
    });
    const text = toKafkaJson(ListOffsetsRequestDescription, m, 8);
    expect(text).toBe(
      '{"replicaId":-1,"isolationLevel":0,"topics":[{"name":"orders","partitions":[{"partitionIndex":3,"currentLeaderEpoch":7,"timestamp":9223372036854775807}]}]}',
    );
    const back = fromKafkaJson<typeof m>(ListOffsetsRequestDescription, text, 8);
    expect(back.topics[0]!.partitions[0]!.timestamp).toBe(9223372036854775807n);
  });

  it('writes bytes as base64 and uuids in their text form', () => {
    const sasl = createSaslAuthenticateRequest({ authBytes: Buffer.from([0, 1, 2, 250]) });
    expect(toKafkaJson(SaslAuthenticateRequestDescription, sasl, 2)).toBe(
      '{"authBytes":"AAEC+g=="}',
    );
    const metadata = {
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', name: null }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: true,
    };
    expect(toKafkaJson(MetadataRequestDescription, metadata, 12)).toBe(
      '{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","name":null}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":true}',
    );
  });

  it('writes a tagged field only when it is not at its default', () => {
    const plain = createFetchRequest();
    expect(toKafkaJson(FetchRequestDescription, plain, 15)).not.toContain('replicaState');
    const withState = createFetchRequest({ replicaState: { replicaId: 4, replicaEpoch: 9n } });
    expect(toKafkaJson(FetchRequestDescription, withState, 15)).toContain(
      '"replicaState":{"replicaId":4,"replicaEpoch":9}',
    );
  });

  it('refuses a non-default value in a field the version lacks, as Kafka does', () => {
    const m = {
      topics: [],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: true, // versions 8-10, not ignorable
      includeTopicAuthorizedOperations: false,
    };
    const e = codecError(() => toKafkaJson(MetadataRequestDescription, m, 12));
    expect(e.reason).toBe('FIELD_NOT_IN_VERSION');
    expect(e.message).toContain('.includeClusterAuthorizedOperations');
    expect(toKafkaJson(MetadataRequestDescription, m, 10)).toContain(
      '"includeClusterAuthorizedOperations":true',
    );
  });
});

describe('fromKafkaJson', () => {
  it('refuses a missing mandatory field, a wrong type, an out-of-range int and bad JSON, naming where', () => {
    const d = MetadataRequestDescription;
    expect(codecError(() => fromKafkaJson(d, '{"topics":[]}', 12)).message).toContain(
      'MetadataRequest v12 .allowAutoTopicCreation: missing',
    );
    expect(
      codecError(() =>
        fromKafkaJson(
          d,
          '{"topics":[{"topicId":"x","name":"a"}],"allowAutoTopicCreation":true,"includeTopicAuthorizedOperations":false}',
          12,
        ),
      ).message,
    ).toContain('.topics[0].topicId');
    expect(
      codecError(() =>
        fromKafkaJson(
          ListOffsetsRequestDescription,
          '{"replicaId":2147483648,"isolationLevel":0,"topics":[]}',
          8,
        ),
      ).reason,
    ).toBe('VALUE_INVALID');
    expect(codecError(() => fromKafkaJson(d, '{"topics":', 12)).message).toContain('invalid JSON');
    expect(codecError(() => fromKafkaJson(d, '{}', 99)).reason).toBe('VERSION_UNSUPPORTED');
  });

  it('fills the fields the version lacks with their defaults, like createX', () => {
    const m = fromKafkaJson(MetadataRequestDescription, '{"topics":null}', 3);
    expect(m).toEqual({
      topics: null,
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
  });
});
