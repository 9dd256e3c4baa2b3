// Golden bytes produced with Kafka's own generated message classes (kafka-clients 4.x) and, for
// the tiered-storage records, its BytesApiMessageSerde as RemoteLogMetadataSerde uses it.
import { describe, expect, it } from 'vitest';
import {
  type ApiDescriptor,
  ApiVersionsApi,
  createApiVersionsRequest,
  createApiVersionsResponse,
  createApiVersionsResponseApiVersion,
  createMetadataRequest,
  createMetadataRequestTopic,
  createMetadataResponse,
  createProduceRequest,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  decodeProduceRequest,
  decodeRemoteLogMetadataValue,
  decodeRequestHeader,
  decodeResponseFrame,
  encodeApiVersionsResponse,
  encodeMetadataResponse,
  encodeRemoteLogMetadataValue,
  encodeRequestFrame,
  encodeResponseHeader,
  MetadataApi,
  ProduceApi,
  Reader,
  type RemoteLogMetadataRecord,
  readResponseCorrelationId,
  Writer,
  writeRequestFrame,
} from '../../../src/index.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/[\s|]/g, ''), 'hex');

/** A request frame without its size prefix, after checking the prefix. */
function body(frame: Buffer): Buffer {
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  return frame.subarray(4);
}

describe('request goldens (Kafka RequestHeader + message bytes)', () => {
  it('ApiVersionsRequest v3, header v2 with a non-compact clientId', () => {
    const req = createApiVersionsRequest({ clientSoftwareName: 'ts', clientSoftwareVersion: '1' });
    const frame = encodeRequestFrame(ApiVersionsApi, 3, 1, 'c', req);
    expect(body(frame).toString('hex')).toBe(
      hex('0012 0003 00000001 0001 63 00 | 03 7473 02 31 00').toString('hex'),
    );
  });

  it('MetadataRequest v12 with one named topic and auto-creation off', () => {
    const req = createMetadataRequest({
      topics: [createMetadataRequestTopic({ name: 'foo' })],
      allowAutoTopicCreation: false,
    });
    const frame = encodeRequestFrame(MetadataApi, 12, 2, 'c', req);
    expect(body(frame).toString('hex')).toBe(
      hex(
        '0003 000c 00000002 0001 63 00 | 02 00000000000000000000000000000000 04 666f6f 00 | 00 00 00',
      ).toString('hex'),
    );
  });

  it('MetadataRequest v8 with null topics (all topics), header v1', () => {
    const req = createMetadataRequest({ topics: null, allowAutoTopicCreation: false });
    const frame = encodeRequestFrame(MetadataApi, 8, 3, 'c', req);
    expect(body(frame).toString('hex')).toBe(
      hex('0003 0008 00000003 0001 63 | ffffffff 00 00 00').toString('hex'),
    );
  });

  it('request header v0 (ControlledShutdown v0; the API is retired in 4.x)', () => {
    // A hand-made descriptor: Kafka 4.x no longer lists ControlledShutdown, but the header
    // rule stays (RequestHeader v0: 0007 0000 00000004 | 00000001, no client id).
    const api: ApiDescriptor<{ brokerId: number }, unknown> = {
      ...MetadataApi,
      apiKey: 7,
      name: 'ControlledShutdown',
      requestHeaderVersion: () => 0,
      encodeRequest: (w: Writer, m: { brokerId: number }) => w.writeInt32(m.brokerId),
    } as unknown as ApiDescriptor<{ brokerId: number }, unknown>;
    const frame = encodeRequestFrame(api, 0, 4, 'ignored', { brokerId: 1 });
    expect(body(frame).toString('hex')).toBe('0007000000000004' + '00000001');
  });

  it('request header v2 decodes back', () => {
    const r = new Reader(hex('0012 0003 00000001 0001 63 00'));
    expect(decodeRequestHeader(r, 2)).toEqual({
      requestApiKey: 18,
      requestApiVersion: 3,
      correlationId: 1,
      clientId: 'c',
    });
  });
});

