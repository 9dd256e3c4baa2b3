// The producer's queue of waiting sends: the same as an array used as a queue, for any
// sequence of pushes, shifts and drains, across its compaction.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src/internal/fifo.js';

type Op = { push: number } | 'shift' | 'drain';
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer().map((push) => ({ push })) },
  { weight: 3, arbitrary: fc.constant('shift' as const) },
  { weight: 1, arbitrary: fc.constant('drain' as const) },
);

describe('Fifo', () => {
  it('behaves as an array queue', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const q = new Fifo<number>();
        let model: number[] = [];
        for (const o of ops) {
          if (o === 'shift') expect(q.shift()).toBe(model.shift());
          else if (o === 'drain') {
            expect(q.drain()).toEqual(model);
            model = [];
          } else {
            q.push(o.push);
            model.push(o.push);
          }
          expect(q.length).toBe(model.length);
          expect(q.first()).toBe(model[0]);
          expect(q.last()).toBe(model[model.length - 1]);
        }
        expect([...q]).toEqual(model);
      }),
    );
  });

  it('compacts a long queue consumed from the front without losing its order', () => {
    const q = new Fifo<number>();
    for (let i = 0; i < 5000; i++) q.push(i);
    for (let i = 0; i < 3000; i++) expect(q.shift()).toBe(i);
    for (let i = 5000; i < 6000; i++) q.push(i);
    expect(q.length).toBe(3000);
    expect([...q]).toEqual(Array.from({ length: 3000 }, (_, i) => i + 3000));
  });
});
