/**
 * Stage 2: raw JSON to a checked `MessageSpec`. Follows the grammar of Kafka's own generator
 * (MessageSpec, FieldSpec, FieldType, Versions) and is stricter where it costs nothing:
 * unknown keys are rejected, so a new schema feature fails loudly instead of being ignored.
 */
import { SchemaError } from './parse.js';
import {
  contains,
  formatVersions,
  isEmpty,
  isSubset,
  MAX_VERSION,
  NO_VERSIONS,
  parseVersions,
  type Versions,
} from './versions.js';

export const PRIMITIVE_TYPES = [
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'bytes',
  'records',
  'uuid',
] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];

export type ElementType =
  | { readonly kind: 'primitive'; readonly name: PrimitiveType }
  | { readonly kind: 'struct'; readonly name: string };
export type FieldType = ElementType | { readonly kind: 'array'; readonly elem: ElementType };

/** A field's `default`, checked against its type. */
export type DefaultValue =
  | { readonly kind: 'builtin' }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'bigint'; readonly value: bigint }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'uuid'; readonly value: string }
  | { readonly kind: 'null' };

export interface FieldSpec {
  readonly name: string;
  readonly typeText: string;
  readonly type: FieldType;
  readonly versions: Versions;
  readonly nullableVersions: Versions;
  /** Field-level override (strings and bytes only); null when the message's applies. */
  readonly flexibleVersions: Versions | null;
  readonly taggedVersions: Versions;
  readonly tag: number | null;
  readonly ignorable: boolean;
  readonly default: DefaultValue;
  readonly entityType: string | null;
  readonly mapKey: boolean;
  readonly zeroCopy: boolean;
  /** Inline struct fields; null for primitives and for references to other structs. */
  readonly fields: readonly FieldSpec[] | null;
}

export interface StructSpec {
  readonly name: string;
  readonly versions: Versions;
  readonly fields: readonly FieldSpec[];
}

