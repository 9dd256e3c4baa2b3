import { createServer, type Server, type Socket } from 'node:net';
import {
  RawFrameSplitter,
  type RawRequestHeader,
  readRequestHeader,
  responseFrame,
} from './frames.js';

/** One request a fake broker received. */
export interface RawRequest extends RawRequestHeader {
  /** The frame without its size prefix (header + body). */
  frame: Buffer;
  /** Which accepted connection it came on (1-based). */
  connection: number;
}

/** One client connection as the fake broker sees it. */
export interface FakeBrokerConnection {
  /** 1-based, in accept order. */
  readonly id: number;
  /** Writes raw bytes (hostile frames included). */
  write(bytes: Buffer): void;
  /** Writes a response frame: size, `correlationId`, then `payload` (header rest + body). */
  respond(correlationId: number, payload: Buffer): void;
  /** Half-closes after pending writes. */
  end(): void;
  /** Resets the socket at once. */
  destroy(): void;
}

/** Decides what to do with each request; may write nothing (a stalled broker). */
export type FakeBrokerHandler = (request: RawRequest, connection: FakeBrokerConnection) => void;

/** A TCP server on loopback that speaks raw Kafka frames, driven by a handler. */
export interface FakeBroker {
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly address: string;
  /** Connections accepted so far. */
  readonly connectionsAccepted: number;
  /** Every request received, in order. */
  readonly requests: readonly RawRequest[];
  /** Replaces the handler for requests from now on. */
  setHandler(handler: FakeBrokerHandler): void;
  /** Closes every connection now (clients see a reset). */
  dropConnections(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** Options of {@link startFakeBroker}. */
export interface FakeBrokerOptions {
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** A request frame over this many bytes closes the connection. Default 64 MiB. */
  maxRequestBytes?: number;
  /** What to do with the bytes of a connection: default parse frames and call the handler. */
  onConnection?: (connection: FakeBrokerConnection, socket: Socket) => void;
}

/**
 * Starts a fake broker: every request frame is parsed (header only, raw bytes) and handed
 * to `handler`, which answers with raw frames. Hostile behaviour (negative or 2 GiB
 * lengths, truncated bodies, wrong correlation ids, garbage, silence) is the handler's
 * choice; see `hostileFrames`.
 */
export async function startFakeBroker(
  handler: FakeBrokerHandler,
  options: FakeBrokerOptions = {},
): Promise<FakeBroker> {
  let current = handler;
  let accepted = 0;
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const id = ++accepted;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    const connection: FakeBrokerConnection = {
      id,
      write: (bytes) => {
        if (!socket.destroyed) socket.write(bytes);
      },
      respond: (correlationId, payload) => {
        if (!socket.destroyed) socket.write(responseFrame(correlationId, payload));
      },
      end: () => socket.end(),
      destroy: () => socket.destroy(),
    };
    if (options.onConnection) {
      options.onConnection(connection, socket);
      return;
    }
    const splitter = new RawFrameSplitter(options.maxRequestBytes ?? 64 * 1024 * 1024);
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = splitter.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of frames) {
        let header: RawRequestHeader;
        try {
          header = readRequestHeader(frame);
        } catch {
          socket.destroy();
          return;
        }
        const request: RawRequest = { ...header, frame, connection: id };
        requests.push(request);
        current(request, connection);
      }
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host,
    port,
    address: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    get connectionsAccepted() {
      return accepted;
    },
    requests,
    setHandler(next) {
      current = next;
    },
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