describe('response goldens (Kafka ResponseHeader + message bytes)', () => {
  it('ApiVersionsResponse v3 uses response header v0 (no tagged byte)', () => {
    expect(ApiVersionsApi.responseHeaderVersion(3)).toBe(0);
    const w = new Writer();
    encodeResponseHeader(w, { correlationId: 1 }, 0);
    encodeApiVersionsResponse(
      w,
      createApiVersionsResponse({
        apiKeys: [
          createApiVersionsResponseApiVersion({ apiKey: 18, minVersion: 0, maxVersion: 4 }),
        ],
      }),
      3,
    );
    const bytes = w.finish();
    expect(bytes.toString('hex')).toBe(
      hex('00000001 | 0000 02 0012 0000 0004 00 00000000 00').toString('hex'),
    );
    const { correlationId, body } = decodeResponseFrame(ApiVersionsApi, 3, Buffer.from(bytes));
    expect(correlationId).toBe(1);
    expect(body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
  });

  it('MetadataResponse v12 with header v1', () => {
    const w = new Writer();
    encodeResponseHeader(w, { correlationId: 2 }, 1);
    encodeMetadataResponse(w, createMetadataResponse({ clusterId: 'x', controllerId: 1 }), 12);
    const bytes = Buffer.from(w.finish());
    expect(bytes.toString('hex')).toBe(
      hex('00000002 00 | 00000000 01 02 78 00000001 01 00').toString('hex'),
    );
    expect(readResponseCorrelationId(bytes)).toBe(2);
    const { body } = decodeResponseFrame(MetadataApi, 12, bytes);
    expect(body.clusterId).toBe('x');
    expect(body.controllerId).toBe(1);
  });
});

describe('tiered-storage metadata record goldens (RemoteLogMetadataSerde)', () => {
  const topicId = 'Bp9TDduJRGa9Q5rlvCJOxg';
  const segmentId = 'AAAAAAAAAAAAAAAAAAAAAQ';
  const tip = { name: 'foo', id: topicId, partition: 0 };
  const epochs = [
    { leaderEpoch: 0, offset: 0n },
    { leaderEpoch: 1, offset: 20n },
  ];
  const cases: [string, RemoteLogMetadataRecord, string][] = [
    [
      'RemoteLogSegmentMetadataRecord',
      {
        apiKey: 0,
        version: 0,
        record: {
          remoteLogSegmentId: { topicIdPartition: tip, id: segmentId },
          startOffset: 0n,
          endOffset: 100n,
          brokerId: 1,
          maxTimestampMs: -1n,
          eventTimestampMs: 123n,
          segmentLeaderEpochs: epochs,
          segmentSizeInBytes: 1024,
          customMetadata: null,
          remoteLogSegmentState: 0,
          txnIndexEmpty: false,
        },
      },
      '01000004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000000000000000000000000006400000001ffffffffffffffff000000000000007b03000000000000000000000000000000000100000000000000140000000400000000',
    ],
    [
      'RemoteLogSegmentMetadataRecord with custom metadata',
      {
        apiKey: 0,
        version: 0,
        record: {
          remoteLogSegmentId: { topicIdPartition: tip, id: segmentId },
          startOffset: 0n,
          endOffset: 100n,
          brokerId: 1,
          maxTimestampMs: -1n,
          eventTimestampMs: 123n,
          segmentLeaderEpochs: epochs,
          segmentSizeInBytes: 1024,
          customMetadata: Buffer.from([0, 1, 2, 3]),
          remoteLogSegmentState: 0,
          txnIndexEmpty: false,
        },
      },
      '01000004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000000000000000000000000006400000001ffffffffffffffff000000000000007b0300000000000000000000000000000000010000000000000014000000040005000102030000',
    ],
    [
      'RemoteLogSegmentMetadataUpdateRecord',
      {
        apiKey: 1,
        version: 0,
        record: {
          remoteLogSegmentId: { topicIdPartition: tip, id: segmentId },
          brokerId: 2,
          eventTimestampMs: 456n,
          customMetadata: null,
          remoteLogSegmentState: 1,
        },
      },
      '01010004666f6f069f530ddb894466bd439ae5bc224ec6000000000000000000000000000000000000000001000000000200000000000001c8000100',
    ],
    [
      'RemotePartitionDeleteMetadataRecord',
      {
        apiKey: 2,
        version: 0,
        record: {
          topicIdPartition: tip,
          brokerId: 0,
          eventTimestampMs: 789n,
          remotePartitionDeleteState: 0,
        },
      },
      '01020004666f6f069f530ddb894466bd439ae5bc224ec600000000000000000000000000000003150000',
    ],
    [
      'RemoteLogSegmentMetadataSnapshotRecord',
      {
        apiKey: 3,
        version: 0,
        record: {
          segmentId,
          startOffset: 0n,
          endOffset: 100n,
          brokerId: 1,
          maxTimestampMs: -1n,
          eventTimestampMs: 123n,
          segmentLeaderEpochs: epochs,
          segmentSizeInBytes: 1024,
          customMetadata: null,
          remoteLogSegmentState: 1,
          txnIndexEmpty: false,
        },
      },
      '010300000000000000000000000000000000010000000000000000000000000000006400000001ffffffffffffffff000000000000007b03000000000000000000000000000000000100000000000000140000000400000100',
    ],
  ];
  for (const [name, value, golden] of cases) {
    it(`${name} encodes and decodes byte for byte`, () => {
      expect(encodeRemoteLogMetadataValue(value).toString('hex')).toBe(golden);
      expect(decodeRemoteLogMetadataValue(Buffer.from(golden, 'hex'))).toEqual(value);
    });
  }

  it('rejects frame version 0, a trailing byte and an unknown version', () => {
    const golden = cases[0]![2];
    expect(() => decodeRemoteLogMetadataValue(Buffer.from(`00${golden.slice(2)}`, 'hex'))).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_CODEC_UNSUPPORTED' }),
    );
    expect(() => decodeRemoteLogMetadataValue(Buffer.from(`${golden}00`, 'hex'))).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_CODEC_TRAILING_BYTES' }),
    );
    expect(() =>
      decodeRemoteLogMetadataValue(Buffer.from(`0100${'01'}${golden.slice(6)}`, 'hex')),
    ).toThrow(expect.objectContaining({ code: 'ERR_KAFKA_CODEC_VERSION_UNSUPPORTED' }));
  });
});

