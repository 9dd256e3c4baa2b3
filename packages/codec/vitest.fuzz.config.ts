import { defineConfig } from 'vitest/config';

/** `npm run fuzz:seeds`: rewrites the fuzzer's committed seed corpus (fixtures/fuzz/). */
export default defineConfig({
  test: {
    include: ['test/fuzz/write-seeds.test.ts'],
    testTimeout: 600_000,
    pool: 'forks',
  },
});
