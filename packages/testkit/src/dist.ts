import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TestkitError, TestkitErrorCode } from './errors.js';
import { packageRoot } from './internal/paths.js';

/** Where a Kafka release's jars are (see bin/kafka-dist.mjs). */
export interface KafkaDist {
  /** The exact release, e.g. `4.4.0` or `3.9.2`. */
  version: string;
  scala: string;
  /** How its brokers log: log4j 1 (reload4j, 3.x) or log4j2 (4.x). */
  logging: 'log4j1' | 'log4j2';
  /** True for the pinned release (the default; the one every Java tool runs from). */
  pinned: boolean;
  home: string;
  libDir: string;
  /** `<libDir>/*`, ready for `java -cp`. */
  classpath: string;
}

/** The environment variable naming the Kafka release clusters start by default. */
export const KAFKA_VERSION_ENV = 'KAFKATS_KAFKA_VERSION';

const cached = new Map<string, KafkaDist>();

/**
 * Assembles (first use) or verifies the cached jars of a Kafka release and says where they are.
 * Without `version`: the pinned release. `version` is a release line (`3.9`, `4.0`: the patch
 * pinned for it) or an exact release from 3.9.0 on. Runs the plain-JS assembler in a child so
 * there is one implementation for scripts and library alike.
 * @throws TestkitError ERR_KAFKA_TESTKIT_UNSUPPORTED for a version the testkit cannot start
 *   (see {@link resolveKafkaVersion}); ERR_KAFKA_TESTKIT_TOOL_FAILED when Maven cannot resolve
 *   the release.
 */
export function kafkaDist(version?: string): KafkaDist {
  const key = version === undefined || version === '' ? '' : resolveKafkaVersion(version);
  const known = cached.get(key);
  if (known !== undefined) return known;
  const args = [join(packageRoot, 'bin', 'kafka-dist.mjs')];
  if (key !== '') args.push(key);
  const run = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (run.status !== 0) {
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `kafka-dist${key ? ` ${key}` : ''} failed (exit ${run.status}): ${run.stderr.slice(-2000)}`,
    );
  }
  const dist = JSON.parse(run.stdout) as KafkaDist;
  cached.set(key, dist);
  return dist;
}

const resolved = new Map<string, string>();

/**
 * The exact release a version request names, without assembling anything: undefined is the
 * pinned release, `3.9` the patch pinned for that line, `3.9.1` itself.
 * @throws TestkitError ERR_KAFKA_TESTKIT_UNSUPPORTED for a malformed version, one older than
 *   3.9, or a line with no pinned patch.
 */
export function resolveKafkaVersion(version?: string): string {
  const key = version ?? '';
  const known = resolved.get(key);
  if (known !== undefined) return known;
  const run = spawnSync(
    process.execPath,
    [join(packageRoot, 'bin', 'kafka-dist.mjs'), '--resolve', key],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (run.status !== 0) {
    throw new TestkitError(
      TestkitErrorCode.Unsupported,
      run.stderr.trim().replace(/^kafka-dist: /, '') || `cannot resolve Kafka version ${key}`,
    );
  }
  const exact = (JSON.parse(run.stdout) as { version: string }).version;
  resolved.set(key, exact);
  return exact;
}

/**
 * The release a cluster starts when none is given: `$KAFKATS_KAFKA_VERSION` when set (e.g. `3.9`
 * for the version matrix), else the pinned one.
 */
export function defaultKafkaVersion(): string | undefined {
  const value = process.env[KAFKA_VERSION_ENV]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * True when Kafka release `version` (e.g. a cluster's `describe().kafkaVersion`) is `min`
 * (`x.y` or `x.y.z`) or newer: for tests whose expectations differ by broker release.
 * @throws TestkitError ERR_KAFKA_TESTKIT_UNSUPPORTED when either is not a version.
 */
export function kafkaVersionAtLeast(version: string, min: string): boolean {
  const parse = (text: string): number[] => {
    const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
    if (m === null) {
      throw new TestkitError(TestkitErrorCode.Unsupported, `not a Kafka version: "${text}"`);
    }
    return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  };
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < 3; i++) {
    if ((a[i] as number) !== (b[i] as number)) return (a[i] as number) > (b[i] as number);
  }
  return true;
}
