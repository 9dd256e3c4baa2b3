// The ways a caller learns of deliveries: a promise per send, a callback per record with no
// promise (as Java's send(record, callback) is used), and one promise or callback for a whole
// sendBatch() call. Results are read from the batch's answer when asked for.
import { ErrorCode, KafkaError } from '@kafkats/codec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Producer,
  type RecordMetadata,
  RecordTooLargeError,
  type SendBatchResult,
} from '../../../src/index.js';
import { FakeProduceCluster } from './fake-produce-cluster.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('send(record, callback)', () => {
  it('calls back once per record with its metadata, and makes no promise per record', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    const producer = new Producer(fake, { lingerMs: 5 });
    const seen: [number, Error | null, RecordMetadata | undefined][] = [];
    const accepted = new Set<Promise<void>>();
    for (let i = 0; i < 6; i++) {
      accepted.add(
        producer.send({ topic: 't', partition: i % 2, value: `v${i}` }, (error, metadata) => {
          seen.push([i, error, metadata]);
        }),
      );
    }
    // Every call that went straight into the buffer returns the same settled promise.
    expect(accepted.size).toBe(1);
    await Promise.all(accepted);
    await producer.flush();
    await producer.close();
    expect(seen.map(([i]) => i).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const [i, error, m] of seen) {
      expect(error).toBeNull();
      expect(m).toMatchObject({ topic: 't', partition: i % 2, offset: BigInt(Math.floor(i / 2)) });
    }
    expect(fake.log('t', 0).values).toEqual(['v0', 'v2', 'v4']);
  });

  it('calls back with the failure of a record, and the acceptance promise does not reject', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).nextError = ErrorCode.MESSAGE_TOO_LARGE;
    const producer = new Producer(fake);
    const outcome = new Promise<[Error | null, RecordMetadata | undefined]>((resolve) => {
      void producer.send({ topic: 't', value: 'x' }, (error, metadata) =>
        resolve([error, metadata]),
      );
    });
    const [error, metadata] = await outcome;
    await producer.close();
    expect(error).toMatchObject({ errorName: 'MESSAGE_TOO_LARGE' });
    expect(metadata).toBeUndefined();
  });

  it('refuses an invalid record through the callback, typed', async () => {
    const producer = new Producer(new FakeProduceCluster({ t: 1 }));
    const errors: (Error | null)[] = [];
    await producer.send({ topic: 't', key: 42 as unknown as string, value: 'x' }, (e) => {
      errors.push(e);
    });
    await producer.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(KafkaError);
    expect(errors[0]).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_RECORD_INVALID' });
    expect(errors[0]?.message).toContain('a key must be bytes, a string or null (topic t)');
  });

  it('rethrows what a callback throws outside the producer, and other records still arrive', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { lingerMs: 5 });
    const thrown: unknown[] = [];
    const nextTick = process.nextTick.bind(process);
    vi.spyOn(process, 'nextTick').mockImplementation((fn, ...args) =>
      nextTick(() => {
        try {
          (fn as (...a: unknown[]) => void)(...args);
        } catch (error) {
          thrown.push(error);
        }
      }),
    );
    const oops = new Error('a callback that throws');
    let second: RecordMetadata | undefined;
    void producer.send({ topic: 't', value: 'a' }, () => {
      throw oops;
    });
    void producer.send({ topic: 't', value: 'b' }, (_e, m) => {
      second = m;
    });
    await producer.flush();
    await new Promise((r) => setImmediate(r));
    vi.restoreAllMocks();
    await producer.close();
    expect(thrown).toContain(oops);
    expect(second?.offset).toBe(1n);
    expect(fake.log('t', 0).values).toEqual(['a', 'b']);
  });
});

describe('how Produce requests reach the cluster', () => {
  for (const callbacks of [true, false]) {
    it(`goes through ${callbacks ? 'sendToNodeCallback when the cluster has it' : 'sendToNode when the cluster has no sendToNodeCallback'}; a lost request is sent again`, async () => {
      const fake = new FakeProduceCluster({ t: 2 });
      fake.callbacks = callbacks;
      let lost = 1;
      fake.fault = () => (lost-- > 0 ? 'lost-after' : 'ok');
      const producer = new Producer(fake, { lingerMs: 0, batchSize: 64, retryBackoffMs: 1 });
      const seen: string[] = [];
      for (let i = 0; i < 8; i++) {
        void producer.send({ topic: 't', partition: i % 2, value: `v${i}` }, (error) => {
          seen.push(error === null ? `v${i}` : `v${i}: ${error.message}`);
        });
      }
      await producer.flush();
      await producer.close();
      expect([...seen].sort()).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7']);
      expect(fake.log('t', 0).values).toEqual(['v0', 'v2', 'v4', 'v6']);
      expect(fake.log('t', 1).values).toEqual(['v1', 'v3', 'v5', 'v7']);
      expect(fake.requests.length).toBeGreaterThan(1);
      expect(fake.callbackSends).toBe(callbacks ? fake.requests.length : 0);
    });
  }
});

