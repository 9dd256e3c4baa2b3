'use strict';
// The tests' `require('../errors')`: the facade's KafkaJS* classes, so `toThrow(KafkaJSX)` and
// `instanceof` checks test what the facade rejects with.
module.exports = require('./common.cjs').facade;
