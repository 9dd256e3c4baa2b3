import { ConnectionError } from '@kafkats/wire';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerPool } from '../../src/index.js';
import { FakeCluster, fakeApi } from './fake-cluster.js';

function learn(pool: BrokerPool, fake: FakeCluster): void {
  pool.learnAddresses(
    fake.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: null })),
  );
}

describe('BrokerPool', () => {
  it('opens one socket for twenty concurrent callers', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    let release!: () => void;
    fake.broker(1).connectGate = new Promise((r) => (release = r));
    const callers = Array.from({ length: 20 }, () => pool.get({ nodeId: 1 }));
    release();
    const connections = await Promise.all(callers);
    expect(new Set(connections).size).toBe(1);
    expect(fake.connects).toEqual(['broker 1 (127.0.0.1:9001)']);
    expect(pool.connectionCount()).toBe(1);
    await pool.close();
  });

  it('does not hold up a healthy broker behind a slow connect to a dead one', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    fake.broker(1).connectGate = new Promise(() => {}); // never answers
    const stuck = pool.get({ nodeId: 1 });
    const healthy = await pool.get({ nodeId: 2 });
    expect(healthy.closed).toBe(false);
    let settled = false;
    void stuck.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await pool.close();
  });

  // any() used to try known brokers one after another: with broker 1 hanging in its connect,
  // sendAny, refreshes and FindCoordinator waited the whole connect timeout although brokers 2
  // and 3 were healthy. It now staggers: the next broker is dialled after anyStaggerMs.
  it('any() reaches a healthy broker while the first one it tries hangs in its connect', async () => {
    const fake = new FakeCluster(3);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory, { anyStaggerMs: 20 });
    learn(pool, fake);
    for (const id of [1, 2, 3]) fake.broker(id).connectGate = new Promise(() => {});
    delete fake.broker(2).connectGate;
    const connection = await pool.any();
    expect(connection.closed).toBe(false);
    expect(fake.connects).toContain('broker 2 (127.0.0.1:9002)');
    await pool.close();
  });

  it('any() rejects with the last error once every broker and bootstrap address failed', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory, { anyStaggerMs: 20 });
    learn(pool, fake);
    for (const b of fake.brokers) b.up = false;
    await expect(pool.any()).rejects.toMatchObject({ code: 'ERR_KAFKA_CONNECTION_FAILED' });
    await pool.close();
  });

  it('closes the old connection of a node that comes back on a new port and opens a new one', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    const old = await pool.get({ nodeId: 2 });
    fake.broker(2).port = 9502;
    learn(pool, fake);
    expect(old.closed).toBe(true);
    const fresh = await pool.get({ nodeId: 2 });
    expect(fresh).not.toBe(old);
    expect(fake.connects.at(-1)).toBe('broker 2 (127.0.0.1:9502)');
    await pool.close();
  });

  it('falls back to the bootstrap addresses when every known broker is unreachable', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(['proxy.example:9999'], fake.factory);
    learn(pool, fake);
    for (const b of fake.brokers) b.up = false;
    // The roll put broker 1 behind the stable bootstrap address.
    fake.brokers.push({ nodeId: 1, host: 'proxy.example', port: 9999, up: true });
    const connection = await pool.any();
    expect(connection.closed).toBe(false);
    expect(fake.connects.at(-1)).toBe('bootstrap proxy.example:9999');
    await pool.close();
  });

  it('reuses an open bootstrap connection until metadata names the brokers', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    const a = await pool.any();
    const b = await pool.any();
    expect(b).toBe(a);
    expect(fake.connects).toEqual(['bootstrap 127.0.0.1:9001']);
    await pool.close();
  });

  it('rejects an unknown node id with a retriable typed error', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    await expect(pool.get({ nodeId: 7 })).rejects.toMatchObject({
      code: 'ERR_KAFKA_POOL_UNKNOWN_NODE',
      retriable: true,
    });
    await pool.close();
    await expect(pool.get({ bootstrap: '127.0.0.1:9001' })).rejects.toMatchObject({
      code: 'ERR_KAFKA_CLUSTER_CLOSED',
    });
  });

  it('reconnects after a drop and tells listeners which broker went down', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    const down: number[] = [];
    pool.onBrokerDown((id) => down.push(id));
    const first = await pool.get({ nodeId: 1 });
    fake.drop(1);
    expect(down).toEqual([1]);
    const second = await pool.get({ nodeId: 1 });
    expect(second).not.toBe(first);
    expect(fake.connects.length).toBe(2);
    await pool.close();
  });

  describe('reconnect backoff', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const failingPool = () => {
      const fake = new FakeCluster(1);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory, {
        reconnectBackoffMs: 1_000,
        reconnectBackoffMaxMs: 4_000,
      });
      learn(pool, fake);
      fake.broker(1).up = false;
      return { fake, pool };
    };

    it('waits out a jittered delay after a failed connect before dialling again', async () => {
      vi.useFakeTimers();
      const { fake, pool } = failingPool();
      await expect(pool.get({ nodeId: 1 })).rejects.toBeDefined();
      expect(fake.connects.length).toBe(1);
      fake.broker(1).up = true;
      const next = pool.get({ nodeId: 1 });
      // 1000 ms +/- 20% jitter: nothing is dialled before 800 ms, the dial is made by 1200 ms.
      await vi.advanceTimersByTimeAsync(790);
      expect(fake.connects.length).toBe(1);
      await vi.advanceTimersByTimeAsync(420);
      expect(fake.connects.length).toBe(2);
      expect((await next).closed).toBe(false);
      await pool.close();
    });

    it('waits 100, 200, 400 ms between failed connects and starts over after a success', async () => {
      vi.useFakeTimers();
      const fake = new FakeCluster(1);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory, {
        reconnectBackoffMs: 100,
        reconnectBackoffMaxMs: 10_000,
        random: () => 0.5, // jitter factor exactly 1
      });
      learn(pool, fake);
      fake.broker(1).up = false;
      const dialsAt: number[] = [];
      const start = Date.now();
      const dial = async () => {
        const n = fake.connects.length;
        const attempt = pool.get({ nodeId: 1 }).catch(() => undefined);
        while (fake.connects.length === n) await vi.advanceTimersByTimeAsync(1);
        dialsAt.push(Date.now() - start);
        return attempt;
      };
      for (let i = 0; i < 4; i++) await dial();
      expect(dialsAt).toEqual([0, 100, 300, 700]);
      fake.broker(1).up = true;
      const c = await dial();
      expect(c?.closed).toBe(false);
      // A success resets the backoff: after the next drop, the first failed dial waits 100 again.
      fake.broker(1).up = false;
      fake.drop(1);
      dialsAt.length = 0;
      await dial();
      await dial();
      await dial();
      expect(dialsAt.map((t) => t - (dialsAt[0] as number))).toEqual([0, 100, 300]);
      await pool.close();
    });

    it('caps the delay however many connects failed', async () => {
      vi.useFakeTimers();
      const { fake, pool } = failingPool();
      for (let i = 0; i < 8; i++) {
        const attempt = pool.get({ nodeId: 1 }).catch(() => undefined);
        await vi.advanceTimersByTimeAsync(4_000);
        // Uncapped, the delay would outgrow 4000 ms by the fourth failure and this dial not happen.
        expect(fake.connects.length).toBe(i + 1);
        await attempt;
      }
      expect(fake.connects.length).toBe(8);
      fake.broker(1).up = true;
      const next = pool.get({ nodeId: 1 });
      // 1000 * 2^7 uncapped; the cap is 4000 ms, jitter included.
      await vi.advanceTimersByTimeAsync(4_000);
      expect(fake.connects.length).toBe(9);
      expect((await next).closed).toBe(false);
      await pool.close();
    });
  });

  it('adopts the bootstrap connection to an address metadata names as a node: one socket per broker', async () => {
    const fake = new FakeCluster(2);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    const first = await pool.any();
    expect(fake.connects).toEqual(['bootstrap 127.0.0.1:9001']);
    learn(pool, fake);
    expect(await pool.get({ nodeId: 1 })).toBe(first);
    expect(pool.connectionCount()).toBe(1);
    expect(fake.connects).toHaveLength(1);
    await pool.get({ nodeId: 2 });
    expect(pool.connectionCount()).toBe(2);
    await pool.close();
  });

  it('closes an idle bootstrap connection that matches no node once metadata is known', async () => {
    const fake = new FakeCluster(1);
    // The broker's bootstrap name differs from the address it advertises.
    fake.brokers.push({ nodeId: 99, host: 'kafka.example', port: 9001, up: true });
    const pool = new BrokerPool(['kafka.example:9001'], fake.factory);
    const bootstrap = await pool.any();
    pool.learnAddresses([{ nodeId: 1, host: '127.0.0.1', port: 9001, rack: null }]);
    expect(bootstrap.closed).toBe(true);
    expect(pool.connectionCount()).toBe(0);
    await pool.close();
  });

  it('closes a connection idle for connectionsMaxIdleMs and reopens it on demand', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory, { connectionsMaxIdleMs: 60_000 });
    learn(pool, fake);
    const c = await pool.get({ nodeId: 1 });
    expect(pool.closeIdle(c.lastActivityMs + 59_000)).toBe(0);
    expect(c.closed).toBe(false);
    expect(pool.closeIdle(c.lastActivityMs + 60_000)).toBe(1);
    expect(c.closed).toBe(true);
    const again = await pool.get({ nodeId: 1 });
    expect(again).not.toBe(c);
    expect(fake.connects).toHaveLength(2);
    await pool.close();
  });

  it('never closes a connection with requests pending, however long ago it was last active', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory, { connectionsMaxIdleMs: 1 });
    learn(pool, fake);
    const c = await pool.get({ nodeId: 1 });
    (c as { pending: number }).pending = 1;
    expect(pool.closeIdle(Date.now() + 3_600_000)).toBe(0);
    expect(c.closed).toBe(false);
    await pool.close();
  });

  it('a closed idle connection is not reported as a broker going down', async () => {
    const fake = new FakeCluster(1);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory, { connectionsMaxIdleMs: 1 });
    learn(pool, fake);
    const down: number[] = [];
    pool.onBrokerDown((id) => down.push(id));
    const c = await pool.get({ nodeId: 1 });
    pool.closeIdle(c.lastActivityMs + 10);
    expect(c.closed).toBe(true);
    expect(down).toEqual([]);
    await pool.close();
  });

  it('forgets a broker a full Metadata answer no longer names, and closes its connection', async () => {
    const fake = new FakeCluster(3);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    const gone = await pool.get({ nodeId: 3 });
    pool.learnAddresses(
      fake.brokers
        .filter((b) => b.nodeId !== 3)
        .map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: null })),
      { complete: true },
    );
    expect(pool.knownNodes().sort()).toEqual([1, 2]);
    expect(gone.closed).toBe(true);
    await expect(pool.get({ nodeId: 3 })).rejects.toMatchObject({
      code: 'ERR_KAFKA_POOL_UNKNOWN_NODE',
    });
    await pool.close();
  });

  it('a partial answer (a targeted refresh) forgets nobody', async () => {
    const fake = new FakeCluster(3);
    const pool = new BrokerPool(fake.bootstrap(), fake.factory);
    learn(pool, fake);
    pool.learnAddresses([{ nodeId: 1, host: '127.0.0.1', port: 9001, rack: null }]);
    expect(pool.knownNodes().sort()).toEqual([1, 2, 3]);
    await pool.close();
  });

  describe('what is in flight on a connection the pool closes', () => {
    // Held until its connection fails it.
    const inFlightOn = async (pool: BrokerPool, fake: FakeCluster, nodeId: number) => {
      fake.intercept = () => new Promise(() => {});
      const connection = await pool.get({ nodeId });
      const failed = connection
        .send(fakeApi(0, 'Produce'), {}, { version: 0 })
        .catch((e: unknown) => e);
      await vi.waitFor(() => expect(connection.pending).toBe(1));
      return { failed };
    };
    const retriableClose = { code: 'ERR_KAFKA_CONNECTION_LOST', retriable: true };

    it('fails retriable when the broker moved to a new address', async () => {
      const fake = new FakeCluster(2);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory);
      learn(pool, fake);
      const { failed } = await inFlightOn(pool, fake, 1);
      pool.learnAddresses([{ nodeId: 1, host: '127.0.0.1', port: 9101, rack: null }]);
      const error = await failed;
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject(retriableClose);
      expect((error as Error).message).toContain('broker 1 moved to 127.0.0.1:9101');
      await pool.close();
    });

    it('fails retriable when the broker left the metadata', async () => {
      const fake = new FakeCluster(2);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory);
      learn(pool, fake);
      const { failed } = await inFlightOn(pool, fake, 2);
      pool.learnAddresses([{ nodeId: 1, host: '127.0.0.1', port: 9001, rack: null }], {
        complete: true,
      });
      expect(await failed).toMatchObject(retriableClose);
      await pool.close();
    });

    it('fails retriable on a rebootstrap', async () => {
      const fake = new FakeCluster(1);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory);
      learn(pool, fake);
      const { failed } = await inFlightOn(pool, fake, 1);
      pool.rebootstrap();
      expect(await failed).toMatchObject(retriableClose);
      await pool.close();
    });

    it('fails finally when the user closes the pool', async () => {
      const fake = new FakeCluster(1);
      const pool = new BrokerPool(fake.bootstrap(), fake.factory);
      learn(pool, fake);
      const { failed } = await inFlightOn(pool, fake, 1);
      await pool.close();
      expect(await failed).toMatchObject({ code: 'ERR_KAFKA_CONNECTION_CLOSED', retriable: false });
    });
  });

  it.each(['', 'host', 'host:0', 'host:70000', ':9092'])(
    'rejects bootstrap address %j',
    (address) => {
      const fake = new FakeCluster(1);
      expect(() => new BrokerPool([address], fake.factory)).toThrow(
        expect.objectContaining({ code: 'ERR_KAFKA_BOOTSTRAP_INVALID' }),
      );
    },
  );
});