describe('delivery metadata', () => {
  it("carries the partition's log start offset from the broker's answer, and the timestamp's type", async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    fake.log('t', 0).logStartOffset = 42n;
    const producer = new Producer(fake);
    const m = await producer.send({ topic: 't', value: 'a', timestamp: 1_700_000_000_000 });
    await producer.close();
    expect(m.logStartOffset).toBe(42n);
    expect(m.timestampType).toBe('CreateTime');
    expect(m.timestamp).toBe(1_700_000_000_000n);
  });
});

describe('sendBatch(records)', () => {
  it('resolves once every record is acknowledged, with metadata per record in the order given', async () => {
    const fake = new FakeProduceCluster({ t: 3 });
    const producer = new Producer(fake);
    const records = Array.from({ length: 9 }, (_, i) => ({
      topic: 't',
      partition: (i * 2) % 3,
      value: `v${i}`,
      timestamp: 1_700_000_000_000 + i,
    }));
    const result: SendBatchResult = await producer.sendBatch(records);
    await producer.close();
    expect(result.count).toBe(9);
    const all = [...result];
    expect(all.map((m) => m.partition)).toEqual(records.map((r) => r.partition));
    expect(all.map((m) => m.offset)).toEqual([0n, 0n, 0n, 1n, 1n, 1n, 2n, 2n, 2n]);
    expect(all.map((m) => m.timestamp)).toEqual(records.map((r) => BigInt(r.timestamp)));
    expect(result.metadata(4)).toMatchObject({ topic: 't', partition: 2, offset: 1n });
    expect(() => result.metadata(9)).toThrow(RangeError);
    // Plain data for JSON and spreading, though made on access.
    expect(
      JSON.parse(
        JSON.stringify(result.metadata(0), (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
      ),
    ).toEqual({
      topic: 't',
      partition: 0,
      offset: '0',
      timestamp: '1700000000000',
      timestampType: 'CreateTime',
      logStartOffset: '0',
    });
    const m1 = result.metadata(1) as RecordMetadata & { toJSON(): RecordMetadata };
    expect(Object.getPrototypeOf(m1.toJSON())).toBe(Object.prototype);
    expect(m1.toJSON()).toEqual({
      topic: 't',
      partition: 2,
      offset: 0n,
      timestamp: 1_700_000_000_001n,
      timestampType: 'CreateTime',
      logStartOffset: 0n,
    });
  });

  it('rejects with the first failure once every record has settled; the others stay delivered', async () => {
    const fake = new FakeProduceCluster({ t: 2 });
    fake.log('t', 1).nextError = ErrorCode.INVALID_RECORD;
    const producer = new Producer(fake);
    const records = ['a', 'b', 'c', 'd'].map((value, i) => ({
      topic: 't',
      partition: i % 2,
      value,
    }));
    await expect(producer.sendBatch(records)).rejects.toMatchObject({
      errorName: 'INVALID_RECORD',
    });
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'c']);
    expect(fake.log('t', 1).values).toEqual([]);
  });

  it('with a callback, resolves once the records are in the buffer and calls back on delivery', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, { lingerMs: 60_000, deliveryTimeoutMs: 120_000 });
    let outcome: [Error | null, SendBatchResult | undefined] | undefined;
    await producer.sendBatch(
      [
        { topic: 't', value: 'a' },
        { topic: 't', value: 'b' },
      ],
      (error, result) => {
        outcome = [error, result];
      },
    );
    // In the buffer, not yet sent (lingerMs): accepted, not delivered.
    expect(outcome).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
    await producer.flush();
    await producer.close();
    expect(outcome?.[0]).toBeNull();
    expect([...(outcome?.[1] ?? [])].map((m) => m.offset)).toEqual([0n, 1n]);
  });

  it('settles an empty call at once', async () => {
    const producer = new Producer(new FakeProduceCluster({ t: 1 }));
    await expect(producer.sendBatch([])).resolves.toMatchObject({ count: 0 });
    await producer.close();
  });
});

describe('records refused before they are buffered', () => {
  it('a record larger than maxRequestSize as a batch of its own is RecordTooLargeError', async () => {
    const producer = new Producer(new FakeProduceCluster({ t: 1 }), { maxRequestSize: 1_000 });
    await expect(producer.send({ topic: 't', value: Buffer.alloc(1_000) })).rejects.toBeInstanceOf(
      RecordTooLargeError,
    );
    // One that fits goes.
    await expect(producer.send({ topic: 't', value: Buffer.alloc(900) })).resolves.toMatchObject({
      offset: 0n,
    });
    await producer.close();
  });

  it.each([
    [{ topic: '', value: 'x' }, 'a record needs a topic name'],
    [{ topic: 't', value: 7 }, 'a value must be bytes, a string or null'],
    [{ topic: 't', value: 'x', headers: [{ key: 5, value: 'v' }] }, 'header'],
    [{ topic: 't', value: 'x', timestamp: 1.5 }, 'timestamp 1.5 is not an integer ms'],
  ])('%j is refused with ERR_KAFKA_PRODUCER_RECORD_INVALID', async (record, text) => {
    const producer = new Producer(new FakeProduceCluster({ t: 1 }));
    const error = await producer.send(record as never).catch((e: unknown) => e);
    await producer.close();
    expect(error).toMatchObject({ code: 'ERR_KAFKA_PRODUCER_RECORD_INVALID' });
    expect((error as Error).message).toContain(text);
  });
});
