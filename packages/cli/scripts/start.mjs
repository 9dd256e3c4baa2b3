#!/usr/bin/env node
// `npm start` at the repository root (not shipped with the package).
//
//   npm start                           embedded single-node Kafka (the testkit's pinned release),
//                                       sample tiered-storage events, then the cluster and segment
//                                       table; on a terminal it stays up for other commands until
//                                       Ctrl-C, otherwise (piped, CI) it stops the broker and exits
//   npm start -- --once                 the same, then stops the broker and exits, even on a terminal
//   npm start -- --stay                 stays up until Ctrl-C (or SIGTERM) even without a terminal
//   npm start -- --bootstrap host:port  read-only against that cluster: cluster, topics, rlmm status
//
// It builds what it needs first (turbo, quiet), so it works on a fresh clone after `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const bootstrap = option('bootstrap');
// Staying up only makes sense for a person at a terminal; a script or CI gets its exit code.
const once =
  args.includes('--once') ||
  (!args.includes('--stay') && !(process.stdin.isTTY === true && process.stdout.isTTY === true));
const colorFlags = args.includes('--no-color') ? ['--no-color'] : [];
const fancy =
  process.stdout.isTTY === true && process.env.NO_COLOR === undefined && colorFlags.length === 0;
const say = (text) =>
  process.stderr.write(fancy ? `\x1b[36mkafkats\x1b[0m ${text}\n` : `kafkats: ${text}\n`);

say('building @kafkats/cli and the packages it needs');
const build = spawnSync(
  'npx',
  ['turbo', 'run', 'build', '--filter=@kafkats/cli...', '--output-logs=errors-only'],
  { cwd: root, encoding: 'utf8' },
);
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}`);
  say('the build failed; see above');
  process.exit(1);
}

const cli = await import('@kafkats/cli');
const run = async (argv) => {
  process.stdout.write('\n');
  return cli.main([...argv, ...colorFlags]);
};

if (bootstrap !== undefined) {
  say(`read-only look at ${bootstrap}`);
  let worst = 0;
  for (const argv of [['cluster'], ['topics'], ['rlmm', 'status']]) {
    const code = await run([...argv, '--bootstrap', bootstrap, '--read-only']);
    // A cluster without tiered storage has no metadata topic: said, not a failure of the tour.
    if (code !== 0 && !(argv[0] === 'rlmm' && code === cli.ExitCode.NOT_FOUND)) worst = code;
    if (code === cli.ExitCode.CONNECTION || code === cli.ExitCode.AUTHENTICATION) break;
  }
  process.exit(worst);
}

// The embedded cluster comes from the testkit (private, in this repository only).
const { startCluster } = await import('@kafkats/testkit');

say(
  'checking the pinned Kafka release (assembled from Maven Central into ~/.cache/kafkats on first use; that takes a few minutes once)',
);
const dist = await new Promise((resolve) => {
  const child = spawn(process.execPath, [join(root, 'packages/testkit/bin/kafka-dist.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.on('close', (code) => resolve(code === 0 ? JSON.parse(out) : undefined));
});
if (dist === undefined) {
  say('could not assemble the Kafka release (needs Java 17+ and Maven Central); see above');
  process.exit(2);
}

let cluster;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (cluster !== undefined) {
    say('stopping the broker');
    await cluster.stop().catch(() => {});
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(130));
process.on('SIGTERM', () => void stop(143));

const started = Date.now();
say(`starting a single-node Kafka ${dist.version} (about a minute)`);
const ticker = setInterval(
  () => say(`still starting (${Math.round((Date.now() - started) / 1000)} s)`),
  15_000,
);
try {
  cluster = await startCluster({ nodes: 1 });
} catch (error) {
  clearInterval(ticker);
  say(`Kafka did not start: ${error.message}`);
  process.exit(2);
}
clearInterval(ticker);
if (stopping) await stop(130);
say(
  `Kafka ${dist.version} up at ${cluster.bootstrap} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);

let code = 0;
try {
  process.stdout.write('\n');
  const job = await cli.runSampleJob(cluster.bootstrap, undefined, { color: fancy });
  const b = ['--bootstrap', cluster.bootstrap];
  for (const argv of [
    ['cluster', ...b],
    ['rlmm', 'segments', job.topic, '0', ...b],
    ['rlmm', 'segments', job.topic, '1', ...b],
    ['rlmm', 'status', ...b],
  ]) {
    const c = await run(argv);
    if (c !== 0) code = c;
  }
} catch (error) {
  say(`the sample job failed: ${error.message}`);
  code = 1;
}

if (once || stopping || code !== 0) await stop(code);
process.stdout.write(`
The broker stays up for you to try (Ctrl-C stops it):
  npx kafkats -b ${cluster.bootstrap} topics
  npx kafkats -b ${cluster.bootstrap} consume orders --count 5
  echo hello | npx kafkats -b ${cluster.bootstrap} produce orders --key greeting
  npx kafkats -b ${cluster.bootstrap} rlmm tail --from-beginning --json
`);
// Nothing else holds the process open: this waits for Ctrl-C.
setInterval(() => {}, 1 << 30);
