/**
 * Stage 3: specs to the model the emitter walks. Resolves struct references, names the
 * TypeScript types, and computes each struct's wire *layouts*: the distinct ways a struct is
 * laid out across the versions that use it. One encoder and one decoder are emitted per
 * layout, so no generated code checks a version per field.
 */
import type { FieldSpec, FieldType, MessageSpec, StructSpec } from './validate.js';
import { contains, isEmpty } from './versions.js';

export interface FieldModel {
  readonly spec: FieldSpec;
  /** The camelCase property name. */
  readonly prop: string;
  readonly type: FieldType;
  /** The struct a struct or array-of-struct field holds. */
  readonly struct: StructModel | null;
  /** True when the field can hold null in some version (the TS type includes null). */
  readonly everNullable: boolean;
}

export interface StructModel {
  /** The name in the schema. */
  readonly schemaName: string;
  /** The exported TypeScript name, unique across every generated file. */
  readonly tsName: string;
  readonly fields: FieldModel[];
  /** Layouts by signature, in order of first use. */
  readonly layouts: Map<string, Layout>;
}

export type FieldMode = 'absent' | 'regular' | 'tagged';

export interface FieldLayout {
  readonly field: FieldModel;
  readonly index: number;
  readonly mode: FieldMode;
  readonly nullable: boolean;
  /** Compact (flexible) string, bytes, records or array encoding. */
  readonly compact: boolean;
  readonly child: Layout | null;
}

export interface Layout {
  readonly struct: StructModel;
  /** Function-name suffix, from the first version that uses it (`v3`). */
  readonly id: string;
  readonly versions: number[];
  readonly flexible: boolean;
  readonly fields: readonly FieldLayout[];
}

export interface MessageModel {
  readonly spec: MessageSpec;
  readonly root: StructModel;
  /** Every struct of the message, the root first. */
  readonly structs: readonly StructModel[];
  /** Top-level layout per valid version. */
  readonly versionLayouts: ReadonlyMap<number, Layout>;
}

/** `ClientId` -> `clientId`. */
export function camel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * The exported name of a struct. Kafka's struct names are unique only within a message, so
 * every struct is prefixed by its message name, dropping a prefix the struct name already
 * repeats: in `FetchRequest`, `FetchTopic` becomes `FetchRequestTopic`, and
 * `MetadataResponseTopic` stays as it is. The result is checked for global uniqueness.
 */
export function structTsName(messageName: string, structName: string): string {
  const follows = (prefix: string): boolean =>
    structName.length > prefix.length &&
    structName.startsWith(prefix) &&
    /[A-Z]/.test(structName.charAt(prefix.length));
  if (follows(messageName)) return structName;
  const stem = messageName.replace(/(Request|Response|Record|Header|Data)$/, '');
  if (stem !== messageName && stem !== '' && follows(stem))
    return messageName + structName.slice(stem.length);
  return messageName + structName;
}

/**
 * Builds the model of one message and its layouts for every valid version.
 * @throws Error when a struct is used at a version it does not support
 */
export function buildMessageModel(spec: MessageSpec): MessageModel {
  const structs: StructModel[] = [];
  const byName = new Map<string, StructModel>();
  const commonSpecs = new Map<string, StructSpec>(spec.commonStructs.map((c) => [c.name, c]));

  const makeStruct = (
    schemaName: string,
    tsName: string,
    fields: readonly FieldSpec[],
  ): StructModel => {
    const s: StructModel = { schemaName, tsName, fields: [], layouts: new Map() };
    structs.push(s);
    byName.set(schemaName, s);
    for (const f of fields) s.fields.push(makeField(f));
    return s;
  };
  const makeField = (f: FieldSpec): FieldModel => {
    const st = f.type.kind === 'array' ? f.type.elem : f.type;
    let struct: StructModel | null = null;
    if (st.kind === 'struct') {
      const existing = byName.get(st.name);
      if (existing !== undefined) struct = existing;
      else if (f.fields !== null)
        struct = makeStruct(st.name, structTsName(spec.name, st.name), f.fields);
      else {
        const common = commonSpecs.get(st.name);
        if (common === undefined) throw new Error(`${spec.file}: unknown struct ${st.name}`);
        struct = makeStruct(st.name, structTsName(spec.name, st.name), common.fields);
      }
    }
    const everNullable =
      f.type.kind === 'primitive' && f.type.name === 'records'
        ? true
        : !isEmpty(f.nullableVersions);
    return { spec: f, prop: camel(f.name), type: f.type, struct, everNullable };
  };

  const root: StructModel = {
    schemaName: spec.name,
    tsName: spec.name,
    fields: [],
    layouts: new Map(),
  };
  structs.push(root);
  for (const f of spec.fields) root.fields.push(makeField(f));
  // Common structs nobody references still get a type, so a schema's vocabulary is complete.
  for (const c of spec.commonStructs) {
    if (!byName.has(c.name)) makeStruct(c.name, structTsName(spec.name, c.name), c.fields);
  }

  const versionLayouts = new Map<number, Layout>();
  for (let v = spec.validVersions.lo; v <= spec.validVersions.hi; v++) {
    versionLayouts.set(v, layoutOf(root, v, spec));
  }
  return { spec, root, structs, versionLayouts };
}

function layoutOf(struct: StructModel, v: number, spec: MessageSpec): Layout {
  const flexible = contains(spec.flexibleVersions, v);
  const fields: FieldLayout[] = struct.fields.map((field, index) => {
    const f = field.spec;
    if (!contains(f.versions, v)) {
      return { field, index, mode: 'absent', nullable: false, compact: false, child: null };
    }
    const tagged = f.tag !== null && contains(f.taggedVersions, v);
    const nullable = contains(f.nullableVersions, v);
    const compact =
      tagged || (f.flexibleVersions !== null ? contains(f.flexibleVersions, v) : flexible);
    const child = field.struct !== null ? layoutOf(field.struct, v, spec) : null;
    return { field, index, mode: tagged ? 'tagged' : 'regular', nullable, compact, child };
  });
  const signature = JSON.stringify([
    flexible,
    fields.map((f) => [f.mode, f.nullable, f.compact, f.child?.id ?? null]),
  ]);
  const existing = struct.layouts.get(signature);
  if (existing !== undefined) {
    if (!existing.versions.includes(v)) existing.versions.push(v);
    return existing;
  }
  const layout: Layout = { struct, id: `v${v}`, versions: [v], flexible, fields };
  struct.layouts.set(signature, layout);
  return layout;
}
