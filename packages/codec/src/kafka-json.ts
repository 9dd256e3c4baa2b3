/**
 * Messages to and from the JSON form of Kafka's generated `<Name>JsonConverter` classes (what
 * Kafka's request logs and tools print), driven by the generated descriptions
 * (`MetadataRequestDescription`, ...): int64 and uint32 as JSON numbers (never through a
 * JavaScript number), bytes as base64, uuids in Kafka's text form (`Uuid.toString()`: 22
 * URL-safe base64 characters), arrays and structs as JSON arrays and objects, keys in
 * Kafka's camelCase.
 */

import type { MessageDescription } from './description.js';
import { type FieldDescription, inVersions, type StructDescription } from './description.js';
import { CodecError } from './errors.js';

type Obj = Record<string, unknown>;

const UUID_TEXT = /^[A-Za-z0-9_-]{22}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const INT_RANGES: Record<string, readonly [number, number]> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

function versionCheck(d: MessageDescription, version: number): void {
  if (!Number.isInteger(version) || !inVersions(d.validVersions, version)) {
    throw new CodecError(
      'VERSION_UNSUPPORTED',
      `${d.name} v${version}`,
      `versions ${d.validVersions === null ? 'none' : d.validVersions.join('-')} exist`,
    );
  }
}

/**
 * Writes `message` as Kafka's `<Name>JsonConverter.write(message, version)` does: the fields
 * of that version in schema order, a tagged field only when it is not at its default.
 * Differences, both deliberate: `records` fields are written as base64 of their bytes (Kafka
 * writes an empty string there, its JSON being meant for logs; its reader takes the bytes), and
 * a float64 NaN or infinity as the JSON strings `"NaN"`, `"Infinity"`, `"-Infinity"` (Jackson
 * writes bare tokens no JSON parser reads). Unknown tagged fields are not written (Kafka's JSON
 * has no place for them).
 *
 * @returns JSON text
 * @throws CodecError VERSION_UNSUPPORTED, FIELD_NOT_IN_VERSION (a non-default value in a field
 *   the version lacks that is not ignorable, as Kafka refuses it), NULL_NOT_ALLOWED,
 *   VALUE_INVALID (a value outside its type)
 */
export function toKafkaJson(d: MessageDescription, message: object, version: number): string {
  versionCheck(d, version);
  return structToJson(d, message as Obj, version, `${d.name} v${version} `);
}

function structToJson(s: StructDescription, m: Obj, v: number, path: string): string {
  const parts: string[] = [];
  for (const f of s.fields) {
    const value = m[f.property];
    const where = `${path}.${f.property}`;
    if (!inVersions(f.versions, v)) {
      if (!f.ignorable && value !== undefined && !isDefault(f, value)) {
        throw new CodecError(
          'FIELD_NOT_IN_VERSION',
          where,
          'a non-default value at a version without the field',
        );
      }
      continue;
    }
    if (value === undefined || (inVersions(f.taggedVersions, v) && isDefault(f, value))) {
      if (value === undefined && !inVersions(f.taggedVersions, v)) {
        parts.push(`${JSON.stringify(f.property)}:${valueToJson(f, defaultOf(f), v, where)}`);
      }
      continue;
    }
    parts.push(`${JSON.stringify(f.property)}:${valueToJson(f, value, v, where)}`);
  }
  return `{${parts.join(',')}}`;
}

function valueToJson(f: FieldDescription, value: unknown, v: number, where: string): string {
  if (value === null) {
    if (!inVersions(f.nullableVersions, v) && f.primitive !== 'records') {
      throw new CodecError('NULL_NOT_ALLOWED', where, 'null at a version where it is not nullable');
    }
    return 'null';
  }
  if (f.array) {
    if (!Array.isArray(value)) throw new CodecError('VALUE_INVALID', where, 'expected an array');
    return `[${value.map((x, i) => elementToJson(f, x, v, `${where}[${i}]`)).join(',')}]`;
  }
  return elementToJson(f, value, v, where);
}

