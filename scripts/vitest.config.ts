import { defineConfig } from 'vitest/config';
import { reporters } from '../vitest.shared.js';

export default defineConfig({
  test: { include: ['scripts/test/**/*.test.ts'], reporters: reporters('scripts') },
});
