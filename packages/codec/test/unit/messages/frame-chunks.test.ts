// A request framed as pieces for one writev: the same bytes as encodeRequestFrame, with large
// byte fields (a Produce request's record batches) passed by reference, as Kafka's SendBuilder
// adds records to a send without copying them.
import { describe, expect, it } from 'vitest';
import {
  CodecError,
  createMetadataRequest,
  createProduceRequest,
  createProduceRequestPartitionProduceData,
  createProduceRequestTopicProduceData,
  encodeRequestFrame,
  encodeRequestFrameChunks,
  MetadataApi,
  ProduceApi,
  Writer,
  writeRequestFrame,
  ZERO_COPY_FROM_BYTES,
} from '../../../src/index.js';

function produce(batches: Buffer[]) {
  return createProduceRequest({
    acks: -1,
    timeoutMs: 30_000,
    topicData: [
      createProduceRequestTopicProduceData({
        name: 'orders',
        partitionData: batches.map((records, index) =>
          createProduceRequestPartitionProduceData({ index, records }),
        ),
      }),
    ],
  });
}

describe('encodeRequestFrameChunks', () => {
  it('passes batches of the threshold or more by reference and copies smaller ones', () => {
    const big = Buffer.alloc(300_000, 1);
    const atThreshold = Buffer.alloc(ZERO_COPY_FROM_BYTES, 2);
    const small = Buffer.alloc(ZERO_COPY_FROM_BYTES - 1, 3);
    const request = produce([big, small, atThreshold]);
    for (const version of [3, 9, 11]) {
      const pieces = encodeRequestFrameChunks(ProduceApi, version, 7, 'c', request);
      const one = encodeRequestFrame(ProduceApi, version, 7, 'c', request);
      expect(Buffer.concat(pieces).equals(one)).toBe(true);
      // header..big's length | big | small's length and bytes..at's length | at | then, in
      // flexible versions (9+), the tagged-field trailer.
      expect(pieces).toHaveLength(version >= 9 ? 5 : 4);
      expect(pieces[1]).toBe(big);
      expect(pieces[3]).toBe(atThreshold);
      expect(pieces.some((p) => p === small)).toBe(false);
      expect(pieces[0]!.readInt32BE(0)).toBe(one.length - 4);
      // The copied pieces share one buffer sized without the batches passed by reference
      // (a small one comes from Node's Buffer pool, whose size differs across releases).
      expect(pieces[0]!.buffer).toBe(pieces[2]!.buffer);
      expect(pieces[0]!.buffer.byteLength).toBeLessThan(big.length);
    }
  });

  it('is one piece, the bytes of encodeRequestFrame, when no field is large', () => {
    const request = createMetadataRequest({ topics: null, allowAutoTopicCreation: false });
    const pieces = encodeRequestFrameChunks(MetadataApi, 12, 3, 'c', request);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.equals(encodeRequestFrame(MetadataApi, 12, 3, 'c', request))).toBe(true);
  });

  it('takes a threshold: 1 passes every non-empty batch by reference', () => {
    const batches: Buffer[] = [Buffer.from([1, 2, 3]), Buffer.alloc(0), Buffer.from([4])];
    const request = produce(batches);
    const pieces = encodeRequestFrameChunks(ProduceApi, 11, 1, null, request, 1);
    expect(Buffer.concat(pieces).equals(encodeRequestFrame(ProduceApi, 11, 1, null, request))).toBe(
      true,
    );
    expect(pieces.filter((p) => batches.includes(p))).toEqual([batches[0], batches[2]]);
  });

  it('refuses a threshold that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        encodeRequestFrameChunks(ProduceApi, 11, 1, 'c', produce([Buffer.alloc(1)]), bad),
      ).toThrow(CodecError);
    }
  });
});

describe('Writer in zero-copy mode', () => {
  it('keeps the bytes right when its buffer grows after a piece was closed', () => {
    const w = new Writer(16);
    w.zeroCopy(8);
    const field = Buffer.alloc(20, 9);
    w.writeInt32(1);
    w.writeCompactBytes(field);
    for (let i = 0; i < 100; i++) w.writeInt32(i);
    const copy = new Writer(16);
    copy.writeInt32(1);
    copy.writeCompactBytes(field);
    for (let i = 0; i < 100; i++) copy.writeInt32(i);
    const pieces = w.finishChunks();
    expect(pieces[1]).toBe(field);
    expect(w.size).toBe(copy.pos);
    expect(Buffer.concat(pieces).equals(copy.finish())).toBe(true);
    // finish() joins the pieces into one buffer.
    expect(w.finish().equals(copy.finish())).toBe(true);
  });

  it('copies a large field inside a size slot (tagged fields), whose size it back-patches', () => {
    const w = new Writer(16);
    w.zeroCopy(4);
    const field = Buffer.alloc(200, 5);
    const slot = w.beginSized();
    w.writeCompactBytes(field);
    w.endSized(slot);
    w.writeCompactBytes(field);
    const pieces = w.finishChunks();
    expect(pieces).toHaveLength(2);
    expect(pieces[1]).toBe(field);
    const copy = new Writer(16);
    const s = copy.beginSized();
    copy.writeCompactBytes(field);
    copy.endSized(s);
    copy.writeCompactBytes(field);
    expect(Buffer.concat(pieces).equals(copy.finish())).toBe(true);
  });

  it('is refused by writeRequestFrame, whose frames must be contiguous', () => {
    const w = new Writer(64);
    w.zeroCopy(1);
    expect(() => writeRequestFrame(w, ProduceApi, 11, 1, 'c', produce([Buffer.alloc(1)]))).toThrow(
      expect.objectContaining({ reason: 'UNSUPPORTED' }),
    );
  });
});