function elementToJson(f: FieldDescription, x: unknown, v: number, where: string): string {
  if (f.struct !== null) {
    if (x === null || typeof x !== 'object')
      throw new CodecError('VALUE_INVALID', where, 'expected an object');
    return structToJson(f.struct, x as Obj, v, where);
  }
  switch (f.primitive) {
    case 'bool':
      if (typeof x !== 'boolean')
        throw new CodecError('VALUE_INVALID', where, 'expected a boolean');
      return x ? 'true' : 'false';
    case 'int64':
      if (typeof x !== 'bigint') throw new CodecError('VALUE_INVALID', where, 'expected a bigint');
      return x.toString();
    case 'float64':
      if (typeof x !== 'number') throw new CodecError('VALUE_INVALID', where, 'expected a number');
      if (Number.isNaN(x)) return '"NaN"';
      if (!Number.isFinite(x)) return x > 0 ? '"Infinity"' : '"-Infinity"';
      return Object.is(x, -0) ? '-0.0' : String(x);
    case 'string':
    case 'uuid':
      if (typeof x !== 'string') throw new CodecError('VALUE_INVALID', where, 'expected a string');
      return JSON.stringify(x);
    case 'bytes':
    case 'records':
      if (!(x instanceof Uint8Array))
        throw new CodecError('VALUE_INVALID', where, 'expected bytes');
      return `"${Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64')}"`;
    default: {
      const r = INT_RANGES[f.primitive ?? ''];
      if (
        r === undefined ||
        typeof x !== 'number' ||
        !Number.isInteger(x) ||
        x < r[0] ||
        x > r[1]
      ) {
        throw new CodecError('VALUE_INVALID', where, `expected an ${f.primitive}`);
      }
      return String(x);
    }
  }
}

/** The value a field takes when the JSON leaves it out (or the version lacks it). */
function defaultOf(f: FieldDescription): unknown {
  if (f.default === null) return null;
  if (f.array) return [];
  if (f.struct !== null) return defaults(f.struct);
  if (f.default !== undefined) return f.default;
  if (f.primitive === 'bytes') return Buffer.alloc(0);
  return null; // records
}

function defaults(s: StructDescription): Obj {
  const out: Obj = {};
  for (const f of s.fields) out[f.property] = defaultOf(f);
  return out;
}

function isDefault(f: FieldDescription, value: unknown): boolean {
  if (value === null) return f.default === null || (f.primitive === 'records' && !f.array);
  if (f.default === null) return false;
  if (f.array) return Array.isArray(value) && value.length === 0;
  if (f.struct !== null) {
    const o = value as Obj;
    return f.struct.fields.every((g) => o[g.property] === undefined || isDefault(g, o[g.property]));
  }
  if (f.primitive === 'bytes') return value instanceof Uint8Array && value.length === 0;
  if (f.primitive === 'records') return false;
  return Object.is(value, f.default) || value === f.default;
}

/**
 * Reads Kafka's JSON form of a message at `version`, as `<Name>JsonConverter.read` does: every
 * non-tagged field of the version is required, a missing tagged field and the fields the
 * version lacks take their defaults, other keys are ignored. int64 keeps every digit (the text
 * is parsed here, never by `JSON.parse`); int64 and uint32 may also be given as digit strings.
 * Bytes and records are base64; `"NaN"`, `"Infinity"` and `"-Infinity"` are read for float64.
 *
 * @returns the message, as `createX` would build it (bytes and records are new Buffers)
 * @throws CodecError VALUE_INVALID (not JSON, a wrong type, a value out of range, a missing
 *   field, with its path), NULL_NOT_ALLOWED, VERSION_UNSUPPORTED
 */
export function fromKafkaJson<T = Obj>(d: MessageDescription, json: string, version: number): T {
  versionCheck(d, version);
  const path = `${d.name} v${version} `;
  const root = new JsonParser(json, path).document();
  return structFromJson(d, root, version, path) as T;
}

function structFromJson(s: StructDescription, node: unknown, v: number, path: string): Obj {
  if (
    node === null ||
    typeof node !== 'object' ||
    Array.isArray(node) ||
    node instanceof JsonNumber
  ) {
    throw new CodecError('VALUE_INVALID', path, 'expected a JSON object');
  }
  const o = node as Obj;
  const out: Obj = {};
  for (const f of s.fields) {
    const where = `${path}.${f.property}`;
    if (!inVersions(f.versions, v)) {
      out[f.property] = defaultOf(f);
      continue;
    }
    if (!Object.hasOwn(o, f.property)) {
      if (!inVersions(f.taggedVersions, v)) {
        throw new CodecError(
          'VALUE_INVALID',
          where,
          `missing, and the field is mandatory in version ${v}`,
        );
      }
      out[f.property] = defaultOf(f);
      continue;
    }
    out[f.property] = valueFromJson(f, o[f.property], v, where);
  }
  return out;
}

