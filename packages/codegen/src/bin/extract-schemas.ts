/**
 * `npm run schemas`: extracts the message schemas of the pinned Kafka release from its jars
 * (`common/message/*.json` in kafka-clients, `message/*.json` in kafka-storage) into
 * fixtures/schemas/ (gitignored). The jars come from the testkit's Maven assembly.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const out = join(root, 'fixtures', 'schemas');

const dist = JSON.parse(
  execFileSync('node', [join(root, 'packages', 'testkit', 'bin', 'kafka-dist.mjs')], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
) as { version: string; libDir: string };

rmSync(out, { recursive: true, force: true });
const jars: [string, string, string][] = [
  ['kafka-clients', `kafka-clients-${dist.version}.jar`, 'common/message/*.json'],
  ['kafka-storage', `kafka-storage-${dist.version}.jar`, 'message/*.json'],
];
for (const [dir, jar, pattern] of jars) {
  const target = join(out, dir);
  mkdirSync(target, { recursive: true });
  execFileSync('unzip', ['-q', '-o', join(dist.libDir, jar), pattern, '-d', target], {
    stdio: 'inherit',
  });
}
writeFileSync(join(out, 'release.json'), `${JSON.stringify({ kafka: dist.version }, null, 2)}\n`);
process.stdout.write(
  `schemas: Kafka ${dist.version} message schemas extracted to fixtures/schemas/\n`,
);
