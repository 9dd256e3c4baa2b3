// The conformance oracle's client: one JVM running Kafka's own generated classes, answering JSON
// lines. These pin the pipe conventions the conformance suite relies on (int64 as text both ways,
// Kafka's exceptions verbatim, pipelined answers in order) against the pinned jars.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Oracle, OracleError, startOracle } from '../../src/index.js';

let oracle: Oracle;

beforeAll(async () => {
  oracle = await startOracle();
}, 60_000);

afterAll(async () => {
  await oracle.close();
});

describe('startOracle', () => {
  it("encodes with Kafka's generated write: Metadata v0 with no topics is an empty int32 array", async () => {
    const [result] = await oracle.encode([
      { name: 'MetadataRequest', version: 0, json: '{"topics":[]}' },
    ]);
    expect(result).toEqual({ hex: '00000000' });
  });

  it("reports Kafka's refusal verbatim (FindCoordinator coordinatorKeys below v4)", async () => {
    const [result] = await oracle.encode([
      {
        name: 'FindCoordinatorRequest',
        version: 3,
        json: '{"key":"g","keyType":0,"coordinatorKeys":["g"]}',
      },
    ]);
    expect(result).toEqual({
      error: {
        class: 'org.apache.kafka.common.errors.UnsupportedVersionException',
        message: 'Attempted to write a non-default coordinatorKeys at version 3',
      },
    });
  });

  it('carries int64 beyond 2^53 exactly, in and out', async () => {
    const big = '9007199254740993'; // 2^53 + 1: a JavaScript number would round it
    const [encoded] = await oracle.encode([
      {
        name: 'InitProducerIdResponse',
        version: 0,
        json: `{"throttleTimeMs":0,"errorCode":0,"producerId":${big},"producerEpoch":1}`,
      },
    ]);
    expect(encoded).toEqual({ hex: '00000000000000200000000000010001' });
    const [decoded] = await oracle.decode([
      {
        name: 'InitProducerIdResponse',
        version: 0,
        bytes: Buffer.from('00000000000000200000000000010001', 'hex'),
      },
    ]);
    expect(decoded).toEqual({
      json: { throttleTimeMs: '0', errorCode: '0', producerId: big, producerEpoch: '1' },
      trailing: 0,
    });
  });

  it('keeps unknown tagged fields through a decode, and counts bytes Kafka left unread', async () => {
    // RequestHeader v2: api key 3, version 12, correlation 5, client id "c", one raw tag 7 = 01 02.
    const bytes = Buffer.from('0003000c0000000500016301070201029999', 'hex');
    const [decoded] = await oracle.decode([{ name: 'RequestHeader', version: 2, bytes }]);
    expect(decoded).toEqual({
      json: {
        requestApiKey: '3',
        requestApiVersion: '12',
        correlationId: '5',
        clientId: 'c',
        _unknownTaggedFields: [{ tag: 7, data: 'AQI=' }],
      },
      trailing: 2,
    });
  });

  it('answers an unknown message name with the Java exception', async () => {
    const [result] = await oracle.encode([{ name: 'NoSuchRequest', version: 0, json: '{}' }]);
    expect(result).toMatchObject({ error: { class: 'java.lang.ClassNotFoundException' } });
  });

  it('answers pipelined requests in order', async () => {
    const answers = await Promise.all(
      [0, 1, 2, 3].map((v) =>
        oracle.encode([{ name: 'MetadataRequest', version: v, json: '{"topics":[{"name":"t"}]}' }]),
      ),
    );
    // v0-v3 share one layout: int32 count, then the int16-length name.
    expect(answers.map(([a]) => a)).toEqual(
      [0, 1, 2, 3].map(() => ({ hex: '000000010001' + '74' })),
    );
  });

  it("builds a batch with MemoryRecordsBuilder and reads it back with Kafka's reader", async () => {
    const [built] = await oracle.buildBatches([
      {
        compression: 'none',
        baseOffset: '5',
        producerId: '7',
        producerEpoch: 1,
        baseSequence: 3,
        isTransactional: false,
        partitionLeaderEpoch: -1,
        records: [
          {
            offsetDelta: 0,
            timestamp: '1000',
            key: null,
            value: 'AQI=',
            headers: [{ key: 'h', value: null }],
          },
        ],
      },
    ]);
    expect(built).toHaveProperty('hex');
    const [read] = await oracle.decodeBatches([Buffer.from((built as { hex: string }).hex, 'hex')]);
    expect(read).toMatchObject({
      batches: [
        {
          magic: 2,
          baseOffset: '5',
          lastOffset: '5',
          compression: 'none',
          producerId: '7',
          producerEpoch: 1,
          baseSequence: 3,
          records: [
            {
              offset: '5',
              timestamp: '1000',
              key: null,
              value: 'AQI=',
              headers: [{ key: 'h', value: null }],
            },
          ],
        },
      ],
    });
  });

  it('serves the schemas shipped in the pinned jars', async () => {
    const files = await oracle.schemas('kafka-storage', 'message/');
    expect(files.map((f) => f.path).sort()).toContain(
      'message/RemoteLogSegmentMetadataRecord.json',
    );
  });

  it('fails pending and later calls with ERR_KAFKA_TESTKIT_ORACLE_EXITED once the JVM is gone', async () => {
    const own = await startOracle();
    await own.close();
    await expect(
      own.encode([{ name: 'MetadataRequest', version: 0, json: '{"topics":[]}' }]),
    ).rejects.toThrow(OracleError);
    await expect(
      own.encode([{ name: 'MetadataRequest', version: 0, json: '{"topics":[]}' }]),
    ).rejects.toMatchObject({
      code: 'ERR_KAFKA_TESTKIT_ORACLE_EXITED',
      retriable: false,
    });
  }, 60_000);
});
