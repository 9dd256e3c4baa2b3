import type { ClientContext } from './config.js';
import { KafkaJSNotImplemented } from './errors.js';

export interface ProducerConfig {
  readonly [option: string]: unknown;
}

export interface Producer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

export function createProducer(_context: ClientContext, _config: ProducerConfig): Producer {
  throw new KafkaJSNotImplemented('producer: not built yet');
}
