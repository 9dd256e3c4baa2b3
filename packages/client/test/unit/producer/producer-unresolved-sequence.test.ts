// A batch that runs out of time after a lost answer may be in the log. The failure these pin:
// b1 and b2 were both written but both answers were lost, b1's so late that it ran out of time
// before it could go again. The producer at once bumped the epoch and renumbered b2, still
// waiting for its retry, to sequence 0 of the new epoch; the broker took that as a new write,
// and b2 was in the log twice. Kafka's producer marks the partition's sequence unresolved
// instead and lets its in-flight batches settle it (TransactionManager.maybeResolveSequences).
import { ErrorCode } from '@kafkats/codec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeliveryTimeoutError, Producer, type RecordMetadata } from '../../../src/index.js';
import { FakeProduceCluster, type Fault, type SeenRequest } from './fake-produce-cluster.js';

const DELIVERY_TIMEOUT_MS = 1000;

/** One partition, one record per batch, exact backoffs, time under the test's control. */
function setup() {
  const fake = new FakeProduceCluster({ t: 1 });
  const producer = new Producer(fake, {
    batchSize: 1,
    lingerMs: 0,
    retryBackoffMs: 100,
    retryBackoffMaxMs: 100,
    requestTimeoutMs: 500,
    deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
    random: () => 0.5,
  });
  return { fake, producer };
}

/** Runs timers (the sender's wakeups included) and the promises they settle. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

/** A send whose outcome is read later: the offset, or the error. */
function send(producer: Producer, value: string): Promise<bigint | unknown> {
  return producer.send({ topic: 't', value }).then(
    (m: RecordMetadata) => m.offset,
    (e: unknown) => e,
  );
}

/** Sends `value` and waits until its answer is in (no timers due meanwhile). */
async function sendNow(producer: Producer, value: string): Promise<bigint | unknown> {
  const outcome = send(producer, value);
  await advance(0);
  return outcome;
}

const numbered = (fake: FakeProduceCluster) =>
  fake.requests.map((r) => [r.batches[0]!.producerEpoch, r.batches[0]!.baseSequence]);

/** Whether a request carries the batch numbered `sequence` under epoch 0. */
const is = (r: SeenRequest, sequence: number) =>
  r.batches[0]?.producerEpoch === 0 && r.batches[0].baseSequence === sequence;

/** A gate for the fake broker to hold answers behind, and how to open it. */
function gate(): { held: Promise<void>; open: () => Promise<void> } {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  return {
    held,
    open: () => {
      release();
      return advance(0);
    },
  };
}

/**
 * a is acknowledged. b1 (sequence 1, sent at 0 ms) and b2 (sequence 2, sent at 200 ms, while b1
 * is out) meet the `first` faults, their answers held until 900 and 960 ms: each goes again
 * after 100 ms of backoff, so b1 expires at 1000 ms while b2 waits for its retry at 1060 ms.
 * Later sends of b2 under its first number meet `b2Later`.
 */
