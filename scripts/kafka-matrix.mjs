// The Kafka version matrix of `npm test`: besides the full integration run against the pinned
// release, the wire, meta and client suites below run against the newest patch of each older
// release line listed in fixtures/kafka-release.json (`lines`), one shared cluster per release,
// one release after another. The testkit assembles each release from Maven Central on first use.
//
//   KAFKATS_KAFKA_VERSION=3.9 npx vitest run --config vitest.integration.config.ts <files>
//
// The files are chosen to prove version negotiation within a few minutes per release: every
// request falls back to what the older broker advertises (wire: version-negotiation, broker
// connection incl. SASL/TLS), metadata and routing work (meta), and produce, fetch, admin and
// both group protocols behave as documented (client), broker throttling is obeyed (KIP-219),
// with typed errors where a feature needs a newer broker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Integration test files run against every older release, by suite (package). */
export const MATRIX_SUITES = {
  wire: [
    'packages/wire/test/integration/version-negotiation.test.ts',
    'packages/wire/test/integration/broker-connection.test.ts',
  ],
  meta: ['packages/meta/test/integration/cluster.test.ts'],
  client: [
    'packages/client/test/integration/group-protocol-versions.test.ts',
    'packages/client/test/integration/producer.test.ts',
    'packages/client/test/integration/producer-split.test.ts',
    'packages/client/test/integration/partitioner-java.test.ts',
    'packages/client/test/integration/producer-transaction-protocol.test.ts',
    'packages/client/test/integration/fetcher.test.ts',
    'packages/client/test/integration/leader-hints.test.ts',
    'packages/client/test/integration/admin-topics.test.ts',
    'packages/client/test/integration/admin-offsets.test.ts',
    'packages/client/test/integration/admin-groups.test.ts',
    'packages/client/test/integration/admin-share-groups.test.ts',
    'packages/client/test/integration/consumer-classic.test.ts',
    'packages/client/test/integration/quotas.test.ts',
    'packages/client/test/integration/serializers.test.ts',
    'packages/client/test/integration/consumer-eos.test.ts',
    'packages/client/test/integration/share-consumer-versions.test.ts',
  ],
};

/** Every matrix file, suites in order. */
export function matrixFiles() {
  return Object.values(MATRIX_SUITES).flat();
}

/** The pinned release and the older releases of the matrix, e.g. `{ pinned: '4.4.0', older: ['3.9.2', '4.0.2'] }`. */
export function kafkaReleases(root) {
  const pin = JSON.parse(readFileSync(join(root, 'fixtures', 'kafka-release.json'), 'utf8'));
  return { pinned: pin.kafka, older: Object.values(pin.lines ?? {}) };
}

/** The report tag of a matrix run (`integration-<tag>.json`, see vitest.shared.ts). */
export function reportTag(version) {
  return `kafka-${version}`;
}

/** The suite of an integration test file: its package (`wire`, `meta`, `client`, ...). */
export function suiteOf(file) {
  return /packages\/([^/]+)\/test\/integration\//.exec(file)?.[1] ?? 'other';
}

/**
 * Passed/failed counts per Kafka release and suite from vitest JSON reports
 * (`integration.json` is the pinned release; `integration-kafka-<v>.json` an older one).
 * @param reports [fileName, parsed JSON report][]
 * @returns Map<release, Map<suite, {passed, failed}>>
 */
export function matrixCounts(reports, pinned) {
  const table = new Map();
  for (const [file, report] of reports) {
    const m = /^integration(?:-kafka-(.+))?\.json$/.exec(file);
    if (m === null) continue;
    const release = m[1] ?? pinned;
    const row = table.get(release) ?? new Map();
    for (const suite of report.testResults ?? []) {
      const name = suiteOf(suite.name ?? '');
      const cell = row.get(name) ?? { passed: 0, failed: 0 };
      for (const test of suite.assertionResults ?? []) {
        if (test.status === 'passed') cell.passed++;
        else if (test.status === 'failed') cell.failed++;
      }
      // A file that failed before its tests ran counts as one failure.
      if (
        suite.status === 'failed' &&
        (suite.assertionResults ?? []).every((t) => t.status !== 'failed')
      )
        cell.failed++;
      row.set(name, cell);
    }
    table.set(release, row);
  }
  return table;
}

/** The matrix as text lines: one row per release, one column per suite. */
export function formatMatrix(table) {
  const main = ['wire', 'meta', 'client'];
  const suites = [...main];
  for (const row of table.values())
    for (const s of row.keys()) if (!suites.includes(s)) suites.push(s);
  const releases = [...table.keys()].sort((a, b) =>
    a.localeCompare(b, undefined, { numeric: true }),
  );
  const cell = (c) => (c === undefined ? '-' : `${c.passed} passed, ${c.failed} failed`);
  const widths = suites.map((s) =>
    Math.max(s.length, ...releases.map((r) => cell(table.get(r)?.get(s)).length)),
  );
  const line = (first, cells) =>
    `  ${first.padEnd(14)}${cells.map((c, i) => c.padEnd(widths[i] + 3)).join('')}`.trimEnd();
  return [
    line('Kafka', suites),
    ...releases.map((r) =>
      line(
        r,
        suites.map((s) => cell(table.get(r)?.get(s))),
      ),
    ),
  ];
}
