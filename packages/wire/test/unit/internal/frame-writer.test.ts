import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CoalescingWriter, type WritableSink } from '../../../src/internal/frame-writer.js';

/** A socket stand-in whose buffer is "full" until the test says it drained. */
class Sink extends EventEmitter implements WritableSink {
  full = false;
  written: Buffer[] = [];
  /** Calls in order: 'cork', 'uncork' or the length of a write. */
  calls: (string | number)[] = [];
  write(chunk: Buffer): boolean {
    this.written.push(chunk);
    this.calls.push(chunk.length);
    return !this.full;
  }
  cork(): void {
    this.calls.push('cork');
  }
  uncork(): void {
    this.calls.push('uncork');
  }
}

const tick = () => new Promise((r) => process.nextTick(r));

describe('CoalescingWriter', () => {
  it('joins a burst into one write and reports each frame written', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    const done: unknown[] = [];
    for (let i = 0; i < 5; i++) w.enqueue([Buffer.from([i])], (e) => done.push(e));
    await tick();
    expect(sink.written).toEqual([Buffer.from([0, 1, 2, 3, 4])]);
    expect(done).toEqual([null, null, null, null, null]);
  });

  // An acks=0 Produce resolved as soon as its bytes were handed to the socket, even when the
  // socket's buffer was past its high-water mark: 20,000 awaited 10 KB sends to a broker that
  // stopped reading left 187 MiB buffered. The callback now waits for 'drain'.
  it('holds write callbacks until the socket drains when its buffer is full', async () => {
    const sink = new Sink();
    sink.full = true;
    const w = new CoalescingWriter();
    w.attach(sink);
    const done: unknown[] = [];
    w.enqueue([Buffer.from([1])], (e) => done.push(e));
    await tick();
    w.enqueue([Buffer.from([2])], (e) => done.push(e));
    await tick();
    expect(sink.written.length).toBe(2);
    expect(done).toEqual([]);
    sink.full = false;
    sink.emit('drain');
    expect(done).toEqual([null, null]);
    expect(sink.listenerCount('drain')).toBe(0);
  });

  it('writes a frame queued inside a loop of awaited, already settled promises before the loop ends', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    // An application enqueueing in a tight await loop never yields to the tick queue: the
    // frame must still reach the socket between its iterations.
    let writtenAt = -1;
    for (let i = 0; i < 1000; i++) {
      if (i === 10) w.enqueue([Buffer.from([i])]);
      await Promise.resolve();
      if (writtenAt < 0 && sink.written.length > 0) writtenAt = i;
    }
    expect(writtenAt).toBeGreaterThanOrEqual(10);
    expect(writtenAt).toBeLessThan(20);
  });

  it('joins the pieces of small zero-copy frames with other frames into one write', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    w.enqueue([Buffer.from([1, 2]), Buffer.from([3])]);
    w.enqueue([Buffer.from([4])]);
    await tick();
    expect(sink.written).toEqual([Buffer.from([1, 2, 3, 4])]);
    expect(w.bytes).toBe(4);
    expect(w.writes).toBe(1);
  });

  it('writes only what was queued since the last flush, however its lists are reused', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    const rounds = [[[1], [2], [3]], [[4], [5]], [[6], [7]], [[8]], [[9], [10], [11], [12]]];
    for (const round of rounds) {
      w.enqueue(round.map((bytes) => Buffer.from(bytes)));
      await tick();
    }
    expect(sink.written).toEqual(rounds.map((round) => Buffer.from(round.flat())));
    expect(w.writes).toBe(rounds.length);
  });

  it('writes the pieces of a large frame by reference, in order, under one cork', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    const head = Buffer.from([0, 1, 0, 5]);
    const batch = Buffer.alloc(70_000, 7);
    const tail = Buffer.from([9]);
    const done: unknown[] = [];
    w.enqueue([head, batch, tail], (e) => done.push(e));
    w.enqueue([Buffer.from([10])]);
    await tick();
    expect(sink.calls).toEqual(['cork', 4, 70_000, 1, 1, 'uncork']);
    expect(sink.written[1]).toBe(batch);
    expect(w.bytes).toBe(70_006);
    expect(done).toEqual([null]);
  });

  it('never copies a record batch passed by reference, even in a frame below the join limit', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    const head = Buffer.from([0, 1, 0, 5]);
    const batch = Buffer.alloc(16_384, 7);
    w.enqueue([head, batch]);
    await tick();
    expect(sink.calls).toEqual(['cork', 4, 16_384, 'uncork']);
    expect(sink.written[1]).toBe(batch);
    // Small frames alone are still joined into one buffer.
    w.enqueue([Buffer.from([1]), Buffer.from([2])]);
    await tick();
    expect(sink.calls.slice(4)).toEqual([2]);
  });

  it('fails held callbacks when the socket goes away, and ignores the old socket draining', async () => {
    const old = new Sink();
    old.full = true;
    const w = new CoalescingWriter();
    w.attach(old);
    const done: unknown[] = [];
    w.enqueue([Buffer.from([1])], (e) => done.push(e));
    await tick();
    const gone = new Error('gone');
    w.attach(new Sink(), gone);
    expect(done).toEqual([gone]);
    old.emit('drain');
    expect(done).toEqual([gone]);
  });
});
