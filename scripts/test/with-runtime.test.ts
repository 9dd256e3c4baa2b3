import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  ensureRuntime,
  RUNTIME_VERSIONS,
  runtimePackage,
  SMOKE_CONFIG,
  vitestCommand,
} from '../with-runtime.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('with-runtime', () => {
  it('names the npm package and binary that carry Bun and Deno for a platform', () => {
    expect(runtimePackage('bun', 'linux', 'x64')).toEqual({
      name: '@oven/bun-linux-x64',
      bin: 'bin/bun',
    });
    expect(runtimePackage('bun', 'linux', 'arm64').name).toBe('@oven/bun-linux-aarch64');
    expect(runtimePackage('bun', 'win32', 'x64')).toEqual({
      name: '@oven/bun-windows-x64',
      bin: 'bin/bun.exe',
    });
    expect(runtimePackage('deno', 'linux', 'x64')).toEqual({
      name: '@deno/linux-x64-glibc',
      bin: 'deno',
    });
    expect(runtimePackage('deno', 'darwin', 'arm64').name).toBe('@deno/darwin-arm64');
    expect(runtimePackage('deno', 'win32', 'x64').bin).toBe('deno.exe');
  });

  it('pins an exact release of each runtime', () => {
    expect(RUNTIME_VERSIONS.bun).toMatch(/^1\.\d+\.\d+$/);
    expect(RUNTIME_VERSIONS.deno).toMatch(/^2\.\d+\.\d+$/);
  });

  it('refuses a runtime it does not know before installing anything', () => {
    expect(() => ensureRuntime('node')).toThrow(/not a runtime with-runtime knows: node/);
  });

  it('runs vitest itself on the runtime: Bun with --bun, Deno through run with every permission', () => {
    const [bun, bunArgs] = vitestCommand('bun', '/x/bun', ['run']);
    expect(bun).toBe('/x/bun');
    expect(bunArgs[0]).toBe('--bun');
    expect(bunArgs.at(-2)).toMatch(/node_modules[\\/]vitest[\\/]vitest\.mjs$/);
    expect(bunArgs.at(-1)).toBe('run');
    const [, denoArgs] = vitestCommand('deno', '/x/deno', ['run']);
    expect(denoArgs.slice(0, 2)).toEqual(['run', '-A']);
    expect(denoArgs).toContain('--no-lock');
  });

  it('--smoke runs one existing real-broker file under the testkit global setup, guarded when asked', async () => {
    const load = async () => {
      vi.resetModules(); // the config reads KAFKATS_RUNTIME when it is evaluated
      const config = (await import(join(root, SMOKE_CONFIG))) as {
        default: { test: { include: string[]; globalSetup: string[]; setupFiles: string[] } };
      };
      return config.default.test;
    };
    const saved = process.env.KAFKATS_RUNTIME;
    try {
      delete process.env.KAFKATS_RUNTIME;
      const plain = await load();
      expect(plain.include).toHaveLength(1);
      for (const file of [...plain.include, ...plain.globalSetup])
        expect(existsSync(join(root, file)), file).toBe(true);
      expect(plain.globalSetup).toEqual(['packages/testkit/src/vitest/global-setup.ts']);
      expect(plain.setupFiles).toEqual([]);
      process.env.KAFKATS_RUNTIME = 'bun';
      const guarded = await load();
      expect(guarded.setupFiles).toEqual([join(root, 'scripts', 'runtime-guard.mjs')]);
    } finally {
      if (saved === undefined) delete process.env.KAFKATS_RUNTIME;
      else process.env.KAFKATS_RUNTIME = saved;
    }
  });
});
