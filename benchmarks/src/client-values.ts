/**
 * The record values every contestant of the client suite sends and reads, generated once per
 * value size: a pool of distinct JSON-like ASCII texts (no newline, so that Kafka's
 * ProducerPerformance can read the same pool from a `--payload-file`), each exactly `size`
 * bytes, from a seeded generator so that every run and every process sees the same bytes.
 * Text rather than random bytes: lz4 then compresses them about as much as typical event
 * payloads, instead of not at all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32c } from '@node-rs/crc32';
import { mulberry32 } from './seeded-random.js';

/** Distinct values per pool; record i carries pool[i % POOL_SIZE]. */
export const POOL_SIZE = 1000;

const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november ' +
  'oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu order cart ' +
  'checkout payment refund shipment invoice customer account session click view search ' +
  'login logout signup update delete create retry timeout success failure pending region ' +
  'europe america asia mobile desktop tablet android ios web'
).split(' ');
const EVENTS = ['click', 'view', 'purchase', 'search', 'login', 'logout', 'signup', 'refund'];

/** The pool of `POOL_SIZE` values of exactly `size` bytes (ASCII), deterministic for a size. */
export function makeValues(size: number): Buffer[] {
  const random = mulberry32(0x6b61666b ^ size);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const values: Buffer[] = [];
  for (let i = 0; i < POOL_SIZE; i++) {
    let text =
      `{"seq":${i},"user":"user-${Math.floor(random() * 100_000)}","event":"${pick(EVENTS)}",` +
      `"amount":${(random() * 1000).toFixed(2)},"ts":${1_700_000_000_000 + Math.floor(random() * 1e9)},"note":"`;
    while (text.length < size) text += `${pick(WORDS)} `;
    values.push(Buffer.from(`${text.slice(0, size - 2)}"}`, 'ascii'));
  }
  return values;
}

/** Writes the pool one value per line (ProducerPerformance's `--payload-file`, delimiter `\n`). */
export function writeValuesFile(path: string, values: readonly Buffer[]): void {
  writeFileSync(path, values.map((v) => v.toString('ascii')).join('\n'));
}

/** Reads a pool written by {@link writeValuesFile}. */
export function readValuesFile(path: string): Buffer[] {
  return readFileSync(path, 'ascii')
    .split('\n')
    .map((line) => Buffer.from(line, 'ascii'));
}

/**
 * The checksum readers compute: the sum of CRC-32C of every value read, in order-free form
 * (a plain sum, exact below 2^53: 2^32 per record leaves room for 2 million records).
 */
export function valueChecksum(value: Uint8Array): number {
  return crc32c(value);
}

/** The checksum of records 0..n-1 of a topic written as pool[i % POOL_SIZE]. */
export function expectedChecksum(values: readonly Buffer[], n: number): number {
  const crcs = values.map((v) => crc32c(v));
  let sum = 0;
  for (let i = 0; i < n; i++) sum += crcs[i % crcs.length] as number;
  return sum;
}
