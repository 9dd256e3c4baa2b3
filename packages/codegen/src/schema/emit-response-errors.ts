/**
 * Stage 4d: per response, a walk over exactly the structs whose schema has an `ErrorCode`
 * field, emitted as nested `for` loops in one function. Paths are built only for a non-zero
 * code and identifiers are read from the struct (or enclosing struct) the schema puts them
 * in, so nothing is guessed at run time and an all-OK response allocates one empty array.
 */
import { type Imports, newImports } from './emit-message.js';
import type { FieldModel, MessageModel, StructModel } from './model.js';

/** The `ResponseErrorEntry` properties that name the struct an error belongs to, in order. */
export const IDENTIFIER_ROLES = [
  'topic',
  'topicId',
  'partition',
  'group',
  'transactionalId',
  'resource',
  'nodeId',
] as const;
export type IdentifierRole = (typeof IDENTIFIER_ROLES)[number];

// Kafka has spelled the partition index four ways over the years (Produce and FetchSnapshot
// still say `Index`, ElectLeaders `PartitionId`); no schema marks it with an entityType.
const PARTITION_NAMES = new Set(['PartitionIndex', 'Partition', 'PartitionId', 'Index']);
// The subject of a struct that is neither a topic, a group nor a transaction: configs and ACLs
// (`ResourceName`), FindCoordinator v4+ (`Key`: a group or transactional id, by the request's
// KeyType, which the response does not repeat), SCRAM (`User`), UpdateFeatures, DescribeLogDirs.
const RESOURCE_NAMES = new Set(['ResourceName', 'Key', 'User', 'Feature', 'LogDir']);

function isPrimitive(f: FieldModel, name: string): boolean {
  return f.type.kind === 'primitive' && f.type.name === name;
}

/**
 * What a field says about the struct that holds it, or null when it names nothing.
 * Topic names, group ids and transactional ids are the fields the schemas tag with that
 * `entityType` (a topic is `Name`, `Topic` or `TopicName` depending on the API; a bare `Name`
 * can also be a config name, so the spelling alone is not enough). Topic ids, partition indexes
 * and resources carry no entityType and are known by name. A `brokerId` entity names the struct
 * only as its element key (`mapKey`): elsewhere it is payload, a partition's `LeaderId` or
 * FindCoordinator's answer `NodeId`, not the broker the error is about.
 */
export function identifierRole(f: FieldModel): IdentifierRole | null {
  const s = f.spec;
  if (isPrimitive(f, 'string')) {
    if (s.entityType === 'topicName') return 'topic';
    if (s.entityType === 'groupId') return 'group';
    if (s.entityType === 'transactionalId') return 'transactionalId';
    if (RESOURCE_NAMES.has(s.name)) return 'resource';
    return null;
  }
  if (isPrimitive(f, 'uuid')) return s.name === 'TopicId' ? 'topicId' : null;
  if (isPrimitive(f, 'int32')) {
    if (s.entityType === 'brokerId' && s.mapKey) return 'nodeId';
    if (PARTITION_NAMES.has(s.name)) return 'partition';
  }
  return null;
}

/** The struct's `ErrorCode` field (int16), or undefined. */
export function errorCodeField(s: StructModel): FieldModel | undefined {
  return s.fields.find((f) => f.spec.name === 'ErrorCode' && isPrimitive(f, 'int16'));
}

function errorMessageField(s: StructModel): FieldModel | undefined {
  return s.fields.find((f) => f.spec.name === 'ErrorMessage' && isPrimitive(f, 'string'));
}

/** True when `s` or a struct below it has an `ErrorCode` field (structs never nest cyclically). */
function reachesErrorCode(s: StructModel, memo: Map<StructModel, boolean>): boolean {
  let found = memo.get(s);
  if (found !== undefined) return found;
  found = errorCodeField(s) !== undefined;
  for (const f of s.fields) {
    if (!found && f.struct !== null) found = reachesErrorCode(f.struct, memo);
  }
  memo.set(s, found);
  return found;
}

/** `collectMetadataResponseErrors`. */
export function walkName(model: MessageModel): string {
  return `collect${model.spec.name}Errors`;
}

interface Frame {
  /** The variable holding this struct (`m` for the top level). */
  readonly v: string;
  readonly struct: StructModel;
}

interface Segment {
  readonly prop: string;
  /** The loop index variable, or null for a struct (not array) field. */
  readonly ix: string | null;
}

/** One struct the walk reports, and where its entries take their identifiers from. */
export interface ErrorSite {
  /** `topics[].partitions[]`, or '' for the top level. */
  readonly path: string;
  readonly roles: readonly IdentifierRole[];
}

interface Walk {
  n: number;
  readonly sites: ErrorSite[];
  readonly imports: Imports;
  readonly memo: Map<StructModel, boolean>;
}

function pathExpr(path: readonly Segment[]): string {
  if (path.length === 0) return "''";
  const text = path.map(
    (p, i) => `${i === 0 ? '' : '.'}${p.prop}${p.ix === null ? '' : `[\${${p.ix}}]`}`,
  );
  return path.some((p) => p.ix !== null) ? `\`${text.join('')}\`` : `'${text.join('')}'`;
}

function sitePath(path: readonly Segment[]): string {
  return path.map((p) => `${p.prop}${p.ix === null ? '' : '[]'}`).join('.');
}

