// A vitest setup file, added by vitest.shared.ts when KAFKATS_RUNTIME is set (scripts/with-runtime.mjs):
// it runs inside each test worker before the test file and fails the file when the worker is
// not that runtime, so a run meant for Bun or Deno can never pass on Node instead.
const expected = process.env.KAFKATS_RUNTIME;
const actual = globalThis.Deno ? 'deno' : process.versions.bun ? 'bun' : 'node';
if (expected !== undefined && expected !== actual) {
  throw new Error(`test worker runs on ${actual}, not on ${expected} (KAFKATS_RUNTIME)`);
}
