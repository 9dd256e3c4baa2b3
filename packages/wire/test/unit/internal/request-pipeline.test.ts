import { describe, expect, it } from 'vitest';
import { RequestPipeline, SlotState } from '../../../src/internal/request-pipeline.js';

describe('RequestPipeline', () => {
  it('hands out increasing correlation ids and completes in FIFO order', () => {
    const p = new RequestPipeline(4, () => ({ v: '' }));
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = p.acquire();
      if (s === null) throw new Error('slot');
      s.data.v = `r${i}`;
      ids.push(s.correlationId);
    }
    expect(ids).toEqual([0, 1, 2, 3]);
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
    expect(p.complete(a.correlationId)).toBe(a);
    expect(p.complete(a.correlationId)).toBeNull();
    expect(new RequestPipeline(2, () => null).complete(0)).toBeNull();
  });

  it('shares one id counter between slots and slot-less requests, so no id is live twice', () => {
    const p = new RequestPipeline(2, () => null);
    const a = p.acquire();
    const oneWay = p.nextId();
    const b = p.acquire();
    expect([a?.correlationId, oneWay, b?.correlationId]).toEqual([0, 1, 2]);
  });

  it('wraps from the top of the int32 range to 0 and never hands out a negative id', () => {
    const p = new RequestPipeline(3, () => null, 0x7fff_ffff - 4);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      const s = p.acquire();
      if (s === null) throw new Error('full');
      seen.push(s.correlationId);
      const done = p.complete(s.correlationId);
      if (done === null) throw new Error('complete');
      p.release(done);
    }
    expect(seen).toEqual([
      0x7fff_fffb, 0x7fff_fffc, 0x7fff_fffd, 0x7fff_fffe, 0x7fff_ffff, 0, 1, 2, 3, 4,
    ]);
  });

  it('hands back a slot whose request could not be written', () => {
    const p = new RequestPipeline(2, () => null);
    const a = p.acquire();
    const b = p.acquire();
    if (a === null || b === null) throw new Error('slots');
    p.unacquire(b);
    expect(p.size).toBe(1);
    expect(b.state).toBe(SlotState.Free);
    expect(p.acquire()).toBe(b);
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
