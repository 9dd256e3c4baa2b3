/**
 * Two differences from Kafka's Java serializers that the conformance suite found with
 * hand-made inputs (the random arbitraries produce neither):
 *
 * - A string holding a lone UTF-16 surrogate. Java's `String.getBytes(UTF_8)` writes each lone
 *   surrogate as `?`; Node's encoder writes U+FFFD (three bytes), so the same FindCoordinator
 *   key went out as different bytes (and a different length) from ours and from Kafka's clients.
 * - Unknown tagged fields that Kafka's RawTaggedFieldWriter refuses: tag 2^31-1 (its
 *   end-of-fields sentinel), a tag the schema already defines, and a repeated tag. We wrote
 *   them; a Java reader would have misread the section.
 */
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createApiVersionsRequest,
  createFetchRequest,
  createFindCoordinatorRequest,
  encodeApiVersionsRequest,
  encodeFetchRequest,
  encodeFindCoordinatorRequest,
  Writer,
} from '../../../src/index.js';

function hex(encode: (w: Writer) => void): string {
  const w = new Writer();
  encode(w);
  return w.finish().toString('hex');
}

describe('Java parity of string and tagged-field encoding', () => {
  it('writes a lone surrogate as ? like Java (FindCoordinatorRequest v1, Kafka: 0003613f6200)', () => {
    const m = createFindCoordinatorRequest({ key: 'a\ud800b', keyType: 0 });
    expect(hex((w) => encodeFindCoordinatorRequest(w, m, 1))).toBe('0003613f6200');
  });

  it('leaves well-formed surrogate pairs alone', () => {
    const m = createFindCoordinatorRequest({ key: '\ud83d\ude00', keyType: 0 });
    expect(hex((w) => encodeFindCoordinatorRequest(w, m, 1))).toBe('0004f09f988000');
  });

  it('refuses the reserved unknown tag 2147483647', () => {
    const m = createApiVersionsRequest({
      clientSoftwareName: 'kafkats',
      clientSoftwareVersion: '0.1.0',
      _unknownTaggedFields: [{ tag: 2147483647, data: Buffer.from([1, 2, 3]) }],
    });
    expect(() => hex((w) => encodeApiVersionsRequest(w, m, 3))).toThrow(CodecError);
  });

  it('refuses an unknown tag that repeats', () => {
    const m = createApiVersionsRequest({
      _unknownTaggedFields: [
        { tag: 5, data: Buffer.from([1]) },
        { tag: 5, data: Buffer.from([2]) },
      ],
    });
    expect(() => hex((w) => encodeApiVersionsRequest(w, m, 3))).toThrow(/unknown tagged field 5/);
  });

  it('refuses an unknown tag equal to a tag the schema defines (FetchRequest v15 tag 0)', () => {
    const m = createFetchRequest({ _unknownTaggedFields: [{ tag: 0, data: Buffer.from([0]) }] });
    expect(() => hex((w) => encodeFetchRequest(w, m, 15))).toThrow(/unknown tagged field 0/);
  });

  it('still writes unknown tags that interleave with defined ones, in order', () => {
    const m = createFetchRequest({ _unknownTaggedFields: [{ tag: 7, data: Buffer.from([9]) }] });
    expect(hex((w) => encodeFetchRequest(w, m, 15)).endsWith('01070109')).toBe(true);
  });
});
