import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

/** Where `npm test` collects JSON reports to print one total at the end. */
export function reporters(name: string): NonNullable<ViteUserConfig['test']>['reporters'] {
  const dir = process.env.KAFKATS_REPORT_DIR;
  // Runs on another Node (scripts/with-node.mjs) keep their own report beside the default one.
  const tag = process.env.KAFKATS_REPORT_TAG;
  const file = tag ? `${name}-${tag}` : name;
  return dir ? ['default', ['json', { outputFile: `${dir}/${file}.json` }]] : ['default'];
}

/**
 * Unit, property and regression tests: no broker, run per package by `turbo run test`.
 * Integration tests live in `test/integration/` and run once for the whole repo through
 * `vitest.integration.config.ts`, which starts one shared Kafka cluster.
 */
export const unitTestConfig: ViteUserConfig = {
  test: {
    include: ['test/{unit,property,regressions}/**/*.test.ts'],
    passWithNoTests: false,
    testTimeout: 30_000,
    pool: 'forks',
    reporters: reporters(`unit-${basename(process.cwd())}`),
    // On Bun or Deno (scripts/with-runtime.mjs) each worker first checks that it runs there.
    setupFiles: process.env.KAFKATS_RUNTIME
      ? [fileURLToPath(new URL('./scripts/runtime-guard.mjs', import.meta.url))]
      : [],
  },
};
