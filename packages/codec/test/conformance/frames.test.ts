// Conformance, frames: for every API and version, random requests framed by our
// encodeRequestFrame must equal Kafka's RequestUtils.serialize(header, body) behind the int32
// size, with the request header version Kafka's ApiKeys picks; random responses framed by Kafka
// (response header + body) must come out of our decodeResponseFrame with the same correlation id
// and a body that re-encodes to Kafka's body bytes (ApiVersions answers with header v0).
import { startOracle } from '@kafkats/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import * as codec from '../../src/index.js';
import * as generated from '../support/gen/arbitraries.js';
import { toKafkaJsonText } from './kafka-json.js';
import { type MessageSchema, parseSchema } from './schema.js';
import { caseSeed, firstDifferingOffset, SEED } from './settings.js';

/** Frames per (API, version, direction): headers vary little, bodies are covered elsewhere. */
const PER_PAIR = 5;

const oracle = await startOracle();
const schemas = new Map<string, MessageSchema>();
for (const f of await oracle.schemas('kafka-clients', 'common/message/')) {
  const s = parseSchema(f.text);
  schemas.set(s.name, s);
}
const counts = { requests: 0, responses: 0 };

afterAll(async () => {
  console.log(
    `conformance frames (seed ${SEED}): ${counts.requests} request frames byte-identical, ${counts.responses} response frames read alike`,
  );
  await oracle.close();
});

const arbitraries = generated as unknown as Record<
  string,
  ((v: number) => fc.Arbitrary<unknown>) | undefined
>;
const header = fc.record({
  correlationId: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  clientId: fc.option(fc.string({ maxLength: 12 }), { nil: null, freq: 4 }),
});

for (const api of codec.API_DESCRIPTORS) {
  describe(`${api.name} (${api.apiKey})`, () => {
    for (let version = api.minVersion; version <= api.maxVersion; version++) {
      test(`v${version} request and response frames`, async () => {
        const failures = [
          ...(await checkRequests(api, version)),
          ...(await checkResponses(api, version)),
        ];
        expect(failures.slice(0, 3).join('\n\n')).toBe('');
      });
    }
  });
}

function schemaOf(name: string): MessageSchema {
  const s = schemas.get(name);
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

function sample(name: string, version: number, label: string): unknown[] {
  const arbitrary = arbitraries[`arbitrary${name}`];
  if (typeof arbitrary !== 'function') throw new Error(`no generated arbitrary for ${name}`);
  return fc.sample(arbitrary(version), { seed: caseSeed(label), numRuns: PER_PAIR });
}

async function checkRequests(api: codec.ApiDescriptor, version: number): Promise<string[]> {
  const name = `${api.name}Request`;
  const label = `${name} v${version} frame`;
  const schema = schemaOf(name);
  const bodies = sample(name, version, label);
  const headers = fc.sample(header, { seed: caseSeed(`${label} header`), numRuns: PER_PAIR });
  const jsons = bodies.map((b) => toKafkaJsonText(schema.struct, b, version));
  const kafka = await oracle.frames(
    jsons.map((json, i) => ({
      name,
      apiKey: api.apiKey,
      version,
      correlationId: headers[i]?.correlationId ?? 0,
      clientId: headers[i]?.clientId ?? null,
      json,
    })),
  );
  const failures: string[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const k = kafka[i];
    const h = headers[i] as { correlationId: number; clientId: string | null };
    if (k === undefined || 'error' in k) {
      failures.push(
        `${label} #${i}: Kafka cannot frame it: ${JSON.stringify(k)}\n  json: ${jsons[i]}`,
      );
      continue;
    }
    try {
      const frame = codec.encodeRequestFrame(api, version, h.correlationId, h.clientId, bodies[i]);
      const expected = Buffer.from(k.hex, 'hex');
      const size = frame.readInt32BE(0);
      const ours = frame.subarray(4);
      if (size !== ours.length || !ours.equals(expected)) {
        failures.push(
          [
            `${label} #${i}: frames differ at offset ${firstDifferingOffset(expected, ours)} (after the size ${size})`,
            `  json:  ${jsons[i]}`,
            `  kafka: ${k.hex}`,
            `  ours:  ${ours.toString('hex')}`,
          ].join('\n'),
        );
      } else {
        counts.requests++;
      }
    } catch (error) {
      failures.push(
        `${label} #${i}: we cannot frame it: ${(error as Error).message}\n  json: ${jsons[i]}`,
      );
    }
  }
  return failures;
}

async function checkResponses(api: codec.ApiDescriptor, version: number): Promise<string[]> {
  const name = `${api.name}Response`;
  const label = `${name} v${version} frame`;
  const schema = schemaOf(name);
  const bodies = sample(name, version, label);
  const correlationIds = fc.sample(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
    seed: caseSeed(`${label} header`),
    numRuns: PER_PAIR,
  });
  const jsons = bodies.map((b) => toKafkaJsonText(schema.struct, b, version));
  const frames = await oracle.frames(
    jsons.map((json, i) => ({
      name,
      apiKey: api.apiKey,
      version,
      correlationId: correlationIds[i] ?? 0,
      clientId: null,
      json,
      response: true,
    })),
  );
  const kafkaBodies = await oracle.encode(jsons.map((json) => ({ name, version, json })));
  const failures: string[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const f = frames[i];
    const b = kafkaBodies[i];
    if (f === undefined || 'error' in f || b === undefined || 'error' in b) {
      failures.push(
        `${label} #${i}: Kafka cannot frame it: ${JSON.stringify(f ?? b)}\n  json: ${jsons[i]}`,
      );
      continue;
    }
    const frame = Buffer.from(f.hex, 'hex');
    try {
      const decoded = codec.decodeResponseFrame(api, version, frame);
      const w = new codec.Writer();
      api.encodeResponse(w, decoded.body, version);
      const again = w.finish().toString('hex');
      if (decoded.correlationId !== correlationIds[i] || again !== b.hex) {
        failures.push(
          [
            `${label} #${i}: correlation id ${decoded.correlationId} (sent ${correlationIds[i]}), body re-encodes ${again === b.hex ? 'alike' : 'differently'}`,
            `  frame: ${f.hex}`,
            `  ours:  ${again}`,
          ].join('\n'),
        );
      } else {
        counts.responses++;
      }
    } catch (error) {
      failures.push(
        `${label} #${i}: we cannot read Kafka's frame: ${(error as Error).message}\n  frame: ${f.hex}`,
      );
    }
  }
  return failures;
}
