import type { ClientContext } from './config.js';
import { KafkaJSNotImplemented } from './errors.js';

export interface ConsumerConfig {
  readonly [option: string]: unknown;
}

export interface Consumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

export function createConsumer(_context: ClientContext, _config: ConsumerConfig): Consumer {
  throw new KafkaJSNotImplemented('consumer: not built yet');
}
