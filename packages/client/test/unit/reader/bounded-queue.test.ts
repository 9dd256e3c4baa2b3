// The queue between partition tasks and the caller: producers wait when it is full, the
// consumer when it is empty, and closing or aborting ends every wait.
import { describe, expect, it } from 'vitest';
import { BoundedQueue } from '../../../src/reader/internal/bounded-queue.js';

const never = new AbortController().signal;
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('BoundedQueue', () => {
  it('holds at most capacity items; a put waits until a take makes room', async () => {
    const queue = new BoundedQueue<number>(2);
    const puts = [1, 2, 3, 4].map((n) => queue.put(n, never));
    await tick();
    expect(queue.size).toBe(2);
    let third = false;
    void puts[2]!.then(() => {
      third = true;
    });
    await tick();
    expect(third).toBe(false);
    expect(await queue.take(never)).toBe(1);
    await tick();
    expect(third).toBe(true);
    expect(queue.size).toBe(2);
    expect([await queue.take(never), await queue.take(never), await queue.take(never)]).toEqual([
      2, 3, 4,
    ]);
    expect(await Promise.all(puts)).toEqual([true, true, true, true]);
  });

  it('a take waits for a put', async () => {
    const queue = new BoundedQueue<string>(1);
    const taken = queue.take(never);
    await tick();
    await queue.put('x', never);
    expect(await taken).toBe('x');
  });

  it('close ends waiting takes and puts; what is queued still drains', async () => {
    const queue = new BoundedQueue<number>(1);
    await queue.put(1, never);
    const blocked = queue.put(2, never);
    queue.close();
    expect(await blocked).toBe(false);
    expect(await queue.take(never)).toBe(1);
    expect(await queue.take(never)).toBeUndefined();
  });

  it('an aborted signal ends a wait', async () => {
    const queue = new BoundedQueue<number>(1);
    const controller = new AbortController();
    const taken = queue.take(controller.signal);
    controller.abort();
    expect(await taken).toBeUndefined();
    await queue.put(1, never);
    const put = new AbortController();
    const blocked = queue.put(2, put.signal);
    put.abort();
    expect(await blocked).toBe(false);
    expect(queue.size).toBe(1);
  });

  it('remove drops selected items and wakes waiting puts', async () => {
    const queue = new BoundedQueue<number>(2);
    await queue.put(1, never);
    await queue.put(2, never);
    const blocked = queue.put(3, never);
    queue.remove((n) => n === 1);
    expect(await blocked).toBe(true);
    expect([await queue.take(never), await queue.take(never)]).toEqual([2, 3]);
  });
});
