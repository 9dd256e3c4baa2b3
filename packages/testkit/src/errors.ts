/**
 * Stable string codes of every error the testkit throws. The testkit sits beside the library
 * packages (it imports none of them), so its errors extend `Error` directly rather than
 * `KafkaError`, but follow the same `ERR_KAFKA_<NOUN>_<PROBLEM>` naming.
 */
export const TestkitErrorCode = {
  /** A cluster (or one node of it) did not become ready; the message carries the log tails. */
  ClusterStartFailed: 'ERR_KAFKA_TESTKIT_CLUSTER_START_FAILED',
  /** An operation on a cluster that was stopped, or on a node id it does not have. */
  ClusterState: 'ERR_KAFKA_TESTKIT_CLUSTER_STATE',
  /** A Java tool (StorageTool, javac, openssl) failed. */
  ToolFailed: 'ERR_KAFKA_TESTKIT_TOOL_FAILED',
  /** The Java admin answered a request with an exception (see `javaType`). */
  JavaAdminRequestFailed: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_REQUEST_FAILED',
  /** The Java admin process died, never became ready, or did not answer in time. */
  JavaAdminUnavailable: 'ERR_KAFKA_TESTKIT_JAVA_ADMIN_UNAVAILABLE',
  /** No free port could be reserved. */
  PortsExhausted: 'ERR_KAFKA_TESTKIT_PORTS_EXHAUSTED',
  /** A requested backend cannot run here (e.g. testcontainers without a Docker engine). */
  BackendUnavailable: 'ERR_KAFKA_TESTKIT_BACKEND_UNAVAILABLE',
  /** The option or operation is not supported by the selected backend. */
  Unsupported: 'ERR_KAFKA_TESTKIT_UNSUPPORTED',
  /** `sharedCluster()` was called outside an integration run started with the testkit setup. */
  NoSharedCluster: 'ERR_KAFKA_TESTKIT_NO_SHARED_CLUSTER',
} as const;
/** One of the {@link TestkitErrorCode} values. */
export type TestkitErrorCode = (typeof TestkitErrorCode)[keyof typeof TestkitErrorCode];

/** Every error thrown by the testkit. None is retriable: a test harness failure is final. */
export class TestkitError extends Error {
  override name = 'TestkitError';
  readonly code: TestkitErrorCode;
  readonly retriable = false;
  constructor(code: TestkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The Java admin answered with an exception; `javaType` is its simple class name. */
export class JavaAdminError extends TestkitError {
  override name = 'JavaAdminError';
  /** Simple class name of the Java exception, e.g. `TopicAuthorizationException`. */
  readonly javaType: string;
  /** The operation that failed, e.g. `consume`. */
  readonly op: string;
  constructor(op: string, javaType: string, message: string) {
    super(TestkitErrorCode.JavaAdminRequestFailed, `java admin ${op}: ${javaType}: ${message}`);
    this.op = op;
    this.javaType = javaType;
  }
}
