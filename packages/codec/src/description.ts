/**
 * Kafka's message schemas as data, generated for every message (`src/gen/descriptions/`):
 * `MetadataRequestDescription`, ..., and `MESSAGE_DESCRIPTIONS` with all of them. Tools read
 * them to show, check or convert messages (`toKafkaJson` / `fromKafkaJson`) without the JSON
 * schema files.
 */

/** Inclusive `[min, max]` versions (`max` 32767 for Kafka's `N+`), or null for `none`. */
export type VersionRange = readonly [min: number, max: number] | null;

/** Kafka's primitive field types. */
export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'bytes'
  | 'records'
  | 'uuid';

/** One field of a struct, as the schema declares it. */
export interface FieldDescription {
  /** Kafka's name (`TopicId`). */
  readonly name: string;
  /** The property in our messages, and the key in Kafka's JSON form (`topicId`). */
  readonly property: string;
  /** Kafka's type text: `int32`, `[]string`, `[]MetadataResponseTopic`, `uuid`. */
  readonly type: string;
  /** True for `[]...` types. */
  readonly array: boolean;
  /** The type (or the array's element type) when it is primitive, else null. */
  readonly primitive: PrimitiveType | null;
  /** The struct (or the array's element struct), else null. */
  readonly struct: StructDescription | null;
  readonly versions: VersionRange;
  readonly nullableVersions: VersionRange;
  /** Versions in which the field is a tagged field (written only when not at its default). */
  readonly taggedVersions: VersionRange;
  readonly tag: number | null;
  /** True when a non-default value may be dropped at a version without the field. */
  readonly ignorable: boolean;
  /** A field-level override of the message's flexible versions (strings and bytes). */
  readonly flexibleVersions?: VersionRange;
  /** `topicName`, `groupId`, `transactionalId`, `brokerId`, ... when the schema says. */
  readonly entityType?: string;
  /** True for the key field of a struct Kafka keeps in a map. */
  readonly mapKey?: true;
  /**
   * The default value: a number, a bigint for int64, a boolean, the text of a string or uuid
   * (the zero uuid `AAAAAAAAAAAAAAAAAAAAAA` unless the schema gives one), or null when the
   * schema's default is null. Absent for bytes, records, arrays and structs whose default is
   * not null: empty bytes, null records, an empty array, a struct at its own defaults.
   */
  readonly default?: number | bigint | boolean | string | null;
}

export interface StructDescription {
  /** Kafka's name for the struct (`MetadataResponseTopic`). */
  readonly name: string;
  /** Our TypeScript type name (`FetchRequestTopic` for FetchRequest's `FetchTopic`). */
  readonly typeName: string;
  readonly fields: readonly FieldDescription[];
}

/** One message: the top-level struct plus what Kafka's schema says about the message. */
export interface MessageDescription extends StructDescription {
  readonly type: 'request' | 'response' | 'header' | 'metadata' | 'data';
  /** The API key (requests and responses), the record type (metadata records), else null. */
  readonly apiKey: number | null;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly listeners: readonly string[];
  readonly latestVersionUnstable: boolean;
}

/** True when `version` is in `range`. */
export function inVersions(range: VersionRange, version: number): boolean {
  return range !== null && version >= range[0] && version <= range[1];
}
