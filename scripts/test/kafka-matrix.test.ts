import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  formatMatrix,
  kafkaReleases,
  MATRIX_SUITES,
  matrixCounts,
  matrixFiles,
  reportTag,
  suiteOf,
} from '../kafka-matrix.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const test = (status: string) => ({ status });
const report = (files: Record<string, string[]>, failedFile?: string) => ({
  testResults: Object.entries(files).map(([name, statuses]) => ({
    name: join(repoRoot, name),
    status: name === failedFile || statuses.includes('failed') ? 'failed' : 'passed',
    assertionResults: statuses.map(test),
  })),
});

describe('Kafka version matrix', () => {
  it('runs the older releases listed beside the pin, and existing wire, meta and client files', () => {
    const releases = kafkaReleases(repoRoot);
    expect(releases.older).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^3\.9\.\d+$/),
        expect.stringMatching(/^4\.0\.\d+$/),
      ]),
    );
    expect(releases.older).not.toContain(releases.pinned);
    expect(Object.keys(MATRIX_SUITES)).toEqual(['wire', 'meta', 'client']);
    for (const file of matrixFiles()) {
      expect(existsSync(join(repoRoot, file)), file).toBe(true);
      expect(MATRIX_SUITES[suiteOf(file) as keyof typeof MATRIX_SUITES]).toContain(file);
    }
    expect(reportTag('3.9.2')).toBe('kafka-3.9.2');
  });

  it('counts passed and failed tests per release and suite, a file that failed to load as one failure', () => {
    const table = matrixCounts(
      [
        [
          'integration.json',
          report({
            'packages/wire/test/integration/a.test.ts': ['passed', 'passed'],
            'packages/codec/test/integration/b.test.ts': ['passed'],
          }),
        ],
        [
          'integration-kafka-3.9.2.json',
          report(
            {
              'packages/client/test/integration/c.test.ts': ['passed', 'failed', 'skipped'],
              'packages/meta/test/integration/d.test.ts': [],
            },
            'packages/meta/test/integration/d.test.ts',
          ),
        ],
        ['unit-wire.json', report({ 'packages/wire/test/unit/x.test.ts': ['passed'] })],
      ],
      '4.4.0',
    );
    expect([...table.keys()].sort()).toEqual(['3.9.2', '4.4.0']);
    expect(table.get('4.4.0')?.get('wire')).toEqual({ passed: 2, failed: 0 });
    expect(table.get('4.4.0')?.get('codec')).toEqual({ passed: 1, failed: 0 });
    expect(table.get('3.9.2')?.get('client')).toEqual({ passed: 1, failed: 1 });
    expect(table.get('3.9.2')?.get('meta')).toEqual({ passed: 0, failed: 1 });
    const lines = formatMatrix(table);
    expect(lines[0]).toMatch(/^ {2}Kafka\s+wire\s+meta\s+client\s+codec$/);
    expect(lines[1]).toMatch(/^ {2}3\.9\.2\s+-\s+0 passed, 1 failed\s+1 passed, 1 failed\s+-$/);
    expect(lines[2]).toMatch(/^ {2}4\.4\.0\s+2 passed, 0 failed\s+-\s+-\s+1 passed, 0 failed$/);
  });
});
