#!/usr/bin/env node
// Assembles the pinned Apache Kafka release (or, given a version argument, an older release the
// testkit can also start) from Maven Central into a cache outside the repo and prints where it
// is, as JSON on stdout:
//   {"version":"4.4.0","scala":"2.13","logging":"log4j2","home":"...","libDir":".../libs","classpath":".../libs/*"}
//
//   node kafka-dist.mjs            the pinned release (fixtures/kafka-release.json)
//   node kafka-dist.mjs 3.9        the newest patch of a line listed under `lines` there
//   node kafka-dist.mjs 4.0.1      an exact release, 3.9.0 or newer (KRaft-only start-up)
//   node kafka-dist.mjs --resolve 3.9   only prints {"version":"3.9.2"}, assembles nothing
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

/** The oldest release the testkit can start: KRaft with a static quorum and `StorageTool.execute`. */
const OLDEST = [3, 9];

function parseVersion(text) {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  return m === null ? null : { major: Number(m[1]), minor: Number(m[2]), patch: m[3] };
}

/**
 * The exact release a request names: nothing (or the pinned line) is the pin; `x.y` is the patch
 * listed for that line in `lines`; `x.y.z` is itself. Older than 3.9, or malformed, throws.
 */
export function resolveKafkaVersion(requested) {
  if (requested === undefined || requested === null || requested === '') return pin.kafka;
  const text = String(requested).trim();
  const v = parseVersion(text);
  if (v === null) throw new Error(`not a Kafka version: "${text}" (x.y or x.y.z)`);
  if (v.major < OLDEST[0] || (v.major === OLDEST[0] && v.minor < OLDEST[1])) {
    throw new Error(
      `Kafka ${text} is not supported by the testkit (oldest: ${OLDEST.join('.')}, KRaft only)`,
    );
  }
  if (v.patch !== undefined) return text;
  const line = `${v.major}.${v.minor}`;
  if (pin.kafka.startsWith(`${line}.`)) return pin.kafka;
  const listed = pin.lines?.[line];
  if (listed === undefined) {
    throw new Error(
      `no release pinned for Kafka ${line}: give an exact version or one of ${Object.keys(pin.lines ?? {}).join(', ')}`,
    );
  }
  return listed;
}

/**
 * How a release logs: 3.x brokers use log4j 1 (reload4j through slf4j 1.7), 4.x log4j2
 * (KIP-653). The binding is added to the jars either way: Maven brings none with kafka_2.13.
 */
export function loggingOf(version) {
  return (parseVersion(version)?.major ?? 4) < 4 ? 'log4j1' : 'log4j2';
}

/**
 * The Maven project whose runtime dependencies are the release's jars. The pinned release also
 * brings kafka-tools (the command-line tools the Java helpers and tests run); an older one only
 * what a broker and StorageTool need, since every tool runs from the pinned release.
 */
export function pom(version) {
  const pinned = version === pin.kafka;
  const log4j2 = loggingOf(version) === 'log4j2';
  const dep = (g, a, v) =>
    `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
  const deps = [
    dep('org.apache.kafka', `kafka_${pin.scala}`, version),
    dep('org.apache.kafka', 'kafka-clients', version),
    dep('org.apache.kafka', 'kafka-storage', version),
    dep('org.apache.kafka', 'kafka-server-common', version),
  ];
  if (pinned) deps.push(dep('org.apache.kafka', 'kafka-tools', version));
  if (log4j2) {
    deps.push(
      dep('org.slf4j', 'slf4j-api', pin.slf4j),
      dep('org.apache.logging.log4j', 'log4j-slf4j2-impl', pin.log4j),
      dep('org.apache.logging.log4j', 'log4j-core', pin.log4j),
    );
  } else {
    deps.push(
      dep('org.slf4j', 'slf4j-reload4j', pin.slf4jReload4j),
      dep('ch.qos.reload4j', 'reload4j', pin.reload4j),
    );
  }
  const managed = log4j2 ? dep('org.slf4j', 'slf4j-api', pin.slf4j) : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kafkats</groupId>
  <artifactId>kafka-dist</artifactId>
  <version>${version}</version>
  <packaging>pom</packaging>
  <dependencyManagement><dependencies>
    ${managed}
  </dependencies></dependencyManagement>
  <dependencies>
    ${deps.join('\n    ')}
  </dependencies>
</project>
`;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function verify(home, version) {
  const manifestFile = join(home, 'manifest.json');
  if (!existsSync(manifestFile)) return 'no manifest';
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch {
    return 'unreadable manifest';
  }
  if (manifest.kafka !== version || manifest.scala !== pin.scala) return 'pin changed';
  const libDir = join(home, 'libs');
  for (const [name, digest] of Object.entries(manifest.jars)) {
    const file = join(libDir, name);
    if (!existsSync(file)) return `missing ${name}`;
    if (sha256(file) !== digest) return `checksum mismatch for ${name}`;
  }
  const required = `kafka_${pin.scala}-${version}.jar`;
  if (!(required in manifest.jars)) return `manifest lacks ${required}`;
  return null;
}

function install(home, version) {
  const staging = `${home}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'pom.xml'), pom(version));
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
    throw new Error(`Maven could not resolve Apache Kafka ${version} (exit ${mvn.status})`);
  }
  const jars = {};
  for (const name of readdirSync(join(staging, 'libs')).sort()) {
    if (name.endsWith('.jar')) jars[name] = sha256(join(staging, 'libs', name));
  }
  writeFileSync(
    join(staging, 'manifest.json'),
    `${JSON.stringify({ kafka: version, scala: pin.scala, jars }, null, 2)}\n`,
  );
  rmSync(home, { recursive: true, force: true });
  renameSync(staging, home);
}

export function ensureKafkaDist({ quiet = false, version: requested } = {}) {
  const version = resolveKafkaVersion(requested);
  const cacheRoot = process.env.KAFKATS_CACHE || join(homedir(), '.cache', 'kafkats');
  const home = join(cacheRoot, `kafka-${version}-${pin.scala}`);
  const problem = verify(home, version);
  if (problem !== null) {
    if (!quiet) process.stderr.write(`kafka-dist: (re)assembling Kafka ${version}: ${problem}\n`);
    mkdirSync(cacheRoot, { recursive: true });
    install(home, version);
    const after = verify(home, version);
    if (after !== null) throw new Error(`Kafka distribution failed verification: ${after}`);
  }
  const libDir = join(home, 'libs');
  return {
    version,
    scala: pin.scala,
    logging: loggingOf(version),
    pinned: version === pin.kafka,
    home,
    libDir,
    classpath: join(libDir, '*'),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    // `--resolve <version>`: only say which release a request names, without assembling it.
    const out =
      process.argv[2] === '--resolve'
        ? { version: resolveKafkaVersion(process.argv[3]) }
        : ensureKafkaDist({ version: process.argv[2] });
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } catch (error) {
    process.stderr.write(`kafka-dist: ${error.message}\n`);
    process.exit(1);
  }
}
