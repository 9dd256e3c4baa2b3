// Schema-driven fast-check arbitraries for one message at one version, built from the schemas the
// oracle serves (so they cannot drift from the jars): every field present at the version gets a
// random value of its type (null where nullable at the version, tagged fields included), fields
// absent at the version keep their schema default, and flexible versions carry random unknown
// tagged fields with tags clear of the known ones.
import fc from 'fast-check';
import {
  defaultOf,
  type Field,
  type FieldType,
  inRange,
  type Scalar,
  type Struct,
} from './schema.js';

const MAX_DEPTH = 4;

/** An arbitrary of messages shaped like our generated types (`Buffer`, `bigint`, uuid text). */
export function messageArbitrary(
  struct: Struct,
  version: number,
  flexible: boolean,
): fc.Arbitrary<unknown> {
  return structArbitrary(struct, version, flexible, 0);
}

function structArbitrary(
  struct: Struct,
  version: number,
  flexible: boolean,
  depth: number,
): fc.Arbitrary<unknown> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  let maxTag = -1;
  for (const f of struct.fields) {
    parts[f.jsonName] = inRange(f.versions, version)
      ? fieldArbitrary(f, version, flexible, depth)
      : fc.constant(defaultOf(f));
    if (f.taggedVersions) maxTag = Math.max(maxTag, tagOf(f));
  }
  if (flexible) parts._unknownTaggedFields = unknownTaggedFields(maxTag + 1);
  return fc.record(parts);
}

function tagOf(f: Field): number {
  return f.tag ?? 0;
}

/** Sorted, distinct tags above the known ones (Kafka writes raw tagged fields in tag order). */
function unknownTaggedFields(firstFree: number): fc.Arbitrary<unknown> {
  const field = fc.record({
    tag: fc.integer({ min: firstFree + 1, max: firstFree + 300 }),
    data: fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)),
  });
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.uniqueArray(field, { maxLength: 3, selector: (u) => u.tag }) },
    )
    .map((list) => [...list].sort((a, b) => a.tag - b.tag));
}

function fieldArbitrary(
  f: Field,
  version: number,
  flexible: boolean,
  depth: number,
): fc.Arbitrary<unknown> {
  const value = typeArbitrary(f.type, version, flexible, depth);
  if (!inRange(f.nullableVersions, version)) return value;
  return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: value });
}

function typeArbitrary(
  t: FieldType,
  version: number,
  flexible: boolean,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'array':
      return fc.array(typeArbitrary(t.element, version, flexible, depth + 1), {
        maxLength: depth >= MAX_DEPTH ? 0 : 3,
      });
    case 'struct':
      return structArbitrary(t.struct, version, flexible, depth + 1);
    case 'scalar':
      return scalarArbitrary(t.scalar);
  }
}

function scalarArbitrary(s: Scalar): fc.Arbitrary<unknown> {
  switch (s) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'uint32':
      return fc.integer({ min: 0, max: 4294967295 });
    case 'int64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'float64':
      return fc.double();
    case 'string':
      return fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
    case 'uuid':
      return fc
        .uint8Array({ minLength: 16, maxLength: 16 })
        .map((b) => Buffer.from(b).toString('base64url'));
    case 'bytes':
      return fc.uint8Array({ maxLength: 16 }).map((a) => Buffer.from(a));
    case 'records':
      // Null only where the field is nullable (fieldArbitrary); Kafka copies the bytes as given.
      return fc.uint8Array({ maxLength: 16 }).map((a) => Buffer.from(a));
  }
}
