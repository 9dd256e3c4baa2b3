import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type KafkaDist, kafkaDist } from '../dist.js';
import { cacheRoot } from '../java.js';

// Class data sharing for the broker JVMs: a dynamic CDS archive (JDK 13+) of the classes a
// broker loads at start-up, pre-parsed and pre-verified. Measured on the two-core machine, a
// broker spends ~2.8 s of CPU to start with the archive and ~4.7 s without. The archive is
// written by one broker started with -XX:ArchiveClassesAtExit and stopped gracefully; it is
// keyed by Kafka release and JVM build, and a JVM that cannot use it simply starts without.

let javaBuild: string | undefined;

function javaBuildId(): string {
  if (javaBuild === undefined) {
    const run = spawnSync('java', ['-version'], { encoding: 'utf8' });
    javaBuild = createHash('sha256')
      .update(`${run.stderr ?? ''}${run.stdout ?? ''}`)
      .digest('hex')
      .slice(0, 12);
  }
  return javaBuild;
}

/** Where the broker archive for this Kafka release and JVM lives (it may not exist yet). */
export function brokerArchivePath(dist: KafkaDist = kafkaDist()): string {
  return join(cacheRoot(), 'cds', `broker-${dist.version}-${dist.scala}-${javaBuildId()}.jsa`);
}

/** JVM flags to use the archive when present; silent when it is missing or unusable. */
export function useArchiveFlags(path: string): string[] {
  return existsSync(path)
    ? ['-Xshare:auto', `-XX:SharedArchiveFile=${path}`, '-Xlog:cds*=off']
    : [];
}

/** JVM flags that make this broker write a fresh archive to `tmp` when it exits gracefully. */
export function createArchiveFlags(tmp: string): string[] {
  mkdirSync(join(tmp, '..'), { recursive: true });
  return [`-XX:ArchiveClassesAtExit=${tmp}`, '-Xlog:cds*=off'];
}

/** Moves a freshly written archive into place; drops a missing or empty one. */
export function publishArchive(tmp: string, path: string): void {
  try {
    if (existsSync(tmp) && statSync(tmp).size > 0) renameSync(tmp, path);
  } catch {
    // another process published first: theirs is equivalent
  }
  rmSync(tmp, { force: true });
}
