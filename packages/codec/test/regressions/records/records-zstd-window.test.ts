/**
 * A zstd frame header declares its window size, and the pure-JS decoder (fzstd, used before
 * Node 22.15 because the native binding cannot stop at a byte limit) allocates that window
 * before producing any output. A 9-byte frame declaring a 1.9 GiB window therefore cost
 * 1.9 GiB of memory before the maxUncompressedBytes check could ever fire. Frame headers
 * are now walked first and a window above max(maxUncompressedBytes, 8 MiB) is refused.
 */
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  crc32c,
  decodeRecordBatches,
  decompress,
  encodeRecordBatchSync,
} from '../../../src/index.js';

// magic, FHD 0x00 (no single segment, no content size), window descriptor 0xa7
// (2^30 * 1.875 bytes), one last raw block of 0 bytes.
const HOSTILE = Buffer.from('28b52ffd00a7010000', 'hex');

describe('zstd window-size bomb', () => {
  it('is refused before any window is allocated', () => {
    const before = process.memoryUsage().arrayBuffers;
    let caught: unknown;
    try {
      decompress('zstd', HOSTILE, 64 * 1024 * 1024, { backend: 'js' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CodecError);
    expect((caught as CodecError).code).toBe('ERR_KAFKA_CODEC_LENGTH_INVALID');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('inside a record batch names the batch', () => {
    const header = encodeRecordBatchSync({
      baseOffset: 9n,
      records: [{ value: null, timestamp: 0 }],
    }).subarray(0, 61);
    const buf = Buffer.concat([header, HOSTILE]);
    buf.writeInt32BE(buf.length - 12, 8);
    buf.writeInt16BE(4, 21); // zstd
    buf.writeUInt32BE(crc32c(buf, 21), 17);
    const [batch] = [...decodeRecordBatches(buf, { compressionBackend: 'js' })];
    expect(() => [...batch!.records()]).toThrow(/offset 9.*maxUncompressedBytes/);
  });

  it('a real frame whose 2 MiB window exceeds a small limit still decodes', () => {
    // @mongodb-js/zstd level 3 output for "asdf\n": no content size, 2 MiB window.
    const real = Buffer.from('28b52ffd0058290000617364660a', 'hex');
    expect(decompress('zstd', real, 1024, { backend: 'js' }).toString()).toBe('asdf\n');
    expect(decompress('zstd', real, 1024).toString()).toBe('asdf\n');
  });
});
