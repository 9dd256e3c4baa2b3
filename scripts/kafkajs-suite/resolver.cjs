'use strict';
// jest resolver for the suite. The spec files are copied, unchanged, into a "facade tree"; a
// module they require is found there when it is one of the shims (the client factories,
// errors, testHelpers) and otherwise in the exported kafkajs tree at the same relative path,
// where kafkajs's own modules keep resolving among themselves as usual.
const path = require('node:path');
const { env } = process;

const facadeTree = env.KAFKAJS_SUITE_FACADE_TREE;
const kafkajsTree = env.KAFKAJS_SUITE_KAFKAJS_TREE;
const shims = path.join(__dirname, 'shims');

/**
 * Facade-tree paths (no extension) that the shims stand for. In a baseline run
 * (KAFKAJS_SUITE_BASELINE=1) there are none: the same specs run on kafkajs 2.2.4 itself, with
 * only testHelpers adapted, to tell the broker's differences from the facade's.
 */
const SHIMS = new Map(
  env.KAFKAJS_SUITE_BASELINE === '1'
    ? []
    : [
        ['src/producer', 'producer.cjs'],
        ['src/producer/index', 'producer.cjs'],
        ['src/consumer', 'consumer.cjs'],
        ['src/consumer/index', 'consumer.cjs'],
        ['src/admin', 'admin.cjs'],
        ['src/admin/index', 'admin.cjs'],
        ['src/errors', 'errors.cjs'],
        ['src/consumer/assignerProtocol', 'assigner-protocol.cjs'],
      ],
);

module.exports = (request, options) => {
  if (request === 'testHelpers') return path.join(shims, 'test-helpers.cjs');
  const inFacadeTree =
    options.basedir === facadeTree || options.basedir.startsWith(facadeTree + path.sep);
  if (inFacadeTree && (request.startsWith('./') || request.startsWith('../'))) {
    const relative = path
      .relative(facadeTree, path.resolve(options.basedir, request))
      .split(path.sep)
      .join('/')
      .replace(/\.js$/, '');
    const shim = SHIMS.get(relative);
    if (shim !== undefined) return path.join(shims, shim);
    try {
      return options.defaultResolver(request, options);
    } catch {
      return options.defaultResolver(path.join(kafkajsTree, relative), options);
    }
  }
  return options.defaultResolver(request, options);
};
