// Just enough of Kafka's message-schema grammar to map our messages to and from the JSON that
// Kafka's generated JsonConverter classes read and write. The schemas come from the oracle, which
// reads them out of the very jars its classes were generated from.

/** An inclusive version range; `null` for "none". */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

/** One field of a struct, with its type resolved. */
export interface Field {
  /** The schema's name, e.g. `TopicId`. */
  readonly name: string;
  /** Kafka's JsonConverter key: the schema name with a lower-case first letter. */
  readonly jsonName: string;
  readonly type: FieldType;
  readonly versions: VersionRange | null;
  readonly nullableVersions: VersionRange | null;
  readonly taggedVersions: VersionRange | null;
  readonly tag: number | undefined;
  readonly ignorable: boolean;
  /** The schema's `default`, as written (string, number or boolean), if any. */
  readonly defaultValue: string | number | boolean | undefined;
}

export type Scalar =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'uuid'
  | 'bytes'
  | 'records';

export type FieldType =
  | { readonly kind: 'scalar'; readonly scalar: Scalar }
  | { readonly kind: 'struct'; readonly struct: Struct }
  | { readonly kind: 'array'; readonly element: FieldType };

export interface Struct {
  readonly name: string;
  readonly fields: readonly Field[];
}

/** A top-level message schema. */
export interface MessageSchema {
  readonly name: string;
  readonly type: string;
  readonly apiKey: number | null;
  /** `null` for an API Kafka has retired ("none"): no versions to test. */
  readonly validVersions: VersionRange | null;
  readonly flexibleVersions: VersionRange | null;
  readonly struct: Struct;
}

const SCALARS = new Set<string>([
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'uuid',
  'bytes',
  'records',
]);

/** Parses `"0+"`, `"1-3"`, `"2"` or `"none"`. */
export function parseVersions(text: string | undefined): VersionRange | null {
  if (text === undefined || text === 'none') return null;
  const plus = /^(\d+)\+$/.exec(text);
  if (plus) return { min: Number(plus[1]), max: Number.MAX_SAFE_INTEGER };
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) return { min: Number(range[1]), max: Number(range[2]) };
  if (/^\d+$/.test(text)) return { min: Number(text), max: Number(text) };
  throw new Error(`bad version range ${JSON.stringify(text)}`);
}

export function inRange(range: VersionRange | null, version: number): boolean {
  return range !== null && version >= range.min && version <= range.max;
}

/** Kafka's schema files are JSON with `//` line comments (outside strings). */
export function stripComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

interface RawField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  ignorable?: boolean;
  tag?: number;
  default?: string | number | boolean;
  fields?: RawField[];
}

interface RawSchema {
  name: string;
  type: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions?: string;
  fields: RawField[];
  commonStructs?: { name: string; fields: RawField[] }[];
}

/** Parses one schema file's text into a resolved model. */
export function parseSchema(text: string): MessageSchema {
  const raw = JSON.parse(stripComments(text)) as RawSchema;
  const common = new Map<string, RawField[]>();
  for (const s of raw.commonStructs ?? []) common.set(s.name, s.fields);
  const built = new Map<string, Struct>();

  const struct = (name: string, fields: readonly RawField[]): Struct => {
    const existing = built.get(name);
    if (existing && existing.fields.length > 0) return existing;
    const s: { name: string; fields: Field[] } = { name, fields: [] };
    built.set(name, s);
    for (const f of fields) s.fields.push(field(f));
    return s;
  };

  const typeOf = (type: string, f: RawField): FieldType => {
    if (type.startsWith('[]')) return { kind: 'array', element: typeOf(type.slice(2), f) };
    if (SCALARS.has(type)) return { kind: 'scalar', scalar: type as Scalar };
    if (f.fields) return { kind: 'struct', struct: struct(type, f.fields) };
    const shared = common.get(type);
    if (!shared) throw new Error(`${raw.name}: unknown type ${type}`);
    return { kind: 'struct', struct: struct(type, shared) };
  };

  const field = (f: RawField): Field => ({
    name: f.name,
    jsonName: f.name.charAt(0).toLowerCase() + f.name.slice(1),
    type: typeOf(f.type, f),
    versions: parseVersions(f.versions ?? f.taggedVersions),
    nullableVersions: parseVersions(f.nullableVersions),
    taggedVersions: parseVersions(f.taggedVersions),
    tag: f.tag,
    ignorable: f.ignorable === true,
    defaultValue: f.default,
  });

  const validVersions = parseVersions(raw.validVersions);
  return {
    name: raw.name,
    type: raw.type,
    apiKey: raw.apiKey ?? null,
    validVersions,
    flexibleVersions: parseVersions(raw.flexibleVersions),
    struct: struct(raw.name, raw.fields ?? []),
  };
}

/** The value a field holds when nothing set it, per the schema's `default` rules. */
export function defaultOf(field: Field): unknown {
  const d = field.defaultValue;
  const t = field.type;
  if (d === 'null') return null;
  if (t.kind === 'array') return [];
  if (t.kind === 'struct') return defaultStruct(t.struct);
  switch (t.scalar) {
    case 'bool':
      return d === true || d === 'true';
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
      return d === undefined || d === '' ? 0 : Number(d);
    case 'int64':
      return d === undefined || d === '' ? 0n : BigInt(String(d));
    case 'float64':
      return d === undefined || d === '' ? 0 : Number(d);
    case 'string':
      return d === undefined ? '' : String(d);
    case 'uuid':
      return d === undefined || d === '' ? 'AAAAAAAAAAAAAAAAAAAAAA' : String(d);
    case 'bytes':
      return Buffer.alloc(0);
    case 'records':
      return null;
  }
}

/** A struct with every field at its default. */
export function defaultStruct(struct: Struct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of struct.fields) out[f.jsonName] = defaultOf(f);
  return out;
}
