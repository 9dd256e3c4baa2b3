/**
 * Stage 4a: the TypeScript for one message: interfaces, factories, one encoder and one
 * decoder per layout, and the version switch on top. Statements are emitted one per line
 * without indentation; `indent()` in emit-files.ts indents them by brace depth (and the
 * statements of a `case` one step further). Biome does not touch generated files (biome.json
 * excludes them) and `codegen:check` compares them byte for byte. The doc comments state
 * versions, nullability and defaults in our own words.
 */
import type { FieldLayout, FieldModel, Layout, MessageModel, StructModel } from './model.js';
import type { ElementType, PrimitiveType } from './validate.js';
import { formatVersions, isEmpty } from './versions.js';

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Runtime names a generated file may import, by module. */
export interface Imports {
  support: Set<string>;
  writer: Set<string>;
  /** Types from protocol.ts. */
  protocol: Set<string>;
  /** Structs whose default value the file keeps as a module constant (`DEFAULT_<name>`). */
  defaults: Set<string>;
}

export function newImports(): Imports {
  return { support: new Set(), writer: new Set(), protocol: new Set(), defaults: new Set() };
}

const TS_PRIMITIVE: Record<PrimitiveType, string> = {
  bool: 'boolean',
  int8: 'number',
  int16: 'number',
  uint16: 'number',
  int32: 'number',
  uint32: 'number',
  int64: 'bigint',
  float64: 'number',
  string: 'string',
  bytes: 'Buffer',
  records: 'Buffer',
  uuid: 'string',
};

const FIXED: Partial<Record<PrimitiveType, string>> = {
  bool: 'Bool',
  int8: 'Int8',
  int16: 'Int16',
  uint16: 'Uint16',
  int32: 'Int32',
  uint32: 'Uint32',
  int64: 'Int64',
  float64: 'Float64',
  uuid: 'Uuid',
};

function elemTs(e: ElementType, f: FieldModel): string {
  return e.kind === 'primitive' ? TS_PRIMITIVE[e.name] : f.struct!.tsName;
}

/** The field's TypeScript type (with `| null` when any version allows null). */
export function fieldTs(f: FieldModel): string {
  const base = f.type.kind === 'array' ? `${elemTs(f.type.elem, f)}[]` : elemTs(f.type, f);
  return f.everNullable ? `${base} | null` : base;
}

/** A fresh default value expression for the field. */
export function defaultExpr(f: FieldModel, imports: Imports): string {
  const d = f.spec.default;
  if (d.kind === 'null') return 'null';
  if (f.type.kind === 'array') return '[]';
  if (f.type.kind === 'struct') return `create${f.struct!.tsName}()`;
  switch (d.kind) {
    case 'number':
      return String(d.value);
    case 'bigint':
      return `${d.value}n`;
    case 'bool':
      return String(d.value);
    case 'string':
    case 'uuid':
      return JSON.stringify(d.value);
  }
  switch (f.type.name) {
    case 'bool':
      return 'false';
    case 'int64':
      return '0n';
    case 'string':
      return "''";
    case 'uuid':
      return `'${ZERO_UUID}'`;
    case 'bytes':
      imports.writer.add('EMPTY_BUFFER');
      return 'EMPTY_BUFFER';
    case 'records':
      return 'null';
    default:
      return '0';
  }
}

/** An expression that is true when `acc` differs from the field's default. */
function differs(f: FieldModel, acc: string, imports: Imports): string {
  const d = f.spec.default;
  if (d.kind === 'null') return `${acc} !== null`;
  if (f.type.kind === 'struct') {
    // Compared against one default built at module load, not a fresh one per encode.
    imports.support.add('deepEqual');
    imports.defaults.add(f.struct!.tsName);
    return `!deepEqual(${acc}, DEFAULT_${f.struct!.tsName})`;
  }
  const isEmptyDefault =
    f.type.kind === 'array' || (f.type.kind === 'primitive' && f.type.name === 'bytes');
  if (isEmptyDefault) {
    return f.everNullable ? `(${acc} === null || ${acc}.length !== 0)` : `${acc}.length !== 0`;
  }
  if (f.type.kind === 'primitive' && f.type.name === 'records') return `${acc} !== null`;
  return `${acc} !== ${defaultExpr(f, imports)}`;
}

