import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { closure, footprint } from '../check-dependencies.mjs';
import { LAYERS, PLUGINS } from '../check-layers.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')).packages;

describe('check-dependencies', () => {
  it('keeps the AWS SDK inside the MSK IAM plugin on this repository', () => {
    const { packages, problems } = footprint(lock);
    expect(problems).toEqual([]);
    const plugin = packages.find((p) => p.name === '@kafkats/sasl-aws-msk-iam');
    expect(plugin?.deps).toContain('@kafkats/wire@0.1.0');
    expect(plugin?.deps.some((d: string) => d.startsWith('@smithy/signature-v4@'))).toBe(true);
    const cli = packages.find((p) => p.name === '@kafkats/cli');
    expect(cli?.deps.some((d: string) => d.startsWith('@kafkats/sasl-aws-msk-iam'))).toBe(false);
  });

  it('resolves nested copies before hoisted ones and skips optional peers', () => {
    const fake = {
      'packages/client': {
        dependencies: { a: '1', '@aws-sdk/types': '3' },
        peerDependencies: { p: '1', q: '1' },
        peerDependenciesMeta: { q: { optional: true } },
      },
      'node_modules/a': { version: '1.0.0', dependencies: { b: '1' } },
      'node_modules/a/node_modules/b': { version: '1.2.0' },
      'node_modules/b': { version: '9.9.9' },
      'node_modules/p': { version: '1.0.1' },
      'node_modules/q': { version: '1.0.2' },
      'node_modules/@aws-sdk/types': { version: '3.1.0' },
    };
    expect(closure(fake, 'client')).toEqual([
      '@aws-sdk/types@3.1.0',
      'a@1.0.0',
      'b@1.2.0',
      'p@1.0.1',
    ]);
  });

  it('flags a core package that brings a vendor SDK or a plugin', () => {
    const fake: Record<string, object> = {};
    for (const name of [...LAYERS, ...Object.keys(PLUGINS)]) fake[`packages/${name}`] = {};
    fake['packages/wire'] = { dependencies: { '@smithy/types': '4' } };
    fake['packages/cli'] = { dependencies: { '@kafkats/sasl-aws-msk-iam': '0.1.0' } };
    fake['packages/sasl-aws-msk-iam'] = {
      version: '0.1.0',
      dependencies: { '@smithy/types': '4' },
    };
    fake['node_modules/@smithy/types'] = { version: '4.20.0' };
    fake['node_modules/@kafkats/sasl-aws-msk-iam'] = {
      link: true,
      resolved: 'packages/sasl-aws-msk-iam',
    };
    expect(footprint(fake).problems).toEqual([
      '@kafkats/wire brings @smithy/types@4.20.0',
      '@kafkats/cli brings @kafkats/sasl-aws-msk-iam@0.1.0',
      '@kafkats/cli brings @smithy/types@4.20.0',
    ]);
  });
});
