import { BrokerConnection, type BrokerConnectionOptions } from '@kafkats/wire';
import type { ConnectionFactory } from './api.js';

/** Options passed to every `BrokerConnection` (all but the address, which the pool supplies). */
export type WireConnectionOptions = Omit<BrokerConnectionOptions, 'host' | 'port' | 'nodeId'>;

/**
 * The production connection factory: a wire `BrokerConnection` per target, connected (TCP,
 * TLS, ApiVersions, SASL) before it is handed to the pool. A `BrokerConnection` never
 * reconnects: when its socket goes, it is closed for good and the pool dials a new one.
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
    return connection;
  };
}
