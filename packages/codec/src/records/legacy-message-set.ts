/**
 * Legacy message sets (magic 0 and 1, before KIP-98). Decode only: brokers still serve them
 * from old segments. Each top-level message is one "batch"; a compressed one is a wrapper
 * whose value is an inner message set, decompressed eagerly (legacy data is rare).
 */
import { CodecError } from '../errors.js';
import {
  COMPRESSION_CODECS,
  type CompressionBackend,
  type CompressionCodec,
  decompress,
} from './compression.js';
import { crc32 } from './crc32c.js';
import { ATTR_COMPRESSION_MASK, ATTR_LOG_APPEND_TIME, LOG_OVERHEAD } from './layout.js';
import {
  type KafkaRecord,
  RECORD_SLOTS,
  type RecordBase,
  RecordTable,
  S_ATTRIBUTES,
  S_KEY_LEN,
  S_KEY_POS,
  S_OFFSET_DELTA,
  S_TIMESTAMP_DELTA,
  S_VALUE_LEN,
  S_VALUE_POS,
} from './record.js';
import { type RecordBatch, RecordIterator } from './record-batch.js';
import { RecordBatchError } from './record-batch-error.js';
import { RecordColumns } from './record-columns.js';
import { type ViewSource, viewSource } from './view.js';

/** crc (4) + magic (1) + attributes (1) + key length (4) + value length (4). */
export const LEGACY_OVERHEAD_V0 = 14;
/** v0 plus the timestamp (8). */
const LEGACY_OVERHEAD_V1 = 22;

interface LegacyMessage {
  readonly offset: bigint;
  readonly magic: number;
  readonly attributes: number;
  readonly crc: number;
  readonly timestamp: bigint;
  readonly keyPos: number;
  readonly keyLen: number;
  readonly valuePos: number;
  readonly valueLen: number;
}

function fail(
  reason: 'CORRUPT' | 'LENGTH_INVALID' | 'UNSUPPORTED',
  offset: bigint,
  detail: string,
): never {
  throw new RecordBatchError(reason, offset, detail);
}

/** Reads one message in `buf[start, start + 12 + size)`; `size` is already bounds-checked. */
function readMessage(buf: Buffer, start: number, size: number, verifyCrc: boolean): LegacyMessage {
  const offset = buf.readBigInt64BE(start);
  const magic = buf[start + 16]!;
  const min = magic === 0 ? LEGACY_OVERHEAD_V0 : LEGACY_OVERHEAD_V1;
  if (size < min)
    fail('LENGTH_INVALID', offset, `message size ${size} is below the v${magic} minimum ${min}`);
  const end = start + LOG_OVERHEAD + size;
  const crc = buf.readUInt32BE(start + 12);
  if (verifyCrc) {
    const actual = crc32(buf, start + 16, end);
    if (actual !== crc) {
      throw new RecordBatchError(
        'CORRUPT',
        offset,
        `CRC-32 mismatch: message says 0x${crc.toString(16)}, bytes give 0x${actual.toString(16)}`,
        { expectedCrc: crc, actualCrc: actual },
      );
    }
  }
  const attributes = buf[start + 17]!;
  let pos = start + 18;
  let timestamp = -1n;
  if (magic === 1) {
    timestamp = buf.readBigInt64BE(pos);
    pos += 8;
  }
  const keyLen = buf.readInt32BE(pos);
  pos += 4;
  if (keyLen < -1 || keyLen > end - pos - 4) fail('LENGTH_INVALID', offset, `key length ${keyLen}`);
  const keyPos = pos;
  if (keyLen > 0) pos += keyLen;
  const valueLen = buf.readInt32BE(pos);
  pos += 4;
  if (valueLen < -1 || valueLen > end - pos)
    fail('LENGTH_INVALID', offset, `value length ${valueLen}`);
  const valuePos = pos;
  if (valueLen > 0) pos += valueLen;
  if (pos !== end) fail('LENGTH_INVALID', offset, `${end - pos} bytes left after the value`);
  return { offset, magic, attributes, crc, timestamp, keyPos, keyLen, valuePos, valueLen };
}

function base(offset: bigint, timestamp: bigint, logAppendTime: bigint | null): RecordBase {
  return { baseOffset: offset, baseTimestamp: timestamp, logAppendTime, baseSequence: -1 };
}

/**
 * The messages of one top-level legacy message as a record table: offsets relative to the
 * first message's (`shift` makes v1's relative inner offsets absolute), timestamps relative
 * to the first message's, those beyond int32 kept as wide deltas.
 */
function toTable(
  src: ViewSource,
  messages: readonly LegacyMessage[],
  shift: bigint,
  logAppendTime: bigint | null,
  wrapperOffset: bigint,
): RecordTable {
  const first = messages[0]!;
  const table = new RecordTable(
    base(first.offset + shift, first.timestamp, logAppendTime),
    src,
    messages.length,
  );
  const slots = table.slots;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const s = i * RECORD_SLOTS;
    const offsetDelta = m.offset - first.offset;
    if (offsetDelta !== BigInt.asIntN(32, offsetDelta)) {
      fail('CORRUPT', wrapperOffset, `inner message ${i} is ${offsetDelta} offsets from the first`);
    }
    slots[s + S_OFFSET_DELTA] = Number(offsetDelta);
    const timestampDelta = m.timestamp - first.timestamp;
    if (timestampDelta === BigInt.asIntN(32, timestampDelta)) {
      slots[s + S_TIMESTAMP_DELTA] = Number(timestampDelta);
    } else {
      table.wideTimestamps ??= new Map();
      table.wideTimestamps.set(i, timestampDelta);
    }
    slots[s + S_ATTRIBUTES] = m.attributes;
    slots[s + S_KEY_POS] = m.keyPos;
    slots[s + S_KEY_LEN] = m.keyLen;
    slots[s + S_VALUE_POS] = m.valuePos;
    slots[s + S_VALUE_LEN] = m.valueLen;
  }
  table.count = messages.length;
  return table;
}