/** Statements that set one identifier on `e` from the field `acc` holds. */
function setIdentifier(role: IdentifierRole, f: FieldModel, acc: string, w: Walk): string {
  const tests: string[] = [];
  if (f.everNullable) tests.push(`${acc} !== null`);
  // An empty topic name is what a version without the name field decodes to (Fetch v13+
  // names topics by id); the zero uuid is Kafka's "no id", what versions before ids decode to.
  if (role === 'topic') tests.push(`${acc} !== ''`);
  if (role === 'topicId') {
    w.imports.support.add('ZERO_UUID');
    tests.push(`${acc} !== ZERO_UUID`);
  }
  const set = `e.${role} = ${acc};`;
  return tests.length === 0 ? set : `if (${tests.join(' && ')}) ${set}`;
}

function emitEntry(frames: readonly Frame[], path: readonly Segment[], w: Walk): string {
  const here = frames[frames.length - 1]!;
  const code = `${here.v}.${errorCodeField(here.struct)!.prop}`;
  w.imports.support.add('newErrorEntry');
  const lines = [`if (${code} !== 0) {`, `const e = newErrorEntry(${pathExpr(path)}, ${code});`];
  const message = errorMessageField(here.struct);
  if (message !== undefined) {
    const acc = `${here.v}.${message.prop}`;
    lines.push(
      message.everNullable
        ? `if (${acc} !== null) e.errorMessage = ${acc};`
        : `e.errorMessage = ${acc};`,
    );
  }
  const roles: IdentifierRole[] = [];
  for (const role of IDENTIFIER_ROLES) {
    // The nearest struct that names this role wins: a partition inherits its topic's name.
    for (let i = frames.length - 1; i >= 0; i--) {
      const fr = frames[i]!;
      const f = fr.struct.fields.find((x) => identifierRole(x) === role);
      if (f === undefined) continue;
      lines.push(setIdentifier(role, f, `${fr.v}.${f.prop}`, w));
      roles.push(role);
      break;
    }
  }
  w.sites.push({ path: sitePath(path), roles });
  if (lines.length === 2)
    return `if (${code} !== 0) out.push(newErrorEntry(${pathExpr(path)}, ${code}));`;
  lines.push('out.push(e);', '}');
  return lines.join('\n');
}

function emitStruct(frames: readonly Frame[], path: readonly Segment[], w: Walk): string[] {
  const here = frames[frames.length - 1]!;
  const out: string[] = [];
  if (errorCodeField(here.struct) !== undefined) out.push(emitEntry(frames, path, w));
  for (const f of here.struct.fields) {
    if (f.struct === null || !reachesErrorCode(f.struct, w.memo)) continue;
    const n = w.n++;
    const s = `s${n}`;
    const inner = (ix: string | null): string =>
      emitStruct([...frames, { v: s, struct: f.struct! }], [...path, { prop: f.prop, ix }], w).join(
        '\n',
      );
    if (f.type.kind === 'array') {
      const a = `a${n}`;
      const i = `i${n}`;
      const loop = `for (let ${i} = 0; ${i} < ${a}.length; ${i}++) {\nconst ${s} = ${a}[${i}]!;\n${inner(i)}\n}`;
      out.push(`const ${a} = ${here.v}.${f.prop};`);
      out.push(f.everNullable ? `if (${a} !== null) {\n${loop}\n}` : loop);
    } else {
      out.push(`const ${s} = ${here.v}.${f.prop};`);
      out.push(f.everNullable ? `if (${s} !== null) {\n${inner(null)}\n}` : inner(null));
    }
  }
  return out;
}

function walk(model: MessageModel, imports: Imports): { w: Walk; body: string[] } {
  const w: Walk = { n: 0, sites: [], imports, memo: new Map() };
  const body = reachesErrorCode(model.root, w.memo)
    ? emitStruct([{ v: 'm', struct: model.root }], [], w)
    : [];
  return { w, body };
}

/** The structs a response's walk reports, in walk order, with the identifiers each gets. */
export function responseErrorSites(model: MessageModel): ErrorSite[] {
  return walk(model, newImports()).w.sites;
}

/** The response-error walk of one response message, without imports. */
export function emitResponseErrors(model: MessageModel, imports: Imports): string {
  const name = model.spec.name;
  imports.protocol.add('ResponseErrorEntry');
  const { w, body } = walk(model, imports);
  const sites = w.sites.map((s) => (s.path === '' ? 'the top level' : `\`${s.path}\``));
  const doc = `/**
 * The non-zero \`errorCode\`s of \`${name}\`, top level first, then depth-first in field order.
 * ${sites.length === 0 ? 'The schema has no `ErrorCode` field, so there is never one.' : `Reads ${sites.join(', ')}.`}
 * @returns a fresh array, empty when every code is 0
 */`;
  if (body.length === 0) {
    return `${doc}\nexport function ${walkName(model)}(_m: ${name}): ResponseErrorEntry[] {\nreturn [];\n}\n`;
  }
  return `${doc}\nexport function ${walkName(model)}(m: ${name}): ResponseErrorEntry[] {\nconst out: ResponseErrorEntry[] = [];\n${body.join('\n')}\nreturn out;\n}\n`;
}
