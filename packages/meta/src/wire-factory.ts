import type { ApiDescriptor } from '@kafkats/codec';
import { BrokerConnection, type BrokerConnectionOptions } from '@kafkats/wire';
import type { ConnectionFactory, MetaConnection } from './api.js';

/** Options passed to every `BrokerConnection` (all but the address, which the pool supplies). */
export type WireConnectionOptions = Omit<BrokerConnectionOptions, 'host' | 'port' | 'nodeId'>;

/**
 * The production connection factory: a wire `BrokerConnection` per target, connected (TCP,
 * TLS, ApiVersions, SASL) before it is handed to the pool.
 *
 * The wire reconnects a dropped connection by itself; the pool wants to see a drop instead
 * (to forget what that broker led and to pick up a moved address), so the first `disconnect`
 * event marks the handle closed and closes the `BrokerConnection`; the pool opens a new one.
 */
export function wireConnectionFactory(options: WireConnectionOptions = {}): ConnectionFactory {
  return async (target) => {
    const connection = new BrokerConnection({
      ...options,
      host: target.host,
      port: target.port,
      ...(target.nodeId === undefined ? {} : { nodeId: target.nodeId }),
    });
    try {
      await connection.connect();
    } catch (error) {
      await connection.close().catch(() => {});
      throw error;
    }
    return wrap(connection);
  };
}

function wrap(connection: BrokerConnection): MetaConnection {
  let closed = false;
  const listeners = new Set<(error: Error | undefined) => void>();
  const finish = (error: Error | undefined) => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) listener(error);
    listeners.clear();
  };
  connection.on('disconnect', (event) => {
    finish(event.error);
    void connection.close().catch(() => {});
  });
  connection.on('state', (state) => {
    if (state === 'closed') finish(undefined);
  });
  return {
    get closed() {
      return closed;
    },
    send: (api, request, sendOptions) =>
      connection.send(api as unknown as ApiDescriptor<unknown, unknown>, request, {
        ...(sendOptions?.timeoutMs === undefined ? {} : { timeoutMs: sendOptions.timeoutMs }),
      }) as never,
    negotiatedVersion: (apiKey) => connection.negotiatedVersion(apiKey),
    onClose: (listener) => {
      if (closed) {
        queueMicrotask(() => listener(undefined));
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      finish(undefined);
      await connection.close();
    },
  };
}
