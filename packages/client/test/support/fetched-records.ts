import type { KafkaRecord } from '@kafkats/codec';
import type { ReadRecordsResult } from '../../src/fetch/internal/fetched-records.js';

/** The record objects of a read's columns, in order; checks that `count` adds them up. */
export function recordsOf(read: ReadRecordsResult): KafkaRecord[] {
  const out: KafkaRecord[] = [];
  for (const c of read.columns) for (let i = 0; i < c.length; i++) out.push(c.record(i));
  if (out.length !== read.count) {
    throw new Error(`the read counts ${read.count} records, its columns hold ${out.length}`);
  }
  return out;
}
