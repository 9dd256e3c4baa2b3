// Our messages <-> the JSON of Kafka's generated JsonConverter classes, in the oracle's pipe
// conventions (see packages/testkit/java/Oracle.java): int64 written as bare JSON integers (never
// through a JavaScript number), bytes/records as {"$bytes": base64}, float64 as {"$f64": text},
// unknown tagged fields as "_unknownTaggedFields". The mapping is driven by the schema, so a
// field is never guessed from its runtime value.
import {
  defaultOf,
  type Field,
  type FieldType,
  inRange,
  type Scalar,
  type Struct,
} from './schema.js';

/** Our TypeScript property name for a schema field (see docs/internals.md). */
export function tsName(field: Field): string {
  return field.jsonName;
}

interface UnknownTagged {
  readonly tag: number;
  readonly data: Uint8Array;
}

type Obj = Record<string, unknown>;

/**
 * JSON text for Kafka's `<Name>JsonConverter.read` at `version`. Every field is written, whatever
 * the version, so Kafka sees the values our encoder sees and refuses what it cannot represent at
 * that version, as our encoder must. Two exceptions, both because Kafka's nested converters refuse
 * to even read a struct outside its versions (a JSON-layer limit, not a serializer rule):
 * - an ignorable field absent at the version is left out: Kafka's serializer drops it anyway;
 * - a struct-typed field absent at the version and at its default is left out (Kafka fills the
 *   same default); a non-default one is written, and refused, as it should be.
 */
export function toKafkaJsonText(struct: Struct, message: unknown, version: number): string {
  return structText(struct, message as Obj, version);
}

