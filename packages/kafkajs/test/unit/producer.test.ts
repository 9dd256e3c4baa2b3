// The facade producer's checks that need no broker: kafkajs's errors for bad calls, calls
// before connect, transactions without an id, events, and the option mapping onto kats.
import { createRequire } from 'node:module';
import { ProducerBlockedError, ProtocolError, RecordTooLargeError } from '@kafkats/client';
import { describe, expect, it } from 'vitest';
import { ClientContext } from '../../src/config.js';
import {
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from '../../src/errors.js';
import { producerError, transactionOffsets } from '../../src/internal/producer-client.js';
import {
  acksFor,
  codecFor,
  katsProducerOptions,
  retryBudgetMs,
  type SharedProducerSettings,
} from '../../src/internal/producer-options.js';
import {
  CompressionCodecs,
  CompressionTypes,
  createProducer,
  type ProducerConfig,
} from '../../src/producer.js';

const require = createRequire(import.meta.url);
const kafkajs = require('kafkajs') as { CompressionTypes: Record<string, number> };

// As `new Kafka(config).producer(options)` makes them.
const kafka = () => {
  const context = new ClientContext({ brokers: ['127.0.0.1:1'], logLevel: 0 });
  return { producer: (config: ProducerConfig = {}) => createProducer(context, config) };
};

describe('kafkajs producer without a broker', () => {
  it('rejects bad sends with the errors kafkajs gives', async () => {
    const producer = kafka().producer();
    await expect(producer.send({ acks: 1, topic: null as never, messages: [] })).rejects.toThrow(
      new KafkaJSNonRetriableError('Invalid topic'),
    );
    await expect(
      producer.send({ acks: 1, topic: 'orders', messages: null as never }),
    ).rejects.toHaveProperty('message', 'Invalid messages array [null] for topic "orders"');
    await expect(
      producer.send({ acks: 1, topic: 'orders', messages: [{ foo: 'bar' } as never] }),
    ).rejects.toHaveProperty(
      'message',
      'Invalid message without value for topic "orders": {"foo":"bar"}',
    );
  });

  it('rejects a send before connect with a retriable KafkaJSError', async () => {
    const producer = kafka().producer();
    const e = await producer
      .send({ topic: 'orders', messages: [{ key: 'k', value: 'v' }] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KafkaJSError);
    expect((e as KafkaJSError).message).toMatch(/The producer is disconnected/);
    expect((e as KafkaJSError).retriable).toBe(true);
  });

  it('an idempotent producer refuses acks other than -1, and retries below 1', async () => {
    const producer = kafka().producer({ idempotent: true });
    for (const acks of [0, 1]) {
      await expect(
        producer.send({ acks, topic: 'orders', messages: [{ value: 'v' }] }),
      ).rejects.toEqual(
        new KafkaJSNonRetriableError(
          "Not requiring ack for all messages invalidates the idempotent producer's EoS guarantees",
        ),
      );
    }
    expect(() => kafka().producer({ idempotent: true, retry: { retries: 0 } })).toThrow(
      'Idempotent producer must allow retries to protect against transient errors',
    );
  });

  it('isIdempotent is true unless idempotent: false (kats idempotent by default)', () => {
    expect(kafka().producer().isIdempotent()).toBe(true);
    expect(kafka().producer({ idempotent: true }).isIdempotent()).toBe(true);
    expect(kafka().producer({ idempotent: false }).isIdempotent()).toBe(false);
  });

  it('transaction() needs a transactionalId', async () => {
    await expect(kafka().producer().transaction()).rejects.toThrow(
      new KafkaJSNonRetriableError('Must provide transactional id for transactional producer'),
    );
  });

  it('on() refuses an unknown event and emits DISCONNECT on disconnect', async () => {
    const producer = kafka().producer();
    expect(() => producer.on('NON_EXISTENT_EVENT' as never, () => {})).toThrow(
      /Event name should be one of producer.events.CONNECT, producer.events.DISCONNECT/,
    );
    const events: string[] = [];
    producer.on(producer.events.DISCONNECT, (e) => events.push(e.type));
    await producer.disconnect();
    expect(events).toEqual(['producer.disconnect']);
    expect(producer.events).toEqual({
      CONNECT: 'producer.connect',
      DISCONNECT: 'producer.disconnect',
      REQUEST: 'producer.network.request',
      REQUEST_TIMEOUT: 'producer.network.request_timeout',
      REQUEST_QUEUE_SIZE: 'producer.network.request_queue_size',
    });
  });

  it('gives its logger', () => {
    const logger = kafka().producer().logger();
    expect(typeof logger.info).toBe('function');
    expect(typeof logger.namespace).toBe('function');
  });
});

describe('compression', () => {
  it("CompressionTypes has kafkajs's numbers", () => {
    expect({ ...CompressionTypes }).toEqual(kafkajs.CompressionTypes);
  });

  it('maps every CompressionTypes value to a kats codec and refuses others', () => {
    expect(codecFor(undefined)).toBe('none');
    expect(codecFor(CompressionTypes.None)).toBe('none');
    expect(codecFor(CompressionTypes.GZIP)).toBe('gzip');
    expect(codecFor(CompressionTypes.Snappy)).toBe('snappy');
    expect(codecFor(CompressionTypes.LZ4)).toBe('lz4');
    expect(codecFor(CompressionTypes.ZSTD)).toBe('zstd');
    expect(() => codecFor(7)).toThrow(KafkaJSNonRetriableError);
  });

  it('CompressionCodecs accepts an application codec and starts with working kats codecs', async () => {
    const data = Buffer.from('a'.repeat(1000));
    for (const type of [CompressionTypes.GZIP, CompressionTypes.ZSTD, CompressionTypes.LZ4]) {
      const codec = CompressionCodecs[type]();
      const packed = await codec.compress({ buffer: data });
      expect(packed.length).toBeLessThan(data.length);
      expect(await codec.decompress(packed)).toEqual(data);
    }
    const mine = () => ({ compress: async () => Buffer.alloc(0), decompress: async () => data });
    CompressionCodecs[CompressionTypes.Snappy] = mine;
    expect(CompressionCodecs[CompressionTypes.Snappy]).toBe(mine);
  });
});

describe('options onto kats', () => {
  const shared: SharedProducerSettings = {
    retry: {},
    idempotent: undefined,
    maxInFlightRequests: undefined,
    requestTimeoutMs: 30_000,
    partitioner: undefined,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  };

  it("kafkajs's default retries give about 9.3 s of waiting", () => {
    expect(retryBudgetMs({})).toBe(300 + 600 + 1200 + 2400 + 4800);
    expect(retryBudgetMs({ retries: 2, initialRetryTime: 100, maxRetryTime: 150 })).toBe(250);
    expect(retryBudgetMs({ retries: Number.MAX_SAFE_INTEGER })).toBe(Number.POSITIVE_INFINITY);
  });

  it('acks -1 is idempotent unless idempotent: false; acks 0 and 1 never are', () => {
    expect(katsProducerOptions(shared, -1, 'none', undefined).idempotent).toBe(true);
    expect(
      katsProducerOptions({ ...shared, idempotent: false }, -1, 'none', undefined).idempotent,
    ).toBe(false);
    expect(katsProducerOptions(shared, 1, 'gzip', undefined)).toMatchObject({
      acks: 1,
      idempotent: false,
      compression: 'gzip',
    });
  });

  it('sets the wait for metadata and the delivery timeout from the retry budget', () => {
    const o = katsProducerOptions(shared, -1, 'none', 5000);
    expect(o.maxBlockMs).toBe(9300);
    expect(o.requestTimeoutMs).toBe(5000);
    expect(o.deliveryTimeoutMs).toBe(5000 + 9300);
    expect(o.lingerMs).toBe(0);
  });

  it('gives transactional coordinator calls at least 60 s', () => {
    const o = katsProducerOptions(shared, -1, 'none', undefined, {
      transactionalId: 'tx',
      transactionTimeoutMs: 5000,
    });
    expect(o).toMatchObject({
      transactionalId: 'tx',
      transactionTimeoutMs: 5000,
      idempotent: true,
      maxBlockMs: 60_000,
    });
  });

  it('lowers maxInFlightRequests to 5 while idempotent', () => {
    const s = { ...shared, maxInFlightRequests: 20 };
    expect(katsProducerOptions(s, -1, 'none', undefined).maxInFlight).toBe(5);
    expect(katsProducerOptions(s, 1, 'none', undefined).maxInFlight).toBe(20);
  });

  it('refuses acks the broker would refuse, with its error', () => {
    expect(acksFor(undefined)).toBe(-1);
    const e = (() => {
      try {
        acksFor(2);
      } catch (x) {
        return x;
      }
    })() as KafkaJSProtocolError;
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e.type).toBe('INVALID_REQUIRED_ACKS');
    expect(e.retriable).toBe(false);
  });
});

describe('errors and offsets', () => {
  it('a topic still missing after the wait is KafkaJSNumberOfRetriesExceeded over the broker error', () => {
    const missing = new ProducerBlockedError(
      'ERR_KAFKA_PRODUCER_METADATA_TIMEOUT',
      'topic "x" does not exist',
      'x',
      new ProtocolError(3),
    );
    const e = producerError(missing) as KafkaJSNumberOfRetriesExceeded;
    expect(e).toBeInstanceOf(KafkaJSNumberOfRetriesExceeded);
    expect(e.retriable).toBe(false);
    expect(e.cause).toBe(missing);
    expect(e.message).toMatch(/./);
  });

  it('a record too large for kats is the broker error kafkajs users catch', () => {
    const e = producerError(
      new RecordTooLargeError('a record of 2000000 bytes'),
    ) as KafkaJSProtocolError;
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e.type).toBe('MESSAGE_TOO_LARGE');
    expect(e.code).toBe(10);
    expect(e.retriable).toBe(false);
  });

  it('sendOffsets offsets are strings of digits, turned into bigints', () => {
    expect(
      transactionOffsets({
        consumerGroupId: 'g',
        topics: [{ topic: 't', partitions: [{ partition: 1, offset: '42' }] }],
      }),
    ).toEqual({ groupId: 'g', list: [{ topic: 't', partition: 1, offset: 42n }] });
    expect(() =>
      transactionOffsets({
        consumerGroupId: 'g',
        topics: [{ topic: 't', partitions: [{ partition: 1, offset: 'x' }] }],
      }),
    ).toThrow(KafkaJSNonRetriableError);
    expect(() => transactionOffsets({ consumerGroupId: '', topics: [] })).toThrow(
      /Invalid consumer group id/,
    );
  });

  it("sendOffsets takes partitions as strings, as kafkajs's uncommittedOffsets() gives them", () => {
    const fromConsumer = { partition: '3', offset: '7' } as unknown as {
      partition: number;
      offset: string;
    };
    expect(
      transactionOffsets({
        consumerGroupId: 'g',
        topics: [{ topic: 't', partitions: [fromConsumer] }],
      }).list,
    ).toEqual([{ topic: 't', partition: 3, offset: 7n }]);
    const bad = { partition: 'x', offset: '7' } as unknown as { partition: number; offset: string };
    expect(() =>
      transactionOffsets({ consumerGroupId: 'g', topics: [{ topic: 't', partitions: [bad] }] }),
    ).toThrow('Invalid partition x for topic "t"');
  });
});
