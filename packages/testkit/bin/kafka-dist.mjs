#!/usr/bin/env node
// Assembles the pinned Apache Kafka release from Maven Central into a cache outside the repo
// and prints where it is, as JSON on stdout:
//   {"version":"4.4.0","scala":"2.13","home":"...","libDir":".../libs","classpath":".../libs/*"}
//
// Used by the testkit (brokers, Java tools), by codegen (schemas, error table) and by the
// conformance oracle, so every one of them reads the same jars. Plain JS with no dependencies
// on purpose: it runs before `npm run build` has produced anything.
//
// The cache is reused across runs and verified before use: a manifest of every jar's SHA-256
// is written once the Maven copy succeeds, and a jar that is missing or differs makes the
// cache be rebuilt. The cache root is $KAFKATS_CACHE, else ~/.cache/kafkats.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const pin = JSON.parse(readFileSync(join(repoRoot, 'fixtures/kafka-release.json'), 'utf8'));

function pom() {
  const dep = (g, a, v) =>
    `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kafkats</groupId>
  <artifactId>kafka-dist</artifactId>
  <version>${pin.kafka}</version>
  <packaging>pom</packaging>
  <dependencyManagement><dependencies>
    ${dep('org.slf4j', 'slf4j-api', pin.slf4j)}
  </dependencies></dependencyManagement>
  <dependencies>
    ${dep('org.apache.kafka', `kafka_${pin.scala}`, pin.kafka)}
    ${dep('org.apache.kafka', 'kafka-clients', pin.kafka)}
    ${dep('org.apache.kafka', 'kafka-storage', pin.kafka)}
    ${dep('org.apache.kafka', 'kafka-server-common', pin.kafka)}
    ${dep('org.apache.kafka', 'kafka-tools', pin.kafka)}
    ${dep('org.slf4j', 'slf4j-api', pin.slf4j)}
    ${dep('org.apache.logging.log4j', 'log4j-slf4j2-impl', pin.log4j)}
    ${dep('org.apache.logging.log4j', 'log4j-core', pin.log4j)}
  </dependencies>
</project>
`;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function verify(home) {
  const manifestFile = join(home, 'manifest.json');
  if (!existsSync(manifestFile)) return 'no manifest';
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch {
    return 'unreadable manifest';
  }
  if (manifest.kafka !== pin.kafka || manifest.scala !== pin.scala) return 'pin changed';
  const libDir = join(home, 'libs');
  for (const [name, digest] of Object.entries(manifest.jars)) {
    const file = join(libDir, name);
    if (!existsSync(file)) return `missing ${name}`;
    if (sha256(file) !== digest) return `checksum mismatch for ${name}`;
  }
  const required = `kafka_${pin.scala}-${pin.kafka}.jar`;
  if (!(required in manifest.jars)) return `manifest lacks ${required}`;
  return null;
}

function install(home) {
  const staging = `${home}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'pom.xml'), pom());
  const mvn = spawnSync(
    'mvn',
    [
      '-B',
      '-q',
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      '-DoutputDirectory=libs',
    ],
    { cwd: staging, stdio: ['ignore', 2, 2] },
  );
  if (mvn.status !== 0) {
    throw new Error(`Maven could not resolve Apache Kafka ${pin.kafka} (exit ${mvn.status})`);
  }
  const jars = {};
  for (const name of readdirSync(join(staging, 'libs')).sort()) {
    if (name.endsWith('.jar')) jars[name] = sha256(join(staging, 'libs', name));
  }
  writeFileSync(
    join(staging, 'manifest.json'),
    `${JSON.stringify({ kafka: pin.kafka, scala: pin.scala, jars }, null, 2)}\n`,
  );
  rmSync(home, { recursive: true, force: true });
  renameSync(staging, home);
}

export function ensureKafkaDist({ quiet = false } = {}) {
  const cacheRoot = process.env.KAFKATS_CACHE || join(homedir(), '.cache', 'kafkats');
  const home = join(cacheRoot, `kafka-${pin.kafka}-${pin.scala}`);
  const problem = verify(home);
  if (problem !== null) {
    if (!quiet) process.stderr.write(`kafka-dist: (re)assembling Kafka ${pin.kafka}: ${problem}\n`);
    mkdirSync(cacheRoot, { recursive: true });
    install(home);
    const after = verify(home);
    if (after !== null) throw new Error(`Kafka distribution failed verification: ${after}`);
  }
  const libDir = join(home, 'libs');
  return { version: pin.kafka, scala: pin.scala, home, libDir, classpath: join(libDir, '*') };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${JSON.stringify(ensureKafkaDist())}\n`);
  } catch (error) {
    process.stderr.write(`kafka-dist: ${error.message}\n`);
    process.exit(1);
  }
}
