// Fuzz targets, one per decoder family (requests, responses, headers, metadata records, data
// types): random bytes and random mutations of valid encodings. The only thing allowed to
// escape a decoder is a CodecError; a RangeError, TypeError or hang is a bug.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError, decodeRemoteLogMetadataValue, Reader, Writer } from '../../../src/index.js';
import { MESSAGE_CODECS, type MessageCodec } from '../../support/gen/arbitraries.js';

function onlyCodecErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
  }
}

const mutation = fc.record({
  kind: fc.constantFrom('flip', 'truncate', 'insert', 'set'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
});

function mutate(b: Buffer, muts: { kind: string; at: number; byte: number }[]): Buffer {
  let out = Buffer.from(b);
  for (const m of muts) {
    const i = out.length === 0 ? 0 : m.at % out.length;
    if (m.kind === 'flip' && out.length > 0) out[i] = out[i]! ^ (1 << (m.byte & 7));
    else if (m.kind === 'set' && out.length > 0) out[i] = m.byte;
    else if (m.kind === 'truncate') out = out.subarray(0, i);
    else if (m.kind === 'insert')
      out = Buffer.concat([out.subarray(0, i), Buffer.from([m.byte]), out.subarray(i)]);
  }
  return out;
}

function fuzzFamily(codecs: readonly MessageCodec[]): void {
  for (const c of codecs) {
    it(`${c.name}: mutated valid encodings and random bytes`, () => {
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        fc.assert(
          fc.property(
            c.arbitrary(v),
            fc.array(mutation, { minLength: 1, maxLength: 4 }),
            (x, muts) => {
              const w = new Writer(64);
              c.encode(w, x, v);
              const bad = mutate(Buffer.from(w.finish()), muts);
              onlyCodecErrors(() => c.decode(new Reader(bad), v));
            },
          ),
          { numRuns: 6 },
        );
        fc.assert(
          fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
            onlyCodecErrors(() => c.decode(new Reader(Buffer.from(raw)), v));
          }),
          { numRuns: 4 },
        );
      }
    });
  }
}

describe('fuzz: requests', () => fuzzFamily(MESSAGE_CODECS.filter((c) => c.type === 'request')));
describe('fuzz: responses', () => fuzzFamily(MESSAGE_CODECS.filter((c) => c.type === 'response')));
describe('fuzz: headers', () => fuzzFamily(MESSAGE_CODECS.filter((c) => c.type === 'header')));
describe('fuzz: data types', () => fuzzFamily(MESSAGE_CODECS.filter((c) => c.type === 'data')));
describe('fuzz: metadata record values', () => {
  it('decodeRemoteLogMetadataValue only throws CodecError', () => {
    const records = MESSAGE_CODECS.filter((c) => c.type === 'metadata');
    expect(records.length).toBe(4);
    for (const c of records) {
      fc.assert(
        fc.property(
          c.arbitrary(0),
          fc.array(mutation, { minLength: 1, maxLength: 4 }),
          (x, muts) => {
            const w = new Writer(64);
            w.writeUvarint(1);
            w.writeUvarint(c.apiKey!);
            w.writeUvarint(0);
            c.encode(w, x, 0);
            onlyCodecErrors(() =>
              decodeRemoteLogMetadataValue(mutate(Buffer.from(w.finish()), muts)),
            );
          },
        ),
        { numRuns: 200 },
      );
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (raw) => {
        onlyCodecErrors(() => decodeRemoteLogMetadataValue(Buffer.from(raw)));
      }),
      { numRuns: 300 },
    );
  });
});
