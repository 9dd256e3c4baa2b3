import { describe, expect, it } from 'vitest';
import {
  ensureRuntime,
  RUNTIME_VERSIONS,
  runtimePackage,
  vitestCommand,
} from '../with-runtime.mjs';

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
});
