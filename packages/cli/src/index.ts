// @kafkats/cli: the `kafkats` command line. The library entry runs it in-process (tests, the
// repository's `npm start`) and names its exit codes and JSON documents.

export { CliError, type CliErrorCode } from './cli-error.js';
export type { ApiVersionRow, BrokerApiVersions } from './commands/api-versions.js';
export type { ClusterDocument } from './commands/cluster.js';
export type { ConsumedRecordDocument } from './commands/consume.js';
export type { GroupDocument } from './commands/groups.js';
export type { OffsetsRow } from './commands/offsets.js';
export type { ProduceDocument } from './commands/produce.js';
export type {
  RlmmPartitionStatus,
  RlmmSegmentsDocument,
  RlmmStatusDocument,
} from './commands/rlmm.js';
export type { ShareGroupDocument, ShareOffsetRow } from './commands/share-groups.js';
export type { PartitionDocument, TopicDocument, TopicSummary } from './commands/topics.js';
export { ExitCode } from './exit-codes.js';
export { main } from './main.js';
export type { ConfigFile } from './settings.js';
export { runSampleJob, SAMPLE_TOPIC, type SampleJobResult } from './start-job.js';
export type { TerminalIo } from './terminal.js';
