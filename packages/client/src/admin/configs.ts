import type { KafkaError } from '@kafkats/codec';
import type { AdminCallOptions } from './admin-options.js';

/**
 * The resource types configs belong to, Kafka's `ConfigResource.Type` names. The wire values
 * are in {@link CONFIG_RESOURCE_TYPE_CODES}.
 */
export type ConfigResourceType = 'TOPIC' | 'BROKER' | 'BROKER_LOGGER' | 'CLIENT_METRICS' | 'GROUP';

/** `ConfigResource.Type` ids (DescribeConfigs/IncrementalAlterConfigs `resourceType`). */
export const CONFIG_RESOURCE_TYPE_CODES: Readonly<Record<ConfigResourceType, number>> =
  Object.freeze({ TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 });

/**
 * Where a config value comes from, in the names of Kafka's admin `ConfigEntry.ConfigSource`
 * (wire ids 0-8 in the order listed, UNKNOWN being 0).
 */
export type ConfigSource =
  | 'UNKNOWN'
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG'
  | 'DYNAMIC_BROKER_LOGGER_CONFIG'
  | 'DYNAMIC_CLIENT_METRICS_CONFIG'
  | 'DYNAMIC_GROUP_CONFIG';

/** A config's value type, Kafka's `ConfigEntry.ConfigType` names (wire ids 0-9 in that order). */
export type ConfigType =
  | 'UNKNOWN'
  | 'BOOLEAN'
  | 'STRING'
  | 'INT'
  | 'SHORT'
  | 'LONG'
  | 'DOUBLE'
  | 'LIST'
  | 'CLASS'
  | 'PASSWORD';

/**
 * A config resource. A `BROKER` or `BROKER_LOGGER` resource is named by the broker id
 * (`'2'`) and asked of that broker; `BROKER` with the name `''` is the cluster-wide default.
 */
export interface ConfigResource {
  readonly type: ConfigResourceType;
  readonly name: string;
}

/** A resource to describe, optionally only some keys. */
export interface DescribeConfigsResource extends ConfigResource {
  /** Config names to return; default all. */
  readonly keys?: readonly string[];
}

/** Options of {@link Admin.describeConfigs}. */
export interface DescribeConfigsOptions extends AdminCallOptions {
  /** Return each value's synonyms, most specific first. Default false. */
  readonly includeSynonyms?: boolean;
  /** Return each config's documentation. Default false. */
  readonly includeDocumentation?: boolean;
}

/** One synonym of a config (the same setting at another level). */
export interface ConfigSynonym {
  readonly name: string;
  readonly value: string | null;
  readonly source: ConfigSource;
}

/** One config of a described resource (Kafka's `ConfigEntry`). */
export interface ConfigEntry {
  readonly name: string;
  /** Null when sensitive or unset. */
  readonly value: string | null;
  readonly source: ConfigSource;
  /** True when `source` is DEFAULT_CONFIG. */
  readonly isDefault: boolean;
  readonly isSensitive: boolean;
  readonly readOnly: boolean;
  /** Empty unless `includeSynonyms`. */
  readonly synonyms: readonly ConfigSynonym[];
  readonly type: ConfigType;
  /** Null unless `includeDocumentation`. */
  readonly documentation: string | null;
}

/** One resource's configs, or its error. */
export interface DescribedConfigs extends ConfigResource {
  /** Empty when `error` is set. */
  readonly configs: readonly ConfigEntry[];
  /**
   * The broker's refusal (TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION, ...), or,
   * for a broker resource, why that broker could not be asked (a connection or timeout error).
   */
  readonly error?: KafkaError;
}

/** {@link Admin.describeConfigs}' answer: one entry per requested resource, in request order. */
export interface DescribeConfigsResult {
  readonly resources: readonly DescribedConfigs[];
}

/** Kafka's `AlterConfigOp.OpType`: SET a value, DELETE (revert to default), APPEND to or SUBTRACT from a list. */
export type AlterConfigOpType = 'SET' | 'DELETE' | 'APPEND' | 'SUBTRACT';

/** One change to one config. */
export interface AlterConfigOp {
  readonly name: string;
  readonly op: AlterConfigOpType;
  /** Required for SET, APPEND and SUBTRACT; ignored by DELETE. */
  readonly value?: string | null;
}

/** The changes for one resource. */
export interface AlterConfigsResource extends ConfigResource {
  readonly ops: readonly AlterConfigOp[];
}

/** Options of {@link Admin.incrementalAlterConfigs}. */
export interface AlterConfigsOptions extends AdminCallOptions {
  /** Only validate. Default false. */
  readonly validateOnly?: boolean;
}

/** {@link Admin.incrementalAlterConfigs}' answer: one entry per resource, in request order. */
export interface AlterConfigsResult {
  readonly resources: readonly (ConfigResource & { readonly error?: KafkaError })[];
}
