// toKafkaJson / fromKafkaJson over the generated descriptions: for random messages of every
// schema and version, Kafka's JSON form reads back to a message that encodes to the same bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromKafkaJson,
  MESSAGE_DESCRIPTIONS,
  type MessageDescription,
  toKafkaJson,
  Writer,
} from '../../../src/index.js';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';

/** A copy without `_unknownTaggedFields` (Kafka's JSON form has no place for them). */
function withoutUnknownTags(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutUnknownTags);
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k !== '_unknownTaggedFields') out[k] = withoutUnknownTags(x);
  }
  return out;
}

const byName = new Map<string, MessageDescription>(MESSAGE_DESCRIPTIONS.map((d) => [d.name, d]));

describe('Kafka JSON round trip', () => {
  it('every generated message has a description with its versions', () => {
    for (const c of MESSAGE_CODECS) {
      const d = byName.get(c.name);
      expect(d, c.name).toBeDefined();
      expect(d!.validVersions, c.name).toEqual([c.minVersion, c.maxVersion]);
    }
    expect(MESSAGE_DESCRIPTIONS.length).toBe(MESSAGE_CODECS.length);
  });

  for (const c of MESSAGE_CODECS) {
    it(`${c.name}: toKafkaJson then fromKafkaJson encodes to the same bytes at every version`, () => {
      const d = byName.get(c.name)!;
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        fc.assert(
          fc.property(c.arbitrary(v), (m) => {
            const plain = withoutUnknownTags(m);
            const text = toKafkaJson(d, plain as object, v);
            // Valid JSON for any parser (int64 precision aside).
            expect(() => JSON.parse(text)).not.toThrow();
            const back = fromKafkaJson(d, text, v);
            const a = new Writer(64);
            c.encode(a, plain, v);
            const want = Buffer.from(a.finish()).toString('hex');
            const b = new Writer(64);
            c.encode(b, back, v);
            expect(Buffer.from(b.finish()).toString('hex')).toBe(want);
          }),
          { numRuns: 4, seed: 20260505 + v },
        );
      }
    });
  }
});