export const MESSAGE_TYPES = ['request', 'response', 'header', 'metadata', 'data'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface MessageSpec {
  readonly file: string;
  readonly name: string;
  readonly type: MessageType;
  readonly apiKey: number | null;
  readonly validVersions: Versions;
  readonly deprecatedVersions: Versions | null;
  readonly flexibleVersions: Versions;
  readonly fields: readonly FieldSpec[];
  readonly commonStructs: readonly StructSpec[];
  readonly listeners: readonly string[];
  readonly latestVersionUnstable: boolean;
}

const MESSAGE_KEYS = new Set([
  'name',
  'type',
  'apiKey',
  'validVersions',
  'deprecatedVersions',
  'flexibleVersions',
  'fields',
  'commonStructs',
  'listeners',
  'latestVersionUnstable',
]);
const FIELD_KEYS = new Set([
  'name',
  'type',
  'versions',
  'nullableVersions',
  'flexibleVersions',
  'taggedVersions',
  'tag',
  'ignorable',
  'default',
  'entityType',
  'about',
  'mapKey',
  'zeroCopy',
  'fields',
]);
const COMMON_STRUCT_KEYS = new Set(['name', 'versions', 'fields']);
const LISTENERS = new Set(['zkBroker', 'broker', 'controller']);
const ENTITY_TYPES: Record<string, string | null> = {
  unknown: null,
  transactionalId: 'string',
  producerId: 'int64',
  groupId: 'string',
  topicName: 'string',
  brokerId: 'int32',
};
const NAME = /^[A-Za-z][A-Za-z0-9]*$/;
const NULLABLE_KINDS = new Set(['string', 'bytes', 'records']);

/**
 * Checks one parsed schema file against the grammar.
 * @throws SchemaError naming the file and the offending field
 */
export function validateMessage(file: string, raw: Record<string, unknown>): MessageSpec {
  const ctx = new Ctx(file);
  ctx.keys(raw, MESSAGE_KEYS, 'message');
  const name = ctx.str(raw.name, 'name');
  if (!NAME.test(name)) ctx.fail(`message name ${JSON.stringify(name)} is not a valid name`);
  const type = ctx.str(raw.type, 'type') as MessageType;
  if (!MESSAGE_TYPES.includes(type)) ctx.fail(`unknown message type ${JSON.stringify(type)}`);
  let apiKey: number | null = null;
  if (raw.apiKey !== undefined) {
    if (
      typeof raw.apiKey !== 'number' ||
      !Number.isInteger(raw.apiKey) ||
      raw.apiKey < 0 ||
      raw.apiKey > 0x7fff
    ) {
      ctx.fail('apiKey must be an int16 >= 0');
    }
    apiKey = raw.apiKey as number;
  }
  if ((type === 'request' || type === 'response' || type === 'metadata') && apiKey === null) {
    ctx.fail(`a ${type} needs an apiKey`);
  }
  const validVersions = ctx.versions(raw.validVersions, 'validVersions', null);
  if (!isEmpty(validVersions) && validVersions.hi === MAX_VERSION) {
    ctx.fail('validVersions does not specify a maximum version');
  }
  const deprecatedVersions =
    raw.deprecatedVersions === undefined
      ? null
      : ctx.versions(raw.deprecatedVersions, 'deprecatedVersions', null);
  // Kafka requires flexibleVersions; the retired APIs (validVersions "none") omit it.
  let flexibleVersions: Versions = NO_VERSIONS;
  if (raw.flexibleVersions === undefined) {
    if (!isEmpty(validVersions)) ctx.fail('flexibleVersions is required');
  } else {
    flexibleVersions = ctx.versions(raw.flexibleVersions, 'flexibleVersions', null);
    if (!isEmpty(flexibleVersions) && flexibleVersions.hi !== MAX_VERSION) {
      ctx.fail('flexibleVersions must be "none" or open-ended ("N+")');
    }
  }
  let listeners: string[] = [];
  if (raw.listeners !== undefined) {
    if (type !== 'request') ctx.fail('listeners are only allowed on requests');
    if (!Array.isArray(raw.listeners)) ctx.fail('listeners must be an array');
    listeners = (raw.listeners as unknown[]).map((l) => {
      if (typeof l !== 'string' || !LISTENERS.has(l))
        ctx.fail(`unknown listener ${JSON.stringify(l)}`);
      return l as string;
    });
  }
  let latestVersionUnstable = false;
  if (raw.latestVersionUnstable !== undefined) {
    if (type !== 'request') ctx.fail('latestVersionUnstable is only allowed on requests');
    latestVersionUnstable = ctx.bool(raw.latestVersionUnstable, 'latestVersionUnstable');
  }
  const commonStructs: StructSpec[] = [];
  if (raw.commonStructs !== undefined) {
    if (!Array.isArray(raw.commonStructs)) ctx.fail('commonStructs must be an array');
    for (const c of raw.commonStructs as unknown[]) {
      if (c === null || typeof c !== 'object') ctx.fail('a common struct must be an object');
      const co = c as Record<string, unknown>;
      ctx.keys(co, COMMON_STRUCT_KEYS, 'common struct');
      const cname = ctx.str(co.name, 'commonStructs.name');
      if (!/^[A-Z][A-Za-z0-9]*$/.test(cname))
        ctx.fail(`common struct name ${cname} must start upper-case`);
      const cversions = ctx.versions(co.versions, `${cname}.versions`, null);
      commonStructs.push({
        name: cname,
        versions: cversions,
        fields: ctx.fields(co.fields, cname, flexibleVersions),
      });
    }
  }
  const fields = ctx.fields(raw.fields ?? [], name, flexibleVersions);
  const spec: MessageSpec = {
    file,
    name,
    type,
    apiKey,
    validVersions,
    deprecatedVersions,
    flexibleVersions,
    fields,
    commonStructs,
    listeners,
    latestVersionUnstable,
  };
  checkStructNames(ctx, spec);
  return spec;
}

/** Struct names are global within a message (inline and common), and every reference resolves. */
function checkStructNames(ctx: Ctx, spec: MessageSpec): void {
  const defined = new Set<string>();
  const common = new Set(spec.commonStructs.map((c) => c.name));
  for (const c of spec.commonStructs) {
    if (defined.has(c.name)) ctx.fail(`duplicate struct name ${c.name}`);
    defined.add(c.name);
  }
  const walk = (fields: readonly FieldSpec[]): void => {
    for (const f of fields) {
      const st = f.type.kind === 'array' ? f.type.elem : f.type;
      if (st.kind !== 'struct') continue;
      if (f.fields !== null) {
        if (defined.has(st.name)) ctx.fail(`duplicate struct name ${st.name}`);
        defined.add(st.name);
        walk(f.fields);
      } else if (!common.has(st.name)) {
        ctx.fail(
          `field ${f.name} uses struct ${st.name}, which has no fields and is not a common struct`,
        );
      }
    }
  };
  for (const c of spec.commonStructs) walk(c.fields);
  walk(spec.fields);
}

class Ctx {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  fail(message: string): never {
    throw new SchemaError(this.file, message);
  }

  keys(o: Record<string, unknown>, allowed: Set<string>, what: string): void {
    for (const k of Object.keys(o)) {
      if (!allowed.has(k)) this.fail(`unknown ${what} key ${JSON.stringify(k)}`);
    }
  }

  str(v: unknown, what: string): string {
    if (typeof v !== 'string') this.fail(`${what} must be a string`);
    return v as string;
  }

  bool(v: unknown, what: string): boolean {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    return this.fail(`${what} must be a boolean`);
  }

  versions(v: unknown, what: string, fallback: Versions | null): Versions {
    if (v === undefined || v === '') {
      if (fallback === null) this.fail(`${what} is required`);
      return fallback as Versions;
    }
    const parsed = typeof v === 'string' ? parseVersions(v) : null;
    if (parsed === null) this.fail(`${what}: ${JSON.stringify(v)} is not a version range`);
    return parsed as Versions;
  }

  fields(v: unknown, owner: string, messageFlexible: Versions): FieldSpec[] {
    if (!Array.isArray(v)) this.fail(`${owner}.fields must be an array`);
    const out: FieldSpec[] = [];
    const names = new Set<string>();
    for (const f of v as unknown[]) {
      if (f === null || typeof f !== 'object' || Array.isArray(f))
        this.fail(`${owner}: a field must be an object`);
      const spec = this.field(f as Record<string, unknown>, owner, messageFlexible);
      if (names.has(spec.name)) this.fail(`${owner}: duplicate field ${spec.name}`);
      names.add(spec.name);
      out.push(spec);
    }
    // Tags must be unique and contiguous from 0 within one struct (FieldSpec / StructSpec).
    const tags = out.filter((f) => f.tag !== null).map((f) => f.tag as number);
    const sorted = [...tags].sort((a, b) => a - b);
    sorted.forEach((t, i) => {
      if (t !== i)
        this.fail(`${owner}: tags must be unique and contiguous from 0 (got ${sorted.join(', ')})`);
    });
    return out;
  }

  field(o: Record<string, unknown>, owner: string, messageFlexible: Versions): FieldSpec {
    this.keys(o, FIELD_KEYS, `field (in ${owner})`);
    const name = this.str(o.name, `${owner}: field name`);
    if (!NAME.test(name)) this.fail(`${owner}: invalid field name ${JSON.stringify(name)}`);
    const where = `${owner}.${name}`;
    const typeText = this.str(o.type, `${where}.type`);
    const type = this.type(typeText, where);
    const taggedVersions =
      o.taggedVersions === undefined
        ? NO_VERSIONS
        : this.versions(o.taggedVersions, `${where}.taggedVersions`, null);
    const versions = this.versions(
      o.versions,
      `${where}.versions`,
      o.taggedVersions === undefined ? null : taggedVersions,
    );
    const nullableVersions =
      o.nullableVersions === undefined
        ? NO_VERSIONS
        : this.versions(o.nullableVersions, `${where}.nullableVersions`, null);
    const kindName =
      type.kind === 'array' ? 'array' : type.kind === 'struct' ? 'struct' : type.name;
    if (
      !isEmpty(nullableVersions) &&
      !(NULLABLE_KINDS.has(kindName) || kindName === 'array' || kindName === 'struct')
    ) {
      this.fail(`${where}: a ${typeText} cannot be nullable`);
    }
    let flexibleVersions: Versions | null = null;
    if (o.flexibleVersions !== undefined) {
      if (kindName !== 'string' && kindName !== 'bytes') {
        this.fail(`${where}: flexibleVersions can only be set on string and bytes fields`);
      }
      flexibleVersions = this.versions(o.flexibleVersions, `${where}.flexibleVersions`, null);
      if (!isEmpty(flexibleVersions) && flexibleVersions.hi !== MAX_VERSION) {
        this.fail(`${where}: flexibleVersions must be "none" or open-ended`);
      }
      if (!isSubset(flexibleVersions, messageFlexible)) {
        this.fail(`${where}: flexibleVersions must be a subset of the message's`);
      }
    }
    let tag: number | null = null;
    if (o.tag !== undefined) {
      if (typeof o.tag !== 'number' || !Number.isInteger(o.tag) || o.tag < 0)
        this.fail(`${where}: tag must be an int >= 0`);
      tag = o.tag as number;
      if (o.taggedVersions === undefined) this.fail(`${where}: a tag needs taggedVersions`);
    } else if (o.taggedVersions !== undefined) {
      this.fail(`${where}: taggedVersions needs a tag`);
    }
    if (tag !== null) {
      if (taggedVersions.hi !== MAX_VERSION)
        this.fail(`${where}: taggedVersions must be open-ended`);
      if (!isSubset(taggedVersions, versions))
        this.fail(`${where}: taggedVersions must be a subset of versions`);
      if (!isSubset(taggedVersions, messageFlexible)) {
        this.fail(
          `${where}: taggedVersions ${formatVersions(taggedVersions)} are not all flexible`,
        );
      }
      if (kindName === 'records') this.fail(`${where}: records cannot be tagged`);
      // Kafka: either every tagged version is nullable or none is.
      const nullableTagged =
        !isEmpty(nullableVersions) &&
        contains(nullableVersions, taggedVersions.lo) &&
        isSubset(taggedVersions, nullableVersions);
      const anyNullable = !isEmpty(nullableVersions) && nullableVersions.hi >= taggedVersions.lo;
      if (anyNullable && !nullableTagged)
        this.fail(`${where}: tagged versions must be all nullable or none`);
      if (nullableTagged && kindName === 'struct') {
        // Kafka writes these with an extra presence varint; no schema uses one, so we refuse
        // rather than guess.
        this.fail(`${where}: nullable tagged structs are not supported`);
      }
    }
    const mapKey = o.mapKey === undefined ? false : this.bool(o.mapKey, `${where}.mapKey`);
    if (mapKey && tag !== null) this.fail(`${where}: a mapKey field cannot be tagged`);
    const zeroCopy = o.zeroCopy === undefined ? false : this.bool(o.zeroCopy, `${where}.zeroCopy`);
    if (zeroCopy && kindName !== 'bytes') this.fail(`${where}: zeroCopy is only for bytes`);
    const ignorable =
      o.ignorable === undefined ? false : this.bool(o.ignorable, `${where}.ignorable`);
    let entityType: string | null = null;
    if (o.entityType !== undefined) {
      entityType = this.str(o.entityType, `${where}.entityType`);
      if (!(entityType in ENTITY_TYPES)) this.fail(`${where}: unknown entityType ${entityType}`);
      const want = ENTITY_TYPES[entityType];
      const base = type.kind === 'array' ? type.elem : type;
      if (
        want !== null &&
        want !== undefined &&
        !(base.kind === 'primitive' && base.name === want)
      ) {
        this.fail(`${where}: entityType ${entityType} needs type ${want}`);
      }
    }
    if (o.about !== undefined && typeof o.about !== 'string')
      this.fail(`${where}.about must be a string`);
    let fields: FieldSpec[] | null = null;
    const structType = type.kind === 'array' ? type.elem : type;
    if (o.fields !== undefined) {
      if (structType.kind !== 'struct') this.fail(`${where}: only struct types can have fields`);
      fields = this.fields(o.fields, structType.name, messageFlexible);
    }
    const def = this.defaultValue(o.default, type, versions, nullableVersions, where);
    return {
      name,
      typeText,
      type,
      versions,
      nullableVersions,
      flexibleVersions,
      taggedVersions,
      tag,
      ignorable,
      default: def,
      entityType,
      mapKey,
      zeroCopy,
      fields,
    };
  }

  type(text: string, where: string): FieldType {
    if (text.startsWith('[]')) {
      const elem = this.elementType(text.slice(2), where);
      return { kind: 'array', elem };
    }
    return this.elementType(text, where);
  }

  elementType(text: string, where: string): ElementType {
    if ((PRIMITIVE_TYPES as readonly string[]).includes(text)) {
      return { kind: 'primitive', name: text as PrimitiveType };
    }
    if (/^[A-Z][A-Za-z0-9]*$/.test(text)) return { kind: 'struct', name: text };
    return this.fail(`${where}: unknown type ${JSON.stringify(text)}`);
  }

  defaultValue(
    v: unknown,
    type: FieldType,
    versions: Versions,
    nullable: Versions,
    where: string,
  ): DefaultValue {
    if (v === undefined) return { kind: 'builtin' };
    const text =
      typeof v === 'string'
        ? v
        : typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : null;
    if (text === null) return this.fail(`${where}: default must be a string, number or boolean`);
    const nullableEverywhere = isSubset(versions, nullable) && !isEmpty(nullable);
    if (type.kind === 'array' || type.kind === 'struct') {
      if (text === '') return { kind: 'builtin' };
      if (text === 'null') {
        if (!nullableEverywhere)
          this.fail(`${where}: default null needs the field nullable in all its versions`);
        return { kind: 'null' };
      }
      return this.fail(`${where}: a ${type.kind} default can only be "" or "null"`);
    }
    switch (type.name) {
      case 'bool':
        if (text !== 'true' && text !== 'false') this.fail(`${where}: bad bool default ${text}`);
        return { kind: 'bool', value: text === 'true' };
      case 'int8':
      case 'int16':
      case 'uint16':
      case 'int32':
      case 'uint32':
        return { kind: 'number', value: this.intDefault(text, type.name, where) };
      case 'int64': {
        const big = parseIntText(text);
        if (big === null || big < -(2n ** 63n) || big >= 2n ** 63n)
          this.fail(`${where}: bad int64 default ${text}`);
        return { kind: 'bigint', value: big as bigint };
      }
      case 'float64': {
        const f = Number(text);
        if (text.trim() === '' || Number.isNaN(f))
          this.fail(`${where}: bad float64 default ${text}`);
        return { kind: 'number', value: f };
      }
      case 'string':
        if (text === 'null') {
          if (!nullableEverywhere)
            this.fail(`${where}: default null needs the field nullable in all its versions`);
          return { kind: 'null' };
        }
        return { kind: 'string', value: text };
      case 'bytes':
      case 'records':
        if (text === '') return { kind: 'builtin' };
        if (text === 'null') {
          if (!nullableEverywhere)
            this.fail(`${where}: default null needs the field nullable in all its versions`);
          return { kind: 'null' };
        }
        return this.fail(`${where}: a ${type.name} default can only be "" or "null"`);
      case 'uuid': {
        if (text === '') return { kind: 'builtin' };
        const bytes = Buffer.from(text, 'base64');
        if (bytes.length !== 16)
          this.fail(`${where}: uuid default ${text} is not 16 bytes of base64`);
        return { kind: 'uuid', value: bytes.toString('base64url') };
      }
    }
  }

  intDefault(text: string, type: string, where: string): number {
    const big = parseIntText(text);
    const bounds: Record<string, [bigint, bigint]> = {
      int8: [-128n, 127n],
      int16: [-32768n, 32767n],
      uint16: [0n, 65535n],
      int32: [-2147483648n, 2147483647n],
      uint32: [0n, 4294967295n],
    };
    const [lo, hi] = bounds[type]!;
    if (big === null || big < lo || big > hi)
      this.fail(`${where}: default ${text} is not a valid ${type}`);
    return Number(big);
  }
}

/** Decimal or `0x` hex, optionally negative. A leading zero is decimal, as Kafka parses it. */
function parseIntText(text: string): bigint | null {
  const m = /^(-?)(0x[0-9a-fA-F]+|\d+)$/.exec(text.trim());
  if (!m) return null;
  const mag = BigInt(m[2]!);
  return m[1] === '-' ? -mag : mag;
}
