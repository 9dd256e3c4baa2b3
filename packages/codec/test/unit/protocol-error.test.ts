import { describe, expect, it } from 'vitest';
import {
  BROKER_ERRORS,
  brokerErrorInfo,
  COORDINATOR_REFRESH_CODES,
  ErrorCode,
  KafkaError,
  ProtocolError,
  protocolErrorOrNull,
} from '../../src/index.js';

describe('ProtocolError.fromCode', () => {
  it('builds a ProtocolError with Kafka name, stable code and context first', () => {
    const error = ProtocolError.fromCode(6, 'Produce v11 to broker 2, orders-3');
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toBeInstanceOf(KafkaError);
    expect(error.errorCode).toBe(6);
    expect(error.errorName).toBe('NOT_LEADER_OR_FOLLOWER');
    expect(error.code).toBe('ERR_KAFKA_BROKER_NOT_LEADER_OR_FOLLOWER');
    expect(error.message).toMatch(
      /^Produce v11 to broker 2, orders-3: NOT_LEADER_OR_FOLLOWER \(6\): /,
    );
    expect(error.name).toBe('ProtocolError');
  });

  // The axes are independent (Kafka's RetriableException and InvalidMetadataException
  // hierarchies, and the coordinator codes its clients re-find on): each row pins one combination.
  it.each([
    ['NOT_LEADER_OR_FOLLOWER', true, true, false],
    ['UNKNOWN_TOPIC_OR_PARTITION', true, true, false],
    ['NETWORK_EXCEPTION', true, true, false],
    ['KAFKA_STORAGE_ERROR', true, true, false],
    ['LISTENER_NOT_FOUND', true, true, false],
    ['ELECTION_NOT_NEEDED', true, true, false],
    ['PREFERRED_LEADER_NOT_AVAILABLE', true, true, false],
    ['FENCED_LEADER_EPOCH', true, true, false],
    ['UNKNOWN_LEADER_EPOCH', true, false, false],
    ['NOT_CONTROLLER', true, false, false],
    ['NOT_COORDINATOR', true, false, true],
    ['COORDINATOR_NOT_AVAILABLE', true, false, true],
    // Loading is not a move: retry the same coordinator.
    ['COORDINATOR_LOAD_IN_PROGRESS', true, false, false],
    ['REBALANCE_IN_PROGRESS', false, false, false],
    ['BROKER_NOT_AVAILABLE', false, false, false],
    ['STALE_CONTROLLER_EPOCH', false, false, false],
    ['TOPIC_AUTHORIZATION_FAILED', false, false, false],
    ['UNKNOWN_SERVER_ERROR', false, false, false],
  ] as const)(
    '%s: retriable=%s metadata=%s coordinator=%s',
    (name, retriable, metadata, coordinator) => {
      const error = ProtocolError.fromCode(ErrorCode[name]);
      expect([error.retriable, error.needsMetadataRefresh, error.needsCoordinatorRefresh]).toEqual([
        retriable,
        metadata,
        coordinator,
      ]);
    },
  );

  it('keeps a code the pinned release does not know, as a non-retriable error', () => {
    const error = ProtocolError.fromCode(31000, 'Fetch v17');
    expect(error.errorCode).toBe(31000);
    expect(error.errorName).toBe('UNKNOWN_SERVER_ERROR');
    expect(error.retriable).toBe(false);
    expect(error.needsMetadataRefresh).toBe(false);
    expect(error.message).toContain('31000');
  });

  it('refuses code 0, which is not an error', () => {
    expect(() => ProtocolError.fromCode(0, 'x')).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_ERROR_CODE_NONE' }),
    );
    expect(protocolErrorOrNull(0)).toBeNull();
    expect(protocolErrorOrNull(15)?.errorName).toBe('COORDINATOR_NOT_AVAILABLE');
  });
});

describe('the error table', () => {
  it('finds every row by code and only those', () => {
    for (const row of BROKER_ERRORS) expect(brokerErrorInfo(row.code)).toBe(row);
    expect(brokerErrorInfo(-2)).toBeUndefined();
    expect(brokerErrorInfo(1.5)).toBeUndefined();
    expect(BROKER_ERRORS.filter((r) => r.invalidMetadata && !r.retriable)).toEqual([]);
  });

  it('has one ErrorCode entry per row and the coordinator set inside it', () => {
    expect(Object.keys(ErrorCode).length).toBe(BROKER_ERRORS.length);
    for (const code of COORDINATOR_REFRESH_CODES)
      expect(brokerErrorInfo(code)?.retriable).toBe(true);
    expect([...COORDINATOR_REFRESH_CODES].sort()).toEqual([15, 16]);
  });
});
