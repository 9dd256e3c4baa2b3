'use strict';
// The tests' `require('../assignerProtocol')`: kafkajs's public `AssignerProtocol`
// (MemberMetadata and MemberAssignment encode/decode), taken from the facade.
const { facade } = require('./common.cjs');

if (facade.AssignerProtocol === undefined) {
  throw new Error('@kafkats/kafkajs does not export AssignerProtocol');
}
module.exports = facade.AssignerProtocol;
