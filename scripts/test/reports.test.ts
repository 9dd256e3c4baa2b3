import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testOutcomes } from '../reports.mjs';

const root = join('/', 'repo');

describe('test outcomes from vitest JSON reports', () => {
  it('lists failed tests, tests that passed on a retry, and files that failed before their tests', () => {
    const { failures, retried } = testOutcomes(
      [
        [
          'integration.json',
          {
            testResults: [
              {
                name: join(root, 'packages/meta/test/integration/a.test.ts'),
                status: 'failed',
                assertionResults: [
                  { fullName: 'A passes', status: 'passed', failureMessages: [] },
                  {
                    fullName: 'A fails',
                    status: 'failed',
                    failureMessages: ['AssertionError: expected 1 to be 2\n    at stack'],
                  },
                  {
                    fullName: 'A retried',
                    status: 'passed',
                    failureMessages: ['Error: first try timed out\n    at stack'],
                  },
                ],
              },
              {
                name: join(root, 'packages/meta/test/integration/b.test.ts'),
                status: 'failed',
                message: 'Cannot find module x\nmore',
                assertionResults: [],
              },
            ],
          },
        ],
      ],
      root,
    );
    expect(failures).toEqual([
      'integration: packages/meta/test/integration/a.test.ts > A fails\n      AssertionError: expected 1 to be 2',
      'integration: packages/meta/test/integration/b.test.ts (the file failed: Cannot find module x)',
    ]);
    expect(retried).toEqual([
      'integration: packages/meta/test/integration/a.test.ts > A retried\n      Error: first try timed out',
    ]);
  });
});