/** Describes a field in words for its doc comment. */
function describeField(f: FieldModel): string {
  const s = f.spec;
  const parts: string[] = [`\`${s.typeText}\` in versions ${formatVersions(s.versions)}`];
  if (!isEmpty(s.nullableVersions))
    parts.push(`null allowed in ${formatVersions(s.nullableVersions)}`);
  if (s.tag !== null) parts.push(`tagged field ${s.tag} in ${formatVersions(s.taggedVersions)}`);
  const d = s.default;
  if (d.kind === 'null') parts.push('defaults to null');
  else if (d.kind === 'number' || d.kind === 'bool') parts.push(`defaults to ${d.value}`);
  else if (d.kind === 'bigint') parts.push(`defaults to ${d.value}n`);
  else if (d.kind === 'string' || d.kind === 'uuid')
    parts.push(`defaults to ${JSON.stringify(d.value)}`);
  if (s.ignorable) parts.push('dropped silently where the version lacks it');
  if (s.flexibleVersions !== null)
    parts.push(`compact only in ${formatVersions(s.flexibleVersions)}`);
  if (s.entityType !== null && s.entityType !== 'unknown') parts.push(`holds a ${s.entityType}`);
  if (s.mapKey) parts.push('part of the element key');
  if (s.type.kind === 'primitive' && (s.type.name === 'bytes' || s.type.name === 'records')) {
    parts.push('decoded as a view into the input');
  }
  return `${parts.join('; ')}.`;
}

function structDoc(model: MessageModel, s: StructModel): string {
  const spec = model.spec;
  if (s === model.root) {
    const kind = spec.type === 'metadata' ? 'metadata record' : spec.type;
    const key =
      spec.apiKey === null
        ? ''
        : ` (${spec.type === 'metadata' ? 'record type' : 'API key'} ${spec.apiKey})`;
    const flex = isEmpty(spec.flexibleVersions)
      ? 'never flexible'
      : `flexible from v${spec.flexibleVersions.lo}`;
    return `Kafka ${kind} \`${spec.name}\`${key}: versions ${formatVersions(spec.validVersions)}, ${flex}.`;
  }
  return `Struct \`${s.schemaName}\` of \`${spec.name}\`.`;
}

function layoutRange(l: Layout): string {
  return l.versions.map((v) => `v${v}`).join(', ');
}

/** The whole TypeScript for one message, without imports. */
export function emitMessage(model: MessageModel, imports: Imports): string {
  const out: string[] = [];
  for (const s of model.structs) out.push(emitStructType(model, s, imports));
  for (const s of model.structs) {
    for (const l of s.layouts.values()) {
      out.push(emitEncoder(l, imports));
      out.push(emitDecoder(l, imports));
    }
  }
  out.push(emitTop(model, imports));
  return out.join('\n');
}

function emitStructType(model: MessageModel, s: StructModel, imports: Imports): string {
  const lines: string[] = [];
  lines.push(`/** ${structDoc(model, s)} */`);
  lines.push(`export interface ${s.tsName} {`);
  for (const f of s.fields) {
    lines.push(`  /** ${describeField(f)} */`);
    lines.push(`  ${f.prop}: ${fieldTs(f)};`);
  }
  imports.support.add('UnknownTaggedField');
  lines.push(
    '  /** Tagged fields this version does not know, kept as raw bytes and written back. */',
  );
  lines.push('  _unknownTaggedFields?: UnknownTaggedField[];');
  lines.push('}');
  lines.push('');
  lines.push(
    `/** A \`${s.tsName}\` with every field at its schema default, overridden by \`init\`. */`,
  );
  lines.push(`export function create${s.tsName}(init: Partial<${s.tsName}> = {}): ${s.tsName} {`);
  lines.push(`  const o: ${s.tsName} = {`);
  for (const f of s.fields) {
    lines.push(
      `    ${f.prop}: init.${f.prop} === undefined ? ${defaultExpr(f, imports)} : init.${f.prop},`,
    );
  }
  lines.push('  };');
  lines.push(
    '  if (init._unknownTaggedFields !== undefined) o._unknownTaggedFields = init._unknownTaggedFields;',
  );
  lines.push('  return o;');
  lines.push('}');
  lines.push('');
  lines.push(
    `const F_${s.tsName}: readonly string[] = [${s.fields.map((f) => `'${f.prop}'`).join(', ')}];`,
  );
  lines.push('');
  return lines.join('\n');
}

