import { MetadataApi } from '@kafkats/codec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerConnection, type ConnectionState } from '../../src/index.js';
import { startCodecBroker } from '../helpers/codec-broker.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('reconnect backoff (fake timers)', () => {
  it('waits 100, 200, 400 ms between failed attempts and starts over after a success', async () => {
    const broker = await startCodecBroker((raw, _conn, reply) => {
      if (raw.apiKey === MetadataApi.apiKey) reply(MetadataApi, MetadataApi.createResponse({}));
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const start = Date.now();
    const calls: number[] = [];
    let failuresLeft = 3;
    const c = new BrokerConnection({
      host: 'kafka.test',
      port: broker.port,
      reconnectBackoffMs: 100,
      reconnectBackoffMaxMs: 10_000,
      requestTimeoutMs: 60_000,
      random: () => 0.5, // jitter factor exactly 1
      resolver: async () => {
        calls.push(Date.now() - start);
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('SERVFAIL');
        }
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const states: ConnectionState[] = [];
    c.on('state', (s) => states.push(s));
    try {
      const pending = c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      await vi.advanceTimersByTimeAsync(99);
      expect(calls).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toEqual([0, 100]);
      await vi.advanceTimersByTimeAsync(200);
      expect(calls).toEqual([0, 100, 300]);
      await vi.advanceTimersByTimeAsync(399);
      expect(calls).toEqual([0, 100, 300]);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toEqual([0, 100, 300, 700]);
      await pending;
      expect(c.state).toBe('ready');
      expect(states.filter((s) => s === 'backing-off')).toHaveLength(3);

      // After a success the backoff starts again from reconnectBackoffMs.
      failuresLeft = 2;
      const gone = new Promise((r) => c.once('disconnect', r));
      broker.dropConnections();
      await gone;
      const t0 = Date.now() - start;
      const again = c.send(
        MetadataApi,
        MetadataApi.createRequest({ topics: [], allowAutoTopicCreation: false }),
      );
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(100);
      await vi.advanceTimersByTimeAsync(200);
      await again;
      expect(calls.slice(4).map((t) => t - t0)).toEqual([0, 100, 300]);
    } finally {
      await c.close();
      vi.useRealTimers();
      await broker.close();
    }
  });
});
