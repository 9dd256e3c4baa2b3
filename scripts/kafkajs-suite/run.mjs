#!/usr/bin/env node
// Runs kafkajs 2.2.4's own tests of its public API (producer, consumer, admin, transactions)
// against @kafkats/kafkajs on real brokers, and prints per spec file how many tests passed,
// failed, were not applicable (skipped by this harness, with the reason) or were skipped by
// kafkajs itself (Kafka-version and OAUTHBEARER gates, test.skip).
//
//   node scripts/kafkajs-suite/run.mjs <kafkajs git dir or checkout>
//        [--bootstrap host:port[,host:port...]]
//        [--kafka-up [--nodes 1|3] [--listeners SSL,SASL_SSL] [--acls]]
//        [--group producer|consumer|admin[,...]] [--facade worktree|dist|<commit>]
//        [--baseline] [--auto-create] [--timeout ms] [--keep] [spec files...]
//
// The widest run (SSL, SASL and ACL specs included, auto topic creation on):
//   node scripts/kafkajs-suite/run.mjs <kafkajs git dir or checkout> \
//        --kafka-up --listeners SSL,SASL_SSL --acls
//
// --baseline runs the same specs, same adapted testHelpers, on kafkajs 2.2.4 itself: what
// fails there fails because of the broker (Kafka 4, auto topic creation off), not the facade.
// --auto-create says a --bootstrap broker creates topics on first use (kafka:up and
// --kafka-up clusters are probed).
//
// --facade: `worktree` (default) builds packages/kafkajs with tsc -b and bundles its dist;
// `dist` bundles packages/kafkajs/dist as it is, without building; a commit (HEAD, a sha)
// bundles that commit's sources of packages/kafkajs and of the @kafkats/* packages it imports,
// so the suite runs on what was committed while the working tree is being edited.
//
// Broker: --bootstrap; --kafka-up starts a private cluster with the testkit for this run
// (auto topic creation on, as kafkajs's docker-compose brokers had it; stopped at the end);
// else the cluster recorded in .kafkats/cluster.json (`npm run kafka:up`). The kafkajs tree is
// exported from its v2.2.4 tag into a temporary directory, never into this repository; jest
// and its helpers are installed, pinned, in ~/.cache/kafkats/kafkajs-suite.
//
// Only setup is adapted: the specs run byte for byte, their `createProducer/createConsumer/
// createAdmin`, `../errors` and `testHelpers` imports resolved to shims/ (resolver.cjs), which
// build facade clients the way a kafkajs user does: `new Kafka(config).producer(options)`.
// The specs were written for jest 25; setup.cjs gives them what jest 29 dropped (async hooks
// that also take `done`, jest-extended 0.11's matchers, jest 25's snapshot format).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const TAG = 'v2.2.4';
/** Pinned test dependencies, installed outside the repository. */
const DEPENDENCIES = {
  jest: '29.7.0',
  'jest-extended': '0.11.5',
  uuid: '3.4.0',
  esbuild: '0.28.2',
};
/** The @kafkats packages the facade is built on, bundled from source in commit mode. */
const WORKSPACE_DEPENDENCIES = ['client', 'meta', 'wire', 'codec'];
const GROUPS = {
  producer: /^src\/producer\/(index\.spec\.js|__tests__\/.+\.spec\.js)$/,
  consumer: /^src\/consumer\/__tests__\/.+\.spec\.js$/,
  admin: /^src\/admin\/(index\.spec\.js|__tests__\/.+\.spec\.js)$/,
};