function encName(l: Layout): string {
  return `e_${l.struct.tsName}_${l.id}`;
}
function decName(l: Layout): string {
  return `d_${l.struct.tsName}_${l.id}`;
}

/** Whether the layout's encoder writes anything (if not, it takes no Writer). */
function writes(l: Layout): boolean {
  return l.flexible || l.fields.some((fl) => fl.mode === 'regular');
}

/** Whether the layout's decoder reads anything (if not, it takes no Reader). */
function reads(l: Layout): boolean {
  return l.flexible || l.fields.some((fl) => fl.mode === 'regular');
}

/** A call of the layout's encoder on `acc`. */
function encCall(l: Layout, acc: string): string {
  return writes(l) ? `${encName(l)}(w, ${acc})` : `${encName(l)}(${acc})`;
}

/** A call of the layout's decoder. */
function decCall(l: Layout): string {
  return reads(l) ? `${decName(l)}(r)` : `${decName(l)}()`;
}

function isArray(fl: FieldLayout): boolean {
  return fl.field.type.kind === 'array';
}

/** Statements writing `acc` for a present field. `t` is a unique suffix for locals. */
function writeValue(fl: FieldLayout, acc: string, t: string, imports: Imports): string {
  const f = fl.field;
  const type = f.type;
  if (type.kind === 'array') {
    const len = fl.compact ? 'writeCompactArrayLength' : 'writeArrayLength';
    const el = writeElement(type.elem, fl, `a${t}[ix]!`, imports);
    const write = `w.${len}(a${t}.length);\nfor (ix = 0; ix < a${t}.length; ix++) ${el}\nix = -1;`;
    if (fl.nullable) {
      return `const a${t} = ${acc};\nif (a${t} === null) w.${len}(null);\nelse {\n${write}\n}`;
    }
    imports.support.add('nullNotAllowed');
    return `const a${t} = ${acc};\nif (a${t} === null) throw nullNotAllowed();\n${write}`;
  }
  if (type.kind === 'struct') {
    if (fl.nullable) {
      return `const s${t} = ${acc};\nif (s${t} === null) w.writeInt8(-1);\nelse {\nw.writeInt8(1);\n${encCall(fl.child!, `s${t}`)};\n}`;
    }
    imports.support.add('nullNotAllowed');
    return `const s${t} = ${acc};\nif (s${t} === null) throw nullNotAllowed();\n${encCall(fl.child!, `s${t}`)};`;
  }
  return writePrimitive(type.name, fl.compact, fl.nullable, acc, t, imports);
}

function writePrimitive(
  name: PrimitiveType,
  compact: boolean,
  nullable: boolean,
  acc: string,
  t: string,
  imports: Imports,
): string {
  const fixed = FIXED[name];
  if (fixed !== undefined) return `w.write${fixed}(${acc});`;
  const method =
    name === 'string'
      ? compact
        ? 'writeCompactString'
        : 'writeString'
      : compact
        ? 'writeCompactBytes'
        : 'writeBytes';
  if (nullable) return `w.${method}(${acc});`;
  imports.support.add('nullNotAllowed');
  return `const v${t} = ${acc};\nif (v${t} === null) throw nullNotAllowed();\nw.${method}(v${t});`;
}

function writeElement(e: ElementType, fl: FieldLayout, acc: string, imports: Imports): string {
  if (e.kind === 'struct') return `${encCall(fl.child!, acc)};`;
  const fixed = FIXED[e.name];
  if (fixed !== undefined) return `w.write${fixed}(${acc});`;
  const method =
    e.name === 'string'
      ? fl.compact
        ? 'writeCompactString'
        : 'writeString'
      : fl.compact
        ? 'writeCompactBytes'
        : 'writeBytes';
  imports.support.add('nullNotAllowed');
  return `{\nconst e = ${acc};\nif (e === null) throw nullNotAllowed();\nw.${method}(e);\n}`;
}

