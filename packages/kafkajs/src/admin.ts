import type { ClientContext } from './config.js';
import { KafkaJSNotImplemented } from './errors.js';

export interface AdminConfig {
  readonly [option: string]: unknown;
}

export interface Admin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

export function createAdmin(_context: ClientContext, _config: AdminConfig): Admin {
  throw new KafkaJSNotImplemented('admin: not built yet');
}