function parseArgs(argv) {
  const args = {
    files: [],
    listeners: [],
    groups: Object.keys(GROUPS),
    timeoutMs: 30000,
    facade: 'worktree',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    if (a === '--bootstrap') args.bootstrap = value();
    else if (a === '--kafka-up') args.kafkaUp = true;
    else if (a === '--nodes') args.nodes = Number(value());
    else if (a === '--acls') args.acls = true;
    else if (a === '--baseline') args.baseline = true;
    else if (a === '--auto-create') args.autoCreate = true;
    else if (a === '--listeners') args.listeners = value().split(',').filter(Boolean);
    else if (a === '--group') args.groups = value().split(',');
    else if (a === '--timeout') args.timeoutMs = Number(value());
    else if (a === '--facade') args.facade = value();
    else if (a === '--keep') args.keep = true;
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (args.source === undefined) args.source = a;
    else args.files.push(a.replace(/^\.\//, ''));
  }
  if (args.source === undefined) usage('the kafkajs git dir or checkout is required');
  for (const g of args.groups) if (!(g in GROUPS)) usage(`unknown group ${g}`);
  return args;
}

function usage(problem) {
  process.stderr.write(
    `kafkajs-suite: ${problem}\nusage: node scripts/kafkajs-suite/run.mjs <kafkajs git dir or checkout> [--bootstrap host:port,...] [--kafka-up [--nodes 1|3] [--listeners SSL,SASL_SSL] [--acls]] [--group producer,consumer,admin] [--facade worktree|dist|<commit>] [--baseline] [--auto-create] [--timeout ms] [--keep] [spec files...]\n`,
  );
  process.exit(2);
}

function log(line) {
  process.stderr.write(`kafkajs-suite: ${line}\n`);
}

/** Exports the v2.2.4 tree of a bare git dir or a checkout, or copies a plain directory. */
function exportTree(source, into) {
  mkdirSync(into, { recursive: true });
  const gitDir = existsSync(join(source, 'HEAD'))
    ? source
    : existsSync(join(source, '.git'))
      ? join(source, '.git')
      : undefined;
  if (gitDir !== undefined) {
    const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', TAG], {
      maxBuffer: 1 << 30,
    });
    execFileSync('tar', ['-x', '-C', into], { input: archive });
  } else {
    const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
    if (pkg.name !== 'kafkajs' || pkg.version !== TAG.slice(1))
      throw new Error(`${source} is not a kafkajs ${TAG} checkout (${pkg.name}@${pkg.version})`);
    cpSync(source, into, { recursive: true, filter: (p) => !p.includes('node_modules') });
  }
  if (!existsSync(join(into, 'testHelpers', 'index.js')))
    throw new Error(`${source}: ${TAG} has no testHelpers/ (not a kafkajs source tree?)`);
}

/** jest and the specs' own npm imports, pinned, in a cache folder outside the repository. */
function installDependencies() {
  const cache = join(homedir(), '.cache', 'kafkats', 'kafkajs-suite');
  mkdirSync(cache, { recursive: true });
  const manifest = `${JSON.stringify({ name: 'kafkajs-suite-deps', private: true, dependencies: DEPENDENCIES }, null, 2)}\n`;
  const manifestPath = join(cache, 'package.json');
  const installed = Object.keys(DEPENDENCIES).every((name) => {
    const p = join(cache, 'node_modules', name, 'package.json');
    return existsSync(p) && JSON.parse(readFileSync(p, 'utf8')).version === DEPENDENCIES[name];
  });
  if (installed && existsSync(manifestPath) && readFileSync(manifestPath, 'utf8') === manifest)
    return cache;
  writeFileSync(manifestPath, manifest);
  log(
    `installing ${Object.entries(DEPENDENCIES)
      .map(([n, v]) => `${n}@${v}`)
      .join(' ')} into ${cache}`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: cache,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`npm install in ${cache} failed`);
  return cache;
}

/**
 * Bundles @kafkats/kafkajs into one CommonJS file jest can require: the working tree's build
 * (tsc -b first), or a commit's sources. `import.meta.url` becomes each source file's own URL
 * so createRequire keeps resolving optional packages from where the file lives.
 */
