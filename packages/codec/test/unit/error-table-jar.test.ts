// The committed table against the pinned jar itself: runs java/ErrorsExtractor.java on the
// kafka-clients jar (assembled by the testkit's kafka-dist, step one of `npm test`) and
// compares row by row, so a stale table fails here as well as in gen:errors:check. The
// extractor's own count is Kafka's `Errors.values().length`.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BROKER_ERRORS, BROKER_ERRORS_SOURCE } from '../../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('the generated error table', () => {
  it("has exactly the pinned kafka-clients jar's Errors enum, flags included", () => {
    const dist = JSON.parse(
      execFileSync('node', [join(root, 'packages/testkit/bin/kafka-dist.mjs')], {
        encoding: 'utf8',
      }),
    ) as { version: string; classpath: string };
    const extract = JSON.parse(
      execFileSync(
        'java',
        ['-cp', dist.classpath, join(root, 'packages/codegen/java/ErrorsExtractor.java')],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    ) as { source: string; count: number; errors: { exceptionClass: string | null }[] };
    expect(extract.source).toBe(`kafka-clients-${dist.version}.jar`);
    expect(BROKER_ERRORS_SOURCE).toBe(extract.source);
    expect(BROKER_ERRORS.length).toBe(extract.count);
    expect(BROKER_ERRORS).toEqual(extract.errors.map(({ exceptionClass: _, ...rest }) => rest));
  }, 60_000);
});
