// Conformance, damaged bytes: for every (message, version), Kafka's encoding of a few random
// messages gets one byte changed, and Kafka's reader and ours must agree: both refuse, or both
// read the same message and leave the same number of bytes unread. Three differences are known
// (codec README, Conformance) and counted and printed rather than failed:
// - deliberate: Kafka reads a non-flexible length below -1 in a nullable field as null, we
//   refuse it (LENGTH_INVALID);
// - deliberate: Kafka ignores the declared size of a known tagged field, we refuse a field
//   whose content does not fill exactly its declared size;
// - deliberate: an ill-formed UTF-8 sequence (e.g. an encoded surrogate, ED B3 AF) becomes one U+FFFD
//   in Java and one per byte in Node's decoder.
// A second family moves tags between versions: for every flexible version of every message whose
// top level has a tagged field that this version lacks (FetchRequest v12 and ReplicaState, tag 1,
// tagged from v15), Kafka's encoding gets that tag appended; Kafka's reader refuses it ("Tag 1 is
// not valid for version 12") and so must ours. A tag no version has is the control: both keep it.
import { startOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import * as codec from '../../src/index.js';
import * as generated from '../support/gen/arbitraries.js';
import {
  canonicalFromKafka,
  canonicalFromOurs,
  compareAlong,
  toKafkaJsonText,
  tsName,
} from './kafka-json.js';
import { defaultOf, inRange, type MessageSchema, parseSchema } from './schema.js';
import { caseSeed, SEED } from './settings.js';

/** Damaged copies per (message, version): the point is breadth across layouts, not depth. */
const PER_PAIR = 5;

type Decode = (r: codec.Reader, version: number) => unknown;

const oracle = await startOracle();
const schemas = [
  ...(await oracle.schemas('kafka-clients', 'common/message/')),
  ...(await oracle.schemas('kafka-storage', 'message/')),
]
  .map((f) => parseSchema(f.text))
  .filter((s) => s.validVersions !== null)
  .sort((a, b) => a.name.localeCompare(b.name));
const counts = {
  damaged: 0,
  bothRefuse: 0,
  bothRead: 0,
  negativeLengthNull: 0,
  taggedSizeMismatch: 0,
  replacementCharacters: 0,
};
const tags = { misplaced: 0, bothRefuseMisplaced: 0, unknown: 0, bothKeepUnknown: 0 };

afterAll(async () => {
  console.log(
    `conformance tags of other versions: ${tags.misplaced} cases, both refuse ${tags.bothRefuseMisplaced}; tags of no version: ${tags.unknown} cases, both keep ${tags.bothKeepUnknown}`,
  );
  console.log(
    `conformance damaged bytes (seed ${SEED}): ${counts.damaged} byte strings, both refuse ${counts.bothRefuse}, both read alike ${counts.bothRead}, known differences: Kafka reads a length below -1 as null where we refuse ${counts.negativeLengthNull}, Kafka ignores a known tagged field's declared size where we refuse ${counts.taggedSizeMismatch}, ill-formed UTF-8 gives fewer U+FFFD in Java ${counts.replacementCharacters}`,
  );
  await oracle.close();
});

const api = codec as unknown as Record<string, unknown>;
const arbitraries = generated as unknown as Record<
  string,
  ((v: number) => fc.Arbitrary<unknown>) | undefined
>;

for (const schema of schemas) {
  describe(schema.name, () => {
    const range = schema.validVersions;
    for (let version = range?.min ?? 0; range && version <= range.max; version++) {
      test(`v${version}`, async () => {
        const failures = await checkDamaged(schema, version);
        expect(failures.slice(0, 3).join('\n\n')).toBe('');
      });
      if (otherVersionTags(schema, version).length > 0) {
        test(`v${version}: a top-level tag of another version is refused, as Kafka refuses it`, async () => {
          const failures = await checkMovedTags(schema, version);
          expect(failures.join('\n\n')).toBe('');
        });
      }
    }
  });
}

async function checkDamaged(schema: MessageSchema, version: number): Promise<string[]> {
  const label = `${schema.name} v${version} damaged`;
  const arbitrary = arbitraries[`arbitrary${schema.name}`];
  const decode = api[`decode${schema.name}`] as Decode | undefined;
  if (typeof arbitrary !== 'function' || typeof decode !== 'function') {
    return [`${label}: no generated arbitrary or decoder for ${schema.name}`];
  }
  const messages = fc.sample(arbitrary(version), { seed: caseSeed(label), numRuns: PER_PAIR });
  const encoded = await oracle.encode(
    messages.map((m) => ({
      name: schema.name,
      version,
      json: toKafkaJsonText(schema.struct, m, version),
    })),
  );
  const damage = fc.sample(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
    seed: caseSeed(`${label} where`),
    numRuns: PER_PAIR,
  });
  const damaged: Buffer[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const e = encoded[i];
    if (e === undefined || !('hex' in e) || e.hex.length === 0) continue;
    const bytes = Buffer.from(e.hex, 'hex');
    const [where, xor] = damage[i] as [number, number];
    bytes[where % bytes.length] = (bytes[where % bytes.length] ?? 0) ^ xor;
    damaged.push(bytes);
  }
  const readings = await oracle.decode(
    damaged.map((bytes) => ({ name: schema.name, version, bytes })),
  );

  const failures: string[] = [];
  for (let i = 0; i < damaged.length; i++) {
    const bytes = damaged[i] as Buffer;
    counts.damaged++;
    const kafka = readings[i];
    let ours: unknown;
    let left = 0;
    try {
      const r = new codec.Reader(bytes);
      ours = decode(r, version);
      left = r.remaining();
    } catch (error) {
      ours = error instanceof Error ? error : new Error(String(error));
    }
    const report = (what: string): void => {
      failures.push(`${label} #${i}: ${what}\n  bytes: ${bytes.toString('hex')}`);
    };
    if (kafka === undefined) {
      report('the oracle gave no answer');
      continue;
    }
    if ('error' in kafka) {
      if (ours instanceof Error) counts.bothRefuse++;
      else report(`Kafka refuses (${kafka.error.class}: ${kafka.error.message}), we read it`);
      continue;
    }
    if (ours instanceof Error) {
      const reason = ours instanceof codec.CodecError ? ours.reason : '';
      if (reason === 'LENGTH_INVALID' && / (length|count) -\d+$/.test(ours.message)) {
        counts.negativeLengthNull++;
      } else if (reason === 'LENGTH_INVALID' && /tagged field size mismatch/.test(ours.message)) {
        counts.taggedSizeMismatch++;
      } else {
        report(`we refuse (${ours.message}), Kafka reads it`);
      }
      continue;
    }
    const view = canonicalFromKafka(schema.struct, kafka.json);
    const d = compareAlong(view, view, canonicalFromOurs(schema.struct, ours));
    if (kafka.trailing !== left)
      report(`Kafka leaves ${kafka.trailing} bytes unread, we leave ${left}`);
    else if (!d) counts.bothRead++;
    else if (
      compareAlong(
        view,
        foldReplacements(view),
        foldReplacements(canonicalFromOurs(schema.struct, ours)),
      ) === null
    )
      counts.replacementCharacters++;
    else report(`both read it, differently (kafka vs ours): ${d}`);
  }
  return failures;
}