async function b1ExpiresWhileB2Waits(first: { b1: Fault; b2: Fault }, b2Later: Fault = 'ok') {
  const { fake, producer } = setup();
  expect(await sendNow(producer, 'a')).toBe(0n);
  const g1 = gate();
  const g2 = gate();
  const sent = new Set<number>();
  fake.fault = (r) => {
    fake.gate = undefined;
    for (const [sequence, fault, g] of [
      [1, first.b1, g1],
      [2, first.b2, g2],
    ] as const) {
      if (!is(r, sequence)) continue;
      if (sent.has(sequence)) return sequence === 1 ? 'not-leader' : b2Later;
      sent.add(sequence);
      fake.gate = g.held;
      return fault;
    }
    return 'ok';
  };
  const b1 = send(producer, 'b1');
  await advance(200);
  const b2 = send(producer, 'b2');
  await advance(700);
  await g1.open();
  await advance(60);
  await g2.open();
  expect(numbered(fake)).toEqual([
    [0, 0],
    [0, 1],
    [0, 2],
  ]);
  await advance(40);
  expect(await b1).toBeInstanceOf(DeliveryTimeoutError);
  expect(fake.requests).toHaveLength(3);
  return { fake, producer, b2 };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Producer: a batch that expires after being sent leaves its partition unresolved', () => {
  it('keeps numbering without a bump when the next batch lands in sequence (the expired one was written)', async () => {
    const { fake, producer, b2 } = await b1ExpiresWhileB2Waits({
      b1: 'lost-after',
      b2: 'lost-before',
    });
    // b2, resent with its own number, lands right after b1's bytes: b1 is settled.
    await advance(60);
    expect(await b2).toBe(2n);
    expect(await sendNow(producer, 'c')).toBe(3n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'b1', 'b2', 'c']);
    expect(numbered(fake)).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [0, 2],
      [0, 3],
    ]);
  });

  it('does not renumber a batch whose own lost send may have been written (no duplicate)', async () => {
    const { fake, producer, b2 } = await b1ExpiresWhileB2Waits({
      b1: 'lost-after',
      b2: 'lost-after',
    });
    // b2 goes again as sequence 2 of epoch 0: the broker knows it and answers with its offset.
    await advance(60);
    expect(await b2).toBe(2n);
    expect(await sendNow(producer, 'c')).toBe(3n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'b1', 'b2', 'c']);
    expect(numbered(fake).every(([epoch]) => epoch === 0)).toBe(true);
  });

  it('bumps and renumbers once the batch right after the expired one proves the gap', async () => {
    const { fake, producer, b2 } = await b1ExpiresWhileB2Waits({
      b1: 'lost-before',
      b2: 'lost-before',
    });
    // The retry after OUT_OF_ORDER_SEQUENCE_NUMBER waits out its backoff.
    await advance(160);
    expect(await b2).toBe(1n);
    expect(await sendNow(producer, 'c')).toBe(2n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'b2', 'c']);
    // b2 first goes again under its own number; OUT_OF_ORDER_SEQUENCE_NUMBER on the sequence
    // right after b1's shows that b1 is not in the log, and only then is b2 renumbered.
    expect(numbered(fake)).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [0, 2],
      [1, 0],
      [1, 1],
    ]);
    expect(fake.requests[3]!.batches[0]!.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  });

  it('bumps once nothing is in flight when no acknowledgement proves the expired batch', async () => {
    const { fake, producer, b2 } = await b1ExpiresWhileB2Waits(
      { b1: 'lost-before', b2: 'lost-before' },
      'not-leader',
    );
    // b2 may still land under its own number: it keeps it, and c waits unnumbered behind it.
    await advance(100);
    const c = send(producer, 'c');
    await advance(0);
    expect(numbered(fake).every(([epoch]) => epoch === 0)).toBe(true);
    expect(fake.requests.some((r) => is(r, 3))).toBe(false);
    // b2 expires too: nothing is in flight and nothing proved b1, so the epoch is bumped.
    await advance(100);
    expect(await b2).toBeInstanceOf(DeliveryTimeoutError);
    expect(await c).toBe(1n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a', 'c']);
    expect(numbered(fake).at(-1)).toEqual([1, 0]);
  });
});

describe('Producer: a queued batch fails at its delivery deadline', () => {
  it('even when no answer, retry or metadata change wakes the sender before it', async () => {
    const fake = new FakeProduceCluster({ t: 1 });
    const producer = new Producer(fake, {
      batchSize: 1,
      lingerMs: 0,
      maxInFlight: 1,
      requestTimeoutMs: 1000,
      deliveryTimeoutMs: 1500,
      random: () => 0.5,
    });
    // Every answer is held: a's request never comes back, so nothing wakes the sender.
    const held = gate();
    fake.gate = held.held;
    const a = send(producer, 'a');
    await advance(100);
    let bSettled = false;
    const b = send(producer, 'b').finally(() => {
      bSettled = true;
    });
    // b waits behind a (one request in flight); its deadline is 100 + 1500 ms.
    await advance(1499);
    expect(bSettled).toBe(false);
    await advance(1);
    expect(bSettled).toBe(true);
    expect(await b).toBeInstanceOf(DeliveryTimeoutError);
    expect(fake.requests).toHaveLength(1);
    await held.open();
    expect(await a).toBe(0n);
    await producer.close();
    expect(fake.log('t', 0).values).toEqual(['a']);
  });
});
