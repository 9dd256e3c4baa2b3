import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CoalescingWriter, type WritableSink } from '../../../src/internal/frame-writer.js';

/** A socket stand-in whose buffer is "full" until the test says it drained. */
class Sink extends EventEmitter implements WritableSink {
  full = false;
  written: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.written.push(chunk);
    return !this.full;
  }
  cork(): void {}
  uncork(): void {}
}

const tick = () => new Promise((r) => process.nextTick(r));

describe('CoalescingWriter', () => {
  it('joins a burst into one write and reports each frame written', async () => {
    const sink = new Sink();
    const w = new CoalescingWriter();
    w.attach(sink);
    const done: unknown[] = [];
    for (let i = 0; i < 5; i++) w.enqueue(Buffer.from([i]), (e) => done.push(e));
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
    w.enqueue(Buffer.from([1]), (e) => done.push(e));
    await tick();
    w.enqueue(Buffer.from([2]), (e) => done.push(e));
    await tick();
    expect(sink.written.length).toBe(2);
    expect(done).toEqual([]);
    sink.full = false;
    sink.emit('drain');
    expect(done).toEqual([null, null]);
    expect(sink.listenerCount('drain')).toBe(0);
  });

  it('fails held callbacks when the socket goes away, and ignores the old socket draining', async () => {
    const old = new Sink();
    old.full = true;
    const w = new CoalescingWriter();
    w.attach(old);
    const done: unknown[] = [];
    w.enqueue(Buffer.from([1]), (e) => done.push(e));
    await tick();
    const gone = new Error('gone');
    w.attach(new Sink(), gone);
    expect(done).toEqual([gone]);
    old.emit('drain');
    expect(done).toEqual([gone]);
  });
});
