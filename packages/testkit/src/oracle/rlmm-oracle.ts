import { kafkaDist } from '../dist.js';
import { TestkitError, TestkitErrorCode } from '../errors.js';
import { compileJava, run, toolJvmFlags } from '../java.js';

/**
 * Runs a batch of requests through `java/RlmmOracle.java`: Kafka's own
 * `RemoteLogMetadataSerde`, `RemoteLogMetadataTopicPartitioner` and
 * `RemotePartitionMetadataStore` from the pinned kafka-storage jar. One JVM per call, so batch
 * the requests. The request and answer shapes are described at the top of the Java file (int64
 * as decimal strings, bytes as base64, uuids as Kafka's base64url text).
 *
 * @returns one answer per request, in order; a request Kafka refused answers `{ error }`
 * @throws TestkitError ERR_KAFKA_TESTKIT_TOOL_FAILED when the JVM fails or its output is not JSON
 */
export async function runRlmmOracle(requests: readonly unknown[]): Promise<unknown[]> {
  const classes = await compileJava('RlmmOracle');
  const dist = kafkaDist();
  const result = await run(
    'java',
    [...toolJvmFlags(), '-cp', `${classes}:${dist.classpath}`, 'RlmmOracle'],
    { timeoutMs: 120_000, input: JSON.stringify(requests) },
  );
  if (result.status !== 0) {
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `RlmmOracle exited with ${result.status}: ${result.stderr.slice(-2000)}`,
    );
  }
  try {
    return JSON.parse(result.stdout) as unknown[];
  } catch {
    throw new TestkitError(
      TestkitErrorCode.ToolFailed,
      `RlmmOracle wrote no JSON: ${result.stdout.slice(0, 500)} ${result.stderr.slice(-1000)}`,
    );
  }
}
