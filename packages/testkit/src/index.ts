export const PACKAGE_NAME = '@kafkats/testkit';
export type {
  Oracle,
  OracleBatchDescription,
  OracleDecodedBatch,
  OracleDecodeItem,
  OracleDecodeResult,
  OracleEncodeItem,
  OracleEncodeResult,
  OracleJavaError,
  OracleRecord,
  OracleSchemaFile,
  StartOracleOptions,
} from './oracle/oracle.js';
export { OracleError, startOracle } from './oracle/oracle.js';
