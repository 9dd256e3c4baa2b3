import type { ConfigSource, ConfigType } from '../configs.js';

// DescribeConfigsResponse.ConfigSource ids 0..8 in order, named as the admin's ConfigEntry names them.
const SOURCES: readonly ConfigSource[] = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'DYNAMIC_CLIENT_METRICS_CONFIG',
  'DYNAMIC_GROUP_CONFIG',
];

// Kafka's DescribeConfigsResponse.ConfigType ids, 0..9, in order.
const TYPES: readonly ConfigType[] = [
  'UNKNOWN',
  'BOOLEAN',
  'STRING',
  'INT',
  'SHORT',
  'LONG',
  'DOUBLE',
  'LIST',
  'CLASS',
  'PASSWORD',
];

/** The name of a `configSource` id; UNKNOWN for -1 (below the version that has it) or a newer id. */
export function configSourceName(id: number): ConfigSource {
  return SOURCES[id] ?? 'UNKNOWN';
}

/** The name of a `configType` id; UNKNOWN for an id this release does not know. */
export function configTypeName(id: number): ConfigType {
  return TYPES[id] ?? 'UNKNOWN';
}
