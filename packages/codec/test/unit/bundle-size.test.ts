import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The package entry re-exports every generated message; a bundler must still keep only the
// messages a program imports ("sideEffects": false plus modules that run nothing on import).
const codec = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const allMessageModules = readdirSync(join(codec, 'src', 'gen', 'messages')).filter((f) =>
  f.endsWith('.ts'),
).length;

interface BundleReport {
  bytes: number;
  modules: number;
  messageModules: string[];
}

function bundle(...names: string[]): BundleReport {
  const run = spawnSync(
    process.execPath,
    [join(codec, 'scripts', 'bundle-size.mjs'), '--from', 'src', '--json', ...names],
    { cwd: codec, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`bundle-size.mjs failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as BundleReport;
}

describe('bundling one message from the package entry', () => {
  it('keeps only that message module and stays small', () => {
    const r = bundle('encodeMetadataRequest');
    expect(r.messageModules).toEqual(['src/gen/messages/metadata.ts']);
    // Metadata's own code plus Reader/Writer support and CodecError: a few KB. The broker
    // error table (ProtocolError) alone is ~25 KB and every message together ~800 KB.
    expect(r.bytes).toBeLessThan(16 * 1024);
  });

  it('keeps two messages when two are imported', () => {
    const r = bundle('encodeMetadataRequest', 'decodeProduceResponse');
    expect(r.messageModules).toEqual([
      'src/gen/messages/metadata.ts',
      'src/gen/messages/produce.ts',
    ]);
  });

  it('does pull every message in for the API table (the measurement sees it)', () => {
    const r = bundle('API_DESCRIPTORS');
    expect(r.messageModules).toHaveLength(allMessageModules);
    expect(allMessageModules).toBeGreaterThan(80);
  });
});
