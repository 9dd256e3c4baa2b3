import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TestkitError, TestkitErrorCode } from './errors.js';
import { packageRoot } from './internal/paths.js';

/** Where the pinned Kafka release's jars are (see bin/kafka-dist.mjs). */
export interface KafkaDist {
  version: string;
  scala: string;
  home: string;
  libDir: string;
  /** `<libDir>/*`, ready for `java -cp`. */
  classpath: string;
}

let cached: KafkaDist | undefined;

/**
 * Assembles (first use) or verifies the cached Kafka release and says where it is. Runs the
 * plain-JS assembler in a child so there is one implementation for scripts and library alike.
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when Maven cannot resolve the release.
 */
export function kafkaDist(): KafkaDist {
  if (cached !== undefined) return cached;
  const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'kafka-dist.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (run.status !== 0) {
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `kafka-dist failed (exit ${run.status}): ${run.stderr.slice(-2000)}`,
    );
  }
  cached = JSON.parse(run.stdout) as KafkaDist;
  return cached;
}
