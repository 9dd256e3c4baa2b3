import { ApiVersionsApi, ProduceApi } from '@kafkats/codec';
import { describe, expect, it } from 'vitest';
import { apiVersionRows } from '../../src/commands/api-versions.js';
import { parseStartSpec } from '../../src/commands/consume.js';

describe('parseStartSpec (consume --from)', () => {
  it('knows earliest, latest, offsets, @milliseconds and ISO dates', () => {
    expect(parseStartSpec('earliest')).toEqual({ kind: 'earliest' });
    expect(parseStartSpec('latest')).toEqual({ kind: 'latest' });
    expect(parseStartSpec('42')).toEqual({ kind: 'offset', offset: 42n });
    expect(parseStartSpec('@1700000000000')).toEqual({
      kind: 'timestamp',
      timestampMs: 1700000000000n,
    });
    expect(parseStartSpec('2026-12-01T12:00:00Z')).toEqual({
      kind: 'timestamp',
      timestampMs: BigInt(Date.parse('2026-12-01T12:00:00Z')),
    });
    expect(() => parseStartSpec('yesterday')).toThrow(/--from "yesterday"/);
    expect(() => parseStartSpec('-1')).toThrow(/--from "-1"/);
  });
});

describe('apiVersionRows', () => {
  it('uses the highest version both sides support, and none when the ranges do not meet', () => {
    const rows = apiVersionRows({
      apiKeys: [
        { apiKey: ProduceApi.apiKey, minVersion: 0, maxVersion: 7 },
        { apiKey: ApiVersionsApi.apiKey, minVersion: 99, maxVersion: 100 },
        { apiKey: 30000, minVersion: 0, maxVersion: 1 },
      ],
    });
    const produce = rows.find((r) => r.apiKey === ProduceApi.apiKey);
    expect(produce).toMatchObject({ name: 'Produce', broker: { min: 0, max: 7 }, negotiated: 7 });
    expect(produce?.client?.min).toBe(ProduceApi.minVersion);
    expect(rows.find((r) => r.apiKey === ApiVersionsApi.apiKey)?.negotiated).toBeNull();
    expect(rows.find((r) => r.apiKey === 30000)).toMatchObject({
      name: 'unknown(30000)',
      client: null,
      negotiated: null,
    });
    // An API we know that the broker does not offer is listed with no broker range.
    expect(rows.find((r) => r.name === 'Fetch')).toMatchObject({ broker: null, negotiated: null });
  });
});