/** Whether a body ever moves `f` (the index of the field being written or read) off -1. */
function setsField(body: readonly string[]): boolean {
  return body.some((b) => /\bf = \d/.test(b));
}

/** The locals that track where an error happened: `f` when it moves, `ix` for arrays. */
function locals(body: readonly string[], usesIx: boolean): string {
  return `${setsField(body) ? 'let f = -1;\n' : ''}${usesIx ? 'let ix = -1;\n' : ''}`;
}

/** The catch clause: the error gets the struct's field (or none) and array index. */
function rethrow(body: readonly string[], s: StructModel, usesIx: boolean): string {
  return `throw atField(e, F_${s.tsName}, ${setsField(body) ? 'f' : '-1'}, ${usesIx ? 'ix' : '-1'});`;
}

function emitEncoder(l: Layout, imports: Imports): string {
  const s = l.struct;
  const body: string[] = [];
  const usesIx = l.fields.some((fl) => fl.mode !== 'absent' && isArray(fl));
  for (const fl of l.fields) {
    if (fl.mode !== 'absent' || fl.field.spec.ignorable) continue;
    imports.support.add('notInVersion');
    body.push(
      `f = ${fl.index};\nif (${differs(fl.field, `m.${fl.field.prop}`, imports)}) throw notInVersion();`,
    );
  }
  // `f` starts at -1; it is reset only where an earlier statement set it.
  const reset = (): string => (body.length > 0 ? 'f = -1;\n' : '');
  if (!l.flexible) {
    imports.support.add('taggedNotInVersion');
    const unknown = 'm._unknownTaggedFields !== undefined && m._unknownTaggedFields.length > 0';
    body.push(
      body.length > 0
        ? `if (${unknown}) {\nf = -1;\nthrow taggedNotInVersion();\n}`
        : `if (${unknown}) throw taggedNotInVersion();`,
    );
  }
  for (const fl of l.fields) {
    if (fl.mode !== 'regular') continue;
    body.push(
      `f = ${fl.index};\n${writeValue(fl, `m.${fl.field.prop}`, String(fl.index), imports)}`,
    );
  }
  if (l.flexible) {
    const tagged = l.fields
      .filter((fl) => fl.mode === 'tagged')
      .sort((a, b) => a.field.spec.tag! - b.field.spec.tag!);
    if (tagged.length === 0) {
      imports.support.add('writeUnknownTaggedOnly');
      body.push(`${reset()}writeUnknownTaggedOnly(w, m._unknownTaggedFields);`);
    } else {
      imports.support.add('sortedUnknown');
      imports.support.add('writeUnknownTagged');
      const parts: string[] = [
        `${reset()}const uk = sortedUnknown(m._unknownTaggedFields);`,
        'let nt = uk.length;',
      ];
      for (const fl of tagged)
        parts.push(`if (${differs(fl.field, `m.${fl.field.prop}`, imports)}) nt++;`);
      parts.push('w.writeUvarint(nt);', 'let u = 0;');
      for (const fl of tagged) {
        const tag = fl.field.spec.tag!;
        parts.push(`u = writeUnknownTagged(w, uk, u, ${tag});`);
        parts.push(
          `f = ${fl.index};\nif (${differs(fl.field, `m.${fl.field.prop}`, imports)}) {\nw.writeUvarint(${tag});\nconst z${fl.index} = w.beginSized();\n${writeValue(fl, `m.${fl.field.prop}`, String(fl.index), imports)}\nw.endSized(z${fl.index});\n}`,
        );
      }
      parts.push('writeUnknownTagged(w, uk, u, -1);');
      body.push(parts.join('\n'));
    }
  }
  // Every layout checks or writes unknown tags, so the body always uses `m` and `f`.
  const params = writes(l) ? `w: Writer, m: ${s.tsName}` : `m: ${s.tsName}`;
  const sig = `function ${encName(l)}(${params}): void {`;
  const doc = `/** Writes \`${s.tsName}\` as laid out in ${layoutRange(l)}. */`;
  imports.support.add('atField');
  return `${doc}\n${sig}\n${locals(body, usesIx)}try {\n${body.join('\n')}\n} catch (e) {\n${rethrow(body, s, usesIx)}\n}\n}\n`;
}

