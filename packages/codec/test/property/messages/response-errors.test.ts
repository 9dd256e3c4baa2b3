// Completeness of the generated response-error walks: for random responses of every API and
// version, the walk finds exactly the non-zero `errorCode` structs (same paths, same codes, same
// order) that a reflection walk over every object of the response finds. Random int16 codes are
// almost never 0, so about half of them are zeroed first, to exercise the skipping as well.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_DESCRIPTORS } from '../../../src/index.js';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';
import { reflectResponseErrors } from '../../support/reflect-response-errors.js';

const RUNS = 25;

/** A copy of `node` with the `errorCode`s zeroed where the cycled `bits` say so. */
function zeroSome(node: unknown, bits: readonly boolean[], at: { i: number }): unknown {
  if (Array.isArray(node)) return node.map((x) => zeroSome(x, bits, at));
  if (typeof node !== 'object' || node === null || Buffer.isBuffer(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'errorCode' && typeof v === 'number') out[k] = bits[at.i++ % bits.length] ? 0 : v;
    else out[k] = k === '_unknownTaggedFields' ? v : zeroSome(v, bits, at);
  }
  return out;
}

describe('generated response-error walks find what reflection finds', () => {
  const responses = MESSAGE_CODECS.filter((c) => c.type === 'response');

  it('every API descriptor has a walk', () => {
    expect(responses.length).toBe(API_DESCRIPTORS.length);
    for (const d of API_DESCRIPTORS) expect(typeof d.responseErrors).toBe('function');
  });

  for (const c of responses) {
    const api = API_DESCRIPTORS.find((d) => d.apiKey === c.apiKey)!;
    it(`${c.name} v${c.minVersion}-${c.maxVersion}`, () => {
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        const arb = fc.tuple(
          c.arbitrary(v),
          fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        );
        fc.assert(
          fc.property(arb, ([generated, bits]) => {
            const res = zeroSome(generated, bits, { i: 0 });
            const found = api.responseErrors(res);
            const want = reflectResponseErrors(res);
            expect(found.map((e) => [e.path, e.errorCode])).toEqual(
              want.map((e) => [e.path, e.errorCode]),
            );
            for (const e of found) expect(e.errorCode).not.toBe(0);
          }),
          { numRuns: RUNS },
        );
      }
    });
  }
});
