// Conformance, the API table: our descriptors against Kafka's own ApiMessageType (the facts
// behind its ApiKeys): which APIs exist, their version ranges and unstable latest version, the
// listeners that accept them, the first flexible version, and, for every version, which request
// and response header goes with it (ApiVersions answers with header v0 whatever its version).
import { startOracle } from '@kafkats/testkit';
import { afterAll, describe, expect, test } from 'vitest';
import { API_DESCRIPTORS } from '../../src/index.js';
import { parseSchema } from './schema.js';

const oracle = await startOracle();
const apis = await oracle.apiKeys();
const flexibleFrom = new Map<string, number | null>();
for (const file of await oracle.schemas('kafka-clients', 'common/message/')) {
  const schema = parseSchema(file.text);
  if (schema.type === 'request')
    flexibleFrom.set(schema.name.replace(/Request$/, ''), schema.flexibleVersions?.min ?? null);
}

afterAll(async () => {
  await oracle.close();
});

// Kafka keeps retired APIs (no valid version left) in its enum; we generate nothing for them.
const kafkaApis = apis.filter((a) => a.oldest >= 0 && a.oldest <= a.latest);

/** Kafka's listener enum names (`ZK_BROKER`) against the schema's (`zkBroker`). */
function listenerKey(name: string): string {
  return name.replace(/_/g, '').toLowerCase();
}

describe('API descriptors against Kafka ApiMessageType', () => {
  test('the same API keys, each under the same name', () => {
    const ours = API_DESCRIPTORS.map((d) => `${d.apiKey} ${d.name}`).sort();
    const kafka = kafkaApis.map((a) => `${a.apiKey} ${a.name}`).sort();
    expect(ours).toEqual(kafka);
  });

  for (const api of kafkaApis) {
    test(`${api.name} (${api.apiKey}): versions, listeners, flexible versions, header versions`, () => {
      const d = API_DESCRIPTORS.find((x) => x.apiKey === api.apiKey);
      expect(d, `no descriptor for API key ${api.apiKey}`).toBeDefined();
      if (!d) return;
      expect({
        min: d.minVersion,
        max: d.maxVersion,
        unstable: d.latestVersionUnstable,
        listeners: d.listeners.map(listenerKey).sort(),
        flexibleFrom: d.flexibleFrom,
      }).toEqual({
        min: api.oldest,
        max: api.latest,
        unstable: api.latestVersionUnstable,
        listeners: api.listeners.map(listenerKey).sort(),
        flexibleFrom: flexibleFrom.get(api.name) ?? null,
      });
      const ours = api.headers.map((h) => ({
        version: h.version,
        request: d.requestHeaderVersion(h.version),
        response: d.responseHeaderVersion(h.version),
      }));
      expect(ours).toEqual(api.headers);
    });
  }
});
