'use strict';
// setupFilesAfterEnv for the suite: what kafkajs's own test setup provides (a per-test
// timeout, jest-extended, the `optional` and `toBeTypeOrNull` matchers), and the harness's
// one addition: tests listed in not-applicable.cjs are registered as skipped, and each is
// logged with its reason for run.mjs's table.
const fs = require('node:fs');
const path = require('node:path');
const { env } = process;
const notApplicable = require('./not-applicable.cjs');

jest.setTimeout(Number(env.KAFKAJS_SUITE_TIMEOUT_MS ?? 30000));
require('jest-extended');

expect.extend({
  optional(received, value) {
    const pass = received === undefined || received === value;
    return {
      pass,
      message: () => `expected ${received} to ${pass ? 'not ' : ''}be undefined or ${value}`,
    };
  },
  toBeTypeOrNull(received, type) {
    const pass = received === null || this.equals(received, expect.any(type));
    return { pass, message: () => `expected ${received} to be a ${type.name} or null` };
  },
});

// kafkajs's specs ran on jest-circus 25, which accepted an async function that also takes
// `done` (it waited for done). jest 29 rejects that shape, so such hooks and tests are given
// to jest as a promise that settles with done, or rejects with the function's own rejection.
const isAsyncWithDone = (fn) =>
  typeof fn === 'function' && fn.length >= 1 && fn.constructor.name === 'AsyncFunction';
const doneToPromise = (fn) =>
  isAsyncWithDone(fn)
    ? function withDone() {
        return new Promise((resolve, reject) => {
          const done = (error) => (error ? reject(error) : resolve());
          done.fail = (error) => reject(error ?? new Error('done.fail()'));
          fn.call(this, done).catch(reject);
        });
      }
    : fn;
for (const hook of ['beforeEach', 'afterEach', 'beforeAll', 'afterAll']) {
  const original = global[hook];
  global[hook] = (fn, timeout) => original(doneToPromise(fn), timeout);
}

const specFile = path
  .relative(env.KAFKAJS_SUITE_FACADE_TREE, expect.getState().testPath)
  .split(path.sep)
  .join('/');
const capabilities = new Set((env.KAFKAJS_SUITE_CAPABILITIES ?? '').split(','));
const entries = (notApplicable[specFile] ?? []).filter(
  (e) => e.needs === undefined || e.needs.some((n) => !capabilities.has(n)),
);

const describes = [];
const reasonFor = (title) => {
  const full = [...describes, title].join(' ');
  for (const e of entries) {
    if (typeof e.match === 'string' ? full.includes(e.match) : e.match.test(full)) return e.reason;
  }
  return undefined;
};

function wrapTest(original) {
  const wrapped = (title, fn, timeout) => {
    const reason = entries.length === 0 ? undefined : reasonFor(title);
    if (reason === undefined) return original(title, doneToPromise(fn), timeout);
    fs.appendFileSync(
      env.KAFKAJS_SUITE_NA_LOG,
      `${JSON.stringify({ file: specFile, test: [...describes, title].join(' '), reason })}\n`,
    );
    return original.skip(title, fn);
  };
  return Object.assign(wrapped, original);
}

function wrapDescribe(original) {
  const wrapped = (title, fn) =>
    original(title, () => {
      describes.push(title);
      try {
        return fn();
      } finally {
        describes.pop();
      }
    });
  return Object.assign(wrapped, original);
}

global.test = wrapTest(global.test);
global.it = wrapTest(global.it);
global.describe = wrapDescribe(global.describe);
