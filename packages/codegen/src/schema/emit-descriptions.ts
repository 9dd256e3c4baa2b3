/**
 * Emits the codec's schema descriptions (`src/gen/descriptions/`): every message's fields,
 * types, versions, nullable and tagged versions, tags and defaults as plain data, one module
 * per message so an import of one description carries only that message. The runtime types
 * are in the codec's `src/description.ts`; the JSON converter (`src/kafka-json.ts`) walks them.
 */

import { kebab } from './emit-files.js';
import {
  buildMessageModel,
  type FieldModel,
  type MessageModel,
  type StructModel,
} from './model.js';
import type { DefaultValue, FieldType, MessageSpec } from './validate.js';
import type { Versions } from './versions.js';
import { isEmpty } from './versions.js';

export interface DescriptionFile {
  readonly path: string;
  readonly content: string;
}

/** `MetadataRequest` -> `MetadataRequestDescription`. */
export function descriptionName(messageName: string): string {
  return `${messageName}Description`;
}

function range(v: Versions): string {
  return isEmpty(v) ? 'null' : `[${v.lo}, ${v.hi}]`;
}

function typeText(t: FieldType): string {
  if (t.kind === 'array') return `[]${t.elem.name}`;
  return t.name;
}

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** The default as a TypeScript literal, or null when the key is left out (empty / struct). */
function defaultLiteral(f: FieldModel): string | null {
  const d: DefaultValue = f.spec.default;
  if (d.kind === 'null') return 'null';
  const t = f.type;
  if (t.kind !== 'primitive') return null;
  switch (d.kind) {
    case 'number':
      return Object.is(d.value, -0) ? '-0' : String(d.value);
    case 'bigint':
      return `${d.value}n`;
    case 'bool':
      return String(d.value);
    case 'string':
    case 'uuid':
      return JSON.stringify(d.value);
    default:
      break;
  }
  switch (t.name) {
    case 'bool':
      return 'false';
    case 'int64':
      return '0n';
    case 'string':
      return "''";
    case 'uuid':
      return `'${ZERO_UUID}'`;
    case 'bytes':
    case 'records':
      return null;
    default:
      return '0';
  }
}

/** Structs in an order where each one's children come first (post-order over references). */
function ordered(root: StructModel): StructModel[] {
  const out: StructModel[] = [];
  const seen = new Set<StructModel>();
  const visit = (s: StructModel): void => {
    if (seen.has(s)) return;
    seen.add(s);
    for (const f of s.fields) if (f.struct !== null) visit(f.struct);
    out.push(s);
  };
  visit(root);
  return out;
}

function fieldText(f: FieldModel, structConst: (s: StructModel) => string): string {
  const s = f.spec;
  const t = f.type;
  const elem = t.kind === 'array' ? t.elem : t;
  const parts = [
    `name: '${s.name}'`,
    `property: '${f.prop}'`,
    `type: '${typeText(t)}'`,
    `array: ${t.kind === 'array'}`,
    `primitive: ${elem.kind === 'primitive' ? `'${elem.name}'` : 'null'}`,
    `struct: ${f.struct === null ? 'null' : structConst(f.struct)}`,
    `versions: ${range(s.versions)}`,
    `nullableVersions: ${range(s.nullableVersions)}`,
    `taggedVersions: ${range(s.taggedVersions)}`,
    `tag: ${s.tag === null ? 'null' : s.tag}`,
    `ignorable: ${s.ignorable}`,
  ];
  if (s.flexibleVersions !== null) parts.push(`flexibleVersions: ${range(s.flexibleVersions)}`);
  if (s.entityType !== null) parts.push(`entityType: '${s.entityType}'`);
  if (s.mapKey) parts.push('mapKey: true');
  const d = defaultLiteral(f);
  if (d !== null) parts.push(`default: ${d}`);
  return `    { ${parts.join(', ')} },`;
}

function emitOne(model: MessageModel, release: string): DescriptionFile {
  const spec = model.spec;
  const name = descriptionName(spec.name);
  const constOf = new Map<StructModel, string>();
  const structConst = (s: StructModel): string => {
    const c = constOf.get(s);
    if (c === undefined) throw new Error(`${spec.file}: struct ${s.tsName} used before emitted`);
    return c;
  };
  const blocks: string[] = [];
  for (const s of ordered(model.root)) {
    if (s === model.root) continue;
    const c = `${s.tsName}Struct`;
    constOf.set(s, c);
    blocks.push(
      `const ${c}: StructDescription = {\n  name: '${s.schemaName}',\n  typeName: '${s.tsName}',\n  fields: [\n${s.fields
        .map((f) => fieldText(f, structConst))
        .join('\n')}\n  ],\n};\n`,
    );
  }
  const listeners = spec.listeners.map((l) => `'${l}'`).join(', ');
  blocks.push(
    `/** Kafka's ${spec.name} schema (${spec.file}) as data: see \`MessageDescription\`. */\n` +
      `export const ${name}: MessageDescription = {\n` +
      `  name: '${spec.name}',\n  typeName: '${spec.name}',\n  type: '${spec.type}',\n` +
      `  apiKey: ${spec.apiKey === null ? 'null' : spec.apiKey},\n` +
      `  validVersions: ${range(spec.validVersions)},\n` +
      `  flexibleVersions: ${range(spec.flexibleVersions)},\n` +
      `  listeners: [${listeners}],\n` +
      `  latestVersionUnstable: ${spec.latestVersionUnstable},\n` +
      `  fields: [\n${model.root.fields.map((f) => fieldText(f, structConst)).join('\n')}\n  ],\n};\n`,
  );
  const hasStructs = ordered(model.root).length > 1;
  const content =
    `// Generated by @kafkats/codegen from Apache Kafka ${release} (${spec.file}).\n` +
    '// Do not edit: change the generator and run `npm run codegen`.\n\n' +
    `import type { MessageDescription${hasStructs ? ', StructDescription' : ''} } from '../../description.js';\n\n` +
    blocks.join('\n');
  return { path: `src/gen/descriptions/${kebab(spec.name)}.ts`, content };
}

/**
 * One module per message (requests and responses of every API with valid versions, headers,
 * data schemas, tiered-storage records) plus `index.ts` re-exporting each description and
 * `MESSAGE_DESCRIPTIONS`, the list of all of them (import it only when all are wanted).
 */
export function generateDescriptions(
  specs: readonly MessageSpec[],
  release: string,
): DescriptionFile[] {
  const sorted = [...specs]
    .filter((s) => !((s.type === 'request' || s.type === 'response') && isEmpty(s.validVersions)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files = sorted.map((s) => emitOne(buildMessageModel(s), release));
  const names = sorted.map((s) => descriptionName(s.name));
  const index =
    `// Generated by @kafkats/codegen from Apache Kafka ${release}.\n` +
    '// Do not edit: change the generator and run `npm run codegen`.\n\n' +
    "import type { MessageDescription } from '../../description.js';\n" +
    sorted.map((s, i) => `import { ${names[i]} } from './${kebab(s.name)}.js';\n`).join('') +
    `\nexport { ${names.join(', ')} };\n\n` +
    '/** Every message description, sorted by name. */\n' +
    `export const MESSAGE_DESCRIPTIONS: readonly MessageDescription[] = [\n${names
      .map((n) => `  ${n},`)
      .join('\n')}\n];\n`;
  files.push({ path: 'src/gen/descriptions/index.ts', content: index });
  return files;
}
