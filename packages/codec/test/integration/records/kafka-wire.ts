/**
 * Test-only: the smallest Kafka client that can fetch raw record batches (Fetch v4) and
 * produce our own (Produce v7) against a real broker, so the record codec can be checked
 * against Apache Kafka before the wire layer exists. Hand-encoded, non-flexible versions
 * (Fetch v4 is the oldest Kafka 4.x still serves); never used by library code.
 */
import { connect, type Socket } from 'node:net';

class Out {
  private parts: Buffer[] = [];
  int8(v: number) {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    this.parts.push(b);
    return this;
  }
  int16(v: number) {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.parts.push(b);
    return this;
  }
  int32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
    return this;
  }
  int64(v: bigint) {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    this.parts.push(b);
    return this;
  }
  string(s: string | null) {
    if (s === null) return this.int16(-1);
    const b = Buffer.from(s, 'utf8');
    this.int16(b.length);
    this.parts.push(b);
    return this;
  }
  bytes(b: Buffer) {
    this.int32(b.length);
    this.parts.push(b);
    return this;
  }
  build(): Buffer {
    const body = Buffer.concat(this.parts);
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    return Buffer.concat([size, body]);
  }
}

class In {
  pos = 0;
  readonly buf: Buffer;
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  int16() {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32() {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64() {
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  string() {
    const n = this.int16();
    if (n < 0) return null;
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  bytes() {
    const n = this.int32();
    if (n < 0) return null;
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

/** One connection to one broker, one request at a time. */
export class MiniKafka {
  private socket: Socket;
  private pending: Buffer = Buffer.alloc(0);
  private waiter: ((frame: Buffer) => void) | null = null;
  private failure: Error | null = null;
  private correlationId = 0;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      this.drain();
    });
    socket.on('error', (e) => {
      this.failure = e;
    });
  }

  static open(host: string, port: number): Promise<MiniKafka> {
    return new Promise((resolve, reject) => {
      const s = connect({ host, port }, () => resolve(new MiniKafka(s)));
      s.once('error', reject);
    });
  }

  private drain() {
    if (this.pending.length < 4) return;
    const size = this.pending.readInt32BE(0);
    if (this.pending.length < 4 + size) return;
    const frame = this.pending.subarray(4, 4 + size);
    this.pending = this.pending.subarray(4 + size);
    const w = this.waiter;
    this.waiter = null;
    w?.(frame);
  }

  private request(apiKey: number, version: number, body: (o: Out) => void): Promise<In> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = ++this.correlationId;
    const o = new Out().int16(apiKey).int16(version).int32(id).string('kafkats-records-test');
    body(o);
    return new Promise((resolve, reject) => {
      this.waiter = (frame) => {
        const r = new In(frame);
        const got = r.int32();
        if (got !== id) reject(new Error(`correlation id ${got}, expected ${id}`));
        else resolve(r);
      };
      this.socket.write(o.build());
    });
  }

  /** Fetch v4 of one partition; returns the partition's error code and raw records bytes. */
  async fetch(
    topic: string,
    partition: number,
    offset: bigint,
    maxBytes: number,
  ): Promise<{ errorCode: number; highWatermark: bigint; records: Buffer | null }> {
    const r = await this.request(1, 4, (o) =>
      o
        .int32(-1) // replica_id: a consumer
        .int32(500) // max_wait_ms
        .int32(1) // min_bytes
        .int32(maxBytes)
        .int8(0) // isolation_level: read_uncommitted
        .int32(1)
        .string(topic)
        .int32(1)
        .int32(partition)
        .int64(offset)
        .int32(maxBytes),
    );
    r.int32(); // throttle_time_ms
    const topics = r.int32();
    if (topics !== 1) throw new Error(`fetch answered ${topics} topics`);
    r.string();
    r.int32(); // partitions: 1
    r.int32(); // partition_index
    const errorCode = r.int16();
    const highWatermark = r.int64();
    r.int64(); // last_stable_offset
    const aborted = r.int32();
    for (let i = 0; i < aborted; i++) {
      r.int64();
      r.int64();
    }
    return { errorCode, highWatermark, records: r.bytes() };
  }

  /**
   * Produce v7 of one batch to one partition with acks=-1; returns error code and base
   * offset. v7, not v3: a broker refuses zstd batches below Produce v7 (KIP-110).
   */
  async produce(
    topic: string,
    partition: number,
    records: Buffer,
  ): Promise<{ errorCode: number; baseOffset: bigint }> {
    const r = await this.request(0, 7, (o) =>
      o
        .string(null) // transactional_id
        .int16(-1) // acks: all in-sync replicas
        .int32(30_000)
        .int32(1)
        .string(topic)
        .int32(1)
        .int32(partition)
        .bytes(records),
    );
    r.int32(); // topics: 1
    r.string();
    r.int32(); // partitions: 1
    r.int32();
    const errorCode = r.int16();
    const baseOffset = r.int64();
    return { errorCode, baseOffset };
  }

  close(): void {
    this.socket.destroy();
  }
}
