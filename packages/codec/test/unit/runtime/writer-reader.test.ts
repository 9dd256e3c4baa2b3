import { describe, expect, it } from 'vitest';
import { CodecError, Reader, Writer } from '../../../src/index.js';

const hexOf = (f: (w: Writer) => void): string => {
  const w = new Writer(1);
  f(w);
  return w.finish().toString('hex');
};

describe('Writer', () => {
  it('writes big-endian fixed-width integers and grows from a tiny buffer', () => {
    expect(hexOf((w) => w.writeInt16(-2))).toBe('fffe');
    expect(hexOf((w) => w.writeUint16(0xabcd))).toBe('abcd');
    expect(hexOf((w) => w.writeInt32(-2))).toBe('fffffffe');
    expect(hexOf((w) => w.writeUint32(0xfffffffe))).toBe('fffffffe');
    expect(hexOf((w) => w.writeInt64(-2n))).toBe('fffffffffffffffe');
    expect(hexOf((w) => w.writeFloat64(1))).toBe('3ff0000000000000');
    expect(hexOf((w) => w.writeUuid('AAAAAAAAAAAAAAAAAAAAAQ'))).toBe(
      '00000000000000000000000000000001',
    );
    const w = new Writer(1);
    for (let i = 0; i < 1000; i++) w.writeInt32(i);
    expect(w.pos).toBe(4000);
    expect(w.finish().readInt32BE(3996)).toBe(999);
  });

  it('writes unsigned varints, zig-zag varints and varlongs', () => {
    expect(hexOf((w) => w.writeUvarint(0))).toBe('00');
    expect(hexOf((w) => w.writeUvarint(127))).toBe('7f');
    expect(hexOf((w) => w.writeUvarint(128))).toBe('8001');
    expect(hexOf((w) => w.writeUvarint(0xffffffff))).toBe('ffffffff0f');
    expect(hexOf((w) => w.writeVarint(-1))).toBe('01');
    expect(hexOf((w) => w.writeVarint(1))).toBe('02');
    expect(hexOf((w) => w.writeVarint(-2147483648))).toBe('ffffffff0f');
    expect(hexOf((w) => w.writeVarlong(-1n))).toBe('01');
    expect(hexOf((w) => w.writeVarlong(-(2n ** 63n)))).toBe('ffffffffffffffffff01');
  });

  it('writes compact and classic strings, bytes and null markers', () => {
    expect(hexOf((w) => w.writeString(null))).toBe('ffff');
    expect(hexOf((w) => w.writeString('é'))).toBe('0002c3a9');
    expect(hexOf((w) => w.writeCompactString(null))).toBe('00');
    expect(hexOf((w) => w.writeCompactString('ab'))).toBe('036162');
    expect(hexOf((w) => w.writeBytes(null))).toBe('ffffffff');
    expect(hexOf((w) => w.writeCompactBytes(Buffer.from([9])))).toBe('0209');
    expect(hexOf((w) => w.writeCompactArrayLength(null))).toBe('00');
    expect(hexOf((w) => w.writeArrayLength(2))).toBe('00000002');
  });

  it('back-patches a size that needs more than one varint byte', () => {
    for (const n of [0, 127, 128, 300, 16383, 16384, 70000]) {
      const w = new Writer(8);
      w.writeInt8(7);
      const slot = w.beginSized();
      for (let i = 0; i < n; i++) w.writeInt8(i % 100);
      w.endSized(slot);
      w.writeInt8(8);
      const r = new Reader(Buffer.from(w.finish()));
      expect(r.readInt8()).toBe(7);
      expect(r.readUvarint()).toBe(n);
      const body = r.readRaw(n);
      expect(body.every((b, i) => b === i % 100)).toBe(true);
      expect(r.readInt8()).toBe(8);
      expect(r.remaining()).toBe(0);
    }
  });

  it('rejects values outside their type with VALUE_INVALID, never a RangeError', () => {
    const bad: [string, (w: Writer) => void][] = [
      ['int8', (w) => w.writeInt8(128)],
      ['int16', (w) => w.writeInt16(1.5)],
      ['uint16', (w) => w.writeUint16(-1)],
      ['int32', (w) => w.writeInt32(2 ** 31)],
      ['uint32', (w) => w.writeUint32(2 ** 32)],
      ['int64', (w) => w.writeInt64(2n ** 63n)],
      ['uuid', (w) => w.writeUuid('AAAAAAAAAAAAAAAAAAAAAB')],
      ['uvarint', (w) => w.writeUvarint(-1)],
      ['string', (w) => w.writeString('x'.repeat(0x8000))],
    ];
    for (const [, f] of bad) {
      try {
        f(new Writer());
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(CodecError);
        expect(['VALUE_INVALID', 'LENGTH_INVALID']).toContain((e as CodecError).reason);
      }
    }
  });
});

describe('Reader', () => {
  it('reads signed and unsigned integers and returns views', () => {
    const buf = Buffer.from('fffe' + 'fffe' + 'fffffffe' + 'fffffffe' + '00000002aabb', 'hex');
    const r = new Reader(buf);
    expect(r.readInt16()).toBe(-2);
    expect(r.readUint16()).toBe(0xfffe);
    expect(r.readInt32()).toBe(-2);
    expect(r.readUint32()).toBe(0xfffffffe);
    const b = r.readBytes();
    expect(b.toString('hex')).toBe('aabb');
    buf[buf.length - 1] = 0xcc;
    expect(b.toString('hex')).toBe('aacc'); // a view, not a copy
  });

  it('reads varints and rejects overlong varlongs', () => {
    expect(new Reader(Buffer.from('01', 'hex')).readVarint()).toBe(-1);
    expect(new Reader(Buffer.from('ffffffff0f', 'hex')).readVarint()).toBe(-2147483648);
    expect(new Reader(Buffer.from('ffffffffffffffffff01', 'hex')).readVarlong()).toBe(-(2n ** 63n));
    expect(() => new Reader(Buffer.from('ffffffffffffffffff02', 'hex')).readVarlong()).toThrow(
      CodecError,
    );
    expect(() => new Reader(Buffer.from('8080', 'hex')).readVarlong()).toThrow(
      /varlong runs past the end at byte 2/,
    );
  });

  it('respects a start and end inside a larger buffer', () => {
    const r = new Reader(Buffer.from('0000000100000002', 'hex'), 4, 6);
    expect(r.remaining()).toBe(2);
    expect(() => r.readInt32()).toThrow(/need 4 bytes, 2 left/);
  });
});
