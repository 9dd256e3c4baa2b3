import {
  partitionName,
  type RemoteLogMetadataEvent,
  type RemoteLogSegmentMetadata,
} from '@kafkats/remote-log-metadata';
import type { Colors } from './terminal.js';

/** A metadata event as `--json` prints it: Kafka's field names, offsets as strings, custom metadata as base64. */
export function eventDocument(event: RemoteLogMetadataEvent): Record<string, unknown> {
  const customMetadata = (b: Buffer | null) => (b === null ? null : b.toString('base64'));
  switch (event.kind) {
    case 'segment':
      return { ...segmentDocument(event), kind: 'segment' };
    case 'segment-update':
      return {
        kind: 'segment-update',
        topicIdPartition: event.remoteLogSegmentId.topicIdPartition,
        segmentId: event.remoteLogSegmentId.id,
        state: event.state,
        brokerId: event.brokerId,
        eventTimestampMs: event.eventTimestampMs,
        customMetadata: customMetadata(event.customMetadata),
      };
    case 'partition-delete':
      return {
        kind: 'partition-delete',
        topicIdPartition: event.topicIdPartition,
        state: event.state,
        brokerId: event.brokerId,
        eventTimestampMs: event.eventTimestampMs,
      };
  }
}

/** One row of the segment table, as `rlmm segments --json` prints it. */
export function segmentDocument(s: RemoteLogSegmentMetadata): Record<string, unknown> {
  return {
    topicIdPartition: s.remoteLogSegmentId.topicIdPartition,
    segmentId: s.remoteLogSegmentId.id,
    state: s.state,
    startOffset: s.startOffset,
    endOffset: s.endOffset,
    segmentLeaderEpochs: s.segmentLeaderEpochs,
    segmentSizeInBytes: s.segmentSizeInBytes,
    brokerId: s.brokerId,
    maxTimestampMs: s.maxTimestampMs,
    eventTimestampMs: s.eventTimestampMs,
    txnIndexEmpty: s.txnIndexEmpty,
    customMetadata: s.customMetadata === null ? null : s.customMetadata.toString('base64'),
  };
}

/** A one-line human description of an event. */
export function describeEvent(event: RemoteLogMetadataEvent, c: Colors): string {
  switch (event.kind) {
    case 'segment':
      return `${c.bold('segment')} ${partitionName(event.remoteLogSegmentId.topicIdPartition)} ${c.dim(event.remoteLogSegmentId.id)} ${stateColor(event.state, c)} offsets ${event.startOffset}-${event.endOffset} epochs ${epochs(event)} ${event.segmentSizeInBytes} B broker ${event.brokerId}`;
    case 'segment-update':
      return `${c.bold('update')}  ${partitionName(event.remoteLogSegmentId.topicIdPartition)} ${c.dim(event.remoteLogSegmentId.id)} ${stateColor(event.state, c)} broker ${event.brokerId}`;
    case 'partition-delete':
      return `${c.bold('delete')}  ${partitionName(event.topicIdPartition)} ${stateColor(event.state, c)} broker ${event.brokerId}`;
  }
}

/** `epoch@startOffset` pairs. */
export function epochs(s: Pick<RemoteLogSegmentMetadata, 'segmentLeaderEpochs'>): string {
  return s.segmentLeaderEpochs.map((e) => `${e.epoch}@${e.startOffset}`).join(',');
}

/** A segment or partition state, green when finished copying, red when deleting. */
export function stateColor(state: string, c: Colors): string {
  if (state === 'COPY_SEGMENT_FINISHED') return c.green(state);
  if (state.startsWith('DELETE')) return c.red(state);
  return c.yellow(state);
}

/** A short segment table (human output), shared by `rlmm segments` and `npm start`. */
export function segmentRows(segments: readonly RemoteLogSegmentMetadata[]): string[][] {
  return segments.map((s) => [
    s.remoteLogSegmentId.id,
    s.state,
    `${s.startOffset}-${s.endOffset}`,
    epochs(s),
    String(s.segmentSizeInBytes),
    String(s.brokerId),
    new Date(Number(s.maxTimestampMs)).toISOString(),
  ]);
}

/** Header of {@link segmentRows}. */
export const SEGMENT_HEADER = [
  'SEGMENT',
  'STATE',
  'OFFSETS',
  'EPOCHS',
  'BYTES',
  'BROKER',
  'MAX-TIMESTAMP',
];