async function bundleFacade(cache, outfile, from, work) {
  let entry = join(repoRoot, 'packages', 'kafkajs', 'dist', 'index.js');
  const alias = {};
  // A file's own place in the repository: where createRequire finds optional packages.
  let repositoryPath = (path) => path;
  if (from === 'worktree') {
    const tsc = spawnSync('npx', ['tsc', '-b', 'packages/kafkajs'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    if (tsc.status !== 0) throw new Error('tsc -b packages/kafkajs failed');
  } else if (from !== 'dist') {
    const into = join(work, 'facade-src');
    mkdirSync(into);
    const packages = ['kafkajs', ...WORKSPACE_DEPENDENCIES];
    const archive = execFileSync(
      'git',
      ['archive', '--format=tar', from, ...packages.map((p) => `packages/${p}/src`)],
      { cwd: repoRoot, maxBuffer: 1 << 30 },
    );
    execFileSync('tar', ['-x', '-C', into], { input: archive });
    entry = join(into, 'packages', 'kafkajs', 'src', 'index.ts');
    for (const p of WORKSPACE_DEPENDENCIES)
      alias[`@kafkats/${p}`] = join(into, 'packages', p, 'src', 'index.ts');
    repositoryPath = (path) => join(repoRoot, relative(into, path));
    const sha = execFileSync('git', ['rev-parse', '--short', from], { cwd: repoRoot });
    log(`facade from commit ${String(sha).trim()}`);
  }
  const esbuild = createRequire(join(cache, 'package.json'))('esbuild');
  const importMetaUrl = {
    name: 'import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.[jt]s$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const url = JSON.stringify(pathToFileURL(repositoryPath(args.path)).href);
        const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
        return { contents: text.replaceAll('import.meta.url', url), loader };
      });
    },
  };
  await esbuild.build({
    entryPoints: [entry],
    alias,
    nodePaths: [join(repoRoot, 'node_modules')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    plugins: [importMetaUrl],
  });
}

/** The broker: --bootstrap, a private testkit cluster (--kafka-up), or the kafka:up one. */
async function findCluster(args, work) {
  const stateFile = join(repoRoot, '.kafkats', 'cluster.json');
  if (args.bootstrap !== undefined) {
    return { description: { bootstrap: args.bootstrap, listeners: {}, security: null } };
  }
  if (args.kafkaUp) {
    const { loadTestkit } = await import(
      pathToFileURL(join(repoRoot, 'packages', 'testkit', 'bin', 'load-testkit.mjs')).href
    );
    const { startCluster } = await loadTestkit();
    const nodes = args.nodes ?? 3;
    const listeners = args.listeners.join(',') || 'PLAINTEXT';
    log(`starting a private ${nodes}-node Kafka (${listeners}${args.acls ? ', ACLs' : ''})`);
    const cluster = await startCluster({
      nodes,
      listeners: args.listeners,
      acls: args.acls === true,
      brokerConfig: { 'auto.create.topics.enable': true },
      baseDir: join(work, 'kafka'),
    });
    return { description: cluster.describe(), stop: () => cluster.stop() };
  }
  if (existsSync(stateFile)) {
    return { description: JSON.parse(readFileSync(stateFile, 'utf8')) };
  }
  usage('no broker: pass --bootstrap or --kafka-up, or run npm run kafka:up first');
}

/** Whether the brokers create topics on first use, as kafkajs's test brokers did. */
function autoCreatesTopics(description, args) {
  if (args.kafkaUp) return true;
  const properties = join(description.baseDir ?? '', 'node-1', 'server.properties');
  if (description.baseDir === undefined || !existsSync(properties)) return args.autoCreate === true;
  return /^auto\.create\.topics\.enable=true$/m.test(readFileSync(properties, 'utf8'));
}

/** What test-helpers.cjs needs to know about the broker. */
function target(description) {
  const list = (s) => (s === undefined ? null : s.split(','));
  const security = description.security ?? null;
  return {
    plaintext: list(description.bootstrap),
    ssl: list(description.listeners?.SSL),
    saslSsl: list(description.listeners?.SASL_SSL),
    caPemPath: security?.caPemPath ?? null,
    // kafkajs's test users, as the testkit's: the super user, and alice and bob for ACL tests.
    users:
      security === null
        ? {}
        : {
            test: security.admin,
            testscram: security.admin,
            alice: security.users.find((u) => u.username === 'alice') ?? null,
            bob: security.users.find((u) => u.username === 'bob') ?? null,
          },
  };
}

