// Conformance, damaged bytes: for every (message, version), Kafka's encoding of a few random
// messages gets one byte changed, and Kafka's reader and ours must agree: both refuse, or both
// read the same message and leave the same number of bytes unread. Three differences are known
// (codec README, Conformance) and counted and printed rather than failed:
// - deliberate: Kafka reads a non-flexible length below -1 in a nullable field as null, we
//   refuse it (INVALID_LENGTH);
// - deliberate: Kafka ignores the declared size of a known tagged field, we refuse a field
//   whose content does not fill exactly its declared size;
// - deliberate: an ill-formed UTF-8 sequence (e.g. an encoded surrogate, ED B3 AF) becomes one U+FFFD
//   in Java and one per byte in Node's decoder.
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
} from './kafka-json.js';
import { type MessageSchema, parseSchema } from './schema.js';
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

afterAll(async () => {
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
      if (reason === 'INVALID_LENGTH' && / (length|count) -\d+$/.test(ours.message)) {
        counts.negativeLengthNull++;
      } else if (reason === 'INVALID_LENGTH' && /tagged field size mismatch/.test(ours.message)) {
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

/** The same tree with every run of U+FFFD folded to one (Java and Node count them differently). */
function foldReplacements(x: unknown): unknown {
  if (typeof x === 'string') return x.replace(/\uFFFD+/g, '\uFFFD');
  if (Array.isArray(x)) return x.map(foldReplacements);
  if (x !== null && typeof x === 'object') {
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, foldReplacements(v)]));
  }
  return x;
}