/** An expression reading one value of a present field (not arrays). */
function readPrimitive(name: PrimitiveType, compact: boolean, nullable: boolean): string {
  const fixed = FIXED[name];
  if (fixed !== undefined) return `r.read${fixed}()`;
  const kind = name === 'string' ? 'String' : 'Bytes';
  return `r.read${nullable ? 'Nullable' : ''}${compact ? 'Compact' : ''}${kind}()`;
}

/** Statements declaring `x${i}` (or assigning it, when `assign`) from the input. */
function readValue(fl: FieldLayout, assign: boolean): string {
  const f = fl.field;
  const x = `x${fl.index}`;
  const decl = assign ? `${x} =` : `const ${x} =`;
  const type = f.type;
  if (type.kind === 'array') {
    const len = `r.read${fl.nullable ? 'Nullable' : ''}${fl.compact ? 'Compact' : ''}ArrayLength()`;
    const elTs = elemTs(type.elem, f);
    const el =
      type.elem.kind === 'struct'
        ? decCall(fl.child!)
        : readPrimitive(type.elem.name, fl.compact, false);
    const n = `n${fl.index}`;
    // A list of one (a Produce answer's topic and partition) is a literal of its element: a
    // push onto [] makes room for 16.
    const first = `ix = 0;\n${x} = ${n} === 1 ? [${el}] : [];`;
    const loop = `for (ix = ${x}.length; ix < ${n}; ix++) ${x}.push(${el});\nix = -1;`;
    if (fl.nullable) {
      const head = assign ? '' : `let ${x}: ${elTs}[] | null = null;\n`;
      const tail = assign ? ` else ${x} = null;` : '';
      return `${head}const ${n} = ${len};\nif (${n} >= 0) {\n${first}\n${loop}\n}${tail}`;
    }
    const start = assign ? first : `ix = 0;\nconst ${x}: ${elTs}[] = ${n} === 1 ? [${el}] : [];`;
    return `const ${n} = ${len};\n${start}\n${loop}`;
  }
  if (type.kind === 'struct') {
    if (fl.nullable) return `${decl} r.readInt8() < 0 ? null : ${decCall(fl.child!)};`;
    return `${decl} ${decCall(fl.child!)};`;
  }
  return `${decl} ${readPrimitive(type.name, fl.compact, fl.nullable)};`;
}