/** Top-level tags of the message that `version` (a flexible one) does not have. */
function otherVersionTags(schema: MessageSchema, version: number): number[] {
  if (!inRange(schema.flexibleVersions, version)) return [];
  return schema.struct.fields
    .filter((f) => f.tag !== undefined && !inRange(f.taggedVersions, version))
    .map((f) => f.tag as number);
}

async function checkMovedTags(schema: MessageSchema, version: number): Promise<string[]> {
  const label = `${schema.name} v${version} moved tag`;
  const arbitrary = arbitraries[`arbitrary${schema.name}`];
  const decode = api[`decode${schema.name}`] as Decode | undefined;
  if (typeof arbitrary !== 'function' || typeof decode !== 'function') {
    return [`${label}: no generated arbitrary or decoder for ${schema.name}`];
  }
  // A message whose top-level tagged fields are all at their defaults ends in Kafka's encoding
  // with the tag count 0; that byte is replaced by one tagged field of one byte.
  const [sample] = fc.sample(arbitrary(version), { seed: caseSeed(label), numRuns: 1 });
  const message = { ...(sample as Record<string, unknown>) };
  delete message._unknownTaggedFields;
  for (const f of schema.struct.fields) {
    if (f.tag !== undefined && inRange(f.taggedVersions, version)) {
      message[tsName(f)] = defaultOf(f);
    }
  }
  const [encoded] = await oracle.encode([
    { name: schema.name, version, json: toKafkaJsonText(schema.struct, message, version) },
  ]);
  if (encoded === undefined || !('hex' in encoded)) {
    return [`${label}: Kafka could not encode the sample: ${JSON.stringify(encoded)}`];
  }
  const base = Buffer.from(encoded.hex, 'hex');
  if (base.at(-1) !== 0) return [`${label}: Kafka's encoding does not end in an empty tag section`];
  const known = new Set(schema.struct.fields.map((f) => f.tag).filter((t) => t !== undefined));
  let unknownTag = 120;
  while (known.has(unknownTag)) unknownTag--;
  const moved = otherVersionTags(schema, version);
  const cases = [...moved, unknownTag].map((tag) =>
    Buffer.concat([base.subarray(0, base.length - 1), Buffer.from([1, tag, 1, 0])]),
  );
  const readings = await oracle.decode(
    cases.map((bytes) => ({ name: schema.name, version, bytes })),
  );
  const failures: string[] = [];
  cases.forEach((bytes, i) => {
    const tag = i < moved.length ? moved[i] : unknownTag;
    const kafka = readings[i];
    let ours: unknown;
    try {
      ours = decode(new codec.Reader(bytes), version);
    } catch (error) {
      ours = error;
    }
    const kafkaRefuses = kafka !== undefined && 'error' in kafka;
    const weRefuse = ours instanceof Error;
    if (i < moved.length) {
      tags.misplaced++;
      if (!kafkaRefuses) failures.push(`${label}: Kafka reads tag ${tag}`);
      else if (!weRefuse) failures.push(`${label}: Kafka refuses tag ${tag}, we read it`);
      else if (
        !(ours instanceof codec.CodecError) ||
        ours.reason !== 'FIELD_NOT_IN_VERSION' ||
        !ours.message.includes(`${schema.name} v${version}`) ||
        !ours.message.includes(`tag ${tag} is not valid`)
      )
        failures.push(`${label}: refused for another reason: ${String(ours)}`);
      else tags.bothRefuseMisplaced++;
    } else {
      tags.unknown++;
      const kept = weRefuse
        ? undefined
        : (ours as { _unknownTaggedFields?: { tag: number }[] })._unknownTaggedFields;
      if (kafkaRefuses) failures.push(`${label}: Kafka refuses the unknown tag ${tag}`);
      else if (weRefuse)
        failures.push(`${label}: we refuse the unknown tag ${tag}: ${String(ours)}`);
      else if (kept?.[0]?.tag !== tag)
        failures.push(`${label}: the unknown tag ${tag} was not kept`);
      else tags.bothKeepUnknown++;
    }
  });
  return failures;
}

/** The same tree with every run of U+FFFD folded to one (Java and Node count them differently). */
function foldReplacements(x: unknown): unknown {
  if (typeof x === 'string') return x.replace(/\uFFFD+/g, '\uFFFD');
  if (Array.isArray(x)) return x.map(foldReplacements);
  if (x !== null && typeof x === 'object') {
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, foldReplacements(v)]));
  }
  return x;
}