function valueFromJson(f: FieldDescription, x: unknown, v: number, where: string): unknown {
  if (x === null) {
    if (!inVersions(f.nullableVersions, v) && !(f.primitive === 'records' && !f.array)) {
      throw new CodecError('NULL_NOT_ALLOWED', where, 'null at a version where it is not nullable');
    }
    return null;
  }
  if (f.array) {
    if (!Array.isArray(x)) throw new CodecError('VALUE_INVALID', where, 'expected a JSON array');
    return x.map((e, i) => elementFromJson(f, e, v, `${where}[${i}]`));
  }
  return elementFromJson(f, x, v, where);
}

function elementFromJson(f: FieldDescription, x: unknown, v: number, where: string): unknown {
  if (f.struct !== null) return structFromJson(f.struct, x, v, where);
  const bad = (what: string): never => {
    throw new CodecError('VALUE_INVALID', where, `expected ${what}`);
  };
  switch (f.primitive) {
    case 'bool':
      return typeof x === 'boolean' ? x : bad('true or false');
    case 'string':
      return typeof x === 'string' ? x : bad('a JSON string');
    case 'uuid':
      return typeof x === 'string' && UUID_TEXT.test(x) ? x : bad("a uuid in Kafka's text form");
    case 'bytes':
    case 'records':
      return typeof x === 'string' && BASE64.test(x)
        ? Buffer.from(x, 'base64')
        : bad('base64 text');
    case 'float64':
      if (x instanceof JsonNumber) return Number(x.text);
      if (x === 'NaN') return Number.NaN;
      if (x === 'Infinity') return Number.POSITIVE_INFINITY;
      if (x === '-Infinity') return Number.NEGATIVE_INFINITY;
      return bad('a JSON number');
    case 'int64': {
      const text = x instanceof JsonNumber ? x.text : typeof x === 'string' ? x : bad('an integer');
      if (!/^-?\d+$/.test(text)) bad('an integer');
      const n = BigInt(text);
      if (n < -(1n << 63n) || n >= 1n << 63n) bad('an int64');
      return n;
    }
    default: {
      const text =
        x instanceof JsonNumber
          ? x.text
          : typeof x === 'string' && f.primitive === 'uint32'
            ? x
            : bad('an integer');
      const r = INT_RANGES[f.primitive ?? '']!;
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!(n >= r[0] && n <= r[1])) bad(`an ${f.primitive}`);
      return n;
    }
  }
}

// A JSON string: no raw control characters (below U+0020), only JSON's escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids them raw in strings
const STRING = /"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A JSON number kept as its text, so int64 loses no digits. */
class JsonNumber {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** A strict JSON parser (RFC 8259) whose numbers stay text. */
class JsonParser {
  private pos = 0;
  private depth = 0;

  private readonly s: string;
  private readonly path: string;

  constructor(s: string, path: string) {
    this.s = s;
    this.path = path;
  }

  document(): unknown {
    const v = this.value();
    this.ws();
    if (this.pos !== this.s.length) this.fail('text after the JSON value');
    return v;
  }

  private fail(what: string): never {
    throw new CodecError(
      'VALUE_INVALID',
      this.path.trimEnd(),
      `invalid JSON at offset ${this.pos}: ${what}`,
    );
  }

  private ws(): void {
    while (this.pos < this.s.length && ' \t\n\r'.includes(this.s[this.pos]!)) this.pos++;
  }

  private value(): unknown {
    this.ws();
    const c = this.s[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail('expected a value');
  }

  private nest(): void {
    if (++this.depth > 512) this.fail('nested too deeply');
  }

  private object(): Obj {
    this.nest();
    this.pos++;
    const out: Obj = Object.create(null) as Obj;
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail('expected a key');
      const k = this.string();
      this.ws();
      if (this.s[this.pos++] !== ':') this.fail("expected ':'");
      out[k] = this.value();
      this.ws();
      const c = this.s[this.pos++];
      if (c === '}') break;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
    this.depth--;
    return out;
  }

  private array(): unknown[] {
    this.nest();
    this.pos++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.pos++];
      if (c === ']') break;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
    this.depth--;
    return out;
  }

  private string(): string {
    STRING.lastIndex = this.pos;
    const m = STRING.exec(this.s);
    if (m === null) return this.fail('bad string');
    this.pos += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private number(): JsonNumber {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.s);
    if (m === null) return this.fail('bad number');
    this.pos += m[0].length;
    return new JsonNumber(m[0]);
  }
}