/** @internal one top-level legacy message, seen as a batch */
export class LegacyRecordBatch implements RecordBatch {
  readonly magic: 0 | 1;
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly sizeInBytes: number;
  readonly partitionLeaderEpoch = -1;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: CompressionCodec;
  readonly timestampType: 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';
  readonly isTransactional = false;
  readonly isControl = false;
  readonly deleteHorizonMs = null;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId = -1n;
  readonly producerEpoch = -1;
  readonly baseSequence = -1;
  readonly lastSequence = -1;
  readonly recordCount: number;
  readonly buffer: Buffer;
  private readonly table: RecordTable;

  get lastOffsetDelta(): number {
    return Number(this.lastOffset - this.baseOffset);
  }

  constructor(
    buf: Buffer,
    start: number,
    size: number,
    verifyCrc: boolean,
    maxBytes: number,
    backend: CompressionBackend,
  ) {
    const m = readMessage(buf, start, size, verifyCrc);
    this.magic = m.magic as 0 | 1;
    this.crc = m.crc;
    this.attributes = m.attributes;
    this.sizeInBytes = LOG_OVERHEAD + size;
    this.buffer = buf.subarray(start, start + this.sizeInBytes);
    const logAppend = m.magic === 1 && (m.attributes & ATTR_LOG_APPEND_TIME) !== 0;
    this.timestampType =
      m.magic === 0 ? 'NoTimestampType' : logAppend ? 'LogAppendTime' : 'CreateTime';
    const codec = COMPRESSION_CODECS[m.attributes & ATTR_COMPRESSION_MASK];
    // zstd arrived with magic 2 (KIP-110); Kafka rejects it in older messages.
    if (codec === undefined || codec === 'zstd') {
      fail(
        'UNSUPPORTED',
        m.offset,
        `compression id ${m.attributes & ATTR_COMPRESSION_MASK} in a v${m.magic} message`,
      );
    }
    this.compression = codec;
    if (codec === 'none') {
      this.baseOffset = m.offset;
      this.lastOffset = m.offset;
      this.baseTimestamp = m.timestamp;
      this.maxTimestamp = m.timestamp;
      this.recordCount = 1;
      this.table = toTable(viewSource(buf), [m], 0n, null, m.offset);
      return;
    }
    if (m.valueLen < 0) fail('CORRUPT', m.offset, 'compressed wrapper message has a null value');
    let inner: Buffer;
    try {
      inner = decompress(codec, buf.subarray(m.valuePos, m.valuePos + m.valueLen), maxBytes, {
        legacyLz4: m.magic === 0,
        backend,
      });
    } catch (e) {
      const reason = e instanceof CodecError ? e.reason : 'CORRUPT';
      throw new RecordBatchError(reason, m.offset, e instanceof Error ? e.message : String(e), {
        cause: e,
      });
    }
    const messages: LegacyMessage[] = [];
    let p = 0;
    while (p < inner.length) {
      if (inner.length - p < LOG_OVERHEAD + 5) fail('CORRUPT', m.offset, 'inner message truncated');
      const s = inner.readInt32BE(p + 8);
      if (s < LEGACY_OVERHEAD_V0 || s > inner.length - p - LOG_OVERHEAD) {
        fail(
          'CORRUPT',
          m.offset,
          `inner message size ${s} with ${inner.length - p - LOG_OVERHEAD} bytes left`,
        );
      }
      const im = readMessage(inner, p, s, verifyCrc);
      if (im.magic > 1) fail('CORRUPT', m.offset, `inner message with magic ${im.magic}`);
      if ((im.attributes & ATTR_COMPRESSION_MASK) !== 0) {
        fail('CORRUPT', m.offset, 'compressed messages must not be nested');
      }
      messages.push(im);
      p += LOG_OVERHEAD + s;
    }
    if (messages.length === 0) fail('CORRUPT', m.offset, 'compressed wrapper holds no messages');
    // v1 inner offsets are relative (KIP-31): the wrapper carries the last absolute offset.
    const last = messages[messages.length - 1]!;
    const shift = m.magic === 1 ? m.offset - last.offset : 0n;
    const wrapperTs = logAppend ? m.timestamp : null;
    let maxTs = -1n;
    for (const im of messages) {
      const ts = wrapperTs ?? im.timestamp;
      if (ts > maxTs) maxTs = ts;
    }
    this.baseOffset = messages[0]!.offset + shift;
    this.lastOffset = m.offset;
    this.baseTimestamp = messages[0]!.timestamp;
    this.maxTimestamp = m.magic === 1 ? m.timestamp : maxTs;
    this.recordCount = messages.length;
    this.table = toTable(viewSource(inner), messages, shift, wrapperTs, m.offset);
  }

  records(): IterableIterator<KafkaRecord> {
    return new RecordIterator(this.table);
  }

  columns(): RecordColumns {
    return new RecordColumns(this.table, 0, this.table.count);
  }
}
