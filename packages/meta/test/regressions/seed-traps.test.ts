// The traps the design seeds (000, 001) describe, one test each, named after the incident.
//
// Each of these once shipped in the Rust original or a peer client and looked like it worked:
// a typo that created a topic, a coordinator lookup that answered "node 0", a first group
// lookup on a fresh cluster that failed hard, a request that set both FindCoordinator key
// fields "to be safe" and took every coordinator call down. They stay pinned here.
import {
  createFindCoordinatorRequest,
  createFindCoordinatorResponse,
  ErrorCode,
  FindCoordinatorApi,
  Writer,
} from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import {
  buildFindCoordinatorRequest,
  Cluster,
  readFindCoordinatorResponse,
  routing,
} from '../../src/index.js';
import { FakeCluster } from '../unit/fake-cluster.js';

describe('protocol traps', () => {
  it('setting both FindCoordinator key fields is an encode error at v4+, so the builder sets one', () => {
    const both = createFindCoordinatorRequest({ key: 'g', keyType: 0, coordinatorKeys: ['g'] });
    expect(() => FindCoordinatorApi.encodeRequest(new Writer(), both, 4)).toThrow(
      expect.objectContaining({ code: 'ERR_KAFKA_CODEC_FIELD_NOT_IN_VERSION' }),
    );
    expect(() =>
      FindCoordinatorApi.encodeRequest(
        new Writer(),
        buildFindCoordinatorRequest('group', 'g', 4),
        4,
      ),
    ).not.toThrow();
  });

  it('a v4 answer read with the old shape says "coordinator 0"; ours reads coordinators[]', () => {
    const answer = createFindCoordinatorResponse({
      coordinators: [{ key: 'g', nodeId: 7, host: 'h', port: 1, errorCode: 0, errorMessage: null }],
    });
    expect(answer.nodeId).toBe(0); // the top-level default: a real broker id
    expect(readFindCoordinatorResponse(answer, 'g', 4)).toMatchObject({ ok: true, nodeId: 7 });
  });

  it('the first group lookup on a fresh cluster outlasts five attempts of COORDINATOR_NOT_AVAILABLE', async () => {
    const fake = new FakeCluster(3);
    const cluster = await Cluster.connect(fake.bootstrap(), {
      connectionFactory: fake.factory,
      refreshIntervalMs: 0,
      retry: { maxAttempts: 5, backoffMs: 1, maxBackoffMs: 2, coordinatorTimeoutMs: 60_000 },
    });
    try {
      fake.findCoordinatorErrors = Array(12).fill(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(await cluster.coordinator('group', 'fresh')).toBe(fake.coordinatorNode);
    } finally {
      await cluster.close();
    }
  });

  it('an API key the table does not know is routed Any, never refused', () => {
    expect(routing(32_767)).toEqual({ kind: 'any' });
  });
});