function emitDecoder(l: Layout, imports: Imports): string {
  const s = l.struct;
  const body: string[] = [];
  const usesIx = l.fields.some((fl) => fl.mode !== 'absent' && isArray(fl));
  for (const fl of l.fields) {
    if (fl.mode !== 'regular') continue;
    body.push(`f = ${fl.index};\n${readValue(fl, false)}`);
  }
  if (l.flexible) {
    const tagged = l.fields.filter((fl) => fl.mode === 'tagged');
    // Tags of this struct that other versions have: Kafka's generated readers refuse them
    // ("Tag 1 is not valid for version 12") rather than keeping them as unknown.
    const misplaced = l.fields.filter((fl) => fl.mode !== 'tagged' && fl.field.spec.tag !== null);
    if (tagged.length === 0 && misplaced.length === 0) {
      imports.support.add('readUnknownTaggedOnly');
      body.push(`${body.length > 0 ? 'f = -1;\n' : ''}const uk = readUnknownTaggedOnly(r);`);
    } else {
      imports.support.add('UnknownTaggedField');
      const parts: string[] = body.length > 0 ? ['f = -1;'] : [];
      for (const fl of tagged)
        parts.push(`let x${fl.index}: ${fieldTs(fl.field)} = ${defaultExpr(fl.field, imports)};`);
      parts.push('let uk: UnknownTaggedField[] | undefined;');
      parts.push('const nt = r.readUvarint();');
      parts.push('for (let t = 0; t < nt; t++) {');
      parts.push('const tag = r.readUvarint();');
      parts.push('const end = r.readTaggedSize();');
      for (const fl of misplaced) {
        imports.support.add('tagNotInVersion');
        const tag = fl.field.spec.tag;
        parts.push(
          `if (tag === ${tag}) {\nf = ${fl.index};\nthrow tagNotInVersion(${tag}, '${formatVersions(fl.field.spec.taggedVersions)}');\n}`,
        );
      }
      const keep =
        'if (uk === undefined) uk = [];\nuk.push({ tag, data: r.readRaw(end - r.pos) });';
      let chain = '';
      for (const fl of tagged) {
        chain += `if (tag === ${fl.field.spec.tag}) {\nf = ${fl.index};\n${readValue(fl, true)}\nr.expectAt(end);\nf = -1;\n} else `;
      }
      parts.push(chain === '' ? keep : `${chain}{\n${keep}\n}`);
      parts.push('}');
      body.push(parts.join('\n'));
    }
  }
  const props = l.fields.map((fl) =>
    fl.mode === 'absent'
      ? `${fl.field.prop}: ${defaultExpr(fl.field, imports)},`
      : `${fl.field.prop}: x${fl.index},`,
  );
  const build = [`const o: ${s.tsName} = {`, ...props, '};'];
  if (l.flexible) build.push('if (uk !== undefined) o._unknownTaggedFields = uk;');
  build.push('return o;');
  const doc = `/** Reads \`${s.tsName}\` as laid out in ${layoutRange(l)}. */`;
  if (!reads(l)) {
    return `${doc}\nfunction ${decName(l)}(): ${s.tsName} {\n${build.join('\n')}\n}\n`;
  }
  const sig = `function ${decName(l)}(r: Reader): ${s.tsName} {`;
  imports.support.add('atField');
  // Building the object cannot throw, so the last field's index may stay in `f`.
  return `${doc}\n${sig}\n${locals(body, usesIx)}try {\n${body.join('\n')}\n${build.join('\n')}\n} catch (e) {\n${rethrow(body, s, usesIx)}\n}\n}\n`;
}

function emitTop(model: MessageModel, imports: Imports): string {
  const name = model.spec.name;
  const valid = formatVersions(model.spec.validVersions);
  // Group versions by layout so each switch arm covers a run of versions.
  const groups = new Map<Layout, number[]>();
  for (const [v, l] of model.versionLayouts) {
    const g = groups.get(l);
    if (g === undefined) groups.set(l, [v]);
    else g.push(v);
  }
  imports.support.add('atTop');
  imports.support.add('unsupportedVersion');
  const encArms: string[] = [];
  const decArms: string[] = [];
  for (const [l, vs] of groups) {
    const cases = vs.map((v) => `case ${v}:`).join('\n');
    encArms.push(`${cases}\n${encCall(l, 'm')};\nreturn;`);
    decArms.push(`${cases}\nreturn ${decCall(l)};`);
  }
  return `/**
 * Writes \`${name}\` at \`version\` (${valid}).
 * @throws CodecError VERSION_UNSUPPORTED, FIELD_NOT_IN_VERSION (a non-default value in a field
 *   the version lacks), NULL_NOT_ALLOWED, VALUE_INVALID or LENGTH_INVALID, with the path
 */
export function encode${name}(w: Writer, m: ${name}, version: number): void {
try {
switch (version) {
${encArms.join('\n')}
default:
throw unsupportedVersion('${name}', version, '${valid}');
}
} catch (e) {
throw atTop(e, '${name}', version);
}
}

/**
 * Reads \`${name}\` at \`version\` (${valid}) from \`r\`'s position; bytes and records are views
 * into the input.
 * @throws CodecError VERSION_UNSUPPORTED, TRUNCATED, LENGTH_INVALID or NULL_NOT_ALLOWED, with the path
 */
export function decode${name}(r: Reader, version: number): ${name} {
try {
switch (version) {
${decArms.join('\n')}
default:
throw unsupportedVersion('${name}', version, '${valid}');
}
} catch (e) {
throw atTop(e, '${name}', version);
}
}
`;
}
