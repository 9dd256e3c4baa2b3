import { createServer, type Server, Socket } from 'node:net';
import { RawFrameSplitter } from './frames.js';
import type { RecordedExchange } from './recording.js';

/** Which way bytes travel through the proxy. */
export type ProxyDirection = 'toBroker' | 'toClient';

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Where to forward. */
  target: { host: string; port: number };
  /** Listen address; default 127.0.0.1, port 0 (free). */
  host?: string;
  port?: number;
  /** Parse and keep every request/response frame pair (see `recording()`). Default false. */
  record?: boolean;
}

/**
 * A TCP proxy between a client and a broker that injects faults on demand. Every fault is a
 * property or method that applies from the next chunk on, in both directions unless named.
 */
export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  /** `host:port` to give the client. */
  readonly address: string;
  /** Client connections accepted so far. */
  readonly connectionsAccepted: number;
  /** Client connections currently open. */
  readonly activeConnections: number;
  /** Bytes forwarded per direction. */
  readonly bytes: Readonly<Record<ProxyDirection, number>>;
  /** Holds every chunk this long before forwarding it (order kept). Default 0. */
  delayMs: number;
  /** Swallows every byte in both directions while keeping the sockets open. */
  blackhole: boolean;
  /** Accepts new connections and closes them at once (a broker that is down). */
  refuse: boolean;
  /** Destroys every open connection (both sides see a reset). */
  dropAll(): void;
  /**
   * After `afterBytes` more bytes in `direction`, forwards exactly up to that point and then
   * destroys the connection: a cut in the middle of a frame. One shot.
   */
  cut(direction: ProxyDirection, afterBytes: number): void;
  /** XORs the byte `offset` bytes ahead in `direction` with `mask` (default 0xff). One shot. */
  corrupt(direction: ProxyDirection, offset: number, mask?: number): void;
  /** Points new connections at another target (a broker that moved). */
  retarget(target: { host: string; port: number }): void;
  /** Request/response pairs seen so far (with `record: true`), in request order. */
  recording(): RecordedExchange[];
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  broker: Socket;
}

/** Starts a {@link FaultProxy} on loopback. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  let target = options.target;
  let accepted = 0;
  const bytes: Record<ProxyDirection, number> = { toBroker: 0, toClient: 0 };
  const pairs = new Set<Pair>();
  const cuts: Partial<Record<ProxyDirection, number>> = {};
  const corruptions: Partial<Record<ProxyDirection, { offset: number; mask: number }>> = {};
  const exchanges: RecordedExchange[] = [];

  const proxy = {
    delayMs: 0,
    blackhole: false,
    refuse: false,
  };

  const server: Server = createServer((client) => {
    accepted++;
    const connection = accepted;
    client.on('error', () => {});
    if (proxy.refuse) {
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const broker = new Socket();
    broker.on('error', () => {});
    broker.setNoDelay(true);
    const pair: Pair = { client, broker };
    pairs.add(pair);
    const closeBoth = () => {
      pairs.delete(pair);
      client.destroy();
      broker.destroy();
    };
    client.on('close', closeBoth);
    broker.on('close', closeBoth);
    broker.connect(target.port, target.host);
    const pendingToBroker: Buffer[] = [];
    let brokerUp = false;
    broker.once('connect', () => {
      brokerUp = true;
      for (const b of pendingToBroker) broker.write(b);
      pendingToBroker.length = 0;
    });

    const requests = options.record ? new RawFrameSplitter() : null;
    const responses = options.record ? new RawFrameSplitter() : null;
    const byCorrelation = new Map<number, RecordedExchange>();

    const forward = (direction: ProxyDirection, chunk: Buffer) => {
      if (proxy.blackhole) return;
      let data = chunk;
      const corr = corruptions[direction];
      if (corr !== undefined) {
        if (corr.offset < data.length) {
          data = Buffer.from(data);
          data[corr.offset] = (data[corr.offset] as number) ^ corr.mask;
          delete corruptions[direction];
        } else {
          corr.offset -= data.length;
        }
      }
      let cutNow = false;
      const left = cuts[direction];
      if (left !== undefined) {
        if (left <= data.length) {
          data = data.subarray(0, left);
          delete cuts[direction];
          cutNow = true;
        } else {
          cuts[direction] = left - data.length;
        }
      }
      const send = () => {
        bytes[direction] += data.length;
        if (direction === 'toBroker') {
          if (brokerUp) broker.write(data);
          else pendingToBroker.push(data);
          if (requests !== null) {
            for (const f of safeFrames(requests, data)) {
              if (f.length < 8) continue;
              const ex: RecordedExchange = {
                connection,
                apiKey: f.readInt16BE(0),
                apiVersion: f.readInt16BE(2),
                request: f,
                response: null,
              };
              byCorrelation.set(f.readInt32BE(4), ex);
              exchanges.push(ex);
            }
          }
        } else {
          client.write(data);
          if (responses !== null) {
            for (const f of safeFrames(responses, data)) {
              if (f.length < 4) continue;
              const ex = byCorrelation.get(f.readInt32BE(0));
              if (ex !== undefined) {
                ex.response = f;
                byCorrelation.delete(f.readInt32BE(0));
              }
            }
          }
        }
        if (cutNow) {
          // Let the partial bytes leave before the reset.
          const target = direction === 'toBroker' ? broker : client;
          target.end(() => closeBoth());
          setTimeout(closeBoth, 50).unref();
        }
      };
      if (proxy.delayMs > 0) setTimeout(send, proxy.delayMs);
      else send();
    };
    client.on('data', (c: Buffer) => forward('toBroker', c));
    broker.on('data', (c: Buffer) => forward('toClient', c));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;

  return {
    get delayMs() {
      return proxy.delayMs;
    },
    set delayMs(v: number) {
      proxy.delayMs = v;
    },
    get blackhole() {
      return proxy.blackhole;
    },
    set blackhole(v: boolean) {
      proxy.blackhole = v;
    },
    get refuse() {
      return proxy.refuse;
    },
    set refuse(v: boolean) {
      proxy.refuse = v;
    },
    host,
    port,
    address: `${host}:${port}`,
    get connectionsAccepted() {
      return accepted;
    },
    get activeConnections() {
      return pairs.size;
    },
    bytes,
    dropAll() {
      for (const p of [...pairs]) {
        p.client.destroy();
        p.broker.destroy();
      }
      pairs.clear();
    },
    cut(direction: ProxyDirection, afterBytes: number) {
      cuts[direction] = Math.max(0, afterBytes);
    },
    corrupt(direction: ProxyDirection, offset: number, mask = 0xff) {
      corruptions[direction] = { offset: Math.max(0, offset), mask };
    },
    retarget(next: { host: string; port: number }) {
      target = next;
    },
    recording() {
      return exchanges.slice();
    },
    close() {
      for (const p of [...pairs]) {
        p.client.destroy();
        p.broker.destroy();
      }
      pairs.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function safeFrames(splitter: RawFrameSplitter, data: Buffer): Buffer[] {
  try {
    return splitter.push(data);
  } catch {
    return [];
  }
}
