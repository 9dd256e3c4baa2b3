// decode(encode(x)) equals x and encode(decode(b)) equals b for every generated message and
// every version: requests, responses, both headers, metadata records and data types; a writer
// in zero-copy mode gives the same bytes in pieces. The arbitraries are generated from the
// schemas (test/support/gen/arbitraries.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  decodeRemoteLogMetadataValue,
  encodeRemoteLogMetadataValue,
  Reader,
  type RemoteLogMetadataRecord,
  readRemoteLogMetadataHeader,
  Writer,
} from '../../../src/index.js';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';

const RUNS = 25;

describe('every message and version round-trips', () => {
  for (const c of MESSAGE_CODECS) {
    it(`${c.name} v${c.minVersion}-${c.maxVersion}`, () => {
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        fc.assert(
          fc.property(c.arbitrary(v), (x) => {
            const w = new Writer(64);
            c.encode(w, x, v);
            const bytes = Buffer.from(w.finish());
            const r = new Reader(bytes);
            const back = c.decode(r, v);
            expect(r.pos).toBe(bytes.length);
            expect(back).toEqual(x);
            const w2 = new Writer(16);
            c.encode(w2, back, v);
            expect(w2.finish().equals(bytes)).toBe(true);
            // Zero-copy mode, every raw field of a byte or more by reference (tagged fields'
            // bytes excepted): the pieces still join into the same bytes.
            const z = new Writer(16);
            z.zeroCopy(1);
            c.encode(z, x, v);
            expect(z.size).toBe(bytes.length);
            expect(Buffer.concat(z.finishChunks()).equals(bytes)).toBe(true);
          }),
          { numRuns: RUNS },
        );
      }
    });
  }
});

describe('metadata record values round-trip through the serde framing', () => {
  it('every record type', () => {
    const records = MESSAGE_CODECS.filter((c) => c.type === 'metadata');
    expect(records.map((c) => c.apiKey).sort()).toEqual([0, 1, 2, 3]);
    for (const c of records) {
      fc.assert(
        fc.property(c.arbitrary(0), (record) => {
          const value = { apiKey: c.apiKey, version: 0, record } as RemoteLogMetadataRecord;
          const bytes = encodeRemoteLogMetadataValue(value);
          expect(bytes.subarray(0, 3).toString('hex')).toBe(`010${c.apiKey}00`);
          expect(readRemoteLogMetadataHeader(bytes)).toEqual({ recordType: c.apiKey, version: 0 });
          const back = decodeRemoteLogMetadataValue(bytes);
          expect(back).toEqual(value);
          expect(encodeRemoteLogMetadataValue(back).equals(bytes)).toBe(true);
        }),
        { numRuns: 100 },
      );
    }
  });
});

describe('the frame of a metadata record value alone', () => {
  it('reads type and version from any body, and refuses other frames and short values', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0x3fff }),
        fc.integer({ min: 0, max: 0x3fff }),
        fc.uint8Array({ maxLength: 16 }),
        (recordType, version, body) => {
          const w = new Writer(16);
          w.writeUvarint(1);
          w.writeUvarint(recordType);
          w.writeUvarint(version);
          const bytes = Buffer.concat([w.finish(), body]);
          expect(readRemoteLogMetadataHeader(bytes)).toEqual({ recordType, version });
          // Cut inside the frame: a typed error, never a wrong answer.
          const frameBytes = bytes.length - body.length;
          expect(() => readRemoteLogMetadataHeader(bytes.subarray(0, frameBytes - 1))).toThrow(
            CodecError,
          );
        },
      ),
      { numRuns: 200 },
    );
    expect(() => readRemoteLogMetadataHeader(Buffer.from([0, 0, 0]))).toThrow(/frame version 0/);
  });
});
