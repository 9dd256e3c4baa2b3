import { BrokerConnection, type BrokerConnectionOptions } from '@kafkats/wire';
import type { ConnectionFactory } from './api.js';

/**
 * Options passed to every `BrokerConnection`: all but the address and the metrics recorder,
 * which the pool supplies per broker.
 */
export type WireConnectionOptions = Omit<
  BrokerConnectionOptions,
  'host' | 'port' | 'nodeId' | 'metrics'
>;

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
      ...(target.metrics === undefined ? {} : { metrics: target.metrics }),
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
