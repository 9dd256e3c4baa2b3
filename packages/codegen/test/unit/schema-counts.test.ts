// The generator covers every API key and version in the pinned schemas. The expected counts
// are derived here straight from the JSON files (a separate, minimal reading), not from the
// generator's own parse.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/schema/emit-files.js';
import { loadSchemas } from '../../src/schema/load.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const dir = join(root, 'fixtures', 'schemas');
const pinned = (
  JSON.parse(readFileSync(join(root, 'fixtures', 'kafka-release.json'), 'utf8')) as {
    kafka: string;
  }
).kafka;

function ensureSchemas(): void {
  const pin = join(dir, 'release.json');
  if (existsSync(pin) && JSON.parse(readFileSync(pin, 'utf8')).kafka === pinned) return;
  execFileSync('node', [join(root, 'packages', 'codegen', 'dist', 'bin', 'extract-schemas.js')], {
    stdio: 'inherit',
  });
}

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