function walk(dir, root = dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, root, out);
    else out.push(relative(root, p).split('\\').join('/'));
  }
  return out;
}

/** Copies the chosen specs, unchanged, with their fixtures and snapshots into the facade tree. */
function facadeTree(kafkajsTree, into, args) {
  const all = walk(join(kafkajsTree, 'src'), kafkajsTree);
  const specs = all.filter((f) => args.groups.some((g) => GROUPS[g].test(f)));
  const chosen = args.files.length === 0 ? specs : specs.filter((f) => args.files.includes(f));
  for (const f of args.files)
    if (!specs.includes(f)) usage(`${f} is not one of the producer/consumer/admin API specs`);
  const support = all.filter(
    (f) => /\/__tests__\/(fixtures|__snapshots__)\//.test(f) || /\/__snapshots__\//.test(f),
  );
  for (const f of [...chosen, ...support]) {
    mkdirSync(dirname(join(into, f)), { recursive: true });
    cpSync(join(kafkajsTree, f), join(into, f));
  }
  return chosen.sort();
}

function table(results, naLog, files) {
  const na = existsSync(naLog)
    ? readFileSync(naLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  const rows = [];
  const failures = [];
  const byFile = new Map((results?.testResults ?? []).map((r) => [r.name, r]));
  for (const file of files) {
    const r = [...byFile.entries()].find(([name]) => name.endsWith(`/${file}`))?.[1];
    const tests = r?.assertionResults ?? [];
    const count = (s) => tests.filter((t) => t.status === s).length;
    const naHere = na.filter((n) => n.file === file).length;
    const pending = count('pending') + count('skipped') + count('todo');
    const row = {
      file,
      passed: count('passed'),
      failed: count('failed'),
      na: naHere,
      skipped: pending - naHere,
      suiteError:
        r === undefined
          ? 'not run'
          : r.status === 'failed' && tests.length === 0
            ? firstLine(r.message)
            : '',
    };
    rows.push(row);
    for (const t of tests.filter((t) => t.status === 'failed'))
      failures.push({ file, test: t.fullName, error: firstLine(t.failureMessages?.[0] ?? '') });
    if (row.suiteError !== '') failures.push({ file, test: '(file)', error: row.suiteError });
  }
  return { rows, failures, na };
}

function firstLine(message) {
  const clean = String(message).replace(
    new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'),
    '',
  );
  return (
    clean
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && !l.startsWith('●')) ?? ''
  );
}

