// Helpers shared by the generated codecs (src/gen). Not part of the public entry.
import { CodecError } from '../errors.js';
import type { ResponseErrorEntry, UnknownTaggedField } from '../protocol.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';

const NO_UNKNOWN: readonly UnknownTaggedField[] = [];

/**
 * Prepends one path segment (`.field` or `.field[i]`) to a codec error on its way out.
 * Paths are built only here, when something already failed, so the hot path pays nothing but
 * a field counter. A non-CodecError (a bad value type reaching Buffer) becomes VALUE_INVALID.
 */
export function atField(e: unknown, names: readonly string[], f: number, ix: number): CodecError {
  const seg = f < 0 ? '' : ix >= 0 ? `.${names[f]}[${ix}]` : `.${names[f]}`;
  return prepend(e, seg);
}

/** Prefixes `MetadataResponse v12 ` to a codec error leaving a top-level codec. */
export function atTop(e: unknown, name: string, version: number): CodecError {
  return prepend(e, `${name} v${version} `);
}

function prepend(e: unknown, seg: string): CodecError {
  if (e instanceof CodecError) {
    const detail = e.path === '' ? e.message : e.message.slice(e.path.length + 2);
    const path = (seg + e.path).trimEnd();
    return new CodecError(e.reason, path, detail, e.cause === undefined ? {} : { cause: e.cause });
  }
  const detail = e instanceof Error ? e.message : String(e);
  return new CodecError('VALUE_INVALID', seg.trimEnd(), detail, { cause: e });
}

/** The error for a version outside the message's valid range. */
export function unsupportedVersion(_name: string, _version: number, valid: string): CodecError {
  // atTop adds `<Message> v<version>` as the path on the way out.
  return new CodecError(
    'VERSION_UNSUPPORTED',
    '',
    `not a version of this message (valid ${valid})`,
  );
}

/** The error for a non-default value in a field this version lacks. */
export function notInVersion(): CodecError {
  return new CodecError(
    'FIELD_NOT_IN_VERSION',
    '',
    'set to a non-default value, but this version does not have the field',
  );
}

/** The error for null where this version does not allow null. */
export function nullNotAllowed(): CodecError {
  return new CodecError('NULL_NOT_ALLOWED', '', 'null is not allowed at this version');
}

/** The error for unknown tagged fields set on a non-flexible version. */
export function taggedNotInVersion(): CodecError {
  return new CodecError(
    'FIELD_NOT_IN_VERSION',
    '',
    'tagged fields are set, but this version is not flexible',
  );
}

/**
 * The error for a tag the struct has, but not at the version being read (Kafka's readers
 * refuse it: "Tag 1 is not valid for version 12"). The path names the field and the version.
 */
export function tagNotInVersion(tag: number, taggedVersions: string): CodecError {
  return new CodecError(
    'FIELD_NOT_IN_VERSION',
    '',
    `tag ${tag} is not valid at this version (the field is tagged in versions ${taggedVersions})`,
  );
}

/** Unknown tagged fields in ascending tag order (a sorted copy only when they are not). */
export function sortedUnknown(
  u: readonly UnknownTaggedField[] | undefined,
): readonly UnknownTaggedField[] {
  if (u === undefined) return NO_UNKNOWN;
  for (let i = 1; i < u.length; i++) {
    if (u[i]!.tag < u[i - 1]!.tag) return [...u].sort((a, b) => a.tag - b.tag);
  }
  return u;
}

/** Structural equality for plain message values: objects, arrays, Buffers, bigint, primitives. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) {
    return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/**
 * Writes the unknown tagged fields of `uk` from index `u` whose tag is below `below` (all of
 * them when `below` is negative), so they interleave with known tags in ascending order.
 * @returns the index of the first one not written
 */
export function writeUnknownTagged(
  w: Writer,
  uk: readonly UnknownTaggedField[],
  u: number,
  below: number,
): number {
  while (u < uk.length && (below < 0 || uk[u]!.tag < below)) {
    const t = uk[u]!;
    // Kafka's RawTaggedFieldWriter refuses a repeated tag, a tag that collides with a tag the
    // schema defines, and 2^31-1 (its end-of-fields sentinel); so do we, rather than write a
    // section a Java reader would misread.
    if (t.tag === MAX_TAG || (u > 0 && uk[u - 1]!.tag === t.tag)) throw badUnknownTag(t.tag);
    w.writeUvarint(t.tag);
    w.writeUvarint(t.data.length);
    w.writeRaw(t.data);
    u++;
  }
  if (below >= 0 && u < uk.length && uk[u]!.tag === below) throw badUnknownTag(below);
  return u;
}

const MAX_TAG = 0x7fffffff;

function badUnknownTag(tag: number): CodecError {
  return new CodecError(
    'VALUE_INVALID',
    '',
    `unknown tagged field ${tag} repeats a tag, collides with a defined tag or uses the reserved tag 2147483647`,
  );
}

/** The tagged-field section of a struct that has no known tagged fields at this version. */
export function writeUnknownTaggedOnly(
  w: Writer,
  uk: readonly UnknownTaggedField[] | undefined,
): void {
  if (uk === undefined || uk.length === 0) {
    w.writeUvarint(0);
    return;
  }
  const sorted = sortedUnknown(uk);
  w.writeUvarint(sorted.length);
  writeUnknownTagged(w, sorted, 0, -1);
}

/** Reads a tagged-field section in which this version knows no tag: everything is kept raw. */
export function readUnknownTaggedOnly(r: Reader): UnknownTaggedField[] | undefined {
  const n = r.readUvarint();
  if (n === 0) return undefined;
  const out: UnknownTaggedField[] = [];
  for (let i = 0; i < n; i++) {
    const tag = r.readUvarint();
    const end = r.readTaggedSize();
    out.push({ tag, data: r.readRaw(end - r.pos) });
  }
  return out;
}

export { ZERO_UUID } from '../uuid.js';

/** A `ResponseErrorEntry` a generated response-error walk is still filling in. */
export type ResponseErrorDraft = {
  -readonly [K in keyof ResponseErrorEntry]: ResponseErrorEntry[K];
};

/**
 * Starts an entry of a generated response-error walk. Every entry is born here and the walks
 * add identifiers in one fixed order, so entries share hidden classes across APIs.
 */
export function newErrorEntry(path: string, errorCode: number): ResponseErrorDraft {
  return { path, errorCode };
}
