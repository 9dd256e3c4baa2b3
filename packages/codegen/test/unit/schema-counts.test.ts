// The generator covers every API key and version in the pinned schemas. The expected counts
// are derived here straight from the JSON files (a separate, minimal reading), not from the
// generator's own parse.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/schema/emit-files.js';
import { loadSchemas } from '../../src/schema/load.js';
import { schemasDir as dir, ensureSchemas, pinned } from '../support/pinned-schemas.js';

function versionCount(text: string): number {
  const m = /"validVersions"\s*:\s*"([^"]*)"/.exec(text);
  const v = m?.[1] ?? 'none';
  if (v === 'none') return 0;
  const [lo, hi] = v.includes('-') ? v.split('-').map(Number) : [Number(v), Number(v)];
  return hi! - lo! + 1;
}

describe('counts against the pinned schemas', () => {
  it('N API keys, M request versions, K response versions', () => {
    ensureSchemas();
    const files = readdirSync(join(dir, 'kafka-clients', 'common', 'message'));
    let keys = 0;
    let reqVersions = 0;
    let resVersions = 0;
    for (const f of files) {
      const text = readFileSync(join(dir, 'kafka-clients', 'common', 'message', f), 'utf8');
      const n = versionCount(text);
      if (f.endsWith('Request.json') && /"type"\s*:\s*"request"/.test(text) && n > 0) {
        keys++;
        reqVersions += n;
      }
      if (f.endsWith('Response.json') && /"type"\s*:\s*"response"/.test(text)) resVersions += n;
    }
    const { release, specs } = loadSchemas(dir, pinned);
    const g = generate(specs, release);
    expect(g.apiKeys).toBe(keys);
    expect(g.requestVersions).toBe(reqVersions);
    expect(g.responseVersions).toBe(resVersions);
    expect(keys).toBeGreaterThan(80);
  });
});
