import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLayers } from '../check-layers.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fakeRepo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kafkats-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const pkg = (name: string, deps: Record<string, string> = {}) =>
  JSON.stringify({ name: `@kafkats/${name}`, dependencies: deps });

describe('check-layers', () => {
  it('passes on this repository', () => {
    expect(checkLayers(repoRoot)).toEqual([]);
  });

  it('accepts a downward import of a public entry', () => {
    const root = fakeRepo({
      'packages/codec/package.json': pkg('codec'),
      'packages/wire/package.json': pkg('wire', { '@kafkats/codec': '0.1.0' }),
      'packages/wire/src/index.ts': "import { Reader } from '@kafkats/codec';\n",
    });
    expect(checkLayers(root)).toEqual([]);
  });

  it('fails on an upward import', () => {
    const root = fakeRepo({
      'packages/wire/package.json': pkg('wire'),
      'packages/meta/package.json': pkg('meta'),
      'packages/wire/src/conn.ts': "import { Cluster } from '@kafkats/meta';\n",
    });
    expect(checkLayers(root)).toEqual([
      'packages/wire/src/conn.ts:1: wire may not import @kafkats/meta',
    ]);
  });

  it('fails on a deep import, a relative escape, tooling in src and an undeclared layer', () => {
    const root = fakeRepo({
      'packages/codec/package.json': pkg('codec'),
      'packages/meta/package.json': pkg('meta', { '@kafkats/client': '0.1.0' }),
      'packages/meta/src/a.ts': "export { x } from '@kafkats/codec/src/internal/x.js';\n",
      'packages/meta/src/b.ts': "import '../../codec/src/index.js';\n",
      'packages/meta/src/c.ts': "const t = await import('@kafkats/testkit');\n",
      'packages/meta/src/d.ts': "import type { Gen } from '@kafkats/codegen';\n",
    });
    const violations = checkLayers(root);
    expect(violations).toEqual([
      'packages/meta/package.json: dependency @kafkats/client breaks the layering',
      'packages/meta/src/a.ts:1: @kafkats/codec/src/internal/x.js is a deep import; use the public entry @kafkats/codec',
      'packages/meta/src/b.ts:1: relative import ../../codec/src/index.js leaves meta',
      'packages/meta/src/c.ts:1: meta may not import @kafkats/testkit',
      'packages/meta/src/d.ts:1: meta may not import @kafkats/codegen',
    ]);
  });

  it('lets tests use the testkit but not library source', () => {
    const root = fakeRepo({
      'packages/meta/package.json': pkg('meta'),
      'packages/meta/test/integration/x.test.ts':
        "import { startCluster } from '@kafkats/testkit';\n",
    });
    expect(checkLayers(root)).toEqual([]);
  });

  it('fails on a public entry that re-exports an internal module', () => {
    const root = fakeRepo({
      'packages/wire/package.json': pkg('wire'),
      'packages/wire/src/index.ts':
        "export { Ring } from './ring.js';\nexport { Slot } from './internal/slot.js';\nexport type { X } from './internal/x.js';\n",
      'packages/wire/src/ring.ts': "import { Slot } from './internal/slot.js';\n",
    });
    expect(checkLayers(root)).toEqual([
      'packages/wire/src/index.ts:2: the public entry re-exports ./internal/slot.js; internal modules are not API (define public types in public files)',
      'packages/wire/src/index.ts:3: the public entry re-exports ./internal/x.js; internal modules are not API (define public types in public files)',
    ]);
  });

  it('fails on any public file that re-exports an internal module, not only the entry', () => {
    const root = fakeRepo({
      'packages/client/package.json': pkg('client'),
      'packages/client/src/index.ts': "export { Consumer } from './consumer/consumer.js';\n",
      'packages/client/src/consumer/consumer.ts':
        "export type { Code } from './internal/errors.js';\nexport class Consumer {}\n",
      // An internal file may re-export another internal one.
      'packages/client/src/consumer/internal/all.ts': "export { Code } from './errors.js';\n",
    });
    expect(checkLayers(root)).toEqual([
      'packages/client/src/consumer/consumer.ts:1: a public file re-exports ./internal/errors.js; internal modules are not API (define public types in public files)',
    ]);
  });

  it("lets a role folder use another role's public files and the shared src/internal/, never another role's internal/", () => {
    const root = fakeRepo({
      'packages/client/package.json': pkg('client'),
      'packages/client/src/consumer/consumer.ts': [
        "import { Fetcher } from '../fetch/fetcher.js';",
        "import { delay } from '../internal/abortable.js';",
        "import { Membership } from './internal/membership.js';",
        "import { FetchSession } from '../fetch/internal/fetch-session.js';",
        '',
      ].join('\n'),
      'packages/client/src/index.ts': "import { Sender } from './producer/internal/sender.js';\n",
      'packages/client/src/fetch/internal/fetch-session.ts': "import { x } from './request.js';\n",
    });
    expect(checkLayers(root)).toEqual([
      'packages/client/src/consumer/consumer.ts:4: ../fetch/internal/fetch-session.js reaches into the internals of fetch/; use its public files',
      'packages/client/src/index.ts:1: ./producer/internal/sender.js reaches into the internals of producer/; use its public files',
    ]);
  });

  it('lets only the CLI load a plugin, by import() and as an optional peer; a plugin imports its layer and below', () => {
    const root = fakeRepo({
      'packages/codec/package.json': pkg('codec'),
      'packages/wire/package.json': pkg('wire'),
      'packages/sasl-aws-msk-iam/package.json': pkg('sasl-aws-msk-iam', {
        '@kafkats/wire': '0.1.0',
      }),
      'packages/sasl-aws-msk-iam/src/a.ts': "import { Reader } from '@kafkats/codec';\n",
      'packages/sasl-aws-msk-iam/src/b.ts': "import { Cluster } from '@kafkats/meta';\n",
      'packages/client/package.json': pkg('client'),
      'packages/client/src/c.ts': "const p = await import('@kafkats/sasl-aws-msk-iam');\n",
      'packages/cli/package.json': pkg('cli', { '@kafkats/sasl-aws-msk-iam': '0.1.0' }),
      'packages/cli/src/d.ts': "const p = await import('@kafkats/sasl-aws-msk-iam');\n",
      'packages/cli/src/e.ts': "import { awsMskIam } from '@kafkats/sasl-aws-msk-iam';\n",
      'packages/cli/test/f.test.ts': "import { awsMskIam } from '@kafkats/sasl-aws-msk-iam';\n",
    });
    expect(checkLayers(root)).toEqual([
      'packages/cli/package.json: dependency @kafkats/sasl-aws-msk-iam is a plugin; declare it as an optional peer',
      'packages/cli/src/e.ts:1: the plugin @kafkats/sasl-aws-msk-iam is optional; load it with import()',
      'packages/client/src/c.ts:1: client may not import @kafkats/sasl-aws-msk-iam',
      'packages/sasl-aws-msk-iam/src/b.ts:1: sasl-aws-msk-iam may not import @kafkats/meta',
    ]);
  });

  it('fails when tsconfig project references and declared dependencies differ', () => {
    const tsconfig = (refs: string[]) =>
      JSON.stringify({ references: refs.map((r) => ({ path: `../${r}` })) });
    const root = fakeRepo({
      'packages/codec/package.json': pkg('codec'),
      'packages/wire/package.json': pkg('wire', { '@kafkats/codec': '0.1.0' }),
      'packages/wire/tsconfig.json': tsconfig(['codec']),
      'packages/meta/package.json': pkg('meta', {
        '@kafkats/codec': '0.1.0',
        '@kafkats/wire': '0.1.0',
      }),
      'packages/meta/tsconfig.json': tsconfig(['codec', 'client']),
    });
    expect(checkLayers(root)).toEqual([
      'packages/meta/tsconfig.json: no project reference to wire, a declared dependency',
      'packages/meta/tsconfig.json: project reference to client, which package.json does not declare',
    ]);
  });

  it('fails when the CLI sees a violation', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = fakeRepo({
      'packages/codec/package.json': pkg('codec'),
      'packages/codec/src/index.ts': "import '@kafkats/wire';\n",
      'packages/wire/package.json': pkg('wire'),
    });
    const run = spawnSync(process.execPath, [join(repoRoot, 'scripts/check-layers.mjs'), root], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('codec may not import @kafkats/wire');
  });
});
