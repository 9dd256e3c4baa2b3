import { describe, expect, it } from 'vitest';
import { RequestPipeline, RING_ID_SPACE, SlotState } from '../../src/request-pipeline.js';

describe('RequestPipeline', () => {
  it('encodes the slot in the correlation id and completes in FIFO order', () => {
    const p = new RequestPipeline(4, () => ({ v: '' }));
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = p.acquire();
      expect(s).not.toBeNull();
      if (s === null) return;
      s.data.v = `r${i}`;
      expect(s.correlationId % 4).toBe(s.index);
      ids.push(s.correlationId);
    }
    expect(p.isFull).toBe(true);
    expect(p.acquire()).toBeNull();
    for (let i = 0; i < 4; i++) {
      const s = p.complete(ids[i] as number);
      expect(s?.data.v).toBe(`r${i}`);
      if (s) p.release(s);
    }
    expect(p.size).toBe(0);
  });

  it('refuses an id that is not the head (unknown, stale, out of order)', () => {
    const p = new RequestPipeline(3, () => null);
    const a = p.acquire();
    const b = p.acquire();
    if (a === null || b === null) throw new Error('slots');
    expect(p.complete(b.correlationId)).toBeNull();
    expect(p.complete(12345)).toBeNull();
    expect(p.complete(a.correlationId)?.index).toBe(a.index);
    expect(p.complete(a.correlationId)).toBeNull();
    expect(new RequestPipeline(2, () => null).complete(0)).toBeNull();
  });

  it('never reuses a live id and keeps id % n === slot across wrap-around', () => {
    const n = 5;
    const wrap = Math.floor(RING_ID_SPACE / n) * n;
    // Start three generations before the wrap point and go well past it.
    const p = new RequestPipeline(n, () => null, wrap - 3 * n);
    const recent: number[] = [];
    let last = -1;
    const rounds = 40;
    for (let i = 0; i < rounds; i++) {
      const s = p.acquire();
      if (s === null) throw new Error('full');
      expect(s.correlationId % n).toBe(s.index);
      expect(s.correlationId).toBeLessThan(RING_ID_SPACE);
      expect(recent.includes(s.correlationId)).toBe(false);
      recent.push(s.correlationId);
      if (recent.length > n) recent.shift();
      last = s.correlationId;
      const done = p.complete(last);
      if (done === null) throw new Error('complete');
      p.release(done);
    }
    expect(last).toBeLessThan(100);
  });

  it('drains oldest first and marks slots free', () => {
    const p = new RequestPipeline(3, () => ({ v: -1 }));
    for (let i = 0; i < 3; i++) {
      const s = p.acquire();
      if (s) s.data.v = i;
    }
    const head = p.peekHead();
    if (head) head.state = SlotState.Tombstone;
    const seen: number[] = [];
    p.drain((s) => seen.push(s.data.v));
    expect(seen).toEqual([0, 1, 2]);
    expect(p.size).toBe(0);
    expect(p.peekHead()).toBeNull();
  });

  it('rejects a bad size', () => {
    expect(() => new RequestPipeline(0, () => null)).toThrow(RangeError);
    expect(() => new RequestPipeline(1.5, () => null)).toThrow(RangeError);
  });
});
