// decodeExact refuses any byte after a complete message, for every generated message and
// version, and names the message, the version and how many bytes were left.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  decodeExact,
  decodeMetadataResponse,
  TrailingBytesError,
  Writer,
} from '../../../src/index.js';
import { MESSAGE_CODECS } from '../../support/gen/arbitraries.js';

describe('decodeExact', () => {
  for (const c of MESSAGE_CODECS) {
    it(`${c.name} v${c.minVersion}-${c.maxVersion}: the message alone decodes, a byte more is refused`, () => {
      for (let v = c.minVersion; v <= c.maxVersion; v++) {
        fc.assert(
          fc.property(
            c.arbitrary(v),
            fc.uint8Array({ minLength: 1, maxLength: 40 }),
            (x, extra) => {
              const w = new Writer(64);
              c.encode(w, x, v);
              const bytes = Buffer.from(w.finish());
              expect(decodeExact(c.decode, bytes, v, c.name)).toEqual(x);
              let thrown: unknown;
              try {
                decodeExact(c.decode, Buffer.concat([bytes, extra]), v, c.name);
              } catch (e) {
                thrown = e;
              }
              // Extra bytes may also make a message with a trailing tag section or array
              // read differently; they must never be accepted silently.
              expect(thrown).toBeInstanceOf(CodecError);
              if (thrown instanceof TrailingBytesError) {
                expect(thrown.messageName).toBe(c.name);
                expect(thrown.version).toBe(v);
                expect(thrown.trailingBytes).toBe(extra.length);
              }
            },
          ),
          { numRuns: 5 },
        );
      }
    });
  }

  it('says what, at which version and how many bytes', () => {
    const body = Buffer.alloc(10);
    let thrown: unknown;
    try {
      // v0: brokers (int32 count 0), topics (int32 count 0), then 2 bytes too many.
      decodeExact(decodeMetadataResponse, body, 0, 'MetadataResponse');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(TrailingBytesError);
    expect(thrown).toMatchObject({
      code: 'ERR_KAFKA_CODEC_TRAILING_BYTES',
      reason: 'TRAILING_BYTES',
      messageName: 'MetadataResponse',
      version: 0,
      trailingBytes: 2,
      message: 'MetadataResponse v0: 2 bytes after the message',
    });
  });
});
