import { defineConfig } from 'vitest/config';
import { unitTestConfig } from '../../vitest.shared.js';

export default defineConfig(unitTestConfig);
