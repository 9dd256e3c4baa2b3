// Conformance, messages: for every (message, version) in the pinned schemas, random messages are
// encoded by our codec and by Apache Kafka's generated classes (the oracle) and must agree byte
// for byte, or both refuse; Kafka's bytes must decode with our codec to what Kafka reads from
// them. A failure prints the message as Kafka JSON, the version, both byte strings and the first
// differing offset. Seed and count: KAFKATS_CONFORMANCE_SEED, KAFKATS_CONFORMANCE_RUNS.

import { startOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import * as generated from '../support/gen/arbitraries.js';
import { messageArbitrary } from './arbitrary.js';
import { compareWithKafka } from './compare.js';
import { inRange, type MessageSchema, parseSchema } from './schema.js';
import { CROSS_RUNS, caseSeed, RUNS, SEED, writeTally } from './settings.js';

const oracle = await startOracle();
const files = [
  ...(await oracle.schemas('kafka-clients', 'common/message/')),
  ...(await oracle.schemas('kafka-storage', 'message/')),
];
// Every message schema in the two jars: requests, responses, the request/response headers,
// "data" schemas (consumer protocol, control records, KRaft records...) and kafka-storage's
// tiered-storage records (type "metadata") and producer snapshot.
const schemas: MessageSchema[] = files
  .map((f) => parseSchema(f.text))
  .filter((s) => s.validVersions !== null)
  .sort((a, b) => (a.apiKey ?? -1) - (b.apiKey ?? -1) || a.name.localeCompare(b.name));

const pairs = schemas.flatMap((schema) => {
  const out: { schema: MessageSchema; version: number }[] = [];
  const range = schema.validVersions;
  for (let v = range?.min ?? 0; range && v <= range.max; v++) out.push({ schema, version: v });
  return out;
});
const tally = {
  passed: 0,
  total: pairs.length,
  messages: 0,
  refusedByBoth: 0,
  ownArbitrary: 0,
  /** The fewest messages of one pair's main draw that both sides encoded to the same bytes. */
  fewestByteIdentical: Number.POSITIVE_INFINITY,
};
const byKind = new Map<string, number>();
for (const p of pairs) byKind.set(direction(p.schema), (byKind.get(direction(p.schema)) ?? 0) + 1);
console.log(
  `conformance seed ${SEED} (KAFKATS_CONFORMANCE_SEED), ${RUNS} messages per pair (KAFKATS_CONFORMANCE_RUNS), ${pairs.length} pairs from ${schemas.length} schemas: ${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ')}`,
);

afterAll(async () => {
  writeTally('messages', tally);
  console.log(
    `conformance messages: ${tally.passed}/${tally.total} pairs, ${tally.messages} messages checked, ${tally.refusedByBoth} refused by both, at least ${tally.fewestByteIdentical} byte-identical messages in every pair, ${tally.ownArbitrary} pairs drawn from the suite's own arbitraries`,
  );
  await oracle.close();
});

const generatedArbitraries = generated as unknown as Record<
  string,
  ((version: number) => fc.Arbitrary<unknown>) | undefined
>;

/**
 * The codec's generated arbitrary for the message (the suite draws from those); this suite's own
 * schema-driven one only where the generator emits none (the count is printed at the end).
 */
function arbitraryFor(schema: MessageSchema, version: number): fc.Arbitrary<unknown> {
  const make = generatedArbitraries[`arbitrary${schema.name}`];
  if (typeof make === 'function') return make(version);
  tally.ownArbitrary++;
  return messageArbitrary(schema.struct, version, inRange(schema.flexibleVersions, version));
}

function direction(schema: MessageSchema): string {
  return schema.type === 'metadata' ? 'tiered-storage record' : schema.type;
}

for (const schema of schemas) {
  describe(`${schema.name} (${schema.apiKey ?? '-'}, ${direction(schema)})`, () => {
    for (const { version } of pairs.filter((p) => p.schema === schema)) {
      test(`v${version}`, async () => {
        const failures = await checkPair(schema, version);
        if (failures.length === 0) tally.passed++;
        expect(failures.join('\n\n')).toBe('');
      });
    }
  });
}

async function checkPair(schema: MessageSchema, version: number): Promise<string[]> {
  const label = `${schema.name} v${version}`;
  const messages = fc.sample(arbitraryFor(schema, version), {
    seed: caseSeed(label),
    numRuns: RUNS,
  });
  const main = await compareWithKafka(oracle, schema, version, messages, label, tally, true);
  const failures = [...main.failures];
  tally.fewestByteIdentical = Math.min(tally.fewestByteIdentical, main.compared);
  // The summary line claims each pair byte-identical over RUNS messages: a draw the generated
  // arbitrary makes at this very version that both sides refuse leaves the pair short of that.
  if (main.compared < messages.length && failures.length === 0) {
    failures.push(
      `${label}: only ${main.compared} of ${messages.length} drawn messages were encoded by both sides; the rest were refused by both`,
    );
  }

  // Strictness: messages drawn at another version, encoded at this one, carry fields this version
  // cannot represent; Kafka and we must refuse the same ones and agree on the bytes of the rest.
  const range = schema.validVersions;
  const other = range && version < range.max ? version + 1 : (range?.min ?? version);
  if (other !== version) {
    const crossLabel = `${label} (drawn at v${other})`;
    const drawn = fc.sample(
      messageArbitrary(schema.struct, other, inRange(schema.flexibleVersions, other)),
      {
        seed: caseSeed(crossLabel),
        numRuns: CROSS_RUNS,
      },
    );
    const cross = await compareWithKafka(oracle, schema, version, drawn, crossLabel, tally, false);
    failures.push(...cross.failures);
  }
  const shown = failures.slice(0, 3);
  if (failures.length > shown.length)
    shown.push(`${label}: ... and ${failures.length - shown.length} more`);
  return shown;
}
