// Decoding hostile input: truncation, negative and oversized lengths, counts past the end,
// overlong varints. Every failure is a CodecError that says where, never a RangeError, and
// nothing is allocated by an untrusted count before it is checked against the bytes left.
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createMetadataResponse,
  createMetadataResponsePartition,
  createMetadataResponseTopic,
  decodeApiVersionsRequest,
  decodeMetadataResponse,
  decodeProduceRequest,
  decodeResponseFrame,
  encodeMetadataResponse,
  MetadataApi,
  Reader,
  Writer,
} from '../../../src/index.js';

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error('expected a CodecError');
}

function metadataResponseBytes(): Buffer {
  const topics = [];
  for (let t = 0; t < 4; t++) {
    const partitions = [];
    for (let p = 0; p < 8; p++) {
      partitions.push(
        createMetadataResponsePartition({
          partitionIndex: p,
          leaderEpoch: 5,
          replicaNodes: [1, 2],
        }),
      );
    }
    topics.push(createMetadataResponseTopic({ name: `t${t}`, partitions }));
  }
  const w = new Writer();
  encodeMetadataResponse(w, createMetadataResponse({ topics }), 12);
  return Buffer.from(w.finish());
}

describe('truncation', () => {
  it('names the exact field: topics[3].partitions[7].leaderEpoch', () => {
    const full = metadataResponseBytes();
    const messages = new Set<string>();
    for (let cut = 0; cut < full.length; cut++) {
      messages.add(
        codecError(() => decodeMetadataResponse(new Reader(full.subarray(0, cut)), 12)).message,
      );
    }
    expect(messages).toContain(
      'MetadataResponse v12 .topics[3].partitions[7].leaderEpoch: need 4 bytes, 2 left',
    );
  });

  it('every prefix of a valid message fails with TRUNCATED or LENGTH_INVALID', () => {
    const full = metadataResponseBytes();
    for (let cut = 0; cut < full.length; cut++) {
      const e = codecError(() => decodeMetadataResponse(new Reader(full.subarray(0, cut)), 12));
      expect(['TRUNCATED', 'LENGTH_INVALID']).toContain(e.reason);
    }
  });

  it('trailing bytes after a response frame are rejected', () => {
    const body = metadataResponseBytes();
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 7, 0]), body, Buffer.from([0])]);
    expect(codecError(() => decodeResponseFrame(MetadataApi, 12, frame)).reason).toBe(
      'TRAILING_BYTES',
    );
  });
});

describe('lengths and counts', () => {
  it('an array count of 2^31-1 with 4 bytes left is rejected before allocating', () => {
    // ProduceRequest v3: transactionalId null, acks, timeout, then the topic array count.
    const b = Buffer.from('ffff' + '0001' + '00000000' + '7fffffff' + '00000000', 'hex');
    const e = codecError(() => decodeProduceRequest(new Reader(b), 3));
    expect(e.reason).toBe('LENGTH_INVALID');
    expect(e.path).toBe('ProduceRequest v3 .topicData');
  });

  it('a negative string length other than -1 is rejected', () => {
    // MetadataResponse v1 (non-flexible): one broker, nodeId 1, then host length -2.
    const b = Buffer.from('00000001' + '00000001' + 'fffe', 'hex');
    const e = codecError(() => decodeMetadataResponse(new Reader(b), 1));
    expect(e.reason).toBe('LENGTH_INVALID');
    expect(e.path).toBe('MetadataResponse v1 .brokers[0].host');
  });

  it('a bad element after a good one is named by its own index', () => {
    // MetadataResponse v1: two brokers; the first whole (id 1, host "a", port 9092, no rack),
    // the second with host length -2.
    const b = Buffer.from(
      '00000002' + '00000001' + '000161' + '00002384' + 'ffff' + '00000002' + 'fffe',
      'hex',
    );
    const e = codecError(() => decodeMetadataResponse(new Reader(b), 1));
    expect(e.reason).toBe('LENGTH_INVALID');
    expect(e.path).toBe('MetadataResponse v1 .brokers[1].host');
  });

  it('a compact string longer than 0x7fff is rejected even when the bytes are there', () => {
    const n = 0x8000 + 1; // length + 1
    const len = Buffer.from([(n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, n >> 14]);
    const b = Buffer.concat([len, Buffer.alloc(0x8000, 0x61), Buffer.from([1, 0])]);
    const e = codecError(() => decodeApiVersionsRequest(new Reader(b), 3));
    expect(e.reason).toBe('LENGTH_INVALID');
    expect(e.path).toBe('ApiVersionsRequest v3 .clientSoftwareName');
  });

  it('an unsigned varint longer than 5 bytes or 32 bits is rejected', () => {
    expect(
      codecError(() => new Reader(Buffer.from('8080808080', 'hex')).readUvarint()).reason,
    ).toBe('LENGTH_INVALID');
    expect(
      codecError(() => new Reader(Buffer.from('ffffffff1f', 'hex')).readUvarint()).reason,
    ).toBe('LENGTH_INVALID');
    expect(new Reader(Buffer.from('ffffffff0f', 'hex')).readUvarint()).toBe(0xffffffff);
  });

  it('invalid UTF-8 decodes with U+FFFD replacement, as Java does', () => {
    const b = Buffer.from('0003' + '61ff62', 'hex');
    expect(new Reader(b).readString()).toBe('a\ufffdb');
  });
});
