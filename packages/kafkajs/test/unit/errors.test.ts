import {
  AuthenticationError,
  ConnectionError,
  DeliveryTimeoutError,
  KafkaError,
  OffsetOutOfRangeError,
  OperationTimeoutError,
  ProtocolError,
  RequestTimeoutError,
} from '@kafkats/client';
import { describe, expect, it } from 'vitest';
import {
  KafkaJSConnectionClosedError,
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSOffsetOutOfRange,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
  KafkaJSSASLAuthenticationError,
  toKafkaJSError,
} from '../../src/errors.js';

describe('kafkajs errors', () => {
  it('a broker error code becomes a KafkaJSProtocolError with its type, code and retriable flag', () => {
    const cause = new ProtocolError(3, 'Produce to orders-0');
    const e = toKafkaJSError(cause) as KafkaJSProtocolError;
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect(e).toBeInstanceOf(KafkaJSError);
    expect(e.name).toBe('KafkaJSProtocolError');
    expect(e.type).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(e.code).toBe(3);
    expect(e.retriable).toBe(true);
    expect(e.cause).toBe(cause);
    // kafkajs's text for the code; kats's (naming the request) stays on the cause.
    expect(e.message).toBe('This server does not host this topic-partition');
    expect(cause.message).toMatch(/^Produce to orders-0: UNKNOWN_TOPIC_OR_PARTITION/);
    const fatal = toKafkaJSError(new ProtocolError(29)) as KafkaJSProtocolError;
    expect(fatal.type).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(fatal.retriable).toBe(false);
  });

  it('OFFSET_OUT_OF_RANGE names its partition', () => {
    const e = toKafkaJSError(new OffsetOutOfRangeError('t', 2, 10n)) as KafkaJSOffsetOutOfRange;
    expect(e).toBeInstanceOf(KafkaJSOffsetOutOfRange);
    expect(e).toBeInstanceOf(KafkaJSProtocolError);
    expect([e.topic, e.partition, e.type]).toEqual(['t', 2, 'OFFSET_OUT_OF_RANGE']);
  });

  it('connections, timeouts and authentication map to their kafkajs classes', () => {
    const refused = new ConnectionError(
      'ERR_KAFKA_CONNECTION_FAILED',
      'bootstrap (h:1)',
      'refused',
    );
    const c = toKafkaJSError(refused) as KafkaJSConnectionError;
    expect(c).toBeInstanceOf(KafkaJSConnectionError);
    expect(c.retriable).toBe(true);
    expect(c.broker).toBe('bootstrap (h:1)');
    expect(
      toKafkaJSError(new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', 'broker 1', 'closed')),
    ).toBeInstanceOf(KafkaJSConnectionClosedError);
    expect(toKafkaJSError(new RequestTimeoutError('broker 1', 'Produce', 30000))).toBeInstanceOf(
      KafkaJSRequestTimeoutError,
    );
    const auth = toKafkaJSError(
      new AuthenticationError('ERR_KAFKA_AUTHENTICATION_FAILED', 'broker 1', 'SASL PLAIN refused'),
    );
    expect(auth).toBeInstanceOf(KafkaJSSASLAuthenticationError);
    expect((auth as KafkaJSError).retriable).toBe(false);
  });

  it('running out of retries or time is KafkaJSNumberOfRetriesExceeded, not retriable', () => {
    const last = new ProtocolError(6);
    for (const timeout of [
      new DeliveryTimeoutError('3 record(s) not delivered', last),
      new OperationTimeoutError('Metadata timed out', last),
    ]) {
      const e = toKafkaJSError(timeout) as KafkaJSNumberOfRetriesExceeded;
      expect(e).toBeInstanceOf(KafkaJSNumberOfRetriesExceeded);
      expect(e).toBeInstanceOf(KafkaJSNonRetriableError);
      expect(e.retriable).toBe(false);
      expect(e.cause).toBe(timeout);
    }
  });

  it('any other kafkats error keeps its retriable flag; foreign errors pass through', () => {
    const r = toKafkaJSError(new KafkaError('ERR_X', 'x', { retriable: true })) as KafkaJSError;
    expect(r.retriable).toBe(true);
    expect(r.name).toBe('KafkaJSError');
    const n = toKafkaJSError(new KafkaError('ERR_Y', 'y')) as KafkaJSError;
    expect(n).toBeInstanceOf(KafkaJSNonRetriableError);
    const own = new TypeError('from a handler');
    expect(toKafkaJSError(own)).toBe(own);
    const kjs = new KafkaJSError('already');
    expect(toKafkaJSError(kjs)).toBe(kjs);
  });
});
