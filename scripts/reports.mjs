// What the end of `npm test` lists from vitest's JSON reports: every failed test, and every
// test that failed once and passed when vitest retried it (integration tests against real
// brokers get one retry; a retried test is still named, so a flaky test stays visible).
import { relative } from 'node:path';

/** The first line of an error message, kept short enough for a CI log tail. */
const firstLine = (message) =>
  String(message ?? '')
    .split('\n')[0]
    .slice(0, 300);

/**
 * @param {Array<[string, any]>} parsed [report file name, vitest JSON report]
 * @param {string} root the repository root, for relative test file paths
 * @returns {{ failures: string[], retried: string[] }} one entry per test: where, name, and the
 *   first line of its (first) error
 */
export function testOutcomes(parsed, root) {
  const failures = [];
  const retried = [];
  for (const [file, report] of parsed) {
    const run = file.replace(/\.json$/, '');
    for (const suite of report.testResults ?? []) {
      const where = relative(root, suite.name ?? '');
      const tests = suite.assertionResults ?? [];
      for (const test of tests) {
        const line = `${run}: ${where} > ${test.fullName}\n      ${firstLine(test.failureMessages?.[0])}`;
        if (test.status === 'failed') failures.push(line);
        // Vitest keeps the errors of a failed try when a retry passes.
        else if (test.status === 'passed' && (test.failureMessages ?? []).length > 0)
          retried.push(line);
      }
      // A file that failed before its tests ran (an import or setup error) has no failed test.
      if (suite.status === 'failed' && tests.every((t) => t.status !== 'failed')) {
        failures.push(`${run}: ${where} (the file failed: ${firstLine(suite.message)})`);
      }
    }
  }
  return { failures, retried };
}
