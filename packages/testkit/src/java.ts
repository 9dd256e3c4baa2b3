import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { type KafkaDist, kafkaDist } from './dist.js';
import { TestkitError, TestkitErrorCode } from './errors.js';
import { renderToolLog4j2 } from './internal/broker-config.js';
import { javaDir } from './internal/paths.js';

/** Root of the testkit's caches ($KAFKATS_CACHE, else ~/.cache/kafkats), shared with kafka-dist. */
export function cacheRoot(): string {
  return process.env.KAFKATS_CACHE || join(homedir(), '.cache', 'kafkats');
}

/** Collects a child's output and exit status. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      if (timer) clearTimeout(timer);
      reject(
        new TestkitError(TestkitErrorCode.ToolFailed, `cannot run ${command}: ${error.message}`),
      );
    });
    child.once('close', (status) => {
      if (timer) clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

const compiled = new Map<string, Promise<string>>();

/**
 * Compiles one of our single-file Java programs (packages/testkit/java/<name>.java) with
 * javac once per source digest and Kafka release into the cache and returns the classes
 * directory. Running compiled classes saves the source launcher's in-memory compile (about a
 * second) per start. `dist` defaults to the pinned release; FormatStorage is compiled against
 * the release whose storage it formats.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails.
 */
export function compileJava(name: string, dist: KafkaDist = kafkaDist()): Promise<string> {
  const key = `${name}@${dist.version}`;
  let pending = compiled.get(key);
  if (pending === undefined) {
    pending = compileOnce(name, dist);
    compiled.set(key, pending);
    pending.catch(() => compiled.delete(key));
  }
  return pending;
}

async function compileOnce(name: string, dist: KafkaDist): Promise<string> {
  return compileInto(join(javaDir, `${name}.java`), dist.classpath, dist.version);
}

/**
 * Compiles the single-file Java program `source` (an absolute path; its class named as the
 * file) against `classpath` once per source digest into the cache and returns the classes
 * directory: for programs that need jars beside Kafka's (see {@link mavenClasspath}).
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when javac fails.
 */
export function compileJavaSource(source: string, classpath: string): Promise<string> {
  const key = `${source}@${classpath}`;
  let pending = compiled.get(key);
  if (pending === undefined) {
    pending = compileInto(source, classpath, classpath);
    compiled.set(key, pending);
    pending.catch(() => compiled.delete(key));
  }
  return pending;
}

async function compileInto(source: string, classpath: string, salt: string): Promise<string> {
  const name = basename(source, '.java');
  const digest = createHash('sha256')
    .update(readFileSync(source))
    .update(salt)
    .digest('hex')
    .slice(0, 16);
  const dir = join(cacheRoot(), 'java', `${name}-${digest}`);
  if (existsSync(join(dir, `${name}.class`))) return dir;
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const result = await run(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '-cp', classpath, '-d', staging, source],
    { timeoutMs: 120_000 },
  );
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `javac ${name}.java failed: ${result.stderr.slice(-2000)}`,
    );
  }
  try {
    renameSync(staging, dir);
  } catch {
    // another process compiled the same digest first: theirs is identical
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

const COORDINATE = /^[\w.-]+:[\w.-]+:[\w.-]+$/;

/**
 * Jars from Maven Central with their runtime dependencies, for a Java program of the tests
 * (e.g. `['software.amazon.msk:aws-msk-iam-auth:2.4.0']`): resolved by Maven once into the
 * cache and reused. Returns a classpath for `java -cp` / {@link compileJavaSource}.
 * @throws TestkitError ERR_KAFKA_TESTKIT_UNSUPPORTED for a coordinate that is not
 *   `group:artifact:version`; ERR_KAFKA_TESTKIT_TOOL_FAILED when Maven cannot resolve them.
 */
export async function mavenClasspath(coordinates: readonly string[]): Promise<string> {
  for (const c of coordinates) {
    if (!COORDINATE.test(c)) {
      throw new TestkitError(TestkitErrorCode.Unsupported, `not group:artifact:version: "${c}"`);
    }
  }
  const sorted = [...coordinates].sort();
  const digest = createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 16);
  const home = join(cacheRoot(), 'maven', digest);
  const libs = join(home, 'libs');
  if (existsSync(join(home, 'complete'))) return join(libs, '*');
  const staging = `${home}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const deps = sorted
    .map((c) => {
      const [g, a, v] = c.split(':');
      return `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
    })
    .join('');
  writeFileSync(
    join(staging, 'pom.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>dev.kafkats</groupId><artifactId>test-jars</artifactId><version>1</version>
<packaging>pom</packaging><dependencies>${deps}</dependencies></project>
`,
  );
  const mvn = await run(
    'mvn',
    [
      '-B',
      '-q',
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      '-DoutputDirectory=libs',
    ],
    { cwd: staging, timeoutMs: 600_000 },
  );
  if (mvn.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `Maven could not resolve ${sorted.join(', ')} (exit ${mvn.status}): ${`${mvn.stdout}${mvn.stderr}`.slice(-2000)}`,
    );
  }
  writeFileSync(join(staging, 'complete'), `${sorted.join('\n')}\n`);
  if (!existsSync(join(home, 'complete'))) rmSync(home, { recursive: true, force: true });
  try {
    renameSync(staging, home);
  } catch {
    // another process resolved the same set first
    rmSync(staging, { recursive: true, force: true });
  }
  return join(libs, '*');
}

/** A log4j2 configuration sending everything to stderr, for tools whose stdout is data. */
export function toolLog4jFile(): string {
  const dir = join(cacheRoot(), 'java');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tool-log4j2.properties');
  const text = renderToolLog4j2();
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  return file;
}

/** JVM flags for short-lived or light Java tools: small heap, quick start. */
export function toolJvmFlags(): string[] {
  return [
    '-Xms32m',
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Xshare:auto',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${toolLog4jFile()}`,
  ];
}

/**
 * Runs one of Kafka's own command-line tools from the pinned release, e.g.
 * `runKafkaTool('org.apache.kafka.tools.TopicCommand', ['--bootstrap-server', b, '--list'])`.
 * Resolves with exit status and output; never throws for a non-zero exit.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when java cannot be started.
 */
export function runKafkaTool(
  mainClass: string,
  args: readonly string[],
  options: { timeoutMs?: number; input?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dist = kafkaDist();
  return run('java', [...toolJvmFlags(), '-cp', dist.classpath, mainClass, ...args], {
    timeoutMs: options.timeoutMs ?? 120_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/**
 * Runs `mainClass` from `classpath` (e.g. a {@link compileJavaSource} directory beside a
 * {@link mavenClasspath}) with the light tool JVM flags. Resolves with exit status and output;
 * never throws for a non-zero exit.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when java cannot be started.
 */
export function runJava(
  classpath: string,
  mainClass: string,
  args: readonly string[] = [],
  options: { timeoutMs?: number; input?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return run('java', [...toolJvmFlags(), '-cp', classpath, mainClass, ...args], {
    timeoutMs: options.timeoutMs ?? 120_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}
