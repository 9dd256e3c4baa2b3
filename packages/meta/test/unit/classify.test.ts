import { ErrorCode, KafkaError, ProtocolError } from '@kafkats/codec';
import {
  AbortedError,
  AuthenticationError,
  BackpressureError,
  ConnectionError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from '@kafkats/wire';
import { describe, expect, it } from 'vitest';
import { classify, type TargetKind, UnknownNodeError } from '../../src/index.js';

const broker = (code: number) => new ProtocolError(code, 'test');
const lost = () => new ConnectionError('ERR_KAFKA_CONNECTION_LOST', 'broker 1', 'gone');
const closed = () => new ConnectionError('ERR_KAFKA_CONNECTION_CLOSED', 'broker 1', 'closed');

// [error, target, retry, refreshMetadata, refreshCoordinator, coordinatorWait]
const TABLE: [string, () => unknown, TargetKind, boolean, boolean, boolean, boolean][] = [
  [
    'NOT_LEADER_OR_FOLLOWER',
    () => broker(ErrorCode.NOT_LEADER_OR_FOLLOWER),
    'leader',
    true,
    true,
    false,
    false,
  ],
  [
    'UNKNOWN_TOPIC_OR_PARTITION',
    () => broker(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
    'leader',
    true,
    true,
    false,
    false,
  ],
  // The broker leads with a newer epoch than ours: metadata names the move, so refetch it.
  [
    'FENCED_LEADER_EPOCH',
    () => broker(ErrorCode.FENCED_LEADER_EPOCH),
    'leader',
    true,
    true,
    false,
    false,
  ],
  // The broker is behind the epoch we hold (often a KIP-951 hint's): Kafka's
  // UnknownLeaderEpochException is no InvalidMetadataException, so only back off and retry.
  [
    'UNKNOWN_LEADER_EPOCH',
    () => broker(ErrorCode.UNKNOWN_LEADER_EPOCH),
    'leader',
    true,
    false,
    false,
    false,
  ],
  [
    'NOT_CONTROLLER',
    () => broker(ErrorCode.NOT_CONTROLLER),
    'controller',
    true,
    true,
    false,
    false,
  ],
  [
    'NOT_COORDINATOR',
    () => broker(ErrorCode.NOT_COORDINATOR),
    'coordinator',
    true,
    false,
    true,
    true,
  ],
  [
    'COORDINATOR_NOT_AVAILABLE',
    () => broker(ErrorCode.COORDINATOR_NOT_AVAILABLE),
    'coordinator',
    true,
    false,
    true,
    true,
  ],
  [
    'COORDINATOR_LOAD_IN_PROGRESS',
    () => broker(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS),
    'coordinator',
    true,
    false,
    false,
    true,
  ],
  [
    'NOT_COORDINATOR to a non-coordinator',
    () => broker(ErrorCode.NOT_COORDINATOR),
    'node',
    true,
    false,
    false,
    false,
  ],
  [
    'REQUEST_TIMED_OUT (broker side)',
    () => broker(ErrorCode.REQUEST_TIMED_OUT),
    'leader',
    true,
    false,
    false,
    false,
  ],
  [
    'TOPIC_AUTHORIZATION_FAILED',
    () => broker(ErrorCode.TOPIC_AUTHORIZATION_FAILED),
    'leader',
    false,
    false,
    false,
    false,
  ],
  ['INVALID_REQUEST', () => broker(ErrorCode.INVALID_REQUEST), 'any', false, false, false, false],
  ['an unknown broker code', () => broker(32_000), 'any', false, false, false, false],
  ['connection lost, leader', lost, 'leader', true, true, false, false],
  ['connection lost, controller', lost, 'controller', true, true, false, false],
  ['connection lost, coordinator', lost, 'coordinator', true, false, true, false],
  ['connection lost, any', lost, 'any', true, false, false, false],
  ['connection lost, node', lost, 'node', true, false, false, false],
  [
    'request timeout, leader',
    () => new RequestTimeoutError('broker 1', 'Fetch v17', 30_000),
    'leader',
    true,
    true,
    false,
    false,
  ],
  [
    'request timeout, coordinator',
    () => new RequestTimeoutError('broker 1', 'JoinGroup v9', 30_000),
    'coordinator',
    true,
    false,
    true,
    false,
  ],
  ['closed by the caller', closed, 'leader', false, false, false, false],
  // Our own full queue says nothing about the cluster: retry, refresh nothing.
  [
    'back-pressure, leader',
    () => new BackpressureError('broker 1', 'full'),
    'leader',
    true,
    false,
    false,
    false,
  ],
  [
    'back-pressure, coordinator',
    () => new BackpressureError('broker 1', 'full'),
    'coordinator',
    true,
    false,
    false,
    false,
  ],
  [
    'back-pressure, controller',
    () => new BackpressureError('broker 1', 'full'),
    'controller',
    true,
    false,
    false,
    false,
  ],
  ['unknown node', () => new UnknownNodeError(7), 'node', true, true, false, false],
  [
    'unknown node, coordinator: looked up again',
    () => new UnknownNodeError(7),
    'coordinator',
    true,
    true,
    true,
    false,
  ],
  [
    'SASL failure',
    () => new AuthenticationError('ERR_KAFKA_AUTHENTICATION_FAILED', 'broker 1', 'no'),
    'leader',
    false,
    false,
    false,
    false,
  ],
  [
    'unsupported version',
    () => new UnsupportedVersionError('broker 1 lacks Fetch v99'),
    'leader',
    false,
    false,
    false,
    false,
  ],
  ['aborted', () => new AbortedError('Fetch', undefined), 'leader', false, false, false, false],
  [
    'a retriable KafkaError of ours',
    () => new KafkaError('ERR_KAFKA_X', 'x', { retriable: true }),
    'any',
    true,
    false,
    false,
    false,
  ],
  ['a plain Error', () => new Error('bug'), 'any', false, false, false, false],
  ['a thrown string', () => 'oops', 'any', false, false, false, false],
];

describe('classify', () => {
  it.each(TABLE)(
    '%s',
    (_name, make, target, retry, refreshMetadata, refreshCoordinator, coordinatorWait) => {
      expect(classify(make(), target)).toEqual({
        retry,
        refreshMetadata,
        refreshCoordinator,
        coordinatorWait,
      });
    },
  );

  it('reads the code, never the message or a string prefix of the code', () => {
    // The old dispatcher matched codes starting with ERR_KAFKA_CONNECTION_, which
    // ERR_KAFKA_CONNECTION_BACKPRESSURE also does.
    const backpressure = new BackpressureError('broker 1', 'full');
    expect(backpressure.code.startsWith('ERR_KAFKA_CONNECTION_')).toBe(true);
    expect(classify(backpressure, 'leader').refreshMetadata).toBe(false);
    const lookalike = new KafkaError('ERR_KAFKA_CONNECTION_LOST', 'not a ConnectionError', {
      retriable: true,
    });
    expect(classify(lookalike, 'leader')).toMatchObject({ retry: true, refreshMetadata: false });
  });

  it('agrees with the error table for every broker code it knows', async () => {
    const { BROKER_ERRORS } = await import('@kafkats/codec');
    for (const row of BROKER_ERRORS) {
      if (row.code === 0) continue;
      const v = classify(new ProtocolError(row.code), 'leader');
      expect(v.retry, row.name).toBe(row.retriable);
      expect(v.refreshMetadata, row.name).toBe(
        row.invalidMetadata || row.code === ErrorCode.NOT_CONTROLLER,
      );
      expect(v.refreshCoordinator, row.name).toBe(false);
    }
  });
});
