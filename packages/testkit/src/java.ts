import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
  const source = join(javaDir, `${name}.java`);
  const digest = createHash('sha256')
    .update(readFileSync(source))
    .update(dist.version)
    .digest('hex')
    .slice(0, 16);
  const dir = join(cacheRoot(), 'java', `${name}-${digest}`);
  if (existsSync(join(dir, `${name}.class`))) return dir;
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const result = await run(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '-cp', dist.classpath, '-d', staging, source],
    {
      timeoutMs: 120_000,
    },
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
