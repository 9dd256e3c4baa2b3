// `npm run gen:errors -w @kafkats/codegen [-- --check]`: reads Kafka's Errors enum from the
// pinned kafka-clients jar (java/ErrorsExtractor.java), emits the codec's error table and
// formats it with the repository's Biome, so the committed file and a fresh run are
// byte-identical. With --check nothing is written; a difference exits 1.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS_OUTPUT_PATH, emitErrorsTable } from './emit-errors.js';
import { parseErrorsExtract } from './errors-extract.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const check = process.argv.includes('--check');

const dist = JSON.parse(
  execFileSync('node', [join(root, 'packages/testkit/bin/kafka-dist.mjs')], { encoding: 'utf8' }),
) as { classpath: string };
const json = execFileSync(
  'java',
  ['-cp', dist.classpath, join(root, 'packages/codegen/java/ErrorsExtractor.java')],
  { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
);
const extract = parseErrorsExtract(json);
const target = join(root, ERRORS_OUTPUT_PATH);
const formatted = execFileSync(
  join(root, 'node_modules/.bin/biome'),
  ['format', `--stdin-file-path=${ERRORS_OUTPUT_PATH}`],
  { cwd: root, input: emitErrorsTable(extract), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] },
);

if (check) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // A missing file is a difference like any other.
  }
  if (current !== formatted) {
    process.stderr.write(
      `${ERRORS_OUTPUT_PATH} is out of date: run npm run gen:errors -w @kafkats/codegen\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `${ERRORS_OUTPUT_PATH}: up to date (${extract.count} codes from ${extract.source})\n`,
  );
} else {
  writeFileSync(target, formatted);
  process.stdout.write(`${ERRORS_OUTPUT_PATH}: ${extract.count} codes from ${extract.source}\n`);
}