function structText(struct: Struct, m: Obj, version: number): string {
  const parts: string[] = [];
  for (const f of struct.fields) {
    const value = m[tsName(f)];
    if (value === undefined) continue;
    if (
      !inRange(f.versions, version) &&
      (f.ignorable || (f.type.kind === 'struct' && isDefault(f, value)))
    )
      continue;
    parts.push(`${JSON.stringify(f.jsonName)}:${valueText(f.type, value, version)}`);
  }
  const unknown = m._unknownTaggedFields as readonly UnknownTagged[] | undefined;
  if (unknown && unknown.length > 0) {
    const fields = unknown.map(
      (u) => `{"tag":${u.tag},"data":"${Buffer.from(u.data).toString('base64')}"}`,
    );
    parts.push(`"_unknownTaggedFields":[${fields.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}

function isDefault(f: Field, value: unknown): boolean {
  return (
    JSON.stringify(canonOurs(f.type, value)) === JSON.stringify(canonOurs(f.type, defaultOf(f)))
  );
}

function valueText(type: FieldType, value: unknown, version: number): string {
  if (value === null) return 'null';
  switch (type.kind) {
    case 'array':
      return `[${(value as readonly unknown[]).map((v) => valueText(type.element, v, version)).join(',')}]`;
    case 'struct':
      return structText(type.struct, value as Obj, version);
    case 'scalar':
      return scalarText(type.scalar, value);
  }
}

function scalarText(scalar: Scalar, value: unknown): string {
  switch (scalar) {
    case 'bool':
      return value ? 'true' : 'false';
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
      return String(value as number);
    case 'int64':
      return (value as bigint).toString();
    case 'float64':
      return `{"$f64":${JSON.stringify(doubleText(value as number))}}`;
    case 'string':
    case 'uuid':
      return JSON.stringify(value as string);
    case 'bytes':
    case 'records':
      return `{"$bytes":"${Buffer.from(value as Uint8Array).toString('base64')}"}`;
  }
}

/** A double as text Java's `Double.parseDouble` reads back exactly, -0 and NaN included. */
function doubleText(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  return String(x);
}

/**
 * A comparable form of a message: integers as decimal strings, doubles as `f:<js text>`,
 * bytes as hex, unknown tagged fields as `{tag, data}` lists (omitted when empty). `fromOurs`
 * keys every field of the struct; `fromKafka` keeps only the keys Kafka wrote at that version.
 */
export function canonicalFromOurs(struct: Struct, message: unknown): Obj {
  const m = message as Obj;
  const out: Obj = {};
  for (const f of struct.fields) {
    const value = m[tsName(f)];
    out[f.jsonName] = value === undefined ? '(missing)' : canonOurs(f.type, value);
  }
  const unknown = m._unknownTaggedFields as readonly UnknownTagged[] | undefined;
  if (unknown && unknown.length > 0) {
    out._unknownTaggedFields = unknown.map((u) => ({
      tag: String(u.tag),
      data: Buffer.from(u.data).toString('hex'),
    }));
  }
  return out;
}

function canonOurs(type: FieldType, value: unknown): unknown {
  if (value === null) return null;
  switch (type.kind) {
    case 'array':
      return (value as readonly unknown[]).map((v) => canonOurs(type.element, v));
    case 'struct':
      return canonicalFromOurs(type.struct, value);
    case 'scalar':
      switch (type.scalar) {
        case 'bool':
          return value === true;
        case 'float64':
          return `f:${Object.is(value, -0) ? '-0' : String(value)}`;
        case 'string':
        case 'uuid':
          return value;
        case 'bytes':
        case 'records':
          return Buffer.from(value as Uint8Array).toString('hex');
        default:
          return String(value);
      }
  }
}

export function canonicalFromKafka(struct: Struct, json: unknown): Obj {
  const j = json as Obj;
  const out: Obj = {};
  for (const [key, value] of Object.entries(j)) {
    if (key === '_unknownTaggedFields') {
      out[key] = (value as { tag: number; data: string }[]).map((u) => ({
        tag: String(u.tag),
        data: Buffer.from(u.data, 'base64').toString('hex'),
      }));
      continue;
    }
    const f = struct.fields.find((x) => x.jsonName === key);
    out[key] = f ? canonKafka(f.type, value) : `(unexpected key ${key})`;
  }
  return out;
}

function canonKafka(type: FieldType, value: unknown): unknown {
  if (value === null) return null;
  switch (type.kind) {
    case 'array':
      return (value as readonly unknown[]).map((v) => canonKafka(type.element, v));
    case 'struct':
      return canonicalFromKafka(type.struct, value);
    case 'scalar':
      switch (type.scalar) {
        case 'bool':
          return value === true;
        case 'float64': {
          const x = Number.parseFloat((value as { $f64: string }).$f64);
          return `f:${Object.is(x, -0) ? '-0' : String(x)}`;
        }
        case 'string':
        case 'uuid':
          return value;
        case 'bytes':
          return Buffer.from(value as string, 'base64').toString('hex');
        case 'records':
          return RECORDS_NOT_SHOWN;
        default:
          return String(value);
      }
  }
}

/**
 * Kafka's JsonConverter writes a `records` field as empty binary (its JSON is for request logs),
 * so Kafka's view of records is unknown; `compareAlong` skips it (our decoding of records is
 * checked against the message instead).
 */
export const RECORDS_NOT_SHOWN = '(records: not in Kafka JSON)';

/**
 * The first difference between `a` and `b` at the places `shape` has: Kafka's view of a message
 * (Kafka omits fields absent at the version), plus the unknown tagged fields of every struct;
 * `null` when they agree there.
 */
export function compareAlong(shape: unknown, a: unknown, b: unknown, path = '$'): string | null {
  if (shape === RECORDS_NOT_SHOWN && a === RECORDS_NOT_SHOWN) return null;
  if (Array.isArray(shape)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      return `${path}: ${brief(a)} vs ${brief(b)}`;
    }
    for (let i = 0; i < shape.length; i++) {
      const d = compareAlong(shape[i], a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (shape !== null && typeof shape === 'object') {
    if (!isObj(a) || !isObj(b)) return `${path}: ${brief(a)} vs ${brief(b)}`;
    const keys = new Set(Object.keys(shape));
    keys.add('_unknownTaggedFields');
    for (const key of keys) {
      const d = compareAlong((shape as Obj)[key], a[key], b[key], `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${path}: ${brief(a)} vs ${brief(b)}`;
}

function isObj(x: unknown): x is Obj {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function brief(x: unknown): string {
  const text = JSON.stringify(x) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
