import {
  createProduceResponse,
  createProduceResponsePartitionProduceResponse,
  createProduceResponseTopicProduceResponse,
  ErrorCode,
  ProduceApi,
} from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  buildFindCoordinatorRequest,
  DEFAULT_RETRY_POLICY,
  readFindCoordinatorResponse,
  responseErrors,
  retryDelayMs,
} from '../../src/index.js';

const v4Answer = {
  throttleTimeMs: 0,
  errorCode: 0,
  errorMessage: null,
  nodeId: 0,
  host: '',
  port: 0,
  coordinators: [{ key: 'g', nodeId: 2, host: 'b2', port: 9092, errorCode: 0, errorMessage: null }],
};

describe('FindCoordinator shapes', () => {
  it('puts the key where the version has it, never both', () => {
    expect(buildFindCoordinatorRequest('group', 'g', 3)).toEqual({
      key: 'g',
      keyType: 0,
      coordinatorKeys: [],
    });
    expect(buildFindCoordinatorRequest('transaction', 't', 4)).toEqual({
      key: '',
      keyType: 1,
      coordinatorKeys: ['t'],
    });
    expect(() => buildFindCoordinatorRequest('transaction', 't', 0)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_COORDINATOR_UNSUPPORTED' }),
    );
  });

  it('reads coordinators[] at v4+; the top-level fields there would say node 0', () => {
    expect(readFindCoordinatorResponse(v4Answer, 'g', 4)).toEqual({
      ok: true,
      nodeId: 2,
      host: 'b2',
      port: 9092,
    });
    // The trap: reading the old shape of a v4 answer yields the defaults, a real broker id.
    expect(readFindCoordinatorResponse(v4Answer, 'g', 3)).toMatchObject({ ok: true, nodeId: 0 });
  });

  it('reads the top-level fields below v4', () => {
    const v3 = { ...v4Answer, nodeId: 3, host: 'b3', port: 9093, coordinators: [] };
    expect(readFindCoordinatorResponse(v3, 'g', 3)).toEqual({
      ok: true,
      nodeId: 3,
      host: 'b3',
      port: 9093,
    });
  });

  it('turns a per-key error, a -1 node and a missing key into typed errors', () => {
    const busy = {
      ...v4Answer,
      coordinators: [
        { key: 'g', nodeId: -1, host: '', port: -1, errorCode: 15, errorMessage: 'loading' },
      ],
    };
    const a = readFindCoordinatorResponse(busy, 'g', 6);
    expect(a.ok).toBe(false);
    if (!a.ok) {
      expect(a.error.errorName).toBe('COORDINATOR_NOT_AVAILABLE');
      expect(a.error.needsCoordinatorRefresh).toBe(true);
      expect(a.error.message).toContain('loading');
    }
    const silent = { ...v4Answer, coordinators: [{ ...v4Answer.coordinators[0]!, nodeId: -1 }] };
    expect(readFindCoordinatorResponse(silent, 'g', 4)).toMatchObject({ ok: false });
    expect(() => readFindCoordinatorResponse(v4Answer, 'other', 4)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_COORDINATOR_MISSING' }),
    );
  });
});

describe('responseErrors', () => {
  it('finds per-topic and per-partition codes with the same taxonomy, topic names inherited', () => {
    const produceResponse = createProduceResponse({
      responses: [
        createProduceResponseTopicProduceResponse({
          name: 'orders',
          partitionResponses: [
            createProduceResponsePartitionProduceResponse({ index: 0, errorCode: 0 }),
            createProduceResponsePartitionProduceResponse({
              index: 1,
              errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER,
              errorMessage: 'moved',
            }),
          ],
        }),
        createProduceResponseTopicProduceResponse({
          name: 'events',
          partitionResponses: [
            createProduceResponsePartitionProduceResponse({
              index: 0,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            }),
          ],
        }),
      ],
    });
    const found = responseErrors(ProduceApi, produceResponse, 'Produce v11');
    expect(found.map((f) => [f.path, f.topic, f.partition, f.error.errorName])).toEqual([
      ['responses[0].partitionResponses[1]', 'orders', 1, 'NOT_LEADER_OR_FOLLOWER'],
      ['responses[1].partitionResponses[0]', 'events', 0, 'TOPIC_AUTHORIZATION_FAILED'],
    ]);
    expect(found[0]?.error.needsMetadataRefresh).toBe(true);
    expect(found[0]?.error.message).toMatch(
      /^Produce v11, orders-1 \(moved\): NOT_LEADER_OR_FOLLOWER/,
    );
    expect(responseErrors(ProduceApi, createProduceResponse({}))).toEqual([]);
  });
});

describe('retryDelayMs', () => {
  it('is zero first, then doubles with jitter and stays under the cap', () => {
    const p = { ...DEFAULT_RETRY_POLICY, backoffMs: 100, maxBackoffMs: 1000, jitter: 0.2 };
    expect(retryDelayMs(p, 1)).toBe(0);
    expect(retryDelayMs(p, 2, () => 0.5)).toBe(100);
    expect(retryDelayMs(p, 3, () => 0.5)).toBe(200);
    expect(retryDelayMs(p, 2, () => 0)).toBe(80);
    expect(retryDelayMs(p, 2, () => 0.999_999)).toBe(120);
    for (let a = 2; a < 100; a++) expect(retryDelayMs(p, a)).toBeLessThanOrEqual(1000);
    expect(retryDelayMs(p, 60, () => 0.5)).toBe(1000);
  });
});