function printTable({ rows, failures, na }) {
  const width = Math.max(...rows.map((r) => r.file.length), 4);
  const line = (f, p, x, n, s) =>
    `${f.padEnd(width)}  ${String(p).padStart(6)}  ${String(x).padStart(6)}  ${String(n).padStart(6)}  ${String(s).padStart(7)}`;
  const out = [line('file', 'passed', 'failed', 'n/a', 'skipped'), '-'.repeat(width + 34)];
  const total = { passed: 0, failed: 0, na: 0, skipped: 0 };
  for (const r of rows) {
    out.push(
      line(r.file, r.passed, r.failed, r.na, r.skipped) +
        (r.suiteError ? `  (${r.suiteError})` : ''),
    );
    for (const k of Object.keys(total)) total[k] += r[k];
  }
  out.push(
    '-'.repeat(width + 34),
    line('total', total.passed, total.failed, total.na, total.skipped),
  );
  out.push('', 'n/a: not applicable, skipped by the harness; skipped: skipped by kafkajs itself');
  if (failures.length > 0) {
    out.push('', 'failures:');
    for (const f of failures) out.push(`  ${f.file} > ${f.test}`, `      ${f.error}`);
  }
  const reasons = new Map();
  for (const n of na)
    reasons.set(`${n.file}: ${n.reason}`, (reasons.get(`${n.file}: ${n.reason}`) ?? 0) + 1);
  if (reasons.size > 0) {
    out.push('', 'not applicable:');
    for (const [reason, count] of reasons) out.push(`  ${count} x ${reason}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return total;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'kafkajs-suite-'));
  const kafkajsTree = join(work, 'kafkajs');
  const suiteTree = join(work, 'suite');
  let cluster;
  try {
    log(`exporting kafkajs ${TAG} from ${args.source} into ${kafkajsTree}`);
    exportTree(resolve(args.source), kafkajsTree);
    const cache = installDependencies();
    const facade = join(work, 'facade.cjs');
    await bundleFacade(cache, facade, args.facade, work);
    const files = facadeTree(kafkajsTree, suiteTree, args);
    cluster = await findCluster(args, work);
    const description = cluster.description;
    const naLog = join(work, 'not-applicable.jsonl');
    const resultsFile = join(work, 'results.json');
    const config = {
      rootDir: suiteTree,
      roots: ['<rootDir>'],
      testEnvironment: 'node',
      testRegex: '(/__tests__/.*\\.spec\\.js|(\\.|/)spec)\\.js$',
      transform: {},
      // kafkajs's snapshots were written by jest 25, which printed `Object {`.
      snapshotFormat: { escapeString: true, printBasicPrototype: true },
      resolver: join(here, 'resolver.cjs'),
      setupFilesAfterEnv: [join(here, 'setup.cjs')],
      modulePaths: [join(cache, 'node_modules')],
      cacheDirectory: join(work, 'jest-cache'),
      watchman: false,
    };
    writeFileSync(join(work, 'jest.config.json'), JSON.stringify(config, null, 2));
    // What the broker offers, for not-applicable.cjs's `needs`.
    const capabilities = Object.keys(description.listeners ?? {}).map((l) =>
      l === 'SSL' ? 'ssl' : l === 'SASL_SSL' ? 'sasl' : l.toLowerCase(),
    );
    if (description.acls === true) capabilities.push('acls');
    if (description.brokers?.some((b) => b.nodeId === 0)) capabilities.push('broker0');
    if (autoCreatesTopics(description, args)) capabilities.push('autocreate');
    if (Number(String(description.kafkaVersion ?? '4').split('.')[0]) < 4)
      capabilities.push('kafka-before-4');
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      KAFKA_VERSION: description.kafkaVersion ?? '4.0',
      KAFKAJS_SUITE_FACADE: facade,
      KAFKAJS_SUITE_KAFKAJS_TREE: kafkajsTree,
      KAFKAJS_SUITE_FACADE_TREE: suiteTree,
      KAFKAJS_SUITE_CLUSTER: JSON.stringify(target(description)),
      KAFKAJS_SUITE_CAPABILITIES: capabilities.join(','),
      KAFKAJS_SUITE_NA_LOG: naLog,
      KAFKAJS_SUITE_TIMEOUT_MS: String(args.timeoutMs),
      KAFKAJS_SUITE_BASELINE: args.baseline ? '1' : '0',
    };
    log(
      `running ${files.length} spec files on ${args.baseline ? 'kafkajs 2.2.4 itself (baseline)' : '@kafkats/kafkajs'} against ${description.bootstrap} (Kafka ${env.KAFKA_VERSION})`,
    );
    const started = Date.now();
    spawnSync(
      process.execPath,
      [
        join(cache, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--config',
        join(work, 'jest.config.json'),
        '--runInBand',
        '--ci',
        '--forceExit',
        '--json',
        '--outputFile',
        resultsFile,
        ...files.map((f) => join(suiteTree, f)),
      ],
      { cwd: kafkajsTree, env, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : null;
    log(`jest finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const total = printTable(table(results, naLog, files));
    if (args.keep) {
      // What a manual re-run of jest in the kept tree needs (e.g. after adding logging there).
      const suiteEnv = Object.fromEntries(
        Object.entries(env).filter(
          ([k]) => k.startsWith('KAFKAJS_SUITE_') || k === 'KAFKA_VERSION',
        ),
      );
      writeFileSync(join(work, 'env.json'), `${JSON.stringify(suiteEnv, null, 2)}\n`);
      log(`kept ${work} (jest config and env.json there)`);
    }
    process.exitCode = total.failed > 0 || results === null ? 1 : 0;
  } finally {
    await cluster?.stop?.();
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
}

await main();