describe('writeRequestFrame', () => {
  it('appends frames back to back, identical to encodeRequestFrame, and rolls back on error', () => {
    const w = new Writer(8);
    const a = createMetadataRequest({ topics: null, allowAutoTopicCreation: false });
    const first = writeRequestFrame(w, MetadataApi, 8, 3, 'c', a);
    const second = writeRequestFrame(w, MetadataApi, 12, 4, 'c', createMetadataRequest());
    expect(first).toBe(0);
    const both = Buffer.from(w.finish());
    const one = encodeRequestFrame(MetadataApi, 8, 3, 'c', a);
    expect(both.subarray(0, second).equals(one)).toBe(true);
    expect(
      both
        .subarray(second)
        .equals(encodeRequestFrame(MetadataApi, 12, 4, 'c', createMetadataRequest())),
    ).toBe(true);
    expect(() => writeRequestFrame(w, MetadataApi, 3, 5, 'c', a)).toThrow(
      /MetadataRequest v3 \.allowAutoTopicCreation/,
    );
    expect(w.pos).toBe(both.length);
  });

  it('frames a Produce request in one buffer sized from its record batches, bytes unchanged', () => {
    // 600,000 bytes of batches: a writer doubling from 256 bytes would end in a 655,360-byte
    // buffer after copying its contents a dozen times.
    const records = [Buffer.alloc(350_000, 1), Buffer.alloc(250_000, 2)];
    const request = createProduceRequest({
      acks: -1,
      timeoutMs: 30_000,
      topicData: [
        createProduceRequestTopicProduceData({
          name: 'orders',
          partitionData: records.map((r, index) =>
            createProduceRequestPartitionProduceData({ index, records: r }),
          ),
        }),
      ],
    });
    const frame = encodeRequestFrame(ProduceApi, 9, 7, 'c', request);
    expect(frame.buffer.byteLength).toBeGreaterThanOrEqual(frame.length);
    expect(frame.buffer.byteLength - frame.length).toBeLessThan(1024);
    const appended = new Writer(8);
    writeRequestFrame(appended, ProduceApi, 9, 7, 'c', request);
    expect(Buffer.from(appended.finish()).equals(frame)).toBe(true);
    const body = new Reader(frame.subarray(4 + 2 + 2 + 4 + 2 + 1 + 1));
    const back = decodeProduceRequest(body, 9);
    expect(back.topicData[0]!.partitionData.map((p) => p.records!.length)).toEqual([
      350_000, 250_000,
    ]);
  });
});
